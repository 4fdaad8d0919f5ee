"""Rat um Rad: Ticket to Ride as bicycle routes through Basel. A pure-Python rules engine.

This package is the kind's face to the site (the engine contract of ``games.contract``): the
game on the Basel map. ``engine`` itself takes any board (the tests use small ones).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from games.contract import BadOption, PlayerId

from . import bots as _bots
from . import engine
from .board import basel
from .engine import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    MOVE_TYPES,
    EngineError,
    GameState,
    apply,
    end_game,
    legal_moves,
    to_dict,
    view,
)
from .report import simulate_report

KIND = "ratumrad"
BOTS = tuple(_bots.BOTS)


def check_options(options: object) -> dict:
    """Rat um Rad has no options yet: only ``{}`` is accepted."""
    if not isinstance(options, dict):
        raise BadOption("options", "options are a JSON object")
    for name in options:
        raise BadOption(f"options.{name}", "Rat um Rad has no option {name}", name=repr(name))
    return {}


def new_game(seed: int, players: Sequence[PlayerId], options: dict | None = None) -> GameState:
    return engine.new_game(seed, players, basel())


def to_move(state: GameState) -> list[PlayerId]:
    """Who has something to do now: everyone still choosing in the preparation (R2.4), later
    the current player (a vote to end, R8.2, is never required)."""
    return [player.id for player in state.players if engine.turn_moves(state, player.id)]


def phase(state: GameState) -> str:
    return state.status


def is_over(state: GameState) -> bool:
    return state.status == engine.FINISHED


def results(state: GameState) -> list[dict]:
    return state.results or []


def replay(
    seed: int,
    players: Sequence[PlayerId],
    options: dict | None,
    moves: Iterable[tuple[PlayerId, dict]],
) -> GameState:
    return engine.replay(seed, players, moves, basel())


def from_dict(data: dict) -> GameState:
    return engine.from_dict(data, basel())


def scramble(state: GameState, player: PlayerId | None, rng: random.Random) -> GameState:
    return engine.scramble(state, player, rng)


class _OnBasel:
    """A Rat um Rad bot with the contract's ``choose(view)``: it plays on the Basel map."""

    def __init__(self, bot: _bots.Bot):
        self.bot = bot

    def choose(self, view: dict) -> dict:
        return self.bot.choose(view, basel())


def make_bot(name: str, seed: int = 0) -> _OnBasel:
    return _OnBasel(_bots.make_bot(name, seed))


__all__ = [
    "BOTS",
    "KIND",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MOVE_TYPES",
    "EngineError",
    "GameState",
    "apply",
    "check_options",
    "end_game",
    "from_dict",
    "is_over",
    "legal_moves",
    "make_bot",
    "new_game",
    "phase",
    "replay",
    "results",
    "scramble",
    "simulate_report",
    "to_dict",
    "to_move",
    "view",
]
