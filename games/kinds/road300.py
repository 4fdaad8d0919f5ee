"""Road to 300's glue: a solo game whose state lives in ``Game.state``; the seat keeps the score.

The daily challenge (T5.2): a game created with ``{"daily": true}`` plays the day's seed (UTC),
the same for everyone and kept secret (it is derived from the site's secret key: knowing it
would tell every die in advance). The site records the day in the game's options (``day``).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import multiprocessing
import threading
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from datetime import UTC, datetime
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache
from django.urls import include, path, reverse
from django.utils.translation import gettext, gettext_lazy, ngettext

from games.contract import BadOption
from games.kinds import describe_with, random_seed
from games.models import Game, Seat
from games.moves import sql
from games.road300 import engine, examples
from games.road300.bots import strong_bot_score
from games.road300.grids import CURRENT, GRIDS
from rankings.achievements import Achievement, Finished

TABLE_TEMPLATE = "games/road300/table.html"
TABLE_SCRIPT = "js/road300/table.js"
TABLE_CSS = "css/road300.css"
SEAT_FIELDS = ["turn_order", "score", "total", "place", "won"]


def today() -> str:
    return datetime.now(UTC).date().isoformat()


def daily_seed(day: str) -> int:
    """The seed of ``day``'s challenge (T5.2): the same for everyone, unknown to the players."""
    key = settings.SECRET_KEY.encode()
    digest = hmac.new(key, f"road300-daily-{day}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 2  # fits a signed 64-bit column


def sealed(game: Game) -> bool:
    """A daily game while its day (UTC) runs: only its player sees it, and its log has no seed
    (the seed predicts every roll of the day). Once the day is over everything is public."""
    options = game.options or {}
    return bool(options.get("daily")) and str(options.get("day", "")) >= today()


def site_options(options: dict) -> dict:
    """The options as stored: a daily game gets today's date (UTC), which no client chooses."""
    if "day" in options:
        raise BadOption("options.day", "the site sets the day of a daily game (T5.2)")
    return {**options, "day": today()} if options.get("daily") else options


def new_seed(options: dict) -> int:
    if options.get("daily"):
        return daily_seed(options["day"])
    return random_seed(options)


def start_events(state: engine.GameState) -> list[dict]:
    return []  # new_game's first roll is in the view; its failed rolls are in the history


# T4.3's strong bot plays a whole game on the seed: about half a second of CPU. It runs in a
# process of its own (in a thread it would starve the server's event loop of the GIL), starts
# when the game is dealt and leaves the total in the cache (shared by every server process
# with Redis), so that the final move does not hold the game's lock that long. A backlog is
# not queued: a final move that finds no total has it worked out then.
BOT_SCORE_SECONDS = 7 * 24 * 3600
BOT_SCORE_BACKLOG = 4
_bot_score_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="road300-bot-score")
_bot_score_pending = threading.BoundedSemaphore(BOT_SCORE_BACKLOG)
_bot_score_process: ProcessPoolExecutor | None = None
_bot_score_process_lock = threading.Lock()
log = logging.getLogger(__name__)


def _bot_process() -> ProcessPoolExecutor:
    """One process per server for the strong bot's games, started on first use ("spawn": a
    fork of a server with threads could inherit a held lock)."""
    global _bot_score_process
    with _bot_score_process_lock:
        if _bot_score_process is None:
            _bot_score_process = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn")
            )
        return _bot_score_process


def bot_score_key(seed: int, grid_version: int | None) -> str:
    """The cache key of the strong bot's total: it names no seed (a day's seed, read from a
    shared cache, would tell the day's dice)."""
    digest = hashlib.sha256(f"{grid_version}:{seed}".encode()).hexdigest()
    return f"road300-bot-score:{digest}"


@lru_cache(maxsize=256)
def bot_score(seed: int, grid_version: int | None) -> int:
    """T4.3: the strong bot's total on this seed (a day's seed is shared by everyone)."""
    key = bot_score_key(seed, grid_version)
    score = cache.get(key)
    if score is None:
        score = _bot_process().submit(strong_bot_score, seed).result()
        cache.set(key, score, BOT_SCORE_SECONDS)
    return score


def warm_up(game: Game, state: engine.GameState) -> Future | None:
    """Work out the strong bot's total for ``complete_results`` in the background (None: the
    worker has a backlog; the final move will do it)."""
    if not _bot_score_pending.acquire(blocking=False):
        return None
    try:
        future = _bot_score_worker.submit(bot_score, state.seed, state.grid_version)
    except RuntimeError:  # the server is shutting down
        _bot_score_pending.release()
        return None
    future.add_done_callback(_bot_score_done)
    return future


def _bot_score_done(future: Future) -> None:
    _bot_score_pending.release()
    if future.exception() is not None:  # the final move will try again (or a server stops)
        log.warning("no strong bot's score in advance", exc_info=future.exception())


def complete_results(game: Game, state: engine.GameState) -> None:
    """Fill in the strong bot's score on the same seed (T4.3) once the game is over."""
    for row in state.results or []:
        row["bot_score"] = bot_score(state.seed, state.grid_version)


def project(game: Game, state: engine.GameState, seats: list[Seat], events, before) -> None:
    seat = seats[0]
    over = engine.is_over(state)
    total = engine.score(state)
    won = state.results[0]["won"] if over else None  # T4.3: only 300 or more wins
    values = (0, total, total if over else None, 1 if over else None, won)
    if tuple(getattr(seat, name) for name in SEAT_FIELDS) != values:
        for name, value in zip(SEAT_FIELDS, values, strict=True):
            setattr(seat, name, value)
        sql.update(seat, SEAT_FIELDS)


def waiting_table(game: Game) -> dict:
    return {}  # never waits: a solo game is dealt when it is created


def waiting_player() -> dict:
    return {}


def turn_key(state: engine.GameState) -> tuple:
    return (state.status, state.round)


def stored_turn_key(stored: dict) -> tuple:
    return (stored["status"], stored["round"])


def forced_bot_move(state, people, computer):
    return None


def hint_extra(view: dict, move: dict) -> dict:
    """The path the hint's move takes (T3.1), as the view lists it."""
    return {"path": view["paths"][view["legal"].index(move)]}


def rematch_leaderboard(game: Game) -> str | None:
    """The daily challenge counts one attempt (T5.2): its end screen links the day's table
    instead of a new game."""
    if not game.options.get("daily"):
        return None
    return f"{reverse('road300-daily')}?day={game.options.get('day', '')}#daily-table"


def rules_context() -> dict:
    """The current sheet and T4.2's worked examples (games/road300/examples.py), drawn on it."""
    grid = GRIDS[CURRENT]

    def drawn(crossed=(), circled=(), scoring=()) -> list[list[dict]]:
        return [
            [
                {
                    "x": x,
                    "y": y,
                    "value": grid[y - 1][x - 1],
                    "crossed": (x, y) in crossed,
                    "circled": (x, y) in circled,
                    "scores": (x, y) in scoring,
                }
                for x in range(1, 7)
            ]
            for y in range(1, 7)
        ]

    worked = {}
    for ending, example in examples.EXAMPLES.items():
        worked[ending] = {
            "rows": drawn(example["crossed"], examples.CIRCLED, example["scoring"]),
            "rolls": [" ".join(map(str, roll)) for roll in example["rolls"]],
            "values": [grid[y - 1][x - 1] for x, y in example["scoring"]],
            "total": sum(grid[y - 1][x - 1] for x, y in example["scoring"]),
        }
    return {"grid_rows": drawn(), "grid_version": CURRENT, "worked": worked}


def table_strings() -> dict:
    # The table's own sentences are its template's (#road300-strings); the shell says why it
    # ended.
    return {
        "end_reasons": {
            engine.THREE_FAILED_ROLLS: gettext(
                "Three failed rolls in a row ended the game (T2.3)."
            ),
            engine.NO_LEGAL_MOVE: gettext(
                "The dice could cross a cell but no move was possible (T2.8)."
            ),
        }
    }


def page_context(game: Game) -> dict:
    return {"kind_css": TABLE_CSS}


def describe(event: dict, names: dict[int, str]) -> str:
    return describe_with(_WRITERS, event, names)


def _cell(cell) -> str:
    return f"({cell[0]}, {cell[1]})"


def _dice(dice) -> str:
    return " ".join(str(die) for die in dice)


def _failed_roll(event: dict, name: str) -> str:
    return ngettext(
        "%(name)s rolled %(dice)s: no cell can be crossed (%(count)d failed roll in a row).",
        "%(name)s rolled %(dice)s: no cell can be crossed (%(count)d failed rolls in a row).",
        event["count"],
    ) % {"name": name(event["player"]), "dice": _dice(event["dice"]), "count": event["count"]}


def _rolled(event: dict, name: str) -> str:
    return gettext("Round %(round)d: %(name)s rolled %(dice)s.") % {
        "round": event["round"],
        "name": name(event["player"]),
        "dice": _dice(event["dice"]),
    }


def _turn(event: dict, name: str) -> str:
    return gettext(
        "%(name)s crossed %(cross)s and moved %(steps)d to %(to)s (%(value)d): %(score)d points."
    ) % {
        "name": name(event["player"]),
        "cross": _cell(event["cross"]),
        "steps": event["die"],
        "to": _cell(event["to"]),
        "value": event["value"],
        "score": event["score"],
    }


def _game_over(event: dict, name: str) -> str:
    if event.get("reason") == engine.THREE_FAILED_ROLLS:
        ending = gettext("The game is over: three failed rolls in a row.")
    elif event.get("reason") == engine.NO_LEGAL_MOVE:
        ending = gettext("The game is over: no move is possible.")
    else:
        ending = gettext("The game is over.")
    if event.get("won"):
        result = gettext("%(name)s reached %(total)d points and wins!")
    else:
        result = gettext("%(name)s has %(total)d points.")
    return f"{ending} {result % {'name': name(event['player']), 'total': event['total']}}"


_WRITERS = {
    "failed_roll": _failed_roll,
    "rolled": _rolled,
    "turn": _turn,
    "game_over": _game_over,
}


def urls() -> list:
    # Named, not imported: the views reach the services, which reach this glue.
    return [path("", include("games.kinds.road300_views"))]


CORNERS = ([1, 1], [6, 1], [1, 6], [6, 6])


def _corners(game: Finished) -> bool:
    return all(corner in game.state["circled"] for corner in CORNERS)


def _beat_bot(game: Finished) -> bool:
    bot = game.row.get("bot_score")
    return bot is not None and game.row["total"] > bot


ACHIEVEMENTS = (
    Achievement(
        "road300",
        "first_300",
        gettext_lazy("The road to 300"),
        gettext_lazy("Score 300 points or more in Road to 300."),
        lambda game: game.row.get("won", False),
    ),
    Achievement(
        "road300",
        "four_corners",
        gettext_lazy("Four corners"),
        gettext_lazy("Circle all four corners of the grid in one game."),
        _corners,
    ),
    Achievement(
        "road300",
        "beat_the_bot",
        gettext_lazy("Better than the machine"),
        gettext_lazy("Score more than the strong computer player on the same dice."),
        _beat_bot,
    ),
    Achievement(
        "road300",
        "daily",
        gettext_lazy("Daily player"),
        gettext_lazy("Finish a daily challenge."),
        lambda game: bool(game.options.get("daily")),
    ),
)


def achievements() -> tuple[Achievement, ...]:
    return ACHIEVEMENTS
