"""The score of a Road to 300 sheet (T4.2, T4.3)."""

from __future__ import annotations

from .board import Cell
from .state import WINNING_TOTAL, GameState


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
