"""The turns a Road to 300 roll offers: the cells it can cross (T2.2), where the moving die can
end (T2.5, T2.6), the legal ROAD_TURN messages (T2.8) and the cells still reachable (T3.2)."""

from __future__ import annotations

from collections.abc import Sequence

from games.contract import PlayerId

from .board import CORNER_INDICES, SIZE, Cell, bit, cell_of, index, mask_of, region, walks
from .state import _PAIRS, GameState, _seat, is_over


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


def _message(cross: Cell, to: Cell) -> dict:
    return {"type": "ROAD_TURN", "cross": list(cross), "to": list(to)}


def legal_moves(state: GameState, player: PlayerId) -> list[dict]:
    """Every ROAD_TURN the player may send now (T2.8), by crossed cell then end cell."""
    _seat(state, player)
    if is_over(state):
        return []
    return [_message(cross, to) for cross, _die, to, _path in turns(state)]


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
