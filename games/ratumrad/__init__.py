"""Rat um Rad: Ticket to Ride as bicycle routes through Basel. A pure-Python rules engine."""

from .engine import (
    EngineError,
    GameState,
    apply,
    end_game,
    from_dict,
    legal_moves,
    new_game,
    replay,
    results,
    to_dict,
    turn_moves,
    view,
)

__all__ = [
    "EngineError",
    "GameState",
    "apply",
    "end_game",
    "from_dict",
    "legal_moves",
    "new_game",
    "replay",
    "results",
    "to_dict",
    "turn_moves",
    "view",
]
