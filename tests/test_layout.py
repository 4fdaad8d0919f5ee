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


# ---------------------------------------------------------------------------- a kind's engine


def package_imports(folder: Path, package: str) -> dict[str, list[tuple[str, int, str]]]:
    """Each module of the package in ``folder`` (named ``package``; its ``__init__`` is
    ``package`` itself) with the modules of that package it imports, as ``(file, line,
    module)``: relative or absolute, ``from`` a package or of a module, an import inside a
    function too."""
    modules = {}
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        modules[".".join((package, *parts[: -1 if parts[-1] == "__init__" else None]))] = path
    graph = {}
    for name, path in modules.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                found += [(node.lineno, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                start = here[: len(here) - node.level + 1] if node.level else []
                base = ".".join(start + ([node.module] if node.module else []))
                for alias in node.names:
                    member = f"{base}.{alias.name}"
                    found.append((node.lineno, member if member in modules else base))
        found += imported_modules(path)  # import_module("...") and __import__("...") too
        relative = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
        graph[name] = sorted(
            {(relative, line, module) for line, module in found if module in modules}
        )
    return graph


def engine_packages() -> list[str]:
    """The engine package of every kind the site offers."""
    from games import registry

    return [kind.engine_module for kind in registry.KINDS.values()]


@pytest.mark.parametrize("package", engine_packages())
def test_no_rules_module_of_a_kind_imports_its_bots_or_simulation(package):
    """The rules (``engine`` and every module of the package it imports, at any depth) stand
    below the computer players and the simulation that use them; the package's face hands
    on ``BOTS``, ``make_bot`` and ``simulate_report``. An arrow back up would be a circle."""
    graph = package_imports(ROOT.joinpath(*package.split(".")), package)
    player_side = {f"{package}.bots", f"{package}.simulation"}
    assert f"{package}.engine" in graph and player_side <= graph.keys()
    rules, todo = set(), [f"{package}.engine"]
    while todo:
        module = todo.pop()
        if module not in rules:
            rules.add(module)
            todo += [imported for _, _, imported in graph[module]]
    upward = [
        f"{path}:{line}: {imported}"
        for module in sorted(rules)
        for path, line, imported in graph[module]
        if imported in player_side or imported == package  # the face hands them on
    ]
    assert upward == []


@pytest.mark.parametrize("package", engine_packages())
def test_no_two_modules_of_a_kind_import_each_other(package):
    graph = package_imports(ROOT.joinpath(*package.split(".")), package)
    state: dict[str, str] = {}  # "open" while its imports are walked, then "done"

    def circle_from(module: str, path: list[str]) -> list[str]:
        state[module] = "open"
        for _, _, imported in graph[module]:
            if state.get(imported) == "open":
                return [*path[path.index(imported) :], imported]
            if imported not in state and (found := circle_from(imported, [*path, imported])):
                return found
        state[module] = "done"
        return []

    searches = (circle_from(module, [module]) for module in graph if module not in state)
    assert next((circle for circle in searches if circle), []) == []  # the first circle found


def test_the_package_walk_sees_every_way_of_importing_a_sibling(tmp_path):
    folder = tmp_path / "kind"
    (folder / "sub").mkdir(parents=True)
    for name in ("__init__", "bots", "simulation", "cards", "sub/__init__", "sub/deep"):
        (folder / f"{name}.py").write_text("")
    (folder / "engine.py").write_text(
        "from . import cards\n"
        "from .sub import deep\n"
        "import games.kind.simulation\n"
        "def later():\n"
        "    from .bots import make_bot\n"
        "    importlib.import_module('games.kind.sub')\n"
        "from games.kind import engine, random\n"
        "from games import contract\n"
    )
    (folder / "sub" / "deep.py").write_text("from .. import bots\nfrom ..cards import DECK\n")
    graph = package_imports(folder, "games.kind")
    assert [module for _, _, module in graph["games.kind.engine"]] == [
        "games.kind.cards",
        "games.kind.sub.deep",
        "games.kind.simulation",
        "games.kind.bots",
        "games.kind.sub",
        "games.kind",
        "games.kind.engine",
    ]
    assert [module for _, _, module in graph["games.kind.sub.deep"]] == [
        "games.kind.bots",
        "games.kind.cards",
    ]


# Every module of games/ stays small enough to read whole, the kinds' engine packages
# (games/<kind>/, registry.KINDS' engine_module) included: a rule book too long for one module
# is split by responsibility (state, legal moves, scoring, views; one module per bot family).
# Not counted: migrations (written by makemigrations, read by nobody).
MAX_MODULE_LINES = 450


def modules_of_games() -> list[Path]:
    return [
        path
        for path in sorted((ROOT / "games").rglob("*.py"))
        if "migrations" not in path.relative_to(ROOT).parts
    ]


def test_no_module_of_games_is_over_450_lines():
    over = [
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in modules_of_games()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert over == []


def test_the_line_count_walks_the_site_and_every_engine_package_but_no_migration():
    walked = {path.relative_to(ROOT).as_posix() for path in modules_of_games()}
    assert {
        "games/protocol.py",
        "games/consumers.py",
        "games/services/lifecycle.py",
        "games/moves/sql.py",
        "games/kinds/ratumrad.py",
        "games/ratumrad/data/build_basel.py",
    } <= walked
    folders = {package.replace(".", "/") for package in engine_packages()}
    assert folders == {"games/ratumrad", "games/rage", "games/road300"}
    for folder in folders:  # the rules, the bots and the simulation of every kind
        modules = ("__init__", "engine", "bots", "simulation")
        assert {f"{folder}/{name}.py" for name in modules} <= walked
    assert (ROOT / "games" / "migrations" / "0001_initial.py").exists()
    assert not [path for path in walked if "/migrations/" in path]
