#!/usr/bin/env python3
"""Set up and run Rat um Rad online with nothing but Python 3.11 and pip.

    python3 dev.py run                  # serve the site on http://127.0.0.1:8000/
    python3 dev.py test [pytest args]   # ruff check, ruff format --check, then pytest

Both create `.venv` when missing and reinstall `.[dev]` whenever pyproject.toml has changed
since the last install (its hash is kept in a stamp file inside .venv).
"""

import hashlib
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if sys.platform == "win32" else "bin")
PYTHON = BIN / "python"
STAMP = VENV / "pyproject.sha256"


def call(*args: str | Path) -> int:
    return subprocess.call([str(a) for a in args], cwd=ROOT)


def setup() -> None:
    if not PYTHON.exists():
        print("Creating .venv ...", flush=True)
        venv.create(VENV, with_pip=True)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text().strip() != digest:
        pip = [PYTHON, "-m", "pip", "install", "-q", "--no-input", "--disable-pip-version-check"]
        if call(*pip, "-e", ".[dev]") != 0:
            sys.exit("pip install failed")
        STAMP.write_text(digest + "\n")


def run() -> int:
    if call(PYTHON, "manage.py", "migrate", "--no-input") != 0:
        return 1
    # With daphne in INSTALLED_APPS, runserver serves the ASGI app (HTTP and websockets).
    return call(PYTHON, "manage.py", "runserver", "127.0.0.1:8000")


def test(pytest_args: list[str]) -> int:
    lint = call(BIN / "ruff", "check", ".")
    fmt = call(BIN / "ruff", "format", "--check", ".")
    code = call(PYTHON, "-m", "pytest", *pytest_args)
    return code or lint or fmt


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test"}:
        print(__doc__)
        return 2
    setup()
    try:
        return run() if argv[0] == "run" else test(argv[1:])
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
