"""The setup command's compiling of the project's sources (``dev.py``): where
PYTHONDONTWRITEBYTECODE is set, every process compiled them again when it started."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def dev():
    spec = importlib.util.spec_from_file_location("dev_under_test", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_sources_compiled_are_every_top_level_folder_of_python_and_script(dev, monkeypatch):
    calls = []
    monkeypatch.setattr(dev, "call", lambda *args: calls.append(args) or 0)
    dev.compile_project()
    [(python, flag, module, quiet, *sources)] = calls
    assert (python, flag, module, quiet) == (dev.PYTHON, "-m", "compileall", "-q")
    names = {source.name for source in sources}
    for package in ("games", "lobby", "rankings", "notifications", "ratumrad_site", "tests"):
        assert package in names
    assert {"bench", "manage.py", "dev.py"} <= names
    # Not the virtual environment (its packages are compiled when installed), nor folders
    # without Python.
    assert not any(name.startswith(".") for name in names)
    assert not {"templates", "static", "docs", "locale"} & names


def test_after_it_a_module_s_bytecode_is_there_and_as_new_as_its_source(dev, monkeypatch):
    monkeypatch.setattr(dev, "PYTHON", Path(sys.executable))
    source = ROOT / "games" / "registry.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    if cached.exists():
        cached.unlink()  # (an import rewrites it where bytecode is written)
    dev.compile_project()
    assert cached.exists()
    # The header: the interpreter's magic number, then (timestamp-based, unless
    # SOURCE_DATE_EPOCH asks for hashes) the source's modification time: the file is current.
    header = cached.read_bytes()[:16]
    assert header[:4] == importlib.util.MAGIC_NUMBER
    if int.from_bytes(header[4:8], "little") == 0:
        assert int.from_bytes(header[8:12], "little") == int(os.stat(source).st_mtime) & 0xFFFFFFFF
