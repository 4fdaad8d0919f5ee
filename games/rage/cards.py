"""The RAGE deck (G1.1): 96 colour cards ``"blue-0"`` .. ``"cyan-15"`` and 16 action cards.

A card is its name; copies of an action card share the name. Action cards belong to no colour.
"""

from __future__ import annotations

COLORS = ("blue", "green", "red", "yellow", "violet", "cyan")
VALUES = range(16)

JOKER = "joker"
NO_TRUMP = "no_trump"
CHANGE_TRUMP = "change_trump"
PLUS5 = "plus5"
MINUS5 = "minus5"

# Action cards and their copies, in the order a hand shows them (after the colours).
ACTION_COUNTS = {JOKER: 2, NO_TRUMP: 4, CHANGE_TRUMP: 4, PLUS5: 3, MINUS5: 3}
ACTIONS = tuple(ACTION_COUNTS)
ACTION_POINTS = {PLUS5: 5, MINUS5: -5}  # G3.8

COLOR_CARDS = tuple(f"{color}-{value}" for color in COLORS for value in VALUES)
DECK = COLOR_CARDS + tuple(name for name, count in ACTION_COUNTS.items() for _ in range(count))
DECK_SIZE = len(DECK)  # 112

COLOR_OF: dict[str, str] = {f"{c}-{v}": c for c in COLORS for v in VALUES}
VALUE_OF: dict[str, int] = {f"{c}-{v}": v for c in COLORS for v in VALUES}
CARD_NAMES = frozenset(DECK)

_SORT_KEY = {card: i for i, card in enumerate(dict.fromkeys(DECK))}


def is_action(card: str) -> bool:
    return card in ACTION_COUNTS


def sort_key(card: str) -> int:
    """Colour (in :data:`COLORS` order) then value; action cards last."""
    return _SORT_KEY[card]


def sorted_hand(cards) -> list[str]:
    return sorted(cards, key=_SORT_KEY.__getitem__)


assert DECK_SIZE == 112 and len(COLOR_CARDS) == 96
