"""R1 material and R2 setup."""

import pytest

from games.ratumrad import engine
from games.ratumrad.engine import IllegalMove
from tests.engine_boards import PERSONAS, TOY, started

pytestmark = pytest.mark.engine  # neither database nor channel layer

PREP = "SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION"


def all_wheel_cards(state):
    counts = [0] * len(engine.COLORS)
    for card in state.deck + state.discard + [c for c in state.face_up if c is not None]:
        counts[card] += 1
    for player in state.players:
        counts = [a + b for a, b in zip(counts, player.hand, strict=True)]
    return counts


@pytest.mark.parametrize("count", [0, 1, 6])
def test_R1_1_a_game_needs_two_to_five_players(count):
    with pytest.raises(IllegalMove, match=r"^R1\.1"):
        engine.new_game(1, [f"p{i}" for i in range(count)], TOY)


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_R1_1_two_to_five_players_can_start(count):
    state = engine.new_game(1, PERSONAS[:count], TOY)
    assert [p.id for p in state.players] != [] and len(state.players) == count


def test_R1_1_nobody_takes_two_seats():
    with pytest.raises(IllegalMove, match=r"^R1\.1"):
        engine.new_game(1, ["alice", "alice"], TOY)


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_R1_2_seats_get_the_first_colours_of_the_order(count):
    state = engine.new_game(7, PERSONAS[:count], TOY)
    assert [p.color for p in state.players] == list(engine.PLAYER_COLORS[:count])
    public = engine.view(state, None)
    assert [p["color"] for p in public["players"]] == list(engine.PLAYER_COLORS[:count])


def test_R1_2_colours_are_assigned_at_random():
    starters = {engine.new_game(seed, PERSONAS[:3], TOY).players[0].id for seed in range(40)}
    assert starters == set(PERSONAS[:3])


def test_R1_3_everyone_starts_with_30_wheels_and_no_points_all_public():
    state = engine.new_game(3, PERSONAS[:4], TOY)
    public = engine.view(state, None)
    for row in public["players"]:
        assert (row["wheels"], row["score"]) == (30, 0)
        assert row["wheel_cards"] == 4
        assert row["destination_cards"] == 1 and row["pending_destination_cards"] == 3


def test_R1_4_ninety_wheel_cards_ten_of_each_kind():
    state = engine.new_game(5, PERSONAS[:5], TOY)
    assert all_wheel_cards(state) == [10] * 9
    assert engine.COLORS[-1] == "joker" and len(engine.COLORS) == 9


def test_R1_5_long_cards_are_dealt_once_and_the_rest_leave_the_game():
    board = TOY
    long_ids = {d.id for d in board.long_destinations}
    state = engine.new_game(2, PERSONAS[:3], board)
    dealt_long = [d for p in state.players for d in p.destinations]
    assert len(dealt_long) == 3 and set(dealt_long) <= long_ids
    assert set(state.out_of_game) == long_ids - set(dealt_long)
    assert not long_ids & set(state.short_deck)
    assert len(board.short_destinations) == 15 and len(long_ids) == 5


def test_R1_6_the_longest_path_bonus_is_worth_ten():
    state = started(2)
    alice, bob = state.players
    alice.roads, alice.score = [0, 1], 3  # a-b-c, 3 wheels
    alice.destinations = bob.destinations = []
    rows = {r["player"]: r for r in engine.results(state)}
    assert rows[alice.id]["longest_path_bonus"] and not rows[bob.id]["longest_path_bonus"]
    assert rows[alice.id]["total"] == 3 + 10


@pytest.mark.parametrize(("length", "points"), [(1, 1), (2, 2), (3, 4), (4, 7), (5, 10), (6, 15)])
def test_R1_7_road_points_follow_the_length_table(length, points):
    road = next(r for r in TOY.roads if r.length == length)
    assert road.points == points


def test_R2_1_each_player_gets_four_hidden_wheel_cards():
    state = engine.new_game(4, PERSONAS[:2], TOY)
    for player in state.players:
        assert sum(player.hand) == 4
    assert "you" not in engine.view(state, None)
    alice_view = engine.view(state, state.players[0].id)
    assert sum(alice_view["you"]["hand"].values()) == 4


def test_R2_2_five_cards_are_turned_face_up():
    for seed in range(30):
        state = engine.new_game(seed, PERSONAS[:2], TOY)
        assert None not in state.face_up and len(state.face_up) == 5
        jokers = state.face_up.count(engine.J)
        assert jokers < 3 or state.wipes_in_row == engine.MAX_WIPES_IN_ROW
        assert len(state.deck) == 90 - 8 - 5 - len(state.discard)


def test_R2_3_three_short_and_one_long_card_each():
    state = engine.new_game(9, PERSONAS[:4], TOY)
    for player in state.players:
        assert len(player.pending) == 3
        assert all(not TOY.destinations[d].long for d in player.pending)
        assert [TOY.destinations[d].long for d in player.destinations] == [True]
    assert len(state.short_deck) == 15 - 12


def test_R2_4_keep_all_three_or_reject_exactly_one():
    state = engine.new_game(1, PERSONAS[:2], TOY)
    alice, bob = state.players
    with pytest.raises(IllegalMove, match=r"^R2\.4"):
        engine.apply(state, alice.id, {"type": PREP, "keep": alice.pending[:1]})
    with pytest.raises(IllegalMove, match=r"^R2\.4"):
        engine.apply(state, alice.id, {"type": PREP, "keep": [*alice.pending[:2], bob.pending[0]]})
    kept = alice.pending[:2]
    engine.apply(state, alice.id, {"type": PREP, "keep": kept})
    assert alice.destinations[1:] == kept and alice.prepared
    with pytest.raises(IllegalMove, match=r"^R2\.4"):
        engine.apply(state, alice.id, {"type": PREP, "keep": kept})


def test_R2_4_legal_keep_sets_are_all_three_or_each_pair():
    state = engine.new_game(1, PERSONAS[:2], TOY)
    alice = state.players[0]
    keeps = [m["keep"] for m in engine.turn_moves(state, alice.id)]
    assert len(keeps) == 4 and sorted(map(len, keeps)) == [2, 2, 2, 3]
    assert all(set(k) <= set(alice.pending) for k in keeps)


def test_R2_4_choices_are_simultaneous_and_play_starts_when_all_have_chosen():
    state = engine.new_game(1, PERSONAS[:3], TOY)
    last = state.players[-1]
    engine.apply(state, last.id, {"type": PREP, "keep": last.pending})  # any order
    with pytest.raises(IllegalMove, match=r"^R2\.4"):
        engine.apply(state, state.players[0].id, {"type": "DRAW_DESTINATION_CARDS"})
    for player in state.players[:-1]:
        assert state.status == engine.PREPARATION
        engine.apply(state, player.id, {"type": PREP, "keep": player.pending})
    assert state.status == engine.RUNNING and state.current == 0


def test_R2_4_rejected_cards_go_under_the_short_deck():
    state = engine.new_game(1, PERSONAS[:3], TOY)
    deck_before = list(state.short_deck)
    rejected = []
    for player in state.players:
        rejected.append(player.pending[0])
        engine.apply(state, player.id, {"type": PREP, "keep": player.pending[1:]})
    bottom = state.short_deck[: len(rejected)]
    assert sorted(bottom) == sorted(rejected)
    assert state.short_deck[len(rejected) :] == deck_before


def test_R2_5_the_same_seed_and_moves_give_the_same_game():
    def play(seed):
        state = engine.new_game(seed, PERSONAS[:3], TOY)
        moves = []
        while state.status != engine.FINISHED and len(moves) < 60:
            mover = next(p.id for p in state.players if engine.turn_moves(state, p.id))
            move = engine.turn_moves(state, mover)[len(moves) % 3 - 1]
            engine.apply(state, mover, move)
            moves.append((mover, move))
        return state, moves

    first, moves = play(11)
    again = engine.replay(11, PERSONAS[:3], moves, TOY)
    assert engine.to_dict(again) == engine.to_dict(first)
    assert engine.to_dict(engine.new_game(12, PERSONAS[:3], TOY)) != engine.to_dict(
        engine.new_game(11, PERSONAS[:3], TOY)
    )
