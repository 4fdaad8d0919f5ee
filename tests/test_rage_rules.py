"""RAGE's rules (``rage-rules.md``, G1-G6), one or more tests per rule id.

The tests deal hands by hand: ``game(hands, stack)`` gives a game whose current round dealt
``hands`` (seat order; the round is the one with that hand size) on top of a stack in the given
order, its top first. By default the last seat deals, so seat 0 bids first and leads.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from games import rage
from games.contract import BadField, BadOption, GameOver, IllegalMove, NotSeated, NotYourTurn
from games.rage import bots, cards, engine

pytestmark = pytest.mark.engine

NAMES = ["ava", "liam", "ethan", "zoe", "p5", "p6", "p7", "p8"]
STACK = ("green-0", "blue-1", "yellow-2", "cyan-3", "red-4", "violet-5", "blue-6", "red-7")


def game(hands, stack=STACK, *, dealer=None, options=None, bids=None):
    """A game in the round whose hands are ``hands`` (seat order), the stack in ``stack`` order
    (top first); ``bids`` (seat order) are made at once when given."""
    n = len(hands)
    state = engine.new_game(1, NAMES[:n], engine.check_options(options or {}))
    state.round = engine.ROUNDS + 1 - len(hands[0])
    state.dealer = n - 1 if dealer is None else dealer
    order = state.bid_order()
    engine.deal(state, [card for seat in order for card in hands[seat]] + list(stack))
    if bids is not None:
        for seat in order:
            bid(state, seat, bids[seat])
    return state


def bid(state, seat, tricks):
    return engine.apply(state, state.players[seat], {"type": "BID", "tricks": tricks})[1]


def play(state, seat, card, color=None):
    move = {"type": "PLAY_CARD", "card": card}
    if color is not None:
        move["color"] = color
    return engine.apply(state, state.players[seat], move)[1]


def trick(*plays, trump="green", stack=None):
    """Seat ``i`` holds and plays ``plays[i]`` (a card or ``(joker, colour)``), plus a violet
    filler it keeps; trump is ``trump``. Returns the state after the trick."""
    named = [p if isinstance(p, tuple) else (p, None) for p in plays]
    hands = [[card, f"violet-{10 + i}"] for i, (card, _color) in enumerate(named)]
    state = game(hands, stack or (f"{trump}-0", *STACK), bids=[0] * len(plays))
    for seat, (card, color) in enumerate(named):
        play(state, seat, card, color)
    return state


def winner(state) -> str:
    return state.players[state.tricks[-1]["winner"]]


def random_game(seed, players=4, options=None, check=None):
    rng = random.Random(seed)
    state = engine.new_game(seed, NAMES[:players], engine.check_options(options or {}))
    moves = []
    while not engine.is_over(state):
        if check:
            check(state)
        player = rng.choice(engine.to_move(state))
        move = rng.choice(engine.legal_moves(state, player))
        engine.apply(state, player, move)
        moves.append((player, move))
    return state, moves


# ---------------------------------------------------------------------------- G1 material, deal


def test_G1_1_the_deck_has_112_cards():
    deck = Counter(cards.DECK)
    assert len(cards.DECK) == 112
    assert sum(1 for card in deck if card in cards.COLOR_OF) == 96
    assert all(deck[f"{c}-{v}"] == 1 for c in cards.COLORS for v in range(16))
    assert {name: deck[name] for name in cards.ACTIONS} == {
        "joker": 2,
        "no_trump": 4,
        "change_trump": 4,
        "plus5": 3,
        "minus5": 3,
    }
    assert set(cards.COLORS) == {"blue", "green", "red", "yellow", "violet", "cyan"}


@pytest.mark.parametrize("count", [2, 9])
def test_G1_1_three_to_eight_players(count):
    with pytest.raises(IllegalMove) as refused:
        engine.new_game(1, NAMES[:count] + ["x"] * (count - 8), {})
    assert refused.value.rule == "G1.1"


def test_G1_2_ten_rounds_of_ten_down_to_one_card_the_deal_passing_clockwise():
    rng = random.Random(3)
    state = engine.new_game(3, NAMES[:5], engine.check_options({}))
    first = state.dealer
    seen = []
    while not engine.is_over(state):
        if not seen or seen[-1][0] != state.round:
            seen.append((state.round, state.dealer, [len(h) for h in state.hands]))
        player = rng.choice(engine.to_move(state))
        engine.apply(state, player, rng.choice(engine.legal_moves(state, player)))
    assert [r for r, _d, _s in seen] == list(range(1, 11))
    for k, dealer, sizes in seen:
        assert sizes == [11 - k] * 5
        assert dealer == (first + k - 1) % 5
    assert len(state.sheet) == 10


def test_G1_2_the_first_dealer_comes_from_the_seed():
    dealers = {engine.new_game(seed, NAMES[:4], {}).dealer for seed in range(30)}
    assert dealers == {0, 1, 2, 3}
    assert engine.new_game(7, NAMES[:4], {}).dealer == engine.new_game(7, NAMES[:4], {}).dealer


def test_G1_3_trump_is_turned_up_past_action_cards():
    stack = ("joker", "no_trump", "plus5", "red-3", "blue-9")
    state = game([["blue-1"], ["blue-2"], ["blue-3"]], stack)
    assert state.trump == "red"
    assert state.trump_pile == ["joker", "no_trump", "plus5", "red-3"]
    assert state.stack == ["blue-9"]
    seen = engine.view(state, "ava")
    assert seen["trump"] == "red"
    assert seen["trump_pile"] == ["joker", "no_trump", "plus5", "red-3"]
    assert seen["stack_size"] == 1


def test_G1_3_a_colour_card_on_top_is_trump_at_once_and_the_deal_is_announced():
    state = engine.new_game(5, NAMES[:3], {})
    events = engine.deal(state, list(cards.COLOR_CARDS[::-1]) + list(cards.ACTIONS))
    assert state.trump_pile == ["violet-1"]  # 30 cards dealt from the reversed colour cards
    assert state.trump == "violet"
    assert [e["kind"] for e in events] == ["round_dealt", "trump_turned"]
    assert events[1]["cards"] == ["violet-1"] and events[1]["trump"] == "violet"


# ---------------------------------------------------------------------------- G2 bids


def test_G2_1_bids_go_in_order_from_left_of_the_dealer_the_dealer_last():
    state = game([["red-1"], ["red-2"], ["red-3"], ["red-4"]], dealer=1)
    order = []
    for _ in range(4):
        (player,) = engine.to_move(state)
        order.append(player)
        engine.apply(state, player, {"type": "BID", "tricks": 0})
    assert order == ["ethan", "zoe", "ava", "liam"]
    assert state.phase == "playing"


def test_G2_1_bidding_out_of_turn_is_refused():
    state = game([["red-1"], ["red-2"], ["red-3"]])
    with pytest.raises(NotYourTurn) as refused:
        bid(state, 1, 0)
    assert refused.value.rule == "G2.1"
    assert engine.legal_moves(state, "liam") == []


def test_G2_1_a_bid_is_zero_to_the_hand_size_and_the_sum_is_free():
    state = game([["red-1", "red-5"], ["red-2", "red-6"], ["red-3", "red-7"]])
    assert engine.legal_moves(state, "ava") == [{"type": "BID", "tricks": n} for n in range(3)]
    for tricks in (-1, 3):
        with pytest.raises(IllegalMove) as refused:
            bid(state, 0, tricks)
        assert refused.value.rule == "G2.1"
    for odd in (True, "1", None, 1.0):
        with pytest.raises(BadField):
            engine.apply(state, "ava", {"type": "BID", "tricks": odd})
    for seat in range(3):
        bid(state, seat, 2)  # sum 6 of 2 tricks: free
    assert [p["bid"] for p in engine.view(state, None)["players"]] == [2, 2, 2]


def test_G2_1_open_bids_are_announced_with_their_number():
    state = game([["red-1"], ["red-2"], ["red-3"]])
    assert bid(state, 0, 1) == [{"kind": "bid", "player": "ava", "tricks": 1}]


def test_G2_2_plus_minus_one_forbids_the_dealer_the_bid_that_makes_the_sum():
    hands = [["red-1", "red-4"], ["red-2", "red-5"], ["red-3", "red-6"]]
    state = game(hands, options={"plus_minus_one": True})
    bid(state, 0, 1)
    assert len(engine.legal_moves(state, "liam")) == 3  # not the dealer: every bid
    bid(state, 1, 0)
    assert engine.legal_moves(state, "ethan") == [
        {"type": "BID", "tricks": 0},
        {"type": "BID", "tricks": 2},
    ]
    with pytest.raises(IllegalMove) as refused:
        bid(state, 2, 1)
    assert refused.value.rule == "G2.2"
    bid(state, 2, 2)
    assert sum(state.bids) == 3


def test_G2_2_plus_minus_one_forbids_nothing_once_the_others_bid_too_many():
    state = game([["red-1"], ["red-2"], ["red-3"]], options={"plus_minus_one": True})
    bid(state, 0, 1)
    bid(state, 1, 1)
    assert len(engine.legal_moves(state, "ethan")) == 2


def test_G2_2_without_plus_minus_one_the_dealer_may_make_the_sum():
    state = game([["red-1"], ["red-2"], ["red-3"]])
    bid(state, 0, 0)
    bid(state, 1, 0)
    assert {"type": "BID", "tricks": 1} in engine.legal_moves(state, "ethan")


def test_G2_2_options_have_defaults_and_are_checked():
    assert engine.check_options({}) == {
        "bids": "open",
        "plus_minus_one": False,
        "durchmarsch": False,
    }
    assert engine.check_options({"bids": "secret", "durchmarsch": True})["bids"] == "secret"
    for options, name in (
        ({"colour": "red"}, "options.colour"),
        ({"bids": "loud"}, "options.bids"),
        ({"bids": 1}, "options.bids"),
        ({"durchmarsch": "yes"}, "options.durchmarsch"),
        ({"plus_minus_one": 1}, "options.plus_minus_one"),
    ):
        with pytest.raises(BadOption) as refused:
            engine.check_options(options)
        assert refused.value.field == name
    with pytest.raises(BadOption):
        engine.check_options(["bids"])


@pytest.mark.parametrize("bids", ["hidden", "secret"])
def test_G2_2_hidden_or_secret_bids_refuse_plus_minus_one(bids):
    with pytest.raises(BadOption) as refused:
        engine.check_options({"bids": bids, "plus_minus_one": True})
    assert refused.value.field == "options.plus_minus_one"
    assert refused.value.rule == "G2.2"
    assert bids in refused.value.message


@pytest.mark.parametrize("value", [["hidden", "secret"], "hidden+secret"])
def test_G2_2_hidden_and_secret_exclude_each_other(value):
    with pytest.raises(BadOption) as refused:
        engine.check_options({"bids": value})
    assert refused.value.field == "options.bids"
    assert refused.value.rule == "G2.2"
    assert "exclude" in refused.value.message


def test_G2_2_hidden_bids_are_made_at_once_and_shown_together_when_all_are_in():
    state = game([["red-1"], ["red-2"], ["red-3"]], options={"bids": "hidden"})
    assert engine.to_move(state) == ["ava", "liam", "ethan"]
    assert bid(state, 1, 1) == [{"kind": "bid", "player": "liam"}]
    assert engine.to_move(state) == ["ava", "ethan"]
    assert engine.legal_moves(state, "liam") == []
    for viewer in (None, "ava", "ethan"):
        rows = engine.view(state, viewer)["players"]
        assert [row["bid"] for row in rows] == [None, None, None]
        assert [row["has_bid"] for row in rows] == [False, True, False]
    assert engine.view(state, "liam")["players"][1]["bid"] == 1  # the owner sees their bid
    bid(state, 2, 0)
    events = bid(state, 0, 1)
    assert events[0] == {"kind": "bid", "player": "ava"}
    assert events[1]["kind"] == "bids_revealed"
    assert events[1]["bids"] == [
        {"player": "ava", "tricks": 1},
        {"player": "liam", "tricks": 1},
        {"player": "ethan", "tricks": 0},
    ]
    for viewer in (None, "ava", "liam", "ethan"):
        assert [row["bid"] for row in engine.view(state, viewer)["players"]] == [1, 1, 0]


def test_G2_2_secret_bids_are_seen_by_their_owner_alone_until_the_round_is_scored():
    hands = [["red-9", "blue-9"], ["red-2", "blue-2"], ["red-3", "blue-3"]]
    state = game(hands, options={"bids": "secret"})
    assert engine.to_move(state) == ["ava", "liam", "ethan"]
    events = [bid(state, 2, 0), bid(state, 0, 2), bid(state, 1, 1)]
    assert all("tricks" not in e for batch in events for e in batch)
    assert all(e["kind"] == "bid" for batch in events for e in batch)
    assert state.phase == "playing"
    for viewer, seat in (("ava", 0), ("liam", 1), ("ethan", 2)):
        rows = engine.view(state, viewer)["players"]
        expected = [bid if s == seat else None for s, bid in enumerate([2, 1, 0])]
        assert [row["bid"] for row in rows] == expected
    assert [row["bid"] for row in engine.view(state, None)["players"]] == [None] * 3
    play(state, 0, "red-9")
    play(state, 1, "red-2")
    play(state, 2, "red-3")
    assert engine.view(state, "liam")["players"][0]["bid"] is None
    play(state, 0, "blue-9")
    play(state, 1, "blue-2")
    events = play(state, 2, "blue-3")
    scored = next(e for e in events if e["kind"] == "round_scored")
    assert [row["bid"] for row in scored["rows"]] == [2, 1, 0]
    sheet = engine.view(state, "liam")["sheet"][-1]
    assert [row["bid"] for row in sheet] == [2, 1, 0]


def test_G2_3_no_card_before_every_bid_is_in():
    state = game([["red-1"], ["red-2"], ["red-3"]])
    bid(state, 0, 0)
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, "red-1")
    assert refused.value.rule == "G2.3"
    bid(state, 1, 0)
    bid(state, 2, 0)
    with pytest.raises(IllegalMove) as refused:
        bid(state, 0, 1)
    assert refused.value.rule == "G2.3"


# ---------------------------------------------------------------------------- G3 tricks


def test_G3_1_left_of_the_dealer_leads_and_the_winner_leads_next():
    hands = [["red-1", "blue-1"], ["red-2", "blue-2"], ["red-9", "blue-3"]]
    state = game(hands, dealer=0, bids=[0, 0, 0])
    assert engine.to_move(state) == ["liam"]
    with pytest.raises(NotYourTurn):
        play(state, 0, "red-1")
    play(state, 1, "red-2")
    play(state, 2, "red-9")
    play(state, 0, "red-1")
    assert winner(state) == "ethan"
    assert engine.to_move(state) == ["ethan"]


def test_G3_2_the_colour_led_must_be_followed():
    hands = [["red-5", "blue-1"], ["red-3", "blue-9"], ["green-3", "joker"]]
    state = game(hands, bids=[0, 0, 0])
    assert len(engine.legal_moves(state, "ava")) == 2  # whoever leads plays any card
    play(state, 0, "red-5")
    assert engine.legal_moves(state, "liam") == [{"type": "PLAY_CARD", "card": "red-3"}]
    with pytest.raises(IllegalMove) as refused:
        play(state, 1, "blue-9")
    assert refused.value.rule == "G3.2"
    assert refused.value.params == {"color": "red", "card": "red-3"}
    assert refused.value.template == "you must follow {color}: you hold {card}"


def test_G3_2_an_action_card_only_when_the_colour_cant_be_followed():
    hands = [["red-5", "blue-1"], ["red-3", "joker"], ["green-3", "plus5"]]
    state = game(hands, bids=[0, 0, 0])
    play(state, 0, "red-5")
    with pytest.raises(IllegalMove) as refused:
        play(state, 1, "joker", "red")
    assert refused.value.rule == "G3.2"
    play(state, 1, "red-3")
    assert engine.legal_moves(state, "ethan") == [
        {"type": "PLAY_CARD", "card": "green-3"},
        {"type": "PLAY_CARD", "card": "plus5"},
    ]


def test_G3_2_who_cant_follow_plays_anything_and_a_joker_names_each_colour():
    hands = [["red-5", "blue-1"], ["green-3", "joker", "no_trump"], ["blue-3", "yellow-1"]]
    hands = [hand + ["cyan-1"] * (3 - len(hand)) for hand in hands]
    state = game(hands, bids=[0, 0, 0])
    play(state, 0, "red-5")
    legal = engine.legal_moves(state, "liam")
    assert legal == [
        {"type": "PLAY_CARD", "card": "green-3"},
        *({"type": "PLAY_CARD", "card": "joker", "color": c} for c in cards.COLORS),
        {"type": "PLAY_CARD", "card": "no_trump"},
    ]
    with pytest.raises(BadField):
        play(state, 1, "joker")  # a Joker names its colour
    with pytest.raises(BadField):
        play(state, 1, "joker", "pink")
    with pytest.raises(IllegalMove):
        play(state, 1, "red-5")  # not held


def test_G3_3_a_trick_led_with_an_action_card_has_no_colour_until_a_colour_card():
    hands = [["plus5", "blue-1"], ["red-3", "yellow-4"], ["red-9", "yellow-1"]]
    state = game(hands, bids=[0, 0, 0])
    play(state, 0, "plus5")
    assert state.lead_color is None
    assert len(engine.legal_moves(state, "liam")) == 2  # anything
    play(state, 1, "red-3")
    assert engine.view(state, None)["lead_color"] == "red"
    assert engine.legal_moves(state, "ethan") == [{"type": "PLAY_CARD", "card": "red-9"}]
    play(state, 2, "red-9")
    assert winner(state) == "ethan"


def test_G3_3_a_joker_after_an_action_lead_sets_the_colour():
    state = trick("minus5", ("joker", "blue"), "blue-3")
    assert state.tricks[0]["cards"][1] == [1, "joker", "blue"]
    assert winner(state) == "liam"


def test_G3_4_the_highest_trump_wins():
    assert winner(trick("red-15", "green-2", "green-7")) == "ethan"


def test_G3_4_without_trump_the_highest_of_the_colour_led_wins():
    assert winner(trick("red-5", "blue-15", "red-9", "red-2")) == "ethan"


def test_G3_4_only_action_cards_without_a_joker_the_first_one_wins():
    state = trick("plus5", "minus5", "plus5")
    assert winner(state) == "ava"
    assert engine.trick_winner([("minus5", None), ("plus5", None)], "red") == 0


def test_G3_5_a_joker_is_the_highest_card_of_its_colour():
    assert winner(trick("red-15", ("joker", "red"), "red-14")) == "liam"


def test_G3_5_a_joker_naming_trump_beats_the_highest_trump():
    assert winner(trick("red-5", ("joker", "green"), "green-15")) == "liam"


def test_G3_5_a_joker_naming_another_colour_loses_to_every_trump():
    assert winner(trick(("joker", "red"), "green-0", "red-15")) == "liam"


def test_G3_5_second_joker_beats_the_first():
    assert winner(trick("red-5", ("joker", "red"), ("joker", "red"))) == "ethan"
    assert winner(trick("red-5", ("joker", "green"), ("joker", "green"))) == "ethan"


def test_G3_5_a_joker_that_leads_sets_its_colour():
    hands = [["joker", "blue-1"], ["yellow-15", "red-1"], ["cyan-4", "red-2"]]
    state = game(hands, bids=[0, 0, 0])
    events = play(state, 0, "joker", "yellow")
    assert events == [{"kind": "card_played", "player": "ava", "card": "joker", "color": "yellow"}]
    assert state.lead_color == "yellow"
    assert engine.legal_moves(state, "liam") == [{"type": "PLAY_CARD", "card": "yellow-15"}]
    play(state, 1, "yellow-15")
    play(state, 2, "cyan-4")
    assert winner(state) == "ava"


def test_G3_6_no_trump_makes_trumps_ordinary_and_turns_up_trump_after_the_trick():
    # The original's example: red is trump; yellow 8, red 4, No Trump: Ava wins.
    stack = ("red-9", "change_trump", "blue-2", "cyan-5")
    hands = [["yellow-8", "violet-1"], ["red-4", "violet-2"], ["no_trump", "violet-3"]]
    state = game(hands, stack, bids=[0, 0, 0])
    play(state, 0, "yellow-8")
    play(state, 1, "red-4")
    assert state.trump == "red"
    events = play(state, 2, "no_trump")
    assert winner(state) == "ava"
    assert state.trump_pile == ["red-9", "change_trump", "blue-2"]
    assert state.trump == "blue"
    assert state.stack == ["cyan-5"]
    kinds = [e["kind"] for e in events]
    assert kinds == ["card_played", "trump_suspended", "trick_won", "trump_turned"]
    assert events[-1]["cards"] == ["change_trump", "blue-2"]


def test_G3_6_no_trump_holds_at_once_for_the_rest_of_the_trick():
    stack = ("red-9", "blue-2")
    hands = [["yellow-8", "violet-1"], ["no_trump", "violet-2"], ["red-4", "violet-3"]]
    state = game(hands, stack, bids=[0, 0, 0])
    play(state, 0, "yellow-8")
    play(state, 1, "no_trump")
    seen = engine.view(state, "ethan")
    assert seen["trump"] is None and seen["no_trump"] is True
    play(state, 2, "red-4")  # the old trump, ordinary now
    assert winner(state) == "ava"
    assert state.trump == "blue"


def test_G3_6_two_no_trumps_turn_up_one_card():
    stack = ("red-9", "blue-2", "cyan-5")
    hands = [
        ["yellow-8", "violet-1"],
        ["no_trump", "violet-2"],
        ["no_trump", "violet-3"],
        ["yellow-9", "violet-4"],
    ]
    state = game(hands, stack, bids=[0, 0, 0, 0])
    for seat, card in enumerate(("yellow-8", "no_trump", "no_trump", "yellow-9")):
        play(state, seat, card)
    assert winner(state) == "zoe"
    assert state.trump_pile == ["red-9", "blue-2"]
    assert state.stack == ["cyan-5"]


def test_G3_7_change_trump_turns_up_at_once_and_counts_for_cards_already_played():
    stack = ("red-9", "plus5", "cyan-4", "blue-2")
    hands = [
        ["yellow-8", "violet-1"],
        ["red-4", "violet-2"],
        ["cyan-1", "violet-3"],
        ["change_trump", "violet-4"],
    ]
    state = game(hands, stack, bids=[0, 0, 0, 0])
    play(state, 0, "yellow-8")
    play(state, 1, "red-4")
    play(state, 2, "cyan-1")
    events = play(state, 3, "change_trump")
    assert events[1] == {
        "kind": "trump_turned",
        "player": "zoe",
        "cards": ["plus5", "cyan-4"],
        "trump": "cyan",
    }
    assert winner(state) == "ethan"  # cyan 1 is trump now, red 4 no longer
    assert state.trump == "cyan"
    assert state.trump_pile == ["red-9", "plus5", "cyan-4"]
    assert state.stack == ["blue-2"]


def test_G3_7_change_trump_may_turn_up_the_old_colour_again():
    state = trick("yellow-8", "red-4", "change_trump", trump="red", stack=("red-9", "red-12"))
    assert state.trump == "red"
    assert winner(state) == "liam"


def test_G3_7_change_trump_after_no_trump_ends_it_and_nothing_is_turned_after():
    stack = ("red-9", "red-12", "blue-2")
    hands = [
        ["yellow-8", "violet-1"],
        ["no_trump", "violet-2"],
        ["red-4", "violet-3"],
        ["change_trump", "violet-4"],
    ]
    state = game(hands, stack, bids=[0, 0, 0, 0])
    for seat, card in enumerate(("yellow-8", "no_trump", "red-4")):
        play(state, seat, card)
    assert state.trump is None
    events = play(state, 3, "change_trump")
    assert winner(state) == "ethan"  # trump again at once: red 4
    assert state.trump == "red" and not state.no_trump
    assert state.trump_pile == ["red-9", "red-12"]
    assert state.stack == ["blue-2"]
    assert [e["kind"] for e in events].count("trump_turned") == 1


def test_G3_7_no_trump_after_change_trump_wins_as_usual():
    stack = ("red-9", "cyan-4", "blue-2", "green-5")
    hands = [
        ["yellow-8", "violet-1"],
        ["change_trump", "violet-2"],
        ["cyan-1", "violet-3"],
        ["no_trump", "violet-4"],
    ]
    state = game(hands, stack, bids=[0, 0, 0, 0])
    play(state, 0, "yellow-8")
    play(state, 1, "change_trump")
    assert state.trump == "cyan"
    play(state, 2, "cyan-1")
    play(state, 3, "no_trump")
    assert winner(state) == "ava"
    assert state.trump_pile == ["red-9", "cyan-4", "blue-2"]
    assert state.trump == "blue"
    assert state.stack == ["green-5"]


def test_G3_8_plus_and_minus_five_go_to_the_winner_of_their_trick():
    hands = [["red-9", "blue-1"], ["plus5", "blue-2"], ["minus5", "blue-3"]]
    state = game(hands, bids=[1, 0, 0])
    for seat, card in enumerate(("red-9", "plus5", "minus5")):
        play(state, seat, card)
    assert winner(state) == "ava"
    play(state, 0, "blue-1")
    play(state, 1, "blue-2")
    events = play(state, 2, "blue-3")
    rows = next(e for e in events if e["kind"] == "round_scored")["rows"]
    assert [row["action_points"] for row in rows] == [0, 0, 0]  # +5 and -5 both to Ava
    assert rows[0]["points"] == 1 + 10  # 1 trick, no bid, action points cancel
    assert rows[2]["tricks"] == 1 and rows[2]["points"] == 1 - 5


# ---------------------------------------------------------------------------- G4 scoring


def test_G4_1_the_originals_worked_round():
    # Round 1: Ava bid 3 won 3 with a -5; Liam bid 2 won 1 with a +5; Ethan bid 2 won 2;
    # Zoe bid 3 won 4. Nine tricks are on the table, the tenth is played.
    state = game([["blue-1"], ["blue-2"], ["blue-3"], ["blue-15"]])
    state.round = 1
    for seat, tricks in enumerate((3, 2, 2, 3)):
        bid(state, seat, tricks)
    filler = [[0, "red-1", "red"], [1, "red-2", "red"], [2, "red-3", "red"], [3, "red-4", "red"]]
    winners = [0, 0, 0, 1, 2, 2, 3, 3, 3]
    state.tricks = [{"cards": [list(e) for e in filler], "winner": w} for w in winners]
    state.tricks[0]["cards"][3] = [3, "minus5", None]
    state.tricks[3]["cards"][2] = [2, "plus5", None]
    state.tricks_won = [3, 1, 2, 3]
    for seat, card in enumerate(("blue-1", "blue-2", "blue-3")):
        play(state, seat, card)
    events = play(state, 3, "blue-15")
    rows = next(e for e in events if e["kind"] == "round_scored")["rows"]
    assert [(r["player"], r["cards"], r["bid"], r["tricks"]) for r in rows] == [
        ("ava", 10, 3, 3),
        ("liam", 10, 2, 1),
        ("ethan", 10, 2, 2),
        ("zoe", 10, 3, 4),
    ]
    assert [r["action_points"] for r in rows] == [-5, 5, 0, 0]
    assert [r["bid_points"] for r in rows] == [10, -5, 10, -5]
    assert [r["points"] for r in rows] == [8, 1, 12, -1]
    assert [r["total"] for r in rows] == [8, 1, 12, -1]
    assert engine.view(state, None)["sheet"][0] == rows
    assert [p["score"] for p in engine.view(state, None)["players"]] == [8, 1, 12, -1]
    assert state.round == 2 and state.phase == "bidding"


def test_G4_1_round_points():
    assert engine.round_points(3, 3, -5, all_tricks=False, durchmarsch=False) == (10, 8)
    assert engine.round_points(0, 0, 0, all_tricks=False, durchmarsch=False) == (10, 10)
    assert engine.round_points(0, 2, 5, all_tricks=False, durchmarsch=False) == (-5, 2)


@pytest.mark.parametrize(("durchmarsch", "points"), [(True, 2 * 2 + 10), (False, 2 + 10)])
def test_G4_2_durchmarsch_doubles_the_tricks_of_who_wins_them_all(durchmarsch, points):
    hands = [["red-9", "blue-9"], ["red-2", "blue-2"], ["red-3", "blue-3"]]
    state = game(hands, options={"durchmarsch": durchmarsch}, bids=[2, 0, 0])
    for seat, card in ((0, "red-9"), (1, "red-2"), (2, "red-3"), (0, "blue-9"), (1, "blue-2")):
        play(state, seat, card)
    events = play(state, 2, "blue-3")
    rows = next(e for e in events if e["kind"] == "round_scored")["rows"]
    assert rows[0]["tricks"] == 2 and rows[0]["points"] == points
    assert rows[1]["points"] == 10


def test_G4_2_no_durchmarsch_in_round_10():
    state = game([["red-9"], ["red-2"], ["red-3"]], options={"durchmarsch": True}, bids=[1, 0, 0])
    assert state.round == 10
    play(state, 0, "red-9")
    play(state, 1, "red-2")
    events = play(state, 2, "red-3")
    rows = next(e for e in events if e["kind"] == "round_scored")["rows"]
    assert rows[0]["points"] == 1 + 10
    assert engine.is_over(state) and engine.phase(state) == "FINISHED"
    assert events[-1]["kind"] == "game_over"


def test_G4_3_after_round_10_the_totals_decide_and_equal_totals_share_the_place():
    state = game([["red-9"], ["red-2"], ["red-3"], ["red-4"]], bids=[1, 0, 0, 1])
    state.scores = [5, 20, 7, 9]
    for seat, card in enumerate(("red-9", "red-2", "red-3", "red-4")):
        play(state, seat, card)
    # Round 10: Ava +11, Liam +10, Ethan +10, Zoe -5: totals 16, 30, 17, 4.
    assert engine.results(state) == [
        {"player": "liam", "total": 30, "place": 1, "won": True},
        {"player": "ethan", "total": 17, "place": 2, "won": False},
        {"player": "ava", "total": 16, "place": 3, "won": False},
        {"player": "zoe", "total": 4, "place": 4, "won": False},
    ]
    state = engine.new_game(2, NAMES[:4], {})
    state.scores = [12, 30, 12, 30]
    engine.end_game(state, "admin")
    assert engine.results(state) == [
        {"player": "liam", "total": 30, "place": 1, "won": True},
        {"player": "zoe", "total": 30, "place": 1, "won": True},
        {"player": "ava", "total": 12, "place": 3, "won": False},
        {"player": "ethan", "total": 12, "place": 3, "won": False},
    ]
    for viewer in (None, "ava"):
        seen = engine.view(state, viewer)
        assert seen["status"] == "FINISHED" and seen["legal"] == []
        assert seen["results"] == engine.results(state)
    with pytest.raises(GameOver):
        bid(state, 0, 0)
    with pytest.raises(GameOver):
        engine.end_game(state, "again")


def test_G4_4_the_sheet_shows_every_round_with_a_running_total():
    state, _moves = random_game(11, players=5)
    seen = engine.view(state, "ava")
    assert len(seen["sheet"]) == 10
    totals = [0] * 5
    for k, rows in enumerate(seen["sheet"], start=1):
        assert [row["player"] for row in rows] == NAMES[:5]
        assert sum(row["tricks"] for row in rows) == 11 - k
        for seat, row in enumerate(rows):
            assert set(row) == {
                *("player", "cards", "bid", "tricks", "action_points"),
                *("bid_points", "points", "total"),
            }
            assert row["cards"] == 11 - k
            assert row["bid_points"] == (10 if row["bid"] == row["tricks"] else -5)
            assert row["points"] == row["tricks"] + row["action_points"] + row["bid_points"]
            totals[seat] += row["points"]
            assert row["total"] == totals[seat]
    assert sorted(r["total"] for r in engine.results(state)) == sorted(totals)
    assert sum(r["action_points"] for rows in seen["sheet"] for r in rows) % 5 == 0


def test_G4_4_a_whole_game_scores_as_recounted_from_its_events():
    rng = random.Random(21)
    state = engine.new_game(21, NAMES[:4], engine.check_options({"durchmarsch": True}))
    bids, won, action, scored = {}, Counter(), Counter(), []
    while not engine.is_over(state):
        player = rng.choice(engine.to_move(state))
        _state, events = engine.apply(state, player, rng.choice(engine.legal_moves(state, player)))
        for event in events:
            if event["kind"] == "bid":
                bids[event["player"]] = event["tricks"]
            elif event["kind"] == "trick_won":
                won[event["winner"]] += 1
                for entry in event["cards"]:
                    action[event["winner"]] += {"plus5": 5, "minus5": -5}.get(entry["card"], 0)
            elif event["kind"] == "round_scored":
                scored.append(event["rows"])
                k = event["round"]
                for row in event["rows"]:
                    p = row["player"]
                    sweep = won[p] == 11 - k and k < 10
                    expected = (2 if sweep else 1) * won[p] + action[p]
                    expected += 10 if bids[p] == won[p] else -5
                    assert (row["bid"], row["tricks"]) == (bids[p], won[p])
                    assert (row["action_points"], row["points"]) == (action[p], expected)
                bids, won, action = {}, Counter(), Counter()
    assert len(scored) == 10
    assert engine.view(state, None)["sheet"] == scored


# ---------------------------------------------------------------------------- G5 what each sees


def test_G5_a_view_shows_the_own_hand_sorted_and_nothing_of_other_hands_or_the_stack():
    hands = [["plus5", "red-3", "blue-9"], ["joker", "cyan-2", "blue-1"], ["red-1"] * 3]
    state = game(hands)
    seen = engine.view(state, "ava")
    assert seen["you"]["hand"] == ["blue-9", "red-3", "plus5"]
    assert seen["kind"] == "rage" and seen["status"] == "RUNNING"
    assert seen["phase"] == "bidding" and seen["round"] == 8
    assert [p["hand_size"] for p in seen["players"]] == [3, 3, 3]
    text = json.dumps(seen)
    assert "cyan-2" not in text and "joker" not in text
    assert all(card not in text for card in STACK[1:])
    spectator = engine.view(state, None)
    assert "you" not in spectator and spectator["legal"] == []
    with pytest.raises(NotSeated):
        engine.view(state, "nobody")


def test_G5_finished_tricks_and_the_current_trick_are_public():
    hands = [["red-9", "blue-1"], ["red-2", "blue-2"], ["red-3", "blue-3"]]
    state = game(hands, bids=[1, 0, 0])
    for seat, card in enumerate(("red-9", "red-2", "red-3")):
        play(state, seat, card)
    play(state, 0, "blue-1")
    seen = engine.view(state, "liam")
    assert seen["tricks"] == [
        {
            "cards": [
                {"player": "ava", "card": "red-9", "color": "red"},
                {"player": "liam", "card": "red-2", "color": "red"},
                {"player": "ethan", "card": "red-3", "color": "red"},
            ],
            "winner": "ava",
        }
    ]
    assert seen["trick"] == [{"player": "ava", "card": "blue-1", "color": "blue"}]
    assert seen["players"][0]["tricks_won"] == 1


@pytest.mark.parametrize("bids", ["open", "hidden", "secret"])
def test_G5_scrambling_what_a_seat_cant_see_leaves_its_view_unchanged(bids):
    rng = random.Random(5)
    steps = []

    def check(state):
        steps.append(1)
        if len(steps) % 5:
            return
        for viewer in (None, *state.players):
            seen = engine.view(state, viewer)
            assert engine.view(engine.scramble(state, viewer, rng), viewer) == seen

    random_game(4, players=4, options={"bids": bids}, check=check)


def test_G5_storage_keeps_the_whole_game_and_its_future():
    state, moves = random_game(8, players=3)
    again = engine.replay(8, NAMES[:3], engine.check_options({}), moves)
    assert engine.to_dict(again) == engine.to_dict(state)
    rng = random.Random(1)
    state = engine.new_game(9, NAMES[:6], {})
    for _ in range(120):
        player = rng.choice(engine.to_move(state))
        engine.apply(state, player, rng.choice(engine.legal_moves(state, player)))
    copy = engine.from_dict(json.loads(json.dumps(engine.to_dict(state))))
    for viewer in (None, *state.players):
        assert engine.view(copy, viewer) == engine.view(state, viewer)
    while not engine.is_over(state):
        player = rng.choice(engine.to_move(state))
        move = rng.choice(engine.legal_moves(state, player))
        engine.apply(state, player, move)
        engine.apply(copy, player, move)
    assert engine.to_dict(copy) == engine.to_dict(state)


# ---------------------------------------------------------------------------- G6 computer play


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_G6_1_bots_play_legal_moves_from_their_own_view(name):
    for options in ({}, {"bids": "secret"}, {"plus_minus_one": True}):
        state = engine.new_game(3, NAMES[:4], engine.check_options(options))
        players = {p: rage.make_bot(name, i) for i, p in enumerate(state.players)}
        while not engine.is_over(state):
            player = engine.to_move(state)[0]
            seen = engine.view(state, player)
            move = players[player].choose(seen)
            assert move in seen["legal"]
            engine.apply(state, player, move)
    assert set(rage.BOTS) >= {"random", "heuristic"}
    with pytest.raises(ValueError):
        rage.make_bot("nobody")


def test_G6_2_the_heuristic_bot_beats_random_by_a_wide_margin():
    lines, problems = rage.simulate_report(
        games=8, players=4, bots=["heuristic", "random"], options={}, seed=1
    )
    assert problems == []
    means = {}
    for line in lines:
        if line.startswith("bot "):
            name, rest = line[4:].split(": mean ")
            means[name] = float(rest.split()[0])
    assert means["heuristic"] > means["random"] + 20


def test_G6_2_simulation_refuses_what_it_cannot_play():
    with pytest.raises(ValueError, match="--players"):
        rage.simulate_report(games=1, players=2, bots=None, options={}, seed=1)
    with pytest.raises(ValueError, match="--bots"):
        rage.simulate_report(games=1, players=3, bots=["nobody"], options={}, seed=1)
    lines, problems = rage.simulate_report(
        games=2, players=3, bots=None, options={"bids": "hidden"}, seed=1
    )
    assert problems == [] and lines[1].startswith("bot random: mean ")
    assert bots.BOTS.keys() == {"random", "heuristic", "strong"}
