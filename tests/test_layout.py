"""The layout: the apps stand below the site package that assembles them."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = "ratumrad_site"


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, absolute or relative, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


@pytest.mark.parametrize("app", ["games", "lobby"])
def test_no_module_of_an_app_imports_the_site_package(app):
    upward = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in sorted((ROOT / app).rglob("*.py"))
        for line, module in imported_modules(path)
        if module == SITE or module.startswith(f"{SITE}.")
    ]
    assert upward == []


def test_the_walk_sees_every_way_of_importing_the_site_package(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text(
        "import ratumrad_site.settings\n"
        "from ratumrad_site import channel_layer\n"
        "def later():\n"
        "    from ratumrad_site.postgres import TIMESTAMPTZ\n"
        "    importlib.import_module('ratumrad_site.ws_auth')\n"
        "from games import services\n"
    )
    assert [module for _, module in sorted(imported_modules(source))] == [
        "ratumrad_site.settings",
        "ratumrad_site",
        "ratumrad_site.postgres",
        "ratumrad_site.ws_auth",
        "games",
    ]
