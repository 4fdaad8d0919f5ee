"""R5: drawing wheel cards."""

import pytest

from games.ratumrad import engine
from games.ratumrad.engine import IllegalMove
from tests.engine_boards import cards, current, started, take

pytestmark = pytest.mark.engine  # neither database nor channel layer


def display(state, *names):
    state.face_up = cards(*names)


def test_R5_1_a_draw_is_two_cards_one_at_a_time():
    state = started(2)
    alice = current(state)
    before = sum(alice.hand)
    state.deck[-1] = engine.COLOR_INDEX["red"]
    engine.apply(state, alice.id, take())
    assert state.turn == engine.SECOND_CARD and current(state) is alice
    assert sum(alice.hand) == before + 1
    engine.apply(state, alice.id, take())
    assert sum(alice.hand) == before + 2
    assert current(state) is not alice and state.turn is None


def test_R5_1_nothing_but_a_second_card_during_a_draw():
    state = started(2)
    alice = current(state)
    engine.apply(state, alice.id, take())
    with pytest.raises(IllegalMove, match=r"^R5\.1"):
        engine.apply(state, alice.id, {"type": "DRAW_DESTINATION_CARDS"})
    assert all(m["type"] == "TAKE_WHEEL" for m in engine.turn_moves(state, alice.id))


def test_R5_2_a_face_up_card_taken_is_replaced_from_the_deck_at_once():
    state = started(2)
    alice = current(state)
    display(state, "red", "blue", "green", "white", "black")
    state.deck.append(engine.COLOR_INDEX["pink"])
    _, events = engine.apply(state, alice.id, take(1))
    assert alice.hand[engine.COLOR_INDEX["blue"]] >= 1
    assert state.face_up == cards("red", "pink", "green", "white", "black")
    assert events[0] == {
        "kind": "took_wheel",
        "player": alice.id,
        "source": "face_up",
        "slot": 1,
        "color": "blue",
    }


def test_R5_3_face_up_joker_as_first_card_ends_the_draw():
    state = started(2)
    alice = current(state)
    display(state, "joker", "blue", "green", "white", "black")
    jokers = alice.hand[engine.J]
    engine.apply(state, alice.id, take(0))
    assert alice.hand[engine.J] == jokers + 1
    assert current(state) is not alice


def test_R5_4_second_card_cannot_be_a_face_up_joker():
    state = started(2)
    alice = current(state)
    display(state, "red", "joker", "green", "white", "black")
    engine.apply(state, alice.id, take(0))
    assert take(1) not in engine.turn_moves(state, alice.id)
    with pytest.raises(IllegalMove, match=r"^R5\.4"):
        engine.apply(state, alice.id, take(1))
    engine.apply(state, alice.id, take(2))
    assert current(state) is not alice


def test_R5_4_not_even_a_joker_just_revealed():
    state = started(2)
    alice = current(state)
    display(state, "red", "blue", "green", "white", "black")
    state.deck.append(engine.J)  # revealed into slot 0
    engine.apply(state, alice.id, take(0))
    assert state.face_up[0] == engine.J
    with pytest.raises(IllegalMove, match=r"^R5\.4"):
        engine.apply(state, alice.id, take(0))


def test_R5_4_a_blind_joker_counts_as_an_ordinary_card():
    state = started(2)
    alice = current(state)
    state.deck.append(engine.J)
    engine.apply(state, alice.id, take())
    assert state.turn == engine.SECOND_CARD and current(state) is alice


def test_R5_5_three_face_up_jokers_send_the_display_to_the_discard():
    state = started(2)
    alice = current(state)
    display(state, "red", "joker", "joker", "white", "black")
    state.discard = []
    state.deck.extend(cards("yellow", "yellow", "green", "orange", "pink", "joker"))
    # Taking "red" reveals the top card, a joker: three jokers, the display is wiped.
    _, events = engine.apply(state, alice.id, take(0))
    assert [e["kind"] for e in events if e["kind"] == "display_wiped"] == ["display_wiped"]
    assert sorted(state.discard) == sorted(cards("joker", "joker", "joker", "white", "black"))
    assert state.face_up == cards("pink", "orange", "green", "yellow", "yellow")


def test_R5_5_after_three_wipes_in_a_row_the_display_stays_until_a_card_is_taken():
    state = started(2)
    alice = current(state)
    display(state, "red", "joker", "joker", "white", "black")
    state.discard = []
    # Every refill shows three jokers again: the fourth display stays although it has 3 jokers.
    refills = ["joker", "joker", "joker", "blue", "blue"] * 3
    state.deck.extend(cards(*reversed(refills), "joker"))
    state.deck[: len(state.deck) - 16] = []  # the rest is irrelevant: keep the deck short
    state.deck[0:0] = cards("green", "green", "green", "green")
    _, events = engine.apply(state, alice.id, take(0))
    wipes = [e for e in events if e["kind"] == "display_wiped"]
    assert [e["locked"] for e in wipes] == [False, False, True]
    assert state.face_up.count(engine.J) == 3
    assert state.wipes_in_row == 3
    # A blind draw leaves the locked display alone.
    engine.apply(state, alice.id, take())
    assert state.face_up.count(engine.J) == 3
    # The next card taken from it ends the lock: the display is wiped again.
    bob = current(state)
    slot = state.face_up.index(engine.COLOR_INDEX["blue"])
    _, events = engine.apply(state, bob.id, take(slot))
    assert any(e["kind"] == "display_wiped" for e in events)


def test_R5_5_when_only_jokers_are_left_the_display_cannot_be_fixed_and_play_goes_on():
    state = started(2)
    alice, bob = state.players
    # Everything but three jokers is in hands: the wipes shuffle the same jokers back.
    state.deck, state.discard = [], []
    display(state, "joker", "joker", "red", None, None)
    alice.hand = [10, 10, 9, 10, 10, 10, 10, 10, 3]
    bob.hand = [0, 0, 0, 0, 0, 0, 0, 0, 4]
    _, events = engine.apply(state, alice.id, take(2))  # red: two jokers left
    assert state.face_up.count(engine.J) == 2 and current(state) is bob
    # Bob pays a joker for a road: it is reshuffled into the deck and refills the display
    # to three jokers; every wipe brings the same three back, so after three the display stays.
    _, events = engine.apply(state, bob.id, {"type": "BUILD_ROAD", "road": 0})
    kinds = [e["kind"] for e in events]
    assert kinds.count("display_wiped") == 3
    assert state.face_up.count(engine.J) == 3 and state.wipes_in_row == 3
    assert current(state) is alice
    assert engine.turn_moves(state, alice.id)  # the game goes on


def test_R5_6_an_empty_deck_is_refilled_from_the_shuffled_discard():
    state = started(2)
    alice = current(state)
    display(state, "red", "blue", "green", "white", "black")
    state.deck = cards("yellow")
    state.discard = cards("pink", "pink", "orange")
    _, events = engine.apply(state, alice.id, take())
    assert {"kind": "deck_reshuffled", "cards": 3} in events
    assert sorted(state.deck) == sorted(cards("pink", "pink", "orange"))
    assert state.discard == []


def test_R5_7_nothing_to_draw_when_the_deck_is_empty_and_fewer_than_two_are_take():
    state = started(2)
    alice = current(state)
    state.deck, state.discard = [], []
    state.face_up = [engine.COLOR_INDEX["red"], None, None, None, None]
    assert not any(m["type"] == "TAKE_WHEEL" for m in engine.turn_moves(state, alice.id))
    with pytest.raises(IllegalMove, match=r"^R5\.7"):
        engine.apply(state, alice.id, take(0))
    with pytest.raises(IllegalMove, match=r"^R5\.7"):
        engine.apply(state, alice.id, take())


def test_R5_7_the_draw_ends_with_one_card_when_nothing_legal_is_left():
    state = started(2)
    alice = current(state)
    state.deck, state.discard = [], []
    state.face_up = cards("red", "joker", None, None, None)
    engine.apply(state, alice.id, take(0))  # only a face-up joker is left: not allowed second
    assert current(state) is not alice and state.turn is None


def test_R5_7_two_face_up_cards_still_allow_a_draw():
    state = started(2)
    alice = current(state)
    state.deck, state.discard = [], []
    state.face_up = cards("red", "blue", None, None, None)
    engine.apply(state, alice.id, take(0))
    engine.apply(state, alice.id, take(1))
    assert state.face_up == [None] * 5 and current(state) is not alice
