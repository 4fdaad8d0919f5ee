"""The value sheets of Road to 300 (T1.1), as versioned data.

``GRIDS[v]`` is six rows of six values, ``GRIDS[v][y - 1][x - 1]`` the value of cell (x, y).
The four corners show 30 and no other cell does. A game records the version it was dealt
(``grid_version``); a sheet, once published, never changes: a new design is a new version and
``CURRENT`` moves to it. The design method and the calibration runs are in
``docs/road300-grid.md``.
"""

from __future__ import annotations

Grid = tuple[tuple[int, ...], ...]

GRIDS: dict[int, Grid] = {
    1: (
        (30, 10, 15, 15, 10, 30),
        (10, 20, 20, 20, 20, 10),
        (15, 20, 25, 25, 20, 15),
        (15, 20, 25, 25, 20, 15),
        (10, 20, 20, 20, 20, 10),
        (30, 10, 15, 15, 10, 30),
    ),
}

CURRENT = 1


def check_grid(grid: Grid) -> None:
    """Raise ``ValueError`` unless ``grid`` is a 6x6 sheet whose corners are its only 30s."""
    if len(grid) != 6 or any(len(row) != 6 for row in grid):
        raise ValueError("a grid has 6 rows of 6 values")
    corners = {(0, 0), (0, 5), (5, 0), (5, 5)}
    for y, row in enumerate(grid):
        for x, value in enumerate(row):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"cell ({x + 1}, {y + 1}) holds {value!r}, not a count")
            if ((x, y) in corners) != (value == 30):
                raise ValueError(f"cell ({x + 1}, {y + 1}): 30 is for the corners only (T1.1)")


for _grid in GRIDS.values():
    check_grid(_grid)
