"""R6: building roads (and R3.1 scoring, R4.2 one action per turn)."""

import pytest

from games.ratumrad import engine
from games.ratumrad.engine import BadField, IllegalMove
from tests.engine_boards import TOY, cards, current, hand, started, take

pytestmark = pytest.mark.engine  # neither database nor channel layer


def build(road, **fields):
    return {"type": "BUILD_ROAD", "road": road, **fields}


def test_R6_1_a_coloured_road_is_paid_with_its_colour_and_wheels():
    state = started(2)
    alice = current(state)
    alice.hand = hand(blue=3, red=1)
    engine.apply(state, alice.id, build(1))  # b-c, 2 blue
    assert alice.hand == hand(blue=1, red=1)
    assert alice.wheels == 28 and alice.roads == [1] and state.road_owner[1] == 0


def test_R6_1_a_coloured_road_refuses_another_colour():
    state = started(2)
    alice = current(state)
    alice.hand = hand(blue=3, red=3)
    with pytest.raises(IllegalMove, match=r"^R6\.1"):
        engine.apply(state, alice.id, build(1, color="red"))
    assert not any(
        m.get("road") == 1 and m["color"] == "red" for m in engine.legal_moves(state, alice.id)
    )


def test_R6_1_a_grey_road_takes_any_one_named_colour():
    state = started(2)
    alice = current(state)
    alice.hand = hand(white=3, red=2, joker=1)
    legal = {(m["road"], m["color"]) for m in engine.turn_moves(state, alice.id) if "road" in m}
    assert {(2, "white"), (2, "red")} <= legal and (2, "blue") not in legal  # c-d grey, 3
    with pytest.raises(IllegalMove, match=r"^R6\.1"):
        engine.apply(state, alice.id, build(2))  # no colour named
    engine.apply(state, alice.id, build(2, color="red"))
    assert alice.hand == hand(white=3)


def test_R6_1_every_colour_can_pay_a_grey_road():
    for color in engine.CARD_COLORS:
        state = started(2)
        alice = current(state)
        alice.hand = hand(**{color: 3})
        engine.apply(state, alice.id, build(2, color=color))
        assert alice.hand == hand() and state.road_owner[2] == 0


def test_R6_1_mixed_colours_never_pay():
    state = started(2)
    alice = current(state)
    alice.hand = hand(white=2, red=2)
    for color in ("white", "red"):
        with pytest.raises(IllegalMove, match=r"^R6\.1"):
            engine.apply(state, alice.id, build(2, color=color))
    assert not [m for m in engine.turn_moves(state, alice.id) if m.get("road") == 2]


def test_R6_1_jokers_stand_in_and_may_pay_everything():
    state = started(2)
    alice = current(state)
    alice.hand = hand(joker=4)
    engine.apply(state, alice.id, build(3))  # d-e, 4 green
    assert alice.hand == hand() and state.road_owner[3] == 0


def test_R6_1_a_road_needs_enough_wheels():
    state = started(2)
    alice = current(state)
    alice.hand = hand(pink=6)
    alice.wheels = 5
    assert not [m for m in engine.turn_moves(state, alice.id) if m.get("road") == 5]
    with pytest.raises(IllegalMove, match=r"^R6\.1.*wheels"):
        engine.apply(state, alice.id, build(5))  # f-g, 6 pink


def test_R6_1_a_built_road_cannot_be_built_again():
    state = started(2)
    alice, bob = state.players
    alice.hand = hand(red=1)
    engine.apply(state, alice.id, build(0))
    bob.hand = hand(red=1)
    with pytest.raises(IllegalMove, match=r"^R6\.1.*already built"):
        engine.apply(state, bob.id, build(0))


def test_R6_1_unknown_roads_and_colours_are_bad_fields():
    state = started(2)
    alice = current(state)
    for move in (build(99), build("1"), build(1, color="purple"), build(1, jokers=-1)):
        with pytest.raises(BadField):
            engine.apply(state, alice.id, move)


def test_R6_2_paid_cards_go_to_the_discard_pile():
    state = started(2)
    alice = current(state)
    alice.hand = hand(yellow=3, joker=2)
    state.discard = []
    engine.apply(state, alice.id, build(4))  # e-f, 5 yellow
    assert sorted(state.discard) == sorted(cards("yellow", "yellow", "yellow", "joker", "joker"))


def test_R3_1_building_adds_the_road_points_at_once():
    state = started(2)
    alice = current(state)
    alice.hand = hand(pink=6)
    _, events = engine.apply(state, alice.id, build(5))
    assert alice.score == 15
    assert engine.view(state, None)["players"][0]["score"] == 15
    assert events[0]["kind"] == "built_road" and events[0]["points"] == 15


def double_roads_game(players):
    state = started(players)
    for player in state.players:
        player.hand = hand(red=4, blue=4, joker=2)
    return state


def test_R6_3_nobody_builds_both_roads_of_a_double():
    state = double_roads_game(4)
    alice = state.players[0]
    engine.apply(state, alice.id, build(10))  # c-g red
    for player in state.players[1:]:
        engine.apply(state, player.id, take())
        engine.apply(state, player.id, take())
    assert not [m for m in engine.turn_moves(state, alice.id) if m.get("road") == 11]
    with pytest.raises(IllegalMove, match=r"^R6\.3"):
        engine.apply(state, alice.id, build(11))


@pytest.mark.parametrize("players", [4, 5])
def test_R6_4_with_four_or_five_players_another_player_may_build_the_twin(players):
    state = double_roads_game(players)
    alice, bob = state.players[:2]
    engine.apply(state, alice.id, build(10))
    engine.apply(state, bob.id, build(11))
    assert state.road_owner[10:12] == [0, 1]


@pytest.mark.parametrize("players", [2, 3])
def test_R6_4_with_two_or_three_players_only_one_road_of_a_double(players):
    state = double_roads_game(players)
    alice, bob = state.players[:2]
    engine.apply(state, alice.id, build(12, color="red"))  # d-h grey double
    assert not [m for m in engine.turn_moves(state, bob.id) if m.get("road") == 13]
    with pytest.raises(IllegalMove, match=r"^R6\.4"):
        engine.apply(state, bob.id, build(13, color="blue"))


def test_R6_5_the_player_may_choose_how_many_jokers_to_use():
    state = started(2)
    alice = current(state)
    alice.hand = hand(black=5, joker=3)
    engine.apply(state, alice.id, build(16, jokers=3))  # j-c, 5 black
    assert alice.hand == hand(black=3)


def test_R6_5_by_default_the_fewest_jokers_that_cover_the_cost():
    state = started(2)
    alice = current(state)
    alice.hand = hand(black=3, joker=3)
    _, events = engine.apply(state, alice.id, build(16))
    assert events[0]["jokers"] == 2 and alice.hand == hand(joker=1)


def test_R6_5_impossible_joker_counts_are_refused():
    state = started(2)
    alice = current(state)
    alice.hand = hand(black=5, joker=1)
    for jokers in (2, 6):
        with pytest.raises(IllegalMove, match=r"^R6\.(1|5)"):
            engine.apply(state, alice.id, build(16, jokers=jokers))
    assert alice.hand == hand(black=5, joker=1) and state.road_owner[16] is None


def test_R4_2_building_is_the_whole_turn():
    state = started(3)
    alice = current(state)
    alice.hand = hand(red=2)
    engine.apply(state, alice.id, build(0))
    assert current(state) is state.players[1]
    with pytest.raises(engine.NotYourTurn, match=r"^R4\.1"):
        engine.apply(state, alice.id, take())


def test_R4_1_the_start_colour_begins_and_turns_follow_the_colour_order():
    state = started(4)
    order = []
    for _ in range(8):
        player = current(state)
        order.append(player.color)
        engine.apply(state, player.id, take())
        engine.apply(state, player.id, take())
    assert order == list(engine.PLAYER_COLORS[:4]) * 2


def test_R4_3_a_player_without_any_legal_action_passes_automatically():
    state = started(2)
    alice, bob = state.players
    state.deck, state.discard, state.short_deck = [], [], []
    state.face_up = cards("white", "blue", None, None, None)
    alice.hand = hand(red=1)
    bob.hand = hand()
    engine.apply(state, alice.id, take(0))
    _, events = engine.apply(state, alice.id, take(1))
    assert {"kind": "passed", "player": bob.id} in events
    assert current(state) is alice and state.status == engine.RUNNING


def test_build_events_report_few_wheels_and_an_empty_hand():
    state = started(2)
    alice = current(state)
    alice.hand = hand(pink=6)
    alice.wheels = 7
    _, events = engine.apply(state, alice.id, build(5))
    assert {"kind": "few_wheels", "player": alice.id, "wheels": 1} in events
    assert {"kind": "no_wheel_cards", "player": alice.id} in events


def test_every_listed_build_move_is_accepted():
    for seed in range(5):
        state = started(3, seed=seed)
        current(state).hand = hand(red=3, blue=2, green=4, joker=2)
        for move in [m for m in engine.turn_moves(state, current(state).id) if "road" in m]:
            copy = engine.from_dict(engine.to_dict(state), TOY)
            engine.apply(copy, current(copy).id, move)
            assert copy.road_owner[move["road"]] == state.current
