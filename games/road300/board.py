"""The geometry of the 6x6 sheet (T1.1), shared by the engine and the bots.

Cells are named ``(x, y)`` in the protocol (x = column, y = row, both 1..6). Inside, a cell is
an index ``i = (y - 1) * 6 + (x - 1)`` and a set of cells is an int with bit ``i`` set, so that
"is any cell of this path crossed?" is one ``&``.

:func:`walks` lists every move of ``steps`` orthogonal steps from a cell that never visits a cell
twice (T2.5), whatever is crossed: the engine and the bots filter them with the mask of the
blocked cells. Within one list the straightest walks (fewest turns) come first, so the first
walk that reaches a cell is the path the interface draws.
"""

from __future__ import annotations

from functools import cache

SIZE = 6
CELL_COUNT = SIZE * SIZE
FULL = (1 << CELL_COUNT) - 1
MAX_STEPS = 6  # a die

Cell = tuple[int, int]


def index(cell: Cell) -> int:
    x, y = cell
    return (y - 1) * SIZE + (x - 1)


def cell_of(i: int) -> Cell:
    return (i % SIZE + 1, i // SIZE + 1)


def bit(cell: Cell) -> int:
    return 1 << index(cell)


def mask_of(cells) -> int:
    mask = 0
    for cell in cells:
        mask |= bit(cell)
    return mask


CORNERS: tuple[Cell, ...] = ((1, 1), (SIZE, 1), (1, SIZE), (SIZE, SIZE))
CORNER_INDICES: tuple[int, ...] = tuple(index(c) for c in CORNERS)


def _neighbors(i: int) -> tuple[int, ...]:
    x, y = cell_of(i)
    steps = ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))
    return tuple(index((a, b)) for a, b in steps if 1 <= a <= SIZE and 1 <= b <= SIZE)


NEIGHBORS: tuple[tuple[int, ...], ...] = tuple(_neighbors(i) for i in range(CELL_COUNT))

# Bit masks for flood fills: cells that may shift right (not in the last column) and left.
_NOT_LAST_COLUMN = mask_of((x, y) for x in range(1, SIZE) for y in range(1, SIZE + 1))
_NOT_FIRST_COLUMN = mask_of((x, y) for x in range(2, SIZE + 1) for y in range(1, SIZE + 1))


def spread(mask: int) -> int:
    """Every cell orthogonally next to a cell of ``mask``."""
    return (
        ((mask & _NOT_LAST_COLUMN) << 1)
        | ((mask & _NOT_FIRST_COLUMN) >> 1)
        | ((mask << SIZE) & FULL)
        | (mask >> SIZE)
    )


def region(start_mask: int, free: int) -> int:
    """The cells of ``free`` connected to ``start_mask`` (which need not be free itself)."""
    right, left = _NOT_LAST_COLUMN, _NOT_FIRST_COLUMN  # spread() inlined: the bots' hot loop
    m = start_mask
    reach = (((m & right) << 1) | ((m & left) >> 1) | (m << SIZE) | (m >> SIZE)) & free
    front = reach
    while front:
        m = front
        front = (((m & right) << 1) | ((m & left) >> 1) | (m << SIZE) | (m >> SIZE)) & free
        front &= ~reach
        reach |= front
    return reach


Walk = tuple[int, int, tuple[int, ...]]  # (mask of the cells stepped on, end, path)


@cache
def walks(start: int, steps: int) -> tuple[Walk, ...]:
    """Every self-avoiding walk of exactly ``steps`` steps from ``start`` (start not included in
    the mask nor the path), straightest first."""
    found: list[tuple[int, int, Walk]] = []

    def extend(at: int, path: list[int], mask: int, heading: int, turns: int) -> None:
        if len(path) == steps:
            found.append((turns, len(found), (mask, at, tuple(path))))
            return
        for nxt in NEIGHBORS[at]:
            b = 1 << nxt
            if b & mask or nxt == start:
                continue
            direction = nxt - at
            path.append(nxt)
            extend(nxt, path, mask | b, direction, turns + (heading not in (0, direction)))
            path.pop()

    extend(start, [], 0, 0, 0)
    found.sort()
    return tuple(walk for _, _, walk in found)


@cache
def walks_by_end(start: int, steps: int) -> tuple[tuple[int, int, int, tuple[int, ...]], ...]:
    """The walks of :func:`walks` by end cell: ``(end, cells on some walk, cells on every
    walk, the mask of each walk)``, for the bots."""
    by_end: dict[int, list[int]] = {}
    for mask, end, _path in walks(start, steps):
        by_end.setdefault(end, []).append(mask)
    grouped = []
    for end, masks in sorted(by_end.items()):
        union, common = 0, FULL
        for mask in masks:
            union |= mask
            common &= mask
        grouped.append((end, union, common, tuple(masks)))
    return tuple(grouped)


def _ring(i: int) -> tuple[int, ...]:
    x, y = cell_of(i)
    around = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))
    return tuple(
        index((x + dx, y + dy)) if 1 <= x + dx <= SIZE and 1 <= y + dy <= SIZE else -1
        for dx, dy in around
    )


RINGS: tuple[tuple[int, ...], ...] = tuple(_ring(i) for i in range(CELL_COUNT))


def _groups(pattern: int) -> int:
    """How many runs of free cells around a ring (bit k: k-th cell of the ring, clockwise from
    north) hold an orthogonal neighbour."""
    if pattern == 0xFF:
        return 1
    start = next(k for k in range(8) if not pattern >> k & 1)  # a blocked cell splits the ring
    runs, inside, orthogonal = 0, False, False
    for step in range(1, 9):
        k = (start + step) % 8
        if pattern >> k & 1:
            inside = True
            orthogonal = orthogonal or k % 2 == 0
        elif inside:
            runs += orthogonal
            inside = orthogonal = False
    return runs


RING_GROUPS: tuple[int, ...] = tuple(_groups(p) for p in range(256))


def splits(i: int, free: int) -> bool:
    """Whether taking cell ``i`` out of ``free`` might split the free cells around it: false
    when its free neighbours stay connected through the ring of 8 cells around it."""
    pattern = 0
    for k, j in enumerate(RINGS[i]):
        if j >= 0 and free >> j & 1:
            pattern |= 1 << k
    return RING_GROUPS[pattern] > 1
