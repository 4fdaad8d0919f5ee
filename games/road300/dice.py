"""The dice of Road to 300 and the end of the game: rolling until a roll can cross a cell (T2.1,
T2.3), the end after three failed rolls or with no legal move (T2.8, T4.1), an admin's end."""

from __future__ import annotations

from games.contract import GameOver

from .legal import blocked_mask, crossings, turns
from .scoring import _results
from .state import (
    DICE,
    FINISHED,
    MAX_FAILED_ROLLS,
    NO_LEGAL_MOVE,
    THREE_FAILED_ROLLS,
    GameState,
    _json_cell,
    is_over,
)


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


def end_game(state: GameState, reason: str) -> list[dict]:
    """End a running game now (an admin's decision). No T2.4 comes, so the standing cell does
    not count (as after three failed rolls)."""
    if is_over(state):
        raise GameOver("the game is over")
    events: list[dict] = []
    _finish(state, reason, events)
    state.seq += 1
    return events
