#!/usr/bin/env python3
"""Set up and run Rat um Rad online with nothing but Python 3.11 and pip.

    python3 dev.py run                  # serve the site on http://127.0.0.1:8000/ (and its
                                        # background tasks' worker)
    python3 dev.py cluster [--processes N]  # N server processes on port 8000 (needs REDIS_URL)
    python3 dev.py test                 # ruff, the test suite, then the browser tests
    python3 dev.py test [pytest args]   # ruff, then one pytest call with these arguments

Both create `.venv` when missing and reinstall `.[dev]` (with uv, from PyPI; else pip)
whenever pyproject.toml has changed since the last install (its hash is kept in a stamp file
inside .venv), and compile the packages' and the project's sources to bytecode once, where
each process would otherwise compile them again (PYTHONDONTWRITEBYTECODE). The browser tests
(tests/e2e) run in a pytest call of their own and need Chromium at /usr/bin/chromium.
"""

import hashlib
import signal
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if sys.platform == "win32" else "bin")
PYTHON = BIN / "python"
STAMP = VENV / "pyproject.sha256"
CHROMIUM = Path("/usr/bin/chromium")
NO_TESTS_COLLECTED = 5
PIP_INSTALL = [PYTHON, "-m", "pip", "install", "-q", "--no-input", "--disable-pip-version-check"]
# Part of the stamp: a change of how .venv is made reinstalls it once.
INSTALL_WAY = b"bytecode compiled"


def call(*args: str | Path) -> int:
    return subprocess.call([str(a) for a in args], cwd=ROOT)


def setup() -> None:
    if not PYTHON.exists():
        print("Creating .venv ...", flush=True)
        venv.create(VENV, with_pip=True)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + INSTALL_WAY).hexdigest()
    if not STAMP.exists() or STAMP.read_text().strip() != digest:
        # (pip compiles what it installs to bytecode; uv is asked to.)
        if not install_with_uv() and call(*PIP_INSTALL, "-e", ".[dev]") != 0:
            sys.exit("pip install failed")
        STAMP.write_text(digest + "\n")
    compile_project()


def compile_project() -> None:
    """The project's own sources to bytecode (``__pycache__``, ignored by git), as an install
    compiles the packages': with PYTHONDONTWRITEBYTECODE set, as on some machines, every
    process (each server, worker and test process) compiled them again when it started. Only
    files changed since are compiled again."""
    sources = [
        path
        for path in sorted(ROOT.iterdir())
        if not path.name.startswith(".")
        and (path.suffix == ".py" or (path.is_dir() and next(path.glob("*.py"), None)))
    ]
    if call(PYTHON, "-m", "compileall", "-q", *sources) != 0:
        print("some sources did not compile: they are compiled when imported", flush=True)


def install_with_uv() -> bool:
    """Install ``.[dev]`` with uv, itself from PyPI into .venv: the same packages in a fifth
    of pip's time. False when uv cannot be had or fails; pip then does it."""
    if call(*PIP_INSTALL, "uv") != 0:
        return False
    install = [BIN / "uv", "pip", "install", "-q", "--python", PYTHON, "--compile-bytecode"]
    return call(*install, "-e", ".[dev]") == 0


def start_worker() -> subprocess.Popen:
    """The background tasks' worker (it sends the mails), beside the site."""
    command = [PYTHON, "manage.py", "db_worker", "--no-reload", "--queue-name", "*"]
    return subprocess.Popen([str(a) for a in command], cwd=ROOT)


def stop_worker(worker: subprocess.Popen) -> None:
    """A task being run is finished first (the worker stops after it), for at most 10 s."""
    if worker.poll() is None:
        worker.terminate()
    try:
        worker.wait(10)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


def interrupted(signum, frame) -> None:
    raise KeyboardInterrupt


def run() -> int:
    if call(PYTHON, "manage.py", "migrate", "--no-input") != 0:
        return 1
    signal.signal(signal.SIGTERM, interrupted)  # a plain kill stops the worker too
    worker = start_worker()
    try:
        # With daphne in INSTALLED_APPS, runserver serves the ASGI app (HTTP and websockets).
        return call(PYTHON, "manage.py", "runserver", "127.0.0.1:8000")
    finally:
        stop_worker(worker)


def cluster(args: list[str]) -> int:
    if call(PYTHON, "manage.py", "migrate", "--no-input") != 0:
        return 1
    return call(PYTHON, "-m", "ratumrad_site.cluster", *args)


def pytest(*args: str) -> int:
    code = call(PYTHON, "-m", "pytest", *args)
    return 1 if code == NO_TESTS_COLLECTED else code


def test(pytest_args: list[str]) -> int:
    lint = call(BIN / "ruff", "check", ".")
    fmt = call(BIN / "ruff", "format", "--check", ".")
    browser_tests = not pytest_args or any("e2e" in arg for arg in pytest_args)
    if browser_tests and not CHROMIUM.exists():
        print(
            f"{CHROMIUM} not found: the browser tests are skipped. Install Debian's"
            " Chromium with: sudo apt-get install chromium",
            flush=True,
        )
    if pytest_args:
        code = pytest(*pytest_args)
    else:
        # All but tests/e2e (addopts in pyproject.toml), in two processes, each test file in one
        # of them (its servers and fixtures are made once). The browser tests in one: in two
        # (four browsers and servers in CI's two passes side by side) CI was no faster, and
        # three runs in five failed on timing (README, "PostgreSQL and Redis").
        suite = pytest("--durations=10", "-n", "2", "--dist", "loadfile")
        browser = pytest("--durations=10", "tests/e2e")
        code = suite or browser
    return code or lint or fmt


def main(argv: list[str]) -> int:
    commands = {"run": lambda: run(), "test": lambda: test(argv[1:])}
    commands["cluster"] = lambda: cluster(argv[1:])
    if not argv or argv[0] not in commands:
        print(__doc__)
        return 2
    setup()
    try:
        return commands[argv[0]]()
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
