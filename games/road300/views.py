"""What leaves the Road to 300 engine: the view of the player or a spectator (T3.1, T3.2)."""

from __future__ import annotations

from typing import Any

from games.contract import PlayerId, plain_copy

from .legal import _message, blocked_mask, crossings, reachable, turns
from .scoring import score
from .state import KIND, GameState, _json_cell, _seat, is_over, results


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
        "history": plain_copy(state.history),
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
