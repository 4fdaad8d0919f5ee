"""Boards refuse malformed data with a clear message."""

import pytest

from games.ratumrad.board import make_board

pytestmark = pytest.mark.engine  # neither database nor channel layer

PLACES = [{"id": p, "name": p, "x": 0.0, "y": 0.0} for p in "abc"]
CARD = [{"id": 0, "a": "a", "b": "c", "points": 3}]


def road(i, a="a", b="b", length=2, color="red", double_of=None):
    return {"id": i, "a": a, "b": b, "length": length, "color": color, "double_of": double_of}


@pytest.mark.parametrize(
    ("roads", "message"),
    [
        ([road(0, double_of=5)], "proper double"),
        ([road(0, double_of=0)], "proper double"),
        ([road(0, double_of=1), road(1, length=3, double_of=0)], "proper double"),
        ([road(0, double_of=1), road(1, b="c", double_of=0)], "proper double"),
        ([road(0, length=7)], "length"),
        ([road(0, color="purple")], "colour"),
        ([road(0, b="a")], "unknown or equal"),
        ([road(1)], "ids"),
    ],
)
def test_malformed_roads_are_refused(roads, message):
    with pytest.raises(ValueError, match=message):
        make_board("bad", PLACES, roads, CARD)


def test_a_proper_double_is_accepted():
    board = make_board(
        "ok", PLACES, [road(0, double_of=1), road(1, color="blue", double_of=0)], CARD
    )
    assert [r.double_of for r in board.roads] == [1, 0]
    assert board.road_table == ((0, 2, 0, 1), (1, 2, 1, 0))


def test_cards_must_be_worth_points_and_places_need_a_known_bank():
    with pytest.raises(ValueError, match="points"):
        make_board("bad", PLACES, [road(0)], [{**CARD[0], "points": 0}])
    with pytest.raises(ValueError, match="bank"):
        make_board("bad", [{**PLACES[0], "bank": "left"}, *PLACES[1:]], [road(0)], CARD)
