"""Small boards and shortcuts for engine tests."""

from __future__ import annotations

from games.ratumrad import engine
from games.ratumrad.board import Board, make_board

PLACES = "abcdefghij"

# (a, b, length, colour, double_of)
TOY_ROADS = [
    ("a", "b", 1, "red", None),  # 0
    ("b", "c", 2, "blue", None),  # 1
    ("c", "d", 3, "grey", None),  # 2
    ("d", "e", 4, "green", None),  # 3
    ("e", "f", 5, "yellow", None),  # 4
    ("f", "g", 6, "pink", None),  # 5
    ("g", "h", 2, "black", None),  # 6
    ("h", "a", 3, "white", None),  # 7
    ("a", "e", 2, "orange", None),  # 8
    ("b", "f", 4, "grey", None),  # 9
    ("c", "g", 2, "red", 11),  # 10
    ("c", "g", 2, "blue", 10),  # 11
    ("d", "h", 1, "grey", 13),  # 12
    ("d", "h", 1, "grey", 12),  # 13
    ("i", "j", 3, "green", None),  # 14
    ("a", "i", 4, "yellow", None),  # 15
    ("j", "c", 5, "black", None),  # 16
    ("e", "i", 6, "white", None),  # 17
]
SHORT_PAIRS = [
    ("a", "c"), ("b", "d"), ("c", "e"), ("d", "f"), ("e", "g"),
    ("f", "h"), ("g", "a"), ("h", "b"), ("a", "d"), ("b", "e"),
    ("c", "f"), ("d", "g"), ("e", "h"), ("f", "a"), ("g", "b"),
]  # fmt: skip
LONG_PAIRS = [("i", "f"), ("j", "h"), ("i", "g"), ("j", "e"), ("i", "d")]


def toy_board() -> Board:
    """Ten places, 18 roads with a cycle, branches, grey roads and two doubles."""
    locations = [
        {"id": p, "name": p.upper(), "x": 10.0 * i, "y": 5.0 * (i % 3)}
        for i, p in enumerate(PLACES)
    ]
    roads = [
        {"id": i, "a": a, "b": b, "length": n, "color": c, "double_of": twin}
        for i, (a, b, n, c, twin) in enumerate(TOY_ROADS)
    ]
    cards = [(a, b, False) for a, b in SHORT_PAIRS] + [(a, b, True) for a, b in LONG_PAIRS]
    destinations = [
        {"id": i, "a": a, "b": b, "points": 4 + i, "long": long}
        for i, (a, b, long) in enumerate(cards)
    ]
    return make_board("toy", locations, roads, destinations)


TOY = toy_board()
PERSONAS = ("alice", "bob", "charlie", "dora", "emil")


def started(players: int = 2, seed: int = 1, board: Board = TOY) -> engine.GameState:
    """A game past preparation: everyone kept all three short cards."""
    state = engine.new_game(seed, PERSONAS[:players], board)
    for player in list(state.players):
        engine.apply(
            state,
            player.id,
            {"type": "SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION", "keep": player.pending},
        )
    return state


def hand(**counts: int) -> list[int]:
    """A hand as the engine stores it: counts per colour, the joker last."""
    return [counts.get(color, 0) for color in engine.COLORS]


def cards(*names: str | None) -> list[int | None]:
    """Card colour names to the engine's indices; ``None`` stays an empty display slot."""
    return [None if name is None else engine.COLOR_INDEX[name] for name in names]


def current(state: engine.GameState) -> engine.Player:
    return state.players[state.current]


def take(slot: int | None = None) -> dict:
    """A TAKE_WHEEL move: blind from the deck, or the face-up card in ``slot``."""
    if slot is None:
        return {"type": "TAKE_WHEEL", "source": "deck"}
    return {"type": "TAKE_WHEEL", "source": "face_up", "slot": slot}
