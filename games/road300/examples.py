"""The two worked examples of T4.2 that the rules page draws and tests/test_road300_rules.py
plays: the same sheet after three rounds, ended once by T2.8 and once by three failed rolls.

The player entered on (1, 1), moved to (1, 3), then to (2, 4), where they stand.
"""

from __future__ import annotations

CIRCLED = ((1, 1), (1, 3), (2, 4))

EXAMPLES = {
    # The roll 1 2 2 can cross (1, 2), (2, 1) or (2, 2), but every neighbour of (2, 4) is
    # crossed: no move (T2.8). T2.4 still crosses (2, 4), so all three circles score.
    "no_legal_move": {
        "crossed": ((5, 5), (1, 1), (3, 3), (1, 3), (2, 3), (3, 4), (2, 5), (1, 4)),
        "rolls": ((1, 2, 2),),
        "scoring": CIRCLED,
    },
    # Three rolls in a row name only crossed cells (T2.3): no T2.4 comes, so (2, 4) is
    # circled but not crossed and does not score.
    "three_failed_rolls": {
        "crossed": ((5, 5), (1, 1), (3, 3), (1, 3), (1, 2), (2, 1), (2, 2)),
        "rolls": ((1, 1, 2), (2, 2, 1), (1, 2, 1)),
        "scoring": CIRCLED[:2],
    },
}
