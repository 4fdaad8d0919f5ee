"""R3 scoring and R8 the end of the game."""

import pytest

from games.ratumrad import engine
from games.ratumrad.paths import longest_path
from tests.engine_boards import TOY, current, hand, started, take

pytestmark = pytest.mark.engine  # neither database nor channel layer

VOTE = {"type": "VOTE_END", "end": True}


def give_roads(state, player, road_ids):
    for road_id in road_ids:
        state.road_owner[road_id] = state.players.index(player)
        player.roads.append(road_id)
        player.wheels -= TOY.roads[road_id].length
        player.score += TOY.roads[road_id].points


def draw_twice(state):
    """The current player draws wheel cards (whatever source is legal) for a whole turn."""
    player = current(state)
    while current(state) is player and state.status != engine.FINISHED:
        move = next(m for m in engine.turn_moves(state, player.id) if m["type"] == "TAKE_WHEEL")
        engine.apply(state, player.id, move)
    return player


def card(a, b):
    return next(d.id for d in TOY.destinations if {d.a, d.b} == {a, b})


def rows_by_player(state):
    return {row["player"]: row for row in engine.results(state)}


# R3.3: a cycle a-b-c-d-e-a (1+2+3+4+2) with a branch e-f (5).
CYCLE = [0, 1, 2, 3, 8]


def test_R3_3_longest_path_on_a_cycle_leaves_out_the_shortest_road():
    assert longest_path(TOY, CYCLE) == 12 - 1


def test_R3_3_longest_path_with_a_branch_never_visits_a_place_twice():
    # f-e-d-c-b-a is 15; the trail f-e-d-c-b-a-e (17) would visit e twice.
    assert longest_path(TOY, [*CYCLE, 4]) == 15


def test_R3_3_longest_path_takes_the_longer_branch_of_a_fork():
    # e is a fork: d-e (4), e-f (5), e-a (2); the best simple path joins the two long arms.
    assert longest_path(TOY, [3, 4, 8]) == 9


def test_R3_3_longest_path_counts_wheels_not_roads():
    assert longest_path(TOY, [5]) == 6  # one road of 6
    assert longest_path(TOY, [0, 1]) == 3  # two roads of 1 and 2


def test_R3_3_disconnected_roads_do_not_add_up():
    assert longest_path(TOY, [0, 14]) == 3  # a-b and i-j


def test_R3_3_no_road_no_path_and_no_bonus():
    assert longest_path(TOY, []) == 0
    state = started(2)
    rows = rows_by_player(state)
    assert not any(row["longest_path_bonus"] for row in rows.values())


def test_R3_3_tied_longest_paths_all_get_the_bonus():
    state = started(3)
    alice, bob, charlie = state.players
    give_roads(state, alice, [1])  # 2 wheels
    give_roads(state, bob, [6])  # 2 wheels
    give_roads(state, charlie, [0])  # 1 wheel
    rows = rows_by_player(state)
    assert [rows[p.id]["longest_path_bonus"] for p in state.players] == [True, True, False]
    assert rows[alice.id]["longest_path_tie"] and not rows[charlie.id]["longest_path_tie"]


def test_R3_3_results_name_the_roads_of_the_longest_path_in_order():
    state = started(2)
    alice, bob = state.players
    give_roads(state, alice, [*CYCLE, 4, 14])  # the cycle, e-f, and a separate i-j
    row = rows_by_player(state)[alice.id]
    roads = [TOY.roads[road_id] for road_id in row["longest_path_roads"]]
    assert row["longest_path"] == 15 == sum(road.length for road in roads)
    assert {road.id for road in roads} <= set(alice.roads)
    # Walk it: each road starts where the last one ended, and no place comes twice.
    here = next(p for p in (roads[0].a, roads[0].b) if p not in (roads[1].a, roads[1].b))
    visited = [here]
    for road in roads:
        assert here in (road.a, road.b)
        here = road.b if here == road.a else road.a
        visited.append(here)
    assert len(visited) == len(set(visited)) == len(roads) + 1
    assert rows_by_player(state)[bob.id]["longest_path_roads"] == []


def test_R3_2_destinations_score_when_connected_by_own_roads_only():
    state = started(2)
    alice, bob = state.players
    alice.destinations = [card("a", "c"), card("a", "d")]  # short 4, short 12
    bob.destinations = []
    give_roads(state, alice, [0, 1])  # a-b-c
    give_roads(state, bob, [2])  # c-d belongs to bob: a-d is not alice's
    row = rows_by_player(state)[alice.id]
    points = {d: TOY.destinations[d].points for d in alice.destinations}
    assert (row["destinations_reached"], row["destinations_reached_points"]) == (
        1,
        points[card("a", "c")],
    )
    assert (row["destinations_missed"], row["destinations_missed_points"]) == (
        1,
        points[card("a", "d")],
    )
    assert row["total"] == 3 + points[card("a", "c")] - points[card("a", "d")] + 10


def test_R3_2_long_cards_count_the_same_way():
    state = started(2)
    alice, bob = state.players
    long_card = card("i", "f")
    alice.destinations, bob.destinations = [long_card], [card("j", "h")]
    give_roads(state, alice, [17, 4])  # i-e-f
    rows = rows_by_player(state)
    assert rows[alice.id]["destinations_reached_points"] == TOY.destinations[long_card].points
    assert rows[bob.id]["destinations_missed_points"] == TOY.destinations[card("j", "h")].points


def test_R3_4_the_highest_total_wins():
    state = started(2)
    alice, bob = state.players
    alice.destinations = bob.destinations = []
    give_roads(state, alice, [5])  # 15 + bonus
    give_roads(state, bob, [4])  # 10
    assert [r["player"] for r in engine.results(state)] == [alice.id, bob.id]


def test_R3_4_ties_break_on_completed_destinations_then_the_bonus():
    state = started(3)
    alice, bob, charlie = state.players
    give_roads(state, alice, [2])  # c-d: path 3
    give_roads(state, bob, [0, 7])  # b-a-h: path 4, the bonus
    give_roads(state, charlie, [6, 12])  # g-h-d: path 3, completes d-g
    d_to_g = card("d", "g")
    alice.destinations, bob.destinations, charlie.destinations = [], [], [d_to_g]
    # Level every total at 20 through the score track (the road points).
    alice.score = 20
    bob.score = 20 - engine.LONGEST_PATH_BONUS
    charlie.score = 20 - TOY.destinations[d_to_g].points
    rows = engine.results(state)
    assert {r["total"] for r in rows} == {20}
    assert [r["player"] for r in rows] == [charlie.id, bob.id, alice.id]
    assert [r["place"] for r in rows] == [1, 2, 3]


def test_R3_4_a_complete_tie_shares_the_place():
    state = started(3)
    alice, bob, charlie = state.players
    for player in state.players:
        player.destinations = []
    give_roads(state, alice, [1])
    give_roads(state, bob, [6])
    rows = {r["player"]: r for r in engine.results(state)}
    assert rows[alice.id]["place"] == rows[bob.id]["place"] == 1 and rows[alice.id]["tied"]
    assert rows[charlie.id]["place"] == 3 and not rows[charlie.id]["tied"]


def test_R3_5_completing_a_destination_is_never_announced():
    state = started(2)
    alice, bob = state.players
    alice.destinations = [card("a", "c")]
    give_roads(state, alice, [0])
    alice.hand = hand(blue=2)
    public_before = engine.view(state, bob.id)
    _, events = engine.apply(state, alice.id, {"type": "BUILD_ROAD", "road": 1})
    assert engine.view(state, alice.id)["you"]["destinations"][0]["complete"]
    text = repr(events)
    assert "complete" not in text and "destination" not in text
    public_after = engine.view(state, bob.id)
    changed = {k for k in public_after if public_after[k] != public_before[k]}
    assert changed <= {"seq", "current_player", "players", "roads", "discard", "deck", "legal"}


def test_R8_1_the_final_round_includes_the_player_who_triggered_it():
    state = started(3)
    alice, bob, charlie = state.players
    alice.wheels = 4
    alice.hand = hand(blue=2)
    _, events = engine.apply(state, alice.id, {"type": "BUILD_ROAD", "road": 1})
    assert {"kind": "final_round", "player": alice.id, "wheels": 2} in events
    assert state.status == engine.FINAL_ROUND and engine.view(state, None)["final_round"]
    movers = [draw_twice(state).id for _ in range(3)]
    assert movers == [bob.id, charlie.id, alice.id]
    assert state.status == engine.FINISHED and state.end_reason == "final_round"


def test_R8_1_more_than_two_wheels_do_not_start_the_final_round():
    state = started(2)
    alice = current(state)
    alice.wheels = 5
    alice.hand = hand(blue=2)
    engine.apply(state, alice.id, {"type": "BUILD_ROAD", "road": 1})
    assert state.status == engine.RUNNING and state.final_turns_left is None


def test_R8_1_the_final_round_starts_once():
    state = started(2)
    alice, bob = state.players
    alice.wheels, bob.wheels = 2, 2
    draw_twice(state)  # alice ends a turn with 2 wheels: final round
    assert state.final_turns_left == 2
    draw_twice(state)  # bob, also with 2, does not restart it
    assert state.final_turns_left == 1
    draw_twice(state)
    assert state.status == engine.FINISHED


def test_R8_2_the_game_ends_at_once_when_all_vote_to_end():
    state = started(3)
    alice, bob, charlie = state.players
    engine.apply(state, bob.id, VOTE)  # votes need no turn
    engine.apply(state, alice.id, VOTE)
    engine.apply(state, alice.id, {"type": "VOTE_END", "end": False})
    engine.apply(state, charlie.id, VOTE)
    assert state.status == engine.RUNNING
    with pytest.raises(engine.IllegalMove, match=r"^R8\.2"):
        engine.apply(state, charlie.id, VOTE)
    _, events = engine.apply(state, alice.id, VOTE)
    assert state.status == engine.FINISHED and state.end_reason == "vote"
    assert events[-1]["kind"] == "game_over"
    with pytest.raises(engine.GameOver):
        engine.apply(state, alice.id, take())


def test_R8_2_the_game_ends_when_every_player_in_a_row_had_to_pass():
    state = started(2)
    alice, bob = state.players
    state.deck, state.discard, state.short_deck = [], [], []
    white = engine.COLOR_INDEX["white"]
    state.face_up = [white, white, None, None, None]
    alice.hand, bob.hand = hand(), hand()
    give_roads(state, bob, [12])  # the only road two white cards could pay (with R6.4)
    _, events = engine.apply(state, alice.id, take(0))
    _, events = engine.apply(state, alice.id, take(1))
    assert [e["kind"] for e in events[-3:]] == ["passed", "passed", "game_over"]
    assert state.status == engine.FINISHED and state.end_reason == "all_passed"


def test_R8_3_results_show_every_figure_and_reveal_all_hands():
    state = started(2)
    for player in state.players:
        engine.apply(state, player.id, VOTE)
    public = engine.view(state, None)
    assert public["status"] == engine.FINISHED
    for row in public["results"]:
        player = state.players[state.index_of(row["player"])]
        assert set(row) >= {
            "player",
            "road_points",
            "destinations_reached",
            "destinations_reached_points",
            "destinations_missed",
            "destinations_missed_points",
            "longest_path",
            "longest_path_bonus",
            "longest_path_tie",
            "tied",
            "total",
            "place",
            "destinations",
            "hand",
        }
        assert [d["id"] for d in row["destinations"]] == player.destinations
        assert list(row["hand"].values()) == player.hand


def test_R8_3_a_vote_during_a_destination_choice_returns_the_drawn_cards():
    state = started(2)
    alice, bob = state.players
    engine.apply(state, alice.id, {"type": "DRAW_DESTINATION_CARDS"})
    drawn = list(alice.pending)
    engine.apply(state, alice.id, VOTE)
    engine.apply(state, bob.id, VOTE)
    assert alice.pending == [] and set(drawn) <= set(state.short_deck)


def test_R8_3_a_game_ended_from_outside_is_scored_like_any_other():
    state = started(2)
    alice, bob = state.players
    alice.destinations = bob.destinations = []
    give_roads(state, alice, [5])
    events = engine.end_game(state, "admin")
    assert state.status == engine.FINISHED and state.end_reason == "admin"
    assert events[-1]["kind"] == "game_over" and events[-1]["winners"] == [alice.id]
    with pytest.raises(engine.GameOver):
        engine.end_game(state, "admin")
