"""The Road to 300 game state: its constants and options, the contract's plain questions
(phase, over or not, results, who moves) and its storage. Pure Python, no Django."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from games.contract import BadOption, NotSeated, PlayerId, dump_rng, load_rng, plain_copy

from .board import Cell
from .grids import CURRENT, GRIDS, Grid, check_grid

KIND = "road300"
MIN_PLAYERS = MAX_PLAYERS = 1
MOVE_TYPES = frozenset({"ROAD_TURN"})
OPTIONS = {"daily": False}

RUNNING = "RUNNING"
FINISHED = "FINISHED"
THREE_FAILED_ROLLS = "three_failed_rolls"
NO_LEGAL_MOVE = "no_legal_move"
MAX_FAILED_ROLLS = 3  # T2.3
DICE = 3  # T1.2
WINNING_TOTAL = 300  # T4.3

# The pairs of dice that may cross a cell and the die left over to move (T2.2, T2.5).
_PAIRS = ((0, 1, 2), (0, 2, 1), (1, 2, 0))


@dataclass(slots=True)
class GameState:
    """A game. Cells are ``(x, y)`` tuples; the position is the last circled cell."""

    players: list[PlayerId]
    seed: Any = 0
    options: dict = field(default_factory=lambda: dict(OPTIONS))
    grid: Grid = GRIDS[CURRENT]
    grid_version: int | None = CURRENT  # None: a sheet that is not in GRIDS (tests)
    rng: random.Random = field(default_factory=lambda: random.Random(0))  # the dice only
    crossed: list[Cell] = field(default_factory=list)  # in order, T2.2 and T2.4 crossings
    circled: list[Cell] = field(default_factory=list)  # in order (T2.7)
    dice: tuple[int, ...] | None = None  # the current roll (the last one once over)
    rolls: list[tuple[int, ...]] = field(default_factory=list)  # this round's rolls so far
    failed_rolls: int = 0  # failed rolls in a row before the current roll (T2.3)
    round: int = 1
    history: list[dict] = field(default_factory=list)  # finished rounds, JSON-shaped (T3.2)
    status: str = RUNNING
    end_reason: str | None = None
    seq: int = 0  # moves applied
    results: list[dict] | None = None

    @property
    def player(self) -> PlayerId:
        return self.players[0]

    @property
    def position(self) -> Cell | None:
        """The cell the player stands on (T2.7), ``None`` before the first move (T2.5)."""
        return self.circled[-1] if self.circled else None

    def value(self, cell: Cell) -> int:
        x, y = cell
        return self.grid[y - 1][x - 1]


# ---------------------------------------------------------------------------- options


def check_options(options: object) -> dict:
    """The one option is ``daily`` (bool, default false: the site picks the day's seed, T5.2).
    A daily game's ``day`` (``"YYYY-MM-DD"``, UTC) is written by the site, not chosen."""
    if not isinstance(options, dict):
        raise BadOption("options", "options are a JSON object")
    for name, value in options.items():
        if name == "day":
            if not options.get("daily") or not _is_day(value):
                raise BadOption("options.day", "day is the date of a daily game, YYYY-MM-DD")
            continue
        if name not in OPTIONS:
            raise BadOption(f"options.{name}", "Road to 300 has no option {name}", name=repr(name))
        if not isinstance(value, bool):
            raise BadOption(f"options.{name}", "option {name} is true or false", name=name)
    return {**OPTIONS, **options}


def _is_day(value: object) -> bool:
    if not isinstance(value, str) or len(value) != 10:
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------------- the contract


def phase(state: GameState) -> str:
    return state.status


def is_over(state: GameState) -> bool:
    return state.status == FINISHED


def results(state: GameState) -> list[dict]:
    return plain_copy(state.results) if state.results else []


def _seat(state: GameState, player: PlayerId) -> None:
    try:
        seated = player in state.players
    except TypeError:
        seated = False
    if not seated:
        raise NotSeated("player {player} has no seat in this game", player=repr(player))


def to_move(state: GameState) -> list[PlayerId]:
    return [] if is_over(state) else [state.player]


def _json_cell(cell: Cell | None) -> list[int] | None:
    return None if cell is None else list(cell)


# ---------------------------------------------------------------------------- storage


def to_dict(state: GameState) -> dict:
    """The whole state, the dice generator included (storage only, never a client)."""
    return {
        "kind": KIND,
        "seed": state.seed,
        "players": list(state.players),
        "options": dict(state.options),
        "grid_version": state.grid_version,
        "grid": [list(row) for row in state.grid],
        "rng": dump_rng(state.rng),
        "crossed": [list(cell) for cell in state.crossed],
        "circled": [list(cell) for cell in state.circled],
        "dice": None if state.dice is None else list(state.dice),
        "rolls": [list(roll) for roll in state.rolls],
        "failed_rolls": state.failed_rolls,
        "round": state.round,
        "history": plain_copy(state.history),
        "status": state.status,
        "end_reason": state.end_reason,
        "seq": state.seq,
        "results": plain_copy(state.results),
    }


def from_dict(data: dict) -> GameState:
    """Rebuild a state saved by :func:`to_dict`; it shares nothing with ``data``."""
    rng = load_rng(data["rng"])
    grid = tuple(tuple(row) for row in data["grid"])
    check_grid(grid)
    return GameState(
        players=list(data["players"]),
        seed=data["seed"],
        options=dict(data["options"]),
        grid=grid,
        grid_version=data["grid_version"],
        rng=rng,
        crossed=[(x, y) for x, y in data["crossed"]],
        circled=[(x, y) for x, y in data["circled"]],
        dice=None if data["dice"] is None else tuple(data["dice"]),
        rolls=[tuple(roll) for roll in data["rolls"]],
        failed_rolls=data["failed_rolls"],
        round=data["round"],
        history=plain_copy(data["history"]),
        status=data["status"],
        end_reason=data["end_reason"],
        seq=data["seq"],
        results=plain_copy(data["results"]),
    )


def scramble(state: GameState, player: PlayerId | None, rng: random.Random) -> GameState:
    """A copy whose dice generator is reseeded from ``rng``: the dice to come are the game's
    only secret, and nothing else differs."""
    if player is not None:
        _seat(state, player)
    other = from_dict(to_dict(state))
    other.rng = random.Random(rng.getrandbits(64))
    return other
