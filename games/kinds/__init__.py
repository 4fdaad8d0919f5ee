"""Per-kind Django glue: what the site needs of a kind beyond its pure engine.

Each module here (``games.kinds.<kind>``, named by the kind's ``GameKind.glue_module``) has
the following; shared code reads an optional one through ``GameKind.hook(name, default)``.
tests/test_toy_kind.py plays a kind whose engine and glue live in tests/ alone.

Two write rules hold for everything a move calls (``project`` above all), because a move on
PostgreSQL is read without a lock and written as one guarded statement (``games.moves``):

1. It writes through the move's SQL layer, ``games.moves.sql`` (``update``, ``insert``,
   ``update_where``, ``delete_where``), never through the ORM (``save``, ``create``,
   ``QuerySet.update``...): only those writes can be caught for the one statement. The tests
   refuse an ORM write while a move collects its statements (tests/paths.py).
2. Every change of a seat also writes the game row: a guarded move learns of another change
   only through the game row's version, so a seat changed without it would be written over.

``project(game, state, seats, events, before)``
    Keep the kind's own rows in step with a state just written to ``game.state`` (in the same
    transaction): the seat columns and, for Rat um Rad, built roads and destination cards.
    ``before`` is the stored state the change started from (``None`` at the deal).
``waiting_table(game) -> dict``
    The table fields of the view of a game not dealt yet (an empty table).
``waiting_player() -> dict``
    The per-player fields of that view.
``describe(event, names) -> str``
    The activity-feed sentence of an event, in the active language.
``site_options(options) -> dict``
    The options of a new game as stored, after the engine checked them (Road to 300 adds the
    day of a daily game).
``complete_results(game, state)``
    Fill in what the engine cannot know into ``state.results`` when the game is over (Road to
    300: the strong bot's score on the same seed).
``warm_up(game, state)``
    Called once the deal is committed: start, off the move path, what ``complete_results``
    will need (Road to 300: the strong bot's score, in a process of its own, into the cache).
``new_seed(options) -> int``
    The seed of a new game (a random one; Road to 300's daily game: the day's).
``start_events(state) -> list[dict]``
    The feed events of the deal (``new_game`` returns none).
``turn_key(state)`` / ``stored_turn_key(stored)``
    What identifies a turn for the turn timer (of a state, of a stored state): while it stays
    the same, so does the deadline.
``forced_bot_move(state, people, computer) -> (seat, move) | None``
    A move a computer-played seat must make whatever its bot thinks (Rat um Rad: agree to end
    once every person voted, R8.2), or None.
``rules_context() -> dict``
    What the kind's rules pages (``rules/<kind>_<language>.html``) need beside the kind.
``hint_extra(view, move) -> dict``
    What a hint (``GET /api/games/{id}/hint/``, kinds with a ``hint_bot``) sends beside the
    move (Road to 300: its path).
``sealed(game) -> bool``
    Whether the game is shown to its own players only and its log keeps the seed back
    (Road to 300: a daily game while its day runs, T5.2: its seed tells every die of the
    day). ``never_sealed`` for the other kinds.
``rematch_leaderboard(game) -> str | None``
    The address a finished game's end screen links instead of offering the same game again
    (Road to 300's daily challenge counts one attempt: the day's table), or None: its players
    may play it again (``games.services.rematch.rematch_answer``).
``table_strings() -> dict``
    The sentences the kind's table script reads from the page's strings (json_script
    "ui-strings", static/js/shell.js hands them to ``createTable``), in the active language,
    beside the shell's own (``games.views.ui_strings``): its own keys, and entries added to a
    shell's list (``end_reasons``: the reasons its engine ends a game with). They go to its
    pages only; tests/test_table_strings.py checks every key the scripts read. Optional: a
    kind without (its table keeps its strings in its template) gets ``no_table_strings``.
``urls() -> list``
    The kind's own pages (Django URL patterns), included at the site's root (Road to 300: the
    daily challenge, ``road300/daily/``). Optional: ``no_urls``.
``api_urls() -> list``
    The kind's own REST endpoints (URL patterns), included under ``api/`` (Rat um Rad: its
    board, ``maps/basel/``). Optional: ``no_urls``.
``achievements() -> list``
    The kind's achievements (``rankings.achievements.Achievement``: kind, key, title,
    description, and whether a finished game earned a seat it); ``first_win`` there is one
    any kind may list. Optional: none means no achievements.
``TABLE_TEMPLATE``, ``TABLE_SCRIPT`` and ``page_context(game) -> dict``
    The kind's part of the game page: the template the page's shell includes, the ES module
    (a static path) that draws the table, and what else the template needs.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from django.utils.translation import gettext

from games import feed


def random_seed(options: dict) -> int:
    """A new game's seed: random, from the system's source (nobody can guess the deal)."""
    return random.SystemRandom().randrange(2**62)


def never_sealed(game) -> bool:
    return False


def no_table_strings() -> dict:
    return {}


def no_urls() -> list:
    return []


def describe_with(
    writers: dict[str, Callable[[dict, Callable], str]], event: dict, names: dict[int, str]
) -> str:
    """A feed sentence from a kind's ``writers`` (by event kind; each gets the event and a
    function from player id to name), else the site's own sentence; never raises on odd
    data."""
    writer = writers.get(event.get("kind", ""))
    if writer is None:
        return feed.describe(event, names)  # the site's own events (joined, left, ...)
    try:
        return writer(event, lambda player: names.get(player, "") or gettext("someone"))
    except (KeyError, TypeError, ValueError, IndexError):
        return gettext("Something happened: %(kind)s") % {"kind": event.get("kind", "?")}
