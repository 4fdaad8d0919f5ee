"""Road to 300's rules (``road300-rules.md``, T1-T5), one or more tests per rule id.

The tests set up sheets by hand: ``sheet(...)`` gives a game with chosen crossed and circled
cells whose dice come in a chosen order (a stand-in for the game's generator).
"""

from __future__ import annotations

import itertools
import random

import pytest

from games.contract import BadField, BadOption, GameOver, IllegalMove, NotSeated, UnknownType
from games.road300 import bots, engine, examples, grids
from games.road300.board import CORNERS

pytestmark = pytest.mark.engine

ME = "solo"


class Dice:
    """The game's generator, replaced: ``randint`` gives these values in order (T1.2)."""

    def __init__(self, *rolls: tuple[int, int, int]):
        self.values = [value for roll in rolls for value in roll]

    def getstate(self):  # what to_dict stores of a generator
        return (0, list(self.values), None)

    def randint(self, low: int, high: int) -> int:
        value = self.values.pop(0)
        assert low <= value <= high
        return value


def sheet(*rolls, crossed=(), circled=(), grid=None) -> tuple[engine.GameState, list[dict]]:
    """A game in which ``crossed`` and ``circled`` are marked (the last circled cell is where
    the player stands), rolling ``rolls`` in order from now on; and the events of that roll."""
    state = engine.new_game(1, [ME], {})
    if grid is not None:
        state.grid, state.grid_version = grid, None
    state.crossed, state.circled = list(crossed), list(circled)
    state.round = len(circled) + 1
    state.rolls, state.failed_rolls, state.history = [], 0, []
    state.rng = Dice(*rolls)
    events: list[dict] = []
    engine._roll(state, events)  # the engine's own T2.1/T2.3 step, on the dice given
    return state, events


def turn(cross, to) -> dict:
    return {"type": "ROAD_TURN", "cross": list(cross), "to": list(to)}


def refused(state, move, rule: str, error=IllegalMove) -> str:
    before = engine.to_dict(state)
    with pytest.raises(error) as caught:
        engine.apply(state, ME, move)
    assert engine.to_dict(state) == before, "a refused turn changes nothing"
    assert caught.value.rule == rule, caught.value.message
    return caught.value.message


def ends_of(state, cross) -> set[tuple[int, int]]:
    return {tuple(m["to"]) for m in engine.legal_moves(state, ME) if m["cross"] == list(cross)}


def all_rolls(state) -> list[tuple[int, ...]]:
    """Every roll of the game so far, in order (the history's, then the current round's)."""
    done = [tuple(roll) for entry in state.history for roll in entry["rolls"]]
    current = [] if engine.is_over(state) else [tuple(roll) for roll in state.rolls]
    return done + current


# ---------------------------------------------------------------------------- T1 material


def test_T1_1_the_corners_show_30_and_no_other_cell_does():
    for version, grid in grids.GRIDS.items():
        values = {(x, y): grid[y - 1][x - 1] for x in range(1, 7) for y in range(1, 7)}
        assert {cell for cell, value in values.items() if value == 30} == set(CORNERS), version
        assert len(values) == 36


def test_T1_1_a_sheet_with_a_30_off_the_corners_is_refused():
    grid = [list(row) for row in grids.GRIDS[grids.CURRENT]]
    grid[2][3] = 30
    with pytest.raises(ValueError, match="corners only"):
        grids.check_grid(tuple(tuple(row) for row in grid))


def test_T1_1_a_game_records_the_version_of_its_grid():
    state = engine.new_game(3, [ME], {})
    assert engine.view(state, ME)["grid_version"] == grids.CURRENT
    assert engine.view(state, ME)["grid"] == [list(row) for row in grids.GRIDS[grids.CURRENT]]
    assert engine.from_dict(engine.to_dict(state)).grid_version == grids.CURRENT


def test_T1_2_the_kth_roll_is_the_same_whatever_the_player_chose():
    first, last = engine.new_game(77, [ME], {}), engine.new_game(77, [ME], {})
    for state, pick in ((first, 0), (last, -1)):
        while not engine.is_over(state):
            engine.apply(state, ME, engine.legal_moves(state, ME)[pick])
    assert first.circled != last.circled, "the two players chose differently"
    a, b = all_rolls(first), all_rolls(last)
    shared = min(len(a), len(b))
    assert shared >= 3
    assert a[:shared] == b[:shared]


def test_T1_2_the_dice_come_from_the_seed_alone():
    a, b = engine.new_game(5, [ME], {}), engine.new_game(5, [ME], {})
    assert all_rolls(a) == all_rolls(b)
    assert [all_rolls(engine.new_game(seed, [ME], {})) for seed in range(6, 12)] != [
        all_rolls(a)
    ] * 6


# ---------------------------------------------------------------------------- T2 a round


def test_T2_1_every_round_begins_with_a_roll_of_three_dice():
    state = engine.new_game(9, [ME], {})
    for _ in range(3):
        assert engine.is_over(state) or (
            len(state.dice) == 3 and all(1 <= die <= 6 for die in state.dice)
        )
        assert state.rolls and state.rolls[-1] == state.dice  # rolled in this round
        if engine.is_over(state):
            break
        round_before = state.round
        _, events = engine.apply(state, ME, engine.legal_moves(state, ME)[0])
        rolled = [e for e in events if e["kind"] in ("rolled", "failed_roll")]
        assert rolled and rolled[0]["round"] == round_before + 1  # the next round rolls first
        assert all(len(e["dice"]) == 3 for e in rolled)


def test_T2_2_two_dice_name_a_cell_either_way_and_the_third_moves():
    state, _ = sheet((2, 4, 5))
    found = {
        tuple(c["cross"]): (c["die"], tuple(c["pair"])) for c in engine.view(state, ME)["crossings"]
    }
    assert found == {
        (2, 4): (5, (2, 4)),
        (4, 2): (5, (2, 4)),
        (2, 5): (4, (2, 5)),
        (5, 2): (4, (2, 5)),
        (4, 5): (2, (4, 5)),
        (5, 4): (2, (4, 5)),
    }


def test_T2_2_two_equal_dice_name_one_cell():
    state, _ = sheet((3, 3, 1))
    crosses = {tuple(c["cross"]): c["die"] for c in engine.view(state, ME)["crossings"]}
    assert crosses == {(3, 3): 1, (1, 3): 3, (3, 1): 3}


def test_T2_2_a_crossed_or_circled_cell_cannot_be_crossed():
    state, _ = sheet((2, 4, 5), crossed=[(2, 4)], circled=[(1, 1)])
    crosses = {tuple(m["cross"]) for m in engine.legal_moves(state, ME)}
    assert (2, 4) not in crosses and (4, 2) in crosses
    assert "already crossed" in refused(state, turn((2, 4), (1, 6)), "T2.2")
    state, _ = sheet((1, 1, 2), crossed=[], circled=[(1, 1)])
    assert "already crossed" in refused(state, turn((1, 1), (2, 2)), "T2.2")


def test_T2_2_crossing_is_compulsory_and_only_a_cell_the_dice_name():
    state, _ = sheet((2, 4, 5))
    assert "name cell" in refused(state, turn((3, 3), (1, 1)), "T2.2")
    with pytest.raises(BadField):
        engine.apply(state, ME, {"type": "ROAD_TURN", "to": [1, 1]})


def test_T2_3_a_roll_that_can_cross_nothing_is_rolled_again():
    state, events = sheet((1, 1, 1), (2, 3, 4), crossed=[(1, 1)], circled=[(2, 1)])
    assert state.failed_rolls == 1
    assert state.dice == (2, 3, 4)
    assert [e["kind"] for e in events] == ["failed_roll", "rolled"]
    assert events[0]["dice"] == [1, 1, 1] and events[0]["count"] == 1
    assert engine.view(state, ME)["rolls"] == [[1, 1, 1], [2, 3, 4]]


def test_T2_3_three_failed_rolls_in_a_row_end_the_game():
    state, events = sheet((1, 1, 1), (1, 1, 1), (1, 1, 1), crossed=[(1, 1)], circled=[(2, 1)])
    assert engine.is_over(state) and state.end_reason == engine.THREE_FAILED_ROLLS
    assert [e["kind"] for e in events] == ["failed_roll"] * 3 + ["game_over"]
    assert [e["count"] for e in events[:3]] == [1, 2, 3]


def test_T2_3_a_successful_crossing_resets_the_count():
    state, _ = sheet((1, 1, 1), (1, 1, 1), (2, 5, 1), (6, 6, 1), crossed=[(1, 1)], circled=[(2, 1)])
    assert state.failed_rolls == 2 and not engine.is_over(state)
    engine.apply(state, ME, turn((2, 5), (3, 1)))
    assert state.failed_rolls == 0
    assert state.history[-1]["rolls"] == [[1, 1, 1], [1, 1, 1], [2, 5, 1]]


def test_T2_4_from_round_2_the_standing_cell_is_crossed_and_keeps_its_circle():
    state, _ = sheet((6, 6, 1), (4, 4, 2), (5, 5, 5))
    engine.apply(state, ME, turn((6, 6), (1, 1)))  # round 1: enter on a corner, no T2.4
    assert state.crossed == [(6, 6)] and state.circled == [(1, 1)]
    _, events = engine.apply(state, ME, turn((4, 4), (1, 3)))
    assert state.crossed == [(6, 6), (4, 4), (1, 1)]
    assert (1, 1) in state.circled and state.position == (1, 3)
    assert events[0]["standing"] == [1, 1]
    assert engine.scoring_cells(state) == [(1, 1)]


def test_T2_5_round_1_enters_the_grid_on_a_corner_and_a_1_ends_there():
    state, _ = sheet((3, 4, 1))
    assert ends_of(state, (3, 4)) == ends_of(state, (4, 3)) == set(CORNERS)
    view = engine.view(state, ME)
    for move, path in zip(view["legal"], view["paths"], strict=True):
        if move["cross"] in ([3, 4], [4, 3]):
            assert path == [move["to"]]


def test_T2_5_round_1_the_first_of_the_steps_lands_on_a_corner():
    state, _ = sheet((5, 5, 3))
    view = engine.view(state, ME)
    for move, path in zip(view["legal"], view["paths"], strict=True):
        if move["cross"] == [5, 5]:
            assert len(path) == 3 and tuple(path[0]) in CORNERS
    assert (1, 3) in ends_of(state, (5, 5))  # (1,1) (1,2) (1,3)
    assert (2, 2) in ends_of(state, (5, 5))  # a turn: (1,1) (2,1) (2,2)
    assert "free corner" in refused(state, turn((5, 5), (3, 3)), "T2.5")


def test_T2_5_a_crossed_corner_is_no_way_in():
    state, _ = sheet((2, 3, 1), crossed=[(1, 1), (6, 6)])
    assert ends_of(state, (2, 3)) == {(6, 1), (1, 6)}


def test_T2_5_exactly_the_die_in_orthogonal_steps_over_free_cells_never_twice():
    state, _ = sheet((4, 4, 3), crossed=[(3, 2)], circled=[(2, 2)])
    ends = ends_of(state, (4, 4))
    view = engine.view(state, ME)
    blocked = {(4, 4), (3, 2), (2, 2)}
    for move, path in zip(view["legal"], view["paths"], strict=True):
        if move["cross"] != [4, 4]:
            continue
        cells = [(2, 2), *map(tuple, path)]
        assert len(path) == 3 and len(set(cells)) == 4
        assert all(abs(a - c) + abs(b - d) == 1 for (a, b), (c, d) in itertools.pairwise(cells))
        assert not blocked & set(cells[1:])
    assert (2, 5) in ends and (1, 4) in ends and (5, 2) not in ends  # (3,2) is crossed
    assert (2, 2) not in ends  # never back onto the standing (circled) cell
    assert (2, 3) in ends  # one cell away, reached in three steps with turns
    assert "orthogonal steps" in refused(state, turn((4, 4), (4, 2)), "T2.5")  # even distance


def test_T2_5_the_move_never_leaves_the_grid():
    state, _ = sheet((3, 3, 2), circled=[(1, 1)])
    assert ends_of(state, (3, 3)) == {(1, 3), (2, 2), (3, 1)}


def test_T2_6_the_cell_just_crossed_blocks_this_rounds_move():
    state, _ = sheet((4, 3, 2), (1, 1, 1), circled=[(3, 3)])
    assert (5, 3) not in ends_of(state, (4, 3))  # the only way there runs over (4,3)
    assert (5, 3) in ends_of(state, (3, 4))  # crossing the other cell leaves it open
    assert "blocks the move" in refused(state, turn((4, 3), (5, 3)), "T2.6")
    engine.apply(state, ME, turn((3, 4), (5, 3)))
    assert state.history[-1]["path"] == [[4, 3], [5, 3]]


def test_T2_7_the_cell_where_the_move_ends_is_circled_and_stood_on():
    state, _ = sheet((6, 6, 2), (1, 1, 1))
    _, events = engine.apply(state, ME, turn((6, 6), (2, 1)))
    assert state.circled == [(2, 1)] and state.position == (2, 1)
    assert events[0]["to"] == [2, 1] and events[0]["path"] == [[1, 1], [2, 1]]
    assert engine.view(state, ME)["position"] == [2, 1]


def test_T2_8_the_crossed_cell_fixes_the_moving_die():
    state, _ = sheet((2, 4, 5), circled=[(3, 3)])
    assert {m["to"][0] + m["to"][1] for m in engine.legal_moves(state, ME)}  # some moves
    five = ends_of(state, (2, 4))  # crossing (2,4) moves 5
    two = ends_of(state, (4, 5))  # crossing (4,5) moves 2
    assert (3, 5) in two and (3, 5) not in five
    assert "orthogonal steps" in refused(state, turn((2, 4), (3, 5)), "T2.5")


def test_T2_8_a_turn_is_refused_when_its_crossing_leaves_no_move():
    state, _ = sheet((2, 1, 3), crossed=[(1, 2)], circled=[(1, 1)])
    # crossing (2,1) leaves a 3 and no free neighbour of (1,1); crossing (2,3) leaves a 1
    assert ends_of(state, (2, 1)) == set() and ends_of(state, (2, 3)) == {(2, 1)}
    assert "no legal move" in refused(state, turn((2, 1), (3, 1)), "T2.8")


def test_T2_8_a_crossing_roll_without_a_move_ends_the_game_and_the_standing_cell_scores():
    state, events = sheet(
        (2, 2, 1), crossed=[(6, 2), (1, 2), (2, 1), (6, 1)], circled=[(6, 1), (1, 1)]
    )
    assert [e["kind"] for e in events] == ["rolled", "game_over"]
    assert state.end_reason == engine.NO_LEGAL_MOVE
    assert (1, 1) in state.crossed  # T2.4 of the round that ended
    assert engine.results(state)[0]["cells"] == [[6, 1], [1, 1]]
    with pytest.raises(GameOver):
        engine.apply(state, ME, turn((2, 2), (1, 1)))


# ---------------------------------------------------------------------------- T3 what is shown


def test_T3_1_every_legal_turn_comes_with_one_path_and_the_spectator_sees_none():
    state = engine.new_game(11, [ME], {})
    rng = random.Random(3)
    while not engine.is_over(state):
        view = engine.view(state, ME)
        assert len(view["legal"]) == len(view["paths"]) > 0
        for move, path in zip(view["legal"], view["paths"], strict=True):
            assert (
                path[-1] == move["to"]
                and len(path)
                == {tuple(c["cross"]): c["die"] for c in view["crossings"]}[tuple(move["cross"])]
            )
        public = engine.view(state, None)
        assert public["legal"] == public["paths"] == public["crossings"] == []
        engine.apply(state, ME, rng.choice(view["legal"]))


def test_T3_2_the_view_shows_dice_failed_rolls_score_reachable_cells_and_history():
    state, _ = sheet((1, 1, 1), (6, 6, 1), (2, 2, 1), crossed=[(1, 1)], circled=[(2, 1)])
    view = engine.view(state, ME)
    assert view["dice"] == [6, 6, 1] and view["failed_rolls"] == 1
    assert view["score"] == state.value((2, 1))
    assert [3, 3] in view["reachable"] and [1, 1] not in view["reachable"]
    engine.apply(state, ME, turn((6, 6), (3, 1)))
    entry = engine.view(state, ME)["history"][-1]
    assert entry["rolls"] == [[1, 1, 1], [6, 6, 1]] and entry["cross"] == [6, 6]
    assert entry["standing"] == [2, 1] and entry["to"] == [3, 1] and entry["path"] == [[3, 1]]


# ---------------------------------------------------------------------------- T4 end and score

# The worked examples of the rules page (templates/rules/road300_*.html), on the current sheet.


@pytest.mark.parametrize("ending", sorted(examples.EXAMPLES))
def test_T4_2_worked_examples_the_last_circle_counts_only_after_T2_4(ending):
    example = examples.EXAMPLES[ending]
    state, _ = sheet(*example["rolls"], crossed=example["crossed"], circled=examples.CIRCLED)
    assert state.end_reason == ending
    row = engine.results(state)[0]
    scoring = {
        "no_legal_move": [(1, 1), (1, 3), (2, 4)],  # (2,4) was crossed by T2.4 of the last round
        "three_failed_rolls": [(1, 1), (1, 3)],  # no T2.4 came: (2,4) has a circle, no X
    }[ending]
    assert (
        row["cells"]
        == [list(cell) for cell in scoring]
        == [list(cell) for cell in example["scoring"]]
    )
    assert row["total"] == sum(state.value(cell) for cell in scoring)


def test_T4_3_300_or_more_wins_and_the_results_show_the_cells_that_scored():
    grid = tuple(tuple(30 if (x, y) in CORNERS else 100 for x in range(1, 7)) for y in range(1, 7))
    failing = ((1, 1, 1), (1, 1, 1), (1, 1, 1))  # (1,1) is crossed: three failed rolls
    circled = [(1, 1), (1, 3), (1, 4), (2, 4)]
    state, _ = sheet(*failing, crossed=circled[:-1], circled=circled, grid=grid)
    row = engine.results(state)[0]
    assert row["total"] == 230 and not row["won"]
    state, _ = sheet(*failing, crossed=circled, circled=[*circled, (3, 4)], grid=grid)
    row = engine.results(state)[0]
    assert row["total"] == 330 and row["won"] and row["place"] == 1
    assert row["cells"] == [[1, 1], [1, 3], [1, 4], [2, 4]]
    assert row["bot_score"] is None  # the site fills it in (tests/test_road300_site.py)


def test_T4_1_an_admin_may_end_the_game_and_the_standing_cell_does_not_count():
    state, _ = sheet((6, 6, 2), (3, 3, 4))
    engine.apply(state, ME, turn((6, 6), (2, 1)))
    events = engine.end_game(state, "admin")
    assert engine.is_over(state) and events[-1]["reason"] == "admin"
    assert engine.results(state)[0]["total"] == 0
    with pytest.raises(GameOver):
        engine.apply(state, ME, turn((3, 3), (2, 3)))


# ---------------------------------------------------------------------------- the contract's edges


def test_options_take_daily_and_a_day_only_with_it():
    assert engine.check_options({}) == {"daily": False}
    assert engine.check_options({"daily": True, "day": "2026-11-25"})["day"] == "2026-11-25"
    for bad in (
        {"daily": "yes"},
        {"colour": 1},
        {"day": "2026-11-25"},
        {"daily": True, "day": "tomorrow"},
    ):
        with pytest.raises(BadOption):
            engine.check_options(bad)


def test_bad_turns_are_refused_with_the_field_named():
    state, _ = sheet((2, 4, 5))
    with pytest.raises(UnknownType):
        engine.apply(state, ME, {"type": "BID", "tricks": 1})
    with pytest.raises(NotSeated):
        engine.apply(state, "someone", turn((2, 4), (1, 1)))
    for bad in ([0, 1], [1, 7], "1,1", [1], [1.0, 2], None, [True, 2]):
        with pytest.raises(BadField, match="cross"):
            engine.apply(state, ME, {"type": "ROAD_TURN", "cross": bad, "to": [1, 1]})


# ---------------------------------------------------------------------------- T5 computer play


def test_T5_1_both_bots_play_whole_games_through_the_engine_with_legal_turns():
    for name in bots.BOTS:
        state = engine.new_game(21, [ME], {})
        bot = bots.make_bot(name, 4)
        while not engine.is_over(state):
            view = engine.view(state, ME)
            move = bot.choose(view)
            assert move in view["legal"]
            engine.apply(state, ME, move)


def test_T5_1_the_strong_bot_is_deterministic_on_a_seed():
    assert bots.strong_bot_score(8) == bots.play("strong", 8, bot_seed=99)["total"]
    with pytest.raises(ValueError, match="unknown bot"):
        bots.make_bot("clever")
