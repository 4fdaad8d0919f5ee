"""The Road to 300 rules engine: pure Python, no Django (the contract of ``games.contract``).

The rules are ``road300-rules.md`` (ids T1.1 … T5.2); every refusal names the rule it enforces.
One round of the game is one move, ``{"type": "ROAD_TURN", "cross": [x, y], "to": [x, y]}``
(T2.8): the cell crossed with two dice (T2.2), which fixes the third die, and the cell where
the move with that die ends (T2.5, T2.7). Between moves the state always holds a roll that
offers at least one legal turn, or the game is over: :func:`apply` and :func:`new_game` roll
the dice themselves, again after every failed roll (T2.3, the player has nothing to decide).

Decisions where the rules leave room (the rules page states them too):

* The crossed cell fixes the moving die: a cell ``(a, b)`` can only come from the pair
  ``{a, b}``, so the die left over is always the same one (T2.8).
* Three failed rolls "in a row" (T2.3): every successful crossing resets the count, and a round
  rolls until a roll can cross, so the count never spans two rounds. ``failed_rolls`` is the
  number of failed rolls that came before the current roll.
* T2.5 round 1: the step onto the corner is the first of the die's steps; with a 1 the move
  ends on the corner. A corner crossed in T2.2 of round 1 is no way in (T2.6). The corner a
  longer move passes through stays free.
* T2.8 end: the roll could cross a cell but no turn has a legal move. T2.4 of that round still
  happens: the standing cell is added to ``crossed`` and counts (T4.2). After three failed
  rolls it is not crossed and does not count.
* :func:`end_game` (an admin's decision) ends the game before T2.2 of the current round, so
  as after three failed rolls the standing cell is not crossed and does not count.
* ``score`` in a view is T4.2 as it would stand if the game ended now by T2.8: the sum of the
  values of every circled cell. Once over it is the final total.
* A spectator's view has ``legal``, ``paths`` and ``crossings`` empty (the player's own view
  has them); everything else, the history included, is public.
* A missing ``type`` is an unknown type (``UnknownType``), as in Rat um Rad.

Events (public feed entries; every one has ``kind`` and ``player``, cells are ``[x, y]``):

``failed_roll``
    ``round``, ``dice`` (the three values), ``count`` (failed rolls in a row, 1..3): a roll
    with no crossable cell (T2.3); the dice are rolled again unless ``count`` is 3.
``rolled``
    ``round``, ``dice``: a roll that can cross a cell; the player decides on it (or the game
    ends by T2.8 right after).
``turn``
    ``round``, ``cross``, ``die`` (the moving die), ``standing`` (the cell crossed by T2.4, or
    ``null`` in round 1), ``to``, ``path`` (from the first step to ``to``), ``value`` (of
    ``to``), ``score`` (as in the view, after the turn).
``game_over``
    ``reason`` (``"three_failed_rolls"``, ``"no_legal_move"`` or the reason given to
    :func:`end_game`), ``total``, ``won``.

``history`` (T3.2) has one entry per round: ``round``, ``rolls`` (every roll, failed ones
first), ``cross``, ``die``, ``standing``, ``to``, ``path``, ``value``; the round in which the game
ended has ``cross``/``die``/``to``/``path``/``value`` null and ``end`` set to the reason.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from games.contract import (
    BadField,
    BadOption,
    EngineError,
    GameOver,
    IllegalMove,
    NotSeated,
    NotYourTurn,
    PlayerId,
    UnknownType,
    dump_rng,
    load_rng,
)

from .board import CORNER_INDICES, SIZE, Cell, bit, cell_of, index, mask_of, region, walks
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

__all__ = [
    "KIND",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MOVE_TYPES",
    "BadField",
    "BadOption",
    "EngineError",
    "GameOver",
    "GameState",
    "IllegalMove",
    "NotSeated",
    "NotYourTurn",
    "UnknownType",
    "apply",
    "check_options",
    "end_game",
    "from_dict",
    "is_over",
    "legal_moves",
    "new_game",
    "phase",
    "replay",
    "results",
    "scramble",
    "to_dict",
    "to_move",
    "view",
]


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


# ---------------------------------------------------------------------------- options and setup


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


def new_game(seed: Any, players: Sequence[PlayerId], options: dict | None = None) -> GameState:
    """A new game on the current sheet (T1.1) with its first usable roll (T2.1, T2.3)."""
    options = check_options({} if options is None else options)
    players = list(players)
    if len(players) != 1:
        raise IllegalMove("Road to 300 is played alone, not by {count}", count=len(players))
    state = GameState(
        players=players,
        seed=seed,
        options=options,
        grid=GRIDS[CURRENT],
        grid_version=CURRENT,
        rng=random.Random(seed),  # T1.2: nothing but the dice draws from it
    )
    _roll(state, [])
    return state


# ---------------------------------------------------------------------------- the rules


def blocked_mask(state: GameState) -> int:
    """Every cell crossed or circled: no crossing (T2.2) and no step (T2.5) onto them."""
    return mask_of(state.crossed) | mask_of(state.circled)


def crossings(dice: Sequence[int], blocked: int) -> list[tuple[Cell, int, tuple[int, int]]]:
    """T2.2: ``(cell, moving die, pair)`` for every cell the roll can cross, by cell."""
    found: dict[Cell, tuple[int, tuple[int, int]]] = {}
    for i, j, k in _PAIRS:
        a, b = dice[i], dice[j]
        for cell in ((a, b), (b, a)):
            if cell not in found and not bit(cell) & blocked:
                found[cell] = (dice[k], (min(a, b), max(a, b)))
    return [(cell, die, pair) for cell, (die, pair) in sorted(found.items())]


def destinations(position: Cell | None, steps: int, blocked: int) -> dict[Cell, list[Cell]]:
    """T2.5: every cell a move of exactly ``steps`` steps can end on, with one path to it (from
    the first step to the end, straightest first). ``None``: round 1, entering on a corner."""
    ends: dict[int, tuple[int, ...]] = {}
    if position is None:
        for corner in CORNER_INDICES:
            if (1 << corner) & blocked:
                continue
            if steps == 1:
                ends.setdefault(corner, (corner,))  # T2.5: with a 1 the move ends there
                continue
            for mask, end, path in walks(corner, steps - 1):
                if end not in ends and not mask & blocked:
                    ends[end] = (corner, *path)
    else:
        for mask, end, path in walks(index(position), steps):
            if end not in ends and not mask & blocked:
                ends[end] = path
    return {cell_of(end): [cell_of(i) for i in path] for end, path in ends.items()}


def turns(state: GameState) -> list[tuple[Cell, int, Cell, list[Cell]]]:
    """Every legal turn of the current roll as ``(cross, die, to, path)``, by cross then to."""
    if state.dice is None:
        return []
    blocked = blocked_mask(state)
    found = []
    for cross, die, _pair in crossings(state.dice, blocked):
        # T2.6: the cell just crossed blocks this round's move.
        for to, path in destinations(state.position, die, blocked | bit(cross)).items():
            found.append((cross, die, to, path))
    found.sort(key=lambda turn: (turn[0], turn[2]))
    return found


def _roll(state: GameState, events: list[dict]) -> None:
    """T2.1/T2.3: roll until a roll can cross a cell, or end the game (T4.1)."""
    while True:
        dice = tuple(state.rng.randint(1, 6) for _ in range(DICE))
        state.dice = dice
        state.rolls.append(dice)
        if crossings(dice, blocked_mask(state)):
            break
        state.failed_rolls += 1
        events.append(
            {
                "kind": "failed_roll",
                "player": state.player,
                "round": state.round,
                "dice": list(dice),
                "count": state.failed_rolls,
            }
        )
        if state.failed_rolls >= MAX_FAILED_ROLLS:
            _finish(state, THREE_FAILED_ROLLS, events)
            return
    events.append(
        {"kind": "rolled", "player": state.player, "round": state.round, "dice": list(dice)}
    )
    if not turns(state):
        # T2.8: the roll can cross but no turn can move. T2.4 of this round still crosses the
        # standing cell, so it keeps its circle and scores (T4.2).
        if state.position is not None:
            state.crossed.append(state.position)
        _finish(state, NO_LEGAL_MOVE, events)


def _finish(state: GameState, reason: str, events: list[dict]) -> None:
    standing = state.position if reason == NO_LEGAL_MOVE else None
    state.history.append(
        {
            "round": state.round,
            "rolls": [list(roll) for roll in state.rolls],
            "cross": None,
            "die": None,
            "standing": _json_cell(standing),
            "to": None,
            "path": None,
            "value": None,
            "end": reason,
        }
    )
    state.status = FINISHED
    state.end_reason = reason
    state.results = _results(state)
    row = state.results[0]
    events.append(
        {
            "kind": "game_over",
            "player": state.player,
            "reason": reason,
            "total": row["total"],
            "won": row["won"],
        }
    )


def scoring_cells(state: GameState) -> list[Cell]:
    """T4.2: the cells with both an X and a circle, in the order they were circled."""
    crossed = set(state.crossed)
    return [cell for cell in state.circled if cell in crossed]


def score(state: GameState) -> int:
    """T4.2 as it would stand if the game ended now by T2.8 (every circled cell counts, the
    standing one being crossed by T2.4); once over, the final total."""
    if state.results:
        return state.results[0]["total"]
    return sum(state.value(cell) for cell in state.circled)


def _results(state: GameState) -> list[dict]:
    cells = scoring_cells(state)
    total = sum(state.value(cell) for cell in cells)
    return [
        {
            "player": state.player,
            "total": total,
            "place": 1,
            "won": total >= WINNING_TOTAL,  # T4.3
            "cells": [list(cell) for cell in cells],
            "bot_score": None,  # T4.3: the site fills in bots.strong_bot_score(seed, options)
        }
    ]


# ---------------------------------------------------------------------------- the contract


def phase(state: GameState) -> str:
    return state.status


def is_over(state: GameState) -> bool:
    return state.status == FINISHED


def results(state: GameState) -> list[dict]:
    return copy.deepcopy(state.results) if state.results else []


def _seat(state: GameState, player: PlayerId) -> None:
    try:
        seated = player in state.players
    except TypeError:
        seated = False
    if not seated:
        raise NotSeated("player {player} has no seat in this game", player=repr(player))


def to_move(state: GameState) -> list[PlayerId]:
    return [] if is_over(state) else [state.player]


def _message(cross: Cell, to: Cell) -> dict:
    return {"type": "ROAD_TURN", "cross": list(cross), "to": list(to)}


def legal_moves(state: GameState, player: PlayerId) -> list[dict]:
    """Every ROAD_TURN the player may send now (T2.8), by crossed cell then end cell."""
    _seat(state, player)
    if is_over(state):
        return []
    return [_message(cross, to) for cross, _die, to, _path in turns(state)]


def _cell_field(move: dict, name: str) -> Cell:
    value = move.get(name)
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(type(v) is int and 1 <= v <= SIZE for v in value)
    ):
        return (value[0], value[1])
    error = BadField("{field} is a cell [x, y] with x and y from 1 to 6", field=name)
    error.field = name
    raise error


def apply(state: GameState, player: PlayerId, move: Any) -> tuple[GameState, list[dict]]:
    """Play one round (T2.2–T2.7) and roll for the next; ``(state, events)``. A refused move
    raises an :class:`EngineError` naming the rule and changes nothing."""
    if not isinstance(move, dict):
        raise BadField("a move is a JSON object with a 'type'")
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in MOVE_TYPES:
        raise UnknownType("unknown move type {type}", type=repr(kind))
    _seat(state, player)
    if is_over(state):
        raise GameOver("the game is over")
    cross = _cell_field(move, "cross")
    to = _cell_field(move, "to")
    die, path = _check_turn(state, cross, to)
    events: list[dict] = []
    standing = state.position
    state.crossed.append(cross)  # T2.2
    if standing is not None:
        state.crossed.append(standing)  # T2.4: it keeps its circle
    state.circled.append(to)  # T2.7
    state.failed_rolls = 0  # T2.3: a successful crossing resets the count
    entry = {
        "round": state.round,
        "rolls": [list(roll) for roll in state.rolls],
        "cross": list(cross),
        "die": die,
        "standing": _json_cell(standing),
        "to": list(to),
        "path": [list(cell) for cell in path],
        "value": state.value(to),
    }
    state.history.append(entry)
    events.append(
        {
            "kind": "turn",
            "player": state.player,
            "round": state.round,
            "cross": list(cross),
            "die": die,
            "standing": _json_cell(standing),
            "to": list(to),
            "path": [list(cell) for cell in path],
            "value": state.value(to),
            "score": score(state),
        }
    )
    state.round += 1
    state.rolls = []
    _roll(state, events)
    state.seq += 1
    return state, events


def _check_turn(state: GameState, cross: Cell, to: Cell) -> tuple[int, list[Cell]]:
    """The moving die and the path of a legal turn; else :class:`IllegalMove` with the rule."""
    dice = state.dice or ()
    blocked = blocked_mask(state)
    named = {cell: die for cell, die, _pair in crossings(dice, 0)} if len(dice) == DICE else {}
    if cross not in named:
        raise IllegalMove(
            "no two of the dice {dice} name cell {cell}",
            "T2.2",
            dice=list(dice),
            cell=list(cross),
        )
    if bit(cross) & blocked:
        raise IllegalMove("cell {cell} is already crossed or circled", "T2.2", cell=list(cross))
    die = named[cross]
    ends = destinations(state.position, die, blocked | bit(cross))
    if to in ends:
        return die, ends[to]
    if not ends:
        raise IllegalMove(
            "after crossing {cell} the {die} left to move has no legal move",
            "T2.8",
            cell=list(cross),
            die=die,
        )
    if to == cross or to in destinations(state.position, die, blocked):
        raise IllegalMove(
            "the cell {cell} just crossed blocks the move to {to}",
            "T2.6",
            cell=list(cross),
            to=list(to),
        )
    if state.position is None:
        raise IllegalMove(
            "the first move enters on a free corner and takes exactly {die} steps, so it "
            "cannot end on {to}",
            "T2.5",
            die=die,
            to=list(to),
        )
    raise IllegalMove(
        "no move of exactly {die} orthogonal steps over free cells leads from {start} to {to}",
        "T2.5",
        die=die,
        start=list(state.position),
        to=list(to),
    )


def end_game(state: GameState, reason: str) -> list[dict]:
    """End a running game now (an admin's decision). No T2.4 comes, so the standing cell does
    not count (as after three failed rolls)."""
    if is_over(state):
        raise GameOver("the game is over")
    events: list[dict] = []
    _finish(state, reason, events)
    state.seq += 1
    return events


# ------------------------------------------------------------------ what leaves the engine


def _json_cell(cell: Cell | None) -> list[int] | None:
    return None if cell is None else list(cell)


def reachable(state: GameState) -> list[Cell]:
    """T3.2: the free cells a walk from the standing cell (round 1: from outside, through a free
    corner) could still reach, whatever the dice."""
    blocked = blocked_mask(state)
    free = ((1 << (SIZE * SIZE)) - 1) & ~blocked
    if state.position is None:
        corners = mask_of(cell_of(c) for c in CORNER_INDICES) & free
        mask = corners | region(corners, free)
    else:
        mask = region(bit(state.position), free)
    return [cell_of(i) for i in range(SIZE * SIZE) if mask >> i & 1]


def view(state: GameState, player: PlayerId | None = None) -> dict:
    """What ``player`` (``None``: a spectator) may see: everything but the dice to come; the
    player alone gets ``you`` and the legal turns with their paths (T3.1)."""
    if player is not None:
        _seat(state, player)
    data: dict[str, Any] = {
        "kind": KIND,
        "status": state.status,
        "seq": state.seq,
        "players": [{"id": p} for p in state.players],
        "options": dict(state.options),
        "grid": [list(row) for row in state.grid],
        "grid_version": state.grid_version,
        "crossed": [list(cell) for cell in state.crossed],
        "circled": [list(cell) for cell in state.circled],
        "position": _json_cell(state.position),
        "dice": None if state.dice is None else list(state.dice),
        "rolls": [list(roll) for roll in state.rolls],
        "failed_rolls": state.failed_rolls,
        "round": state.round,
        "score": score(state),
        "reachable": [list(cell) for cell in reachable(state)],
        "history": copy.deepcopy(state.history),
        "legal": [],
        "paths": [],
        "crossings": [],
    }
    if player is not None:
        data["you"] = {"player_id": player}
    if player is not None and not is_over(state):
        found = turns(state)
        data["legal"] = [_message(cross, to) for cross, _die, to, _path in found]
        data["paths"] = [[list(cell) for cell in path] for _c, _d, _t, path in found]
        usable = {cross for cross, _die, _to, _path in found}
        data["crossings"] = [
            {"cross": list(cell), "pair": list(pair), "die": die}
            for cell, die, pair in crossings(state.dice or (), blocked_mask(state))
            if cell in usable
        ]
    if is_over(state):
        data["end_reason"] = state.end_reason
        data["results"] = results(state)
    return data


# ---------------------------------------------------------------------------- replay and storage


def replay(
    seed: Any,
    players: Sequence[PlayerId],
    options: dict | None,
    moves: Iterable[tuple[PlayerId, dict]],
) -> GameState:
    """T1.2: the same seed and the same moves give the same game."""
    state = new_game(seed, players, options)
    for player, move in moves:
        apply(state, player, move)
    return state


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
        "history": copy.deepcopy(state.history),
        "status": state.status,
        "end_reason": state.end_reason,
        "seq": state.seq,
        "results": copy.deepcopy(state.results),
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
        history=copy.deepcopy(data["history"]),
        status=data["status"],
        end_reason=data["end_reason"],
        seq=data["seq"],
        results=copy.deepcopy(data["results"]),
    )


def scramble(state: GameState, player: PlayerId | None, rng: random.Random) -> GameState:
    """A copy whose dice generator is reseeded from ``rng``: the dice to come are the game's
    only secret, and nothing else differs."""
    if player is not None:
        _seat(state, player)
    other = from_dict(to_dict(state))
    other.rng = random.Random(rng.getrandbits(64))
    return other
