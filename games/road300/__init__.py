"""Road to 300: a solo dice game on a 6x6 sheet. A pure-Python rules engine (no Django).

This package is the kind's face to the site (the engine contract of ``games.contract``); the
rules are in ``engine``, the sheets in ``grids``, the computer players in ``bots`` and their
seeded games for ``manage.py simulate`` in ``simulation``. Bots and simulation stand on the
rules, never the other way round: this face hands on their ``BOTS``, ``make_bot`` and
``simulate_report``.
"""

from __future__ import annotations

from . import bots as _bots
from .bots import make_bot, strong_bot_score
from .engine import (
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
    new_game,
    phase,
    replay,
    results,
    scramble,
    to_dict,
    to_move,
    view,
)
from .simulation import simulate_report

BOTS = tuple(_bots.BOTS)

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
