"""RAGE: a trick-taking card game for 3 to 8 players. A pure-Python rules engine (no Django).

This package is the kind's face to the site (the engine contract of ``games.contract``); the
rules are in ``engine``, the deck in ``cards``, the computer players in ``bots``.
"""

from __future__ import annotations

from .engine import (
    BOTS,
    KIND,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MOVE_TYPES,
    EngineError,
    GameState,
    apply,
    check_options,
    end_game,
    from_dict,
    is_over,
    legal_moves,
    make_bot,
    new_game,
    phase,
    replay,
    results,
    scramble,
    simulate_report,
    to_dict,
    to_move,
    view,
)

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
