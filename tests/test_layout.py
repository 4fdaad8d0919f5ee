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


# The site's modules of games/ stay small enough to read whole. Not counted: migrations
# (written by makemigrations, read by nobody) and the kinds' engine packages (games/<kind>/,
# registry.KINDS' engine_module): pure Python behind games/contract.py, each one rule book's
# code, tested rule by rule against its spec and not part of the site's layers.
MAX_MODULE_LINES = 450


def engine_packages() -> set[Path]:
    from games import registry

    return {
        ROOT.joinpath(*kind.engine_module.split("."))
        for kind in registry.KINDS.values()
        if kind.engine_module.startswith("games.")
    }


def site_modules_of_games() -> list[Path]:
    engines = engine_packages()
    return [
        path
        for path in sorted((ROOT / "games").rglob("*.py"))
        if "migrations" not in path.relative_to(ROOT).parts
        and not any(path.is_relative_to(engine) for engine in engines)
    ]


def test_no_site_module_of_games_is_over_450_lines():
    over = [
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in site_modules_of_games()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert over == []


def test_the_line_count_walks_the_sockets_services_moves_and_glue_but_no_engine():
    walked = {path.relative_to(ROOT).as_posix() for path in site_modules_of_games()}
    assert {
        "games/protocol.py",
        "games/consumers.py",
        "games/services/lifecycle.py",
        "games/moves/sql.py",
        "games/kinds/ratumrad.py",
    } <= walked
    assert {path.relative_to(ROOT).as_posix() for path in engine_packages()} == {
        "games/ratumrad",
        "games/rage",
        "games/road300",
    }
    assert not [
        path
        for path in walked
        if path.startswith(("games/ratumrad/", "games/rage/", "games/road300/"))
        or "/migrations/" in path
    ]
