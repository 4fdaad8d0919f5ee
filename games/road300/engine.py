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

The rules' modules: ``state`` (constants, options, the state and its storage), ``legal`` (the
turns a roll offers), ``dice`` (rolls and the end of the game), ``scoring`` and ``views``; this
module deals a game and applies a turn, and hands on their names.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
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
)

from .board import SIZE, Cell, bit
from .dice import _roll, end_game
from .grids import CURRENT, GRIDS
from .legal import blocked_mask, crossings, destinations, legal_moves, reachable, turns
from .scoring import score, scoring_cells
from .state import (
    DICE,
    FINISHED,
    KIND,
    MAX_FAILED_ROLLS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MOVE_TYPES,
    NO_LEGAL_MOVE,
    OPTIONS,
    RUNNING,
    THREE_FAILED_ROLLS,
    WINNING_TOTAL,
    GameState,
    _json_cell,
    _seat,
    check_options,
    from_dict,
    is_over,
    phase,
    results,
    scramble,
    to_dict,
    to_move,
)
from .views import view

__all__ = [
    "CURRENT",
    "DICE",
    "FINISHED",
    "KIND",
    "MAX_FAILED_ROLLS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MOVE_TYPES",
    "NO_LEGAL_MOVE",
    "OPTIONS",
    "RUNNING",
    "THREE_FAILED_ROLLS",
    "WINNING_TOTAL",
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
    "blocked_mask",
    "check_options",
    "crossings",
    "destinations",
    "end_game",
    "from_dict",
    "is_over",
    "legal_moves",
    "new_game",
    "phase",
    "reachable",
    "replay",
    "results",
    "score",
    "scoring_cells",
    "scramble",
    "to_dict",
    "to_move",
    "turns",
    "view",
]


# ---------------------------------------------------------------------------- setup


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


# ---------------------------------------------------------------------------- applying a turn


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


# ---------------------------------------------------------------------------- replay


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
