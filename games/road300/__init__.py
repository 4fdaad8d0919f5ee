"""Road to 300: a solo dice game on a 6x6 sheet. A pure-Python rules engine (no Django).

This package is the kind's face to the site (the engine contract of ``games.contract``); the
rules are in ``engine``, the sheets in ``grids``, the computer players in ``bots``.
"""

from __future__ import annotations

from .bots import strong_bot_score
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
    "strong_bot_score",
    "to_dict",
    "to_move",
    "view",
]
