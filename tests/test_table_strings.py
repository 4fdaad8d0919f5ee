"""The strings a game page hands its scripts: every key the shell's and a kind's table's
scripts read is on that kind's page, in German and in English, and no kind gets another
kind's.

The page's strings (json_script "ui-strings") are the shell's (``games.views.ui_strings``)
and the kind's own (its glue's ``table_strings``). The scripts are read as text: the shell is
static/js/shell.js and static/js/game/, a table is the folder of its ``TABLE_SCRIPT``. RAGE's
and Road to 300's tables read their strings from the data- attributes of their template's
#rage-strings / #road300-strings instead; those are checked on the page too.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import types
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from games import registry
from games.kinds import ratumrad as ratumrad_glue
from games.models import Game
from games.rage import cards as rage_cards
from games.ratumrad import engine as ratumrad_engine
from games.services.admin import game_end_now
from games.services.lifecycle import game_create
from games.views import page_strings, ui_strings

pytestmark = pytest.mark.django_db

JS = Path(settings.BASE_DIR) / "static" / "js"
SHELL_SCRIPTS = [JS / "shell.js", *sorted((JS / "game").glob("*.js"))]
LANGUAGES = ("de", "en")
KINDS = list(registry.KINDS)
ANY = "*"  # a key computed at run time: T.end_reasons[state.end_reason]

# ---------------------------------------------------------------------------- reading scripts

_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\\])//[^\n]*", re.S)
_STEP = re.compile(r"\??\.([A-Za-z_$][\w$]*)|\[\s*(\"[^\"]*\"|'[^']*'|`[^`]*`|[^\]]*?)\s*\]")


def string_reads(source: str, root: str = r"(?:this\.)?T") -> set[tuple[str, ...]]:
    """The key paths a script reads from the strings object: ``T.key``, ``this.T.key``,
    ``T["key"]``, ``T.a.b``, ``T.a?.b``, ``T.a[expression]`` (the last step ``ANY``), through
    an alias (``const S = T.rematch; S.go``) or a destructuring (``const { a } = T``). A
    template key (``S[`color${x}`]``) reads as ``("color${}",)``."""
    source = _COMMENT.sub("", source)
    names = {root: ()}
    for alias in re.finditer(rf"\b(?:const|let)\s+(\w+)\s*=\s*{root}((?:\.\w+)+)\s*;", source):
        names[re.escape(alias.group(1))] = tuple(alias.group(2).strip(".").split("."))
    found = set()
    for unpacked in re.finditer(rf"\b(?:const|let)\s*\{{([^}}]*)\}}\s*=\s*{root}\s*;", source):
        for part in unpacked.group(1).split(","):
            if part.strip():
                found.add((part.split(":")[0].strip(),))
    reference = re.compile(r"(?<![\w$.])(" + "|".join(names) + r")(?![\w$])")
    for match in reference.finditer(source):
        name = next(pattern for pattern in names if re.fullmatch(pattern, match.group(1)))
        path, at = list(names[name]), match.end()
        while step := _STEP.match(source, at):
            if step.group(1) is not None:
                if source[step.end() : step.end() + 1] == "(":  # a method call on the string
                    break
                path.append(step.group(1))
            else:
                inner = step.group(2)
                if inner[:1] in "\"'":
                    path.append(inner[1:-1])
                elif inner[:1] == "`":
                    path.append(re.sub(r"\$\{.*?\}", "${}", inner[1:-1]))
                    break
                else:
                    path.append(ANY)
                    break
            at = step.end()
        if path:
            found.add(tuple(path))
    return found


def reads_of(scripts: list[Path], root: str = r"(?:this\.)?T") -> set[tuple[str, ...]]:
    return set().union(*(string_reads(path.read_text(encoding="utf-8"), root) for path in scripts))


def table_scripts(kind: str) -> list[Path]:
    folder = (JS.parent / registry.get(kind).glue.TABLE_SCRIPT).parent
    return sorted(folder.glob("*.js"))


def takes_strings(kind: str) -> bool:
    """Whether the kind's table takes the page's strings from the shell (``createTable({
    strings: T, ...})``); RAGE's and Road to 300's read their template's data- strings."""
    source = (JS.parent / registry.get(kind).glue.TABLE_SCRIPT).read_text(encoding="utf-8")
    return bool(re.search(r"createTable\(\{[^}]*\bstrings\b", source))


def test_the_reader_knows_every_way_a_script_reads_its_strings():
    source = """
        // T.in_a_comment
        const T = json("ui-strings");   /* T.in_a_block */
        const S = T.rematch;
        const { chat_unread, vote_end: label } = T;
        text(T.your_turn, this.T.road, T["quoted"], T.errors[code], T.rematch.errors.offline);
        text(S.go, T.results?.place, T.letters[row.color] || "", format(T.deck, {}));
        T.deck.replace("a", "b"); X[`color${cap(c)}`];
    """
    assert string_reads(source) == {
        ("rematch",),
        ("chat_unread",),
        ("vote_end",),
        ("your_turn",),
        ("road",),
        ("quoted",),
        ("errors", ANY),
        ("rematch", "errors", "offline"),
        ("rematch", "go"),
        ("results", "place"),
        ("letters", ANY),
        ("deck",),
    }
    assert string_reads("f(X[`color${cap(c)}`], X.plain)", root="X") == {("color${}",), ("plain",)}


def test_the_scripts_read_strings_only_the_ways_the_reader_knows():
    """The shell hands its strings on as ``T`` (a class keeps them as ``this.T``); a read
    through another name would be hidden from these tests."""
    tables = [kind for kind in KINDS if takes_strings(kind)]
    assert "ratumrad" in tables
    for path in [*SHELL_SCRIPTS, *(path for kind in tables for path in table_scripts(kind))]:
        source = _COMMENT.sub("", path.read_text(encoding="utf-8"))
        assert not re.search(r"\bstrings\s*(?:\.|\?\.|\[)", source), path.name
        rebound = re.findall(r"\b(\w+)\s*=\s*(?:this\.)?T\s*[;,)]", source)
        assert set(rebound) <= {"T"}, path.name
        assert not re.search(r"(?<![\w$.])T\s*\[", source), f"{path.name}: T[...] at the top"


# ---------------------------------------------------------------------------- what the server sends


def end_reasons(kind: str) -> set[str]:
    """The reasons a game of ``kind`` ends with: each string its engine's ``_finish`` is
    called with, in any module of the engine's package (the rules are split by
    responsibility), and the site's own (an administrator's, ``game_end_now``)."""
    package = importlib.import_module(f"games.{kind}")
    reasons = {inspect.signature(game_end_now).parameters["reason"].default}
    for path in sorted(Path(package.__file__).parent.glob("*.py")):
        name = package.__name__ if path.stem == "__init__" else f"{package.__name__}.{path.stem}"
        module = importlib.import_module(name)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "_finish":
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        reasons.add(arg.value)
                    elif isinstance(arg, ast.Name) and isinstance(getattr(module, arg.id, 0), str):
                        reasons.add(getattr(module, arg.id))
    assert len(reasons) > 1, f"no reason found in {kind}'s engine"
    return reasons


# Keys computed at run time, and the values the server can send for them.
DYNAMIC_KEYS = {
    # Rat um Rad's colours of seats (the score sheet's rows), roads and cards; no other kind's
    # rows or state carry one.
    ("colors",): lambda kind: {
        *ratumrad_glue.ROAD_COLORS,
        *ratumrad_glue.HAND_COLORS,
        *ratumrad_engine.PLAYER_COLORS,
    },
    ("letters",): lambda kind: DYNAMIC_KEYS[("colors",)](kind),
    ("end_reasons",): end_reasons,
    ("statuses",): lambda kind: set(Game.Status.values),
}
# Keys computed at run time whose missing entry shows the server's own message (errorText in
# static/js/shell.js, answer in static/js/game/rematch.js): the codes are open-ended.
FALLS_BACK = {("errors",), ("rematch", "errors")}


def page(client, user, kind: str, language: str) -> str:
    game = Game.objects.filter(kind=kind).first() or game_create(
        user=user, name="Strings", kind=kind
    )
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    html = client.get(reverse("game-page", kwargs={"game_id": game.pk})).content.decode()
    assert f'<html lang="{language}">' in html
    return html


def strings_on(html: str) -> dict:
    found = re.search(r'<script id="ui-strings" type="application/json">(.*?)</script>', html)
    return json.loads(found.group(1))


def missing(strings: dict, reads: set[tuple[str, ...]], kind: str) -> list[str]:
    """Each read that finds no string (or no object where the script reads on)."""
    problems = []
    for path in sorted(reads):
        value, walked = strings, ()
        for step in path:
            if step == ANY:
                if walked in FALLS_BACK:
                    if not isinstance(value, dict):
                        problems.append(".".join(walked))
                    break
                assert walked in DYNAMIC_KEYS, f"T.{'.'.join(walked)}[...]: which keys?"
                for key in sorted(DYNAMIC_KEYS[walked](kind)):
                    if not isinstance(value.get(key), str) or not value[key]:
                        problems.append(f"{'.'.join(walked)}[{key}]")
                break
            if not isinstance(value, dict) or step not in value:
                problems.append(".".join(path))
                break
            value, walked = value[step], (*walked, step)
        else:
            if not (isinstance(value, dict) or (isinstance(value, str) and value)):
                problems.append(".".join(path))
    return problems


# ---------------------------------------------------------------------------- the pages


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", KINDS)
def test_every_string_the_shell_and_the_table_read_is_on_the_kinds_page(
    client, alice, kind, language
):
    strings = strings_on(page(client, alice, kind, language))
    reads = reads_of(SHELL_SCRIPTS) | reads_of(table_scripts(kind))
    assert missing(strings, reads, kind) == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_kinds_page_carries_the_shells_strings_and_its_own_only(client, alice, kind):
    strings = strings_on(page(client, alice, kind, "en"))
    read = {path[0] for path in reads_of(SHELL_SCRIPTS) | reads_of(table_scripts(kind))}
    assert sorted(set(strings) - read) == []  # nothing no script of the page reads
    for other in KINDS:
        if other != kind:
            theirs = set(registry.get(other).glue.table_strings()) - set(ui_strings())
            assert sorted(theirs & set(strings)) == [], other
    assert set(strings["end_reasons"]) == end_reasons(kind)


@pytest.mark.parametrize("kind", KINDS)
def test_a_tables_strings_never_replace_a_shell_string(kind):
    shell, own = ui_strings(), registry.get(kind).glue.table_strings()
    for key, value in own.items():
        if key in shell:
            assert isinstance(value, dict) and isinstance(shell[key], dict), key
            assert sorted(set(value) & set(shell[key])) == [], key


def test_a_kind_whose_glue_has_no_table_strings_gets_the_shells_strings():
    toy = registry.GameKind(key="toy", name="Toy", engine_module="", glue_module="")
    toy.__dict__["glue"] = types.ModuleType("toy_glue")  # glue without table_strings
    assert page_strings(toy) == ui_strings()


# The same in German and English on purpose: words German uses too, a placeholder-only
# pattern, and the colours' letters (German keeps the English letter where its own word would
# begin with another colour's: gelb and grün both start with G).
SAME_IN_BOTH = {
    ("colors", "orange"),
    ("colors", "pink"),
    *(("letters", color) for color in ("red", "blue", "orange", "green", "yellow", "pink")),
    *(("letters", color) for color in ("white", "joker", "grey")),
    ("online",),
    ("offline",),
    ("card",),  # "{a} – {b}": the two places of a destination card
}


def leaves(strings: dict, path: tuple = ()):
    for key, value in strings.items():
        if isinstance(value, dict):
            yield from leaves(value, (*path, key))
        else:
            yield (*path, key), value


@pytest.mark.parametrize("kind", KINDS)
def test_every_string_is_german_on_a_german_page(client, alice, kind):
    german = dict(leaves(strings_on(page(client, alice, kind, "de"))))
    english = dict(leaves(strings_on(page(client, alice, kind, "en"))))
    assert german.keys() == english.keys()
    same = {path for path, text in german.items() if text == english[path]}
    assert sorted(same - SAME_IN_BOTH) == []


# ---------------------------------------------------------------------------- data- strings


class _DataStrings(HTMLParser):
    def __init__(self, element_id: str):
        super().__init__()
        self.element_id, self.found = element_id, None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id") == self.element_id:
            # The browser's dataset: data-your-bid is yourBid.
            self.found = {
                re.sub(r"-([a-z])", lambda m: m.group(1).upper(), name[5:]): value or ""
                for name, value in attrs
                if name.startswith("data-")
            }


def data_strings(html: str, element_id: str) -> dict:
    parser = _DataStrings(element_id)
    parser.feed(html)
    assert parser.found is not None, element_id
    return parser.found


def _capital(word: str) -> str:
    return word[:1].upper() + word[1:]


# The template keys these tables compute, and the words they are computed from.
DATA_TEMPLATES = {
    "rage": {
        "color${}": [_capital(color) for color in rage_cards.COLORS],
        "letter${}": [_capital(color) for color in rage_cards.COLORS],
        "name${}": [
            "".join(_capital(part) for part in action.split("_")) for action in rage_cards.ACTIONS
        ],
        "short${}": [
            "".join(_capital(part) for part in action.split("_")) for action in rage_cards.ACTIONS
        ],
        "bids${}": [
            _capital(choice)
            for option in registry.get("rage").options
            if option.name == "bids"
            for choice in option.choices
        ],
    },
    "road300": {},
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", list(DATA_TEMPLATES))
def test_every_data_string_the_table_reads_is_on_the_kinds_page(client, alice, kind, language):
    strings = data_strings(page(client, alice, kind, language), f"{kind}-strings")
    absent = []
    for (key,) in sorted(reads_of(table_scripts(kind), root="S")):
        names = (
            [key.replace("${}", word) for word in DATA_TEMPLATES[kind][key]]
            if "${}" in key
            else [key]
        )
        absent += [name for name in names if not strings.get(name)]
    assert absent == []


# RAGE's data strings the same in German and English on purpose: patterns of placeholders,
# symbols, the cards' names and letters (the printed cards' own), and words German uses too.
DATA_SAME_IN_BOTH = {
    "rage": {
        *("trumpColor", "colorCard", "playedBy", "bidHidden", "bidNone"),
        *("letterBlue", "letterGreen", "letterRed", "letterYellow", "letterViolet"),
        *("nameJoker", "namePlus5", "shortJoker", "shortPlus5", "shortMinus5"),
        *("durchmarsch", "offline"),
    },
    "road300": set(),
}


@pytest.mark.parametrize("kind", list(DATA_TEMPLATES))
def test_every_data_string_is_german_on_a_german_page(client, alice, kind):
    german = data_strings(page(client, alice, kind, "de"), f"{kind}-strings")
    english = data_strings(page(client, alice, kind, "en"), f"{kind}-strings")
    assert german.keys() == english.keys()
    same = {key for key, text in german.items() if text == english[key]}
    assert sorted(same - DATA_SAME_IN_BOTH[kind]) == []
