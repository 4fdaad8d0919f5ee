"""R7: drawing destination cards."""

import pytest

from games.ratumrad import engine
from games.ratumrad.engine import IllegalMove
from tests.engine_boards import current, hand, started

pytestmark = pytest.mark.engine  # neither database nor channel layer

DRAW = {"type": "DRAW_DESTINATION_CARDS"}


def keep(*ids):
    return {"type": "KEEP_DESTINATION_CARDS", "keep": list(ids)}


def test_R7_1_draw_the_top_three_and_keep_at_least_one():
    state = started(2)
    alice = current(state)
    top = state.short_deck[-3:][::-1]
    engine.apply(state, alice.id, DRAW)
    assert alice.pending == top and state.turn == engine.CHOOSE_DESTINATIONS
    assert len(engine.turn_moves(state, alice.id)) == 7  # every non-empty subset
    with pytest.raises(IllegalMove, match=r"^R7\.1"):
        engine.apply(state, alice.id, keep())
    engine.apply(state, alice.id, keep(top[1]))
    assert alice.destinations[-1] == top[1] and alice.pending == []
    assert current(state) is not alice


def test_R7_1_all_three_may_be_kept():
    state = started(2)
    alice = current(state)
    engine.apply(state, alice.id, DRAW)
    drawn = list(alice.pending)
    engine.apply(state, alice.id, keep(*drawn))
    assert alice.destinations[-3:] == drawn


def test_R7_1_fewer_than_three_cards_left_draws_what_is_left():
    state = started(2)
    alice = current(state)
    state.short_deck = state.short_deck[:2]
    engine.apply(state, alice.id, DRAW)
    assert len(alice.pending) == 2 and state.short_deck == []
    assert len(engine.turn_moves(state, alice.id)) == 3


def test_R7_1_not_available_when_the_short_deck_is_empty():
    state = started(2)
    alice = current(state)
    state.short_deck = []
    assert DRAW not in engine.turn_moves(state, alice.id)
    with pytest.raises(IllegalMove, match=r"^R7\.1"):
        engine.apply(state, alice.id, DRAW)


def test_R7_1_only_drawn_cards_can_be_kept():
    state = started(2)
    alice = current(state)
    engine.apply(state, alice.id, DRAW)
    with pytest.raises(IllegalMove, match=r"^R7\.1"):
        engine.apply(state, alice.id, keep(alice.destinations[0]))
    with pytest.raises(engine.BadField):
        engine.apply(state, alice.id, keep(alice.pending[0], alice.pending[0]))


def test_R7_2_returned_cards_go_under_the_short_deck():
    state = started(2)
    alice = current(state)
    engine.apply(state, alice.id, DRAW)
    rest = list(state.short_deck)
    drawn = list(alice.pending)
    engine.apply(state, alice.id, keep(drawn[0]))
    assert sorted(state.short_deck[:2]) == sorted(drawn[1:])
    assert state.short_deck[2:] == rest


def test_R7_3_nothing_else_until_the_choice_is_made():
    state = started(2)
    alice = current(state)
    alice.hand = hand(red=3)
    engine.apply(state, alice.id, DRAW)
    for move in (
        {"type": "TAKE_WHEEL", "source": "deck"},
        {"type": "BUILD_ROAD", "road": 0},
        DRAW,
    ):
        with pytest.raises(IllegalMove, match=r"^R7\.3"):
            engine.apply(state, alice.id, move)
    assert current(state) is alice and state.turn == engine.CHOOSE_DESTINATIONS
