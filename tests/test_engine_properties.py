"""Properties of the rules engine under random play, legal and illegal (R1–R8).

Hypothesis draws every choice of a game: the seed, which listed move to play and, now and
then, a vote to end (R8.2). The profile ``ratumrad-ci`` (the default) is derandomised, so CI
sees the same games every run; ``RATUMRAD_HYPOTHESIS=ratumrad-explore`` plays ten times as
many new games and shrinks a failure to a short one.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from games.ratumrad import engine
from games.ratumrad.board import CARD_COLORS, GREY, Board, basel
from games.ratumrad.invariants import check_invariants
from games.ratumrad.simulation import options, play_random_game
from tests.engine_boards import PERSONAS, TOY, started

pytestmark = pytest.mark.engine  # neither database nor channel layer

# CI replays the same examples every run and skips shrinking: a shrink of a long game can take
# minutes. The failing example is still printed; the explore profile shrinks it.
settings.register_profile(
    "ratumrad-ci",
    derandomize=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "ratumrad-explore",
    settings.get_profile("ratumrad-ci"),
    derandomize=False,
    phases=list(Phase),
)
PROFILE_NAME = os.environ.get("RATUMRAD_HYPOTHESIS", "ratumrad-ci")
PROFILE = settings.get_profile(PROFILE_NAME)
SCALE = 10 if PROFILE_NAME == "ratumrad-explore" else 1

BOARDS = ["toy", "basel"]
PLAYER_COUNTS = [2, 3, 4, 5]
MOVE_CAP = 3000  # progress moves; random games end after a few hundred
VOTE_ODDS = 25  # one draw in VOTE_ODDS toggles somebody's vote (hypothesis shrinks it away)
RULE_MESSAGE = re.compile(r"^R\d+(\.\d+)?: ")
CODES_WITHOUT_RULE = {"bad_field", "unknown_type", "not_your_turn", "not_seated", "game_over"}


def examples(n: int) -> settings:
    return settings(PROFILE, max_examples=n * SCALE)


def board_named(name: str) -> Board:
    return TOY if name == "toy" else basel()


# ---------------------------------------------------------------------------- hypothesis games


@dataclass
class Game:
    """A game whose every choice is drawn by ``pick(n)`` (an index below n); ``history`` is
    what :func:`engine.replay` takes."""

    state: engine.GameState
    seed: int
    ids: tuple[str, ...]
    pick: Callable[[int], int]
    votes_left: int
    history: list[tuple[str, dict]] = field(default_factory=list)
    progress: int = 0

    @property
    def board(self) -> Board:
        return self.state.board

    @property
    def over(self) -> bool:
        return self.state.status == engine.FINISHED


def deal(data: st.DataObject, board_name: str, players: int, *, drawn: bool = True) -> Game:
    """A new game; its choices are drawn by hypothesis, or (``drawn=False``, for long walks
    that only lead up to what is tested) by a generator seeded from a drawn number."""
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    ids = PERSONAS[:players]
    state = engine.new_game(seed, ids, board_named(board_name))
    if drawn:

        def pick(n: int) -> int:
            return data.draw(st.integers(0, n - 1))

    else:
        pick = random.Random(data.draw(st.integers(0, 2**32 - 1), label="walk")).randrange
    return Game(state=state, seed=seed, ids=ids, pick=pick, votes_left=2 * players)


def draw_move(game: Game) -> tuple[str, dict]:
    """A listed move: mostly one that moves the game on, now and then a vote toggle."""
    if game.votes_left and game.pick(VOTE_ODDS) == VOTE_ODDS - 1:
        game.votes_left -= 1
        pid = game.ids[game.pick(len(game.ids))]
        return pid, {"type": "VOTE_END", "end": not game.state.players[_seat(game, pid)].vote_end}
    choices = options(game.state)
    assert choices, f"R4.3: nobody can move in a {game.state.status} game"
    return choices[game.pick(len(choices))]


def step(game: Game) -> list[dict]:
    pid, move = draw_move(game)
    _, events = engine.apply(game.state, pid, move)
    game.history.append((pid, move))
    if move["type"] != "VOTE_END":
        game.progress += 1
    return events


def states(game: Game, max_moves: int = MOVE_CAP) -> Iterator[engine.GameState]:
    """Yield the state before the first move and after every move, until the game ends."""
    yield game.state
    while not game.over and game.progress < max_moves:
        step(game)
        yield game.state


def copy_of(state: engine.GameState) -> engine.GameState:
    return engine.from_dict(engine.to_dict(state), state.board)


def _seat(game: Game, pid: str) -> int:
    return game.state.index_of(pid)


# ---------------------------------------------------------------------------- legal play


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("board_name", BOARDS)
@examples(6)
@given(data=st.data())
def test_R8_random_legal_play_always_ends_and_keeps_every_invariant(data, board_name, players):
    game = deal(data, board_name, players)
    for state in states(game):
        problems = check_invariants(state)
        assert problems == [], f"after {game.history[-1:]}: {problems}"
    assert game.over, f"no end after {game.progress} moves"
    assert game.state.end_reason in {"final_round", "all_passed", "vote"}


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("board_name", BOARDS)
@examples(3)
@given(data=st.data())
def test_every_listed_move_applies_to_a_copy_of_the_game(data, board_name, players):
    game = deal(data, board_name, players)
    for state in states(game):
        stored = engine.to_dict(state)
        for pid in game.ids:
            listed = engine.legal_moves(state, pid)
            turn = engine.turn_moves(state, pid)
            if state.status == engine.FINISHED:
                assert listed == [] and turn == []
                continue
            vote = {"type": "VOTE_END", "end": not state.players[_seat(game, pid)].vote_end}
            assert listed == [*turn, vote]
            for move in listed:
                engine.apply(copy_of(state), pid, move)
        assert engine.to_dict(state) == stored


def test_R1_1_a_game_needs_two_to_five_distinct_players():
    for players in ([], ["a"], list("abcdef"), ["a", "a"]):
        with pytest.raises(engine.EngineError, match=r"^R1\.1: "):
            engine.new_game(1, players, TOY)


# ---------------------------------------------------------------------------- illegal moves

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 99),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.text(max_size=4),
    st.lists(st.integers(-1, 3), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(0, 1), max_size=1),
)


PREPARE = "SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION"


def protocol_moves(state: engine.GameState) -> st.SearchStrategy:
    """Moves shaped like the protocol's: listed ones (for some seat, maybe another), near
    misses with one field changed, plausible guesses and malformed ones."""
    board = state.board
    ids = [card for p in state.players for card in p.pending] or [0]
    card_ids = st.sampled_from(ids) | st.integers(-1, len(board.destinations))
    colors = st.sampled_from([*CARD_COLORS, GREY, "joker"])
    plausible = st.one_of(
        st.fixed_dictionaries(
            {
                "type": st.just("TAKE_WHEEL"),
                "source": st.sampled_from(["deck", "face_up"]),
                "slot": st.integers(0, engine.DISPLAY_SIZE - 1),
            }
        ),
        st.fixed_dictionaries(
            {
                "type": st.just("BUILD_ROAD"),
                "road": st.integers(0, len(board.roads) - 1),
                "color": st.sampled_from(CARD_COLORS),
            },
            optional={"jokers": st.integers(0, 6)},
        ),
        st.just({"type": "DRAW_DESTINATION_CARDS"}),
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(["KEEP_DESTINATION_CARDS", PREPARE]),
                "keep": st.lists(st.sampled_from(ids), max_size=3, unique=True),
            }
        ),
        st.fixed_dictionaries({"type": st.just("VOTE_END"), "end": st.booleans()}),
    )
    malformed = st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("TAKE_WHEEL")},
            optional={
                "source": st.sampled_from(["deck", "face_up", "discard"]) | JUNK,
                "slot": st.integers(-1, engine.DISPLAY_SIZE) | JUNK,
            },
        ),
        st.fixed_dictionaries(
            {"type": st.just("BUILD_ROAD")},
            optional={
                "road": st.integers(-1, len(board.roads)) | JUNK,
                "color": colors | JUNK,
                "jokers": st.integers(-1, 7) | JUNK,
            },
        ),
        st.fixed_dictionaries(
            {"type": st.sampled_from(["KEEP_DESTINATION_CARDS", PREPARE])},
            optional={"keep": st.lists(card_ids, max_size=4) | JUNK},
        ),
        st.fixed_dictionaries(
            {"type": st.just("VOTE_END")}, optional={"end": st.booleans() | JUNK}
        ),
        st.fixed_dictionaries({"type": st.sampled_from(["PASS", "take_wheel", ""]) | JUNK}),
        JUNK,
    )
    listed = [m for p in state.players for m in engine.legal_moves(state, p.id)]
    if not listed:
        return st.one_of(plausible, malformed)
    near = st.tuples(st.sampled_from(listed), plausible).flatmap(
        lambda pair: st.sampled_from(sorted(pair[1])).map(
            lambda key: {**pair[0], key: pair[1][key]}
        )
    )
    return st.one_of(st.sampled_from(listed), near, plausible, malformed)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def canonical(state: engine.GameState, move: object) -> dict | None:
    """The form :func:`engine.legal_moves` lists ``move`` in; None if it is malformed.

    Keep lists are compared as sets, a colour left out of a coloured road is that colour, and
    fields a move type does not use are dropped.
    """
    if not isinstance(move, dict):
        return None
    kind = move.get("type")
    if kind == "TAKE_WHEEL":
        source = move.get("source")
        if source == "deck":
            return {"type": kind, "source": "deck"}
        if source == "face_up" and _whole(move.get("slot")):
            return {"type": kind, "source": "face_up", "slot": move["slot"]}
        return None
    if kind == "BUILD_ROAD":
        road, color = move.get("road"), move.get("color")
        if not _whole(road) or not 0 <= road < len(state.board.roads):
            return None
        if color is None and state.board.roads[road].color != GREY:
            color = state.board.roads[road].color
        return {"type": kind, "road": road, "color": color}
    if kind in ("KEEP_DESTINATION_CARDS", PREPARE):
        keep = move.get("keep")
        if not isinstance(keep, list) or not all(_whole(c) for c in keep):
            return None
        if len(set(keep)) != len(keep):
            return None
        return {"type": kind, "keep": sorted(keep)}
    if kind == "DRAW_DESTINATION_CARDS":
        return {"type": kind}
    if kind == "VOTE_END":
        return {"type": kind, "end": move.get("end")} if isinstance(move.get("end"), bool) else None
    return None


def jokers_fit(state: engine.GameState, pid: str, move: dict) -> bool:
    """R6.1/R6.5: an explicit joker count must be payable with the player's hand."""
    if move.get("type") != "BUILD_ROAD" or move.get("jokers") is None:
        return True
    jokers = move["jokers"]
    if not _whole(jokers):
        return False
    player = state.players[state.index_of(pid)]
    n = state.board.roads[move["road"]].length
    color = engine.COLOR_INDEX[canonical(state, move)["color"]]
    return 0 <= jokers <= n and jokers <= player.hand[engine.J] and n - jokers <= player.hand[color]


def expect_legal(state: engine.GameState, pid: str, move: object) -> bool:
    if pid not in [p.id for p in state.players]:
        return False
    form = canonical(state, move)
    listed = [canonical(state, m) for m in engine.legal_moves(state, pid)]
    return form is not None and form in listed and jokers_fit(state, pid, move)


def assert_refused(state: engine.GameState, pid: str, move: object) -> None:
    before = engine.to_dict(state)
    with pytest.raises(engine.EngineError) as refused:
        engine.apply(state, pid, move)
    error = refused.value
    event(f"refused: {error.code} {error.rule or ''}")
    assert RULE_MESSAGE.match(str(error)) or error.code in CODES_WITHOUT_RULE, (
        f"{move} by {pid}: {error.code} {error}"
    )
    if error.rule:
        assert str(error).startswith(f"{error.rule}: ")
    assert engine.to_dict(state) == before, f"{move} by {pid} was refused but changed the game"


@pytest.mark.parametrize("board_name", BOARDS)
@examples(40)
@given(data=st.data())
def test_moves_that_are_not_listed_are_refused_with_a_rule_and_change_nothing(data, board_name):
    players = data.draw(st.integers(2, 5), label="players")
    game = deal(data, board_name, players, drawn=False)
    depth = data.draw(st.integers(0, 300), label="depth")
    probe_at = data.draw(st.sets(st.integers(0, depth), max_size=4), label="probe at")
    for state in states(game, max_moves=depth):
        if len(game.history) not in probe_at and not game.over and game.progress < depth:
            continue
        for _ in range(data.draw(st.integers(1, 8), label="probes")):
            movers = [pid for pid, _ in options(state)] or list(game.ids)
            senders = st.sampled_from(movers) | st.sampled_from([*game.ids, "stranger"])
            pid = data.draw(senders, label="sender")
            move = data.draw(protocol_moves(state), label="move")
            if expect_legal(state, pid, move):
                event(f"accepted: {move['type']}")
                engine.apply(copy_of(state), pid, move)
            else:
                assert_refused(state, pid, move)


def test_R8_a_finished_game_refuses_every_move_as_game_over():
    stats = play_random_game(3, 3, TOY)
    state = engine.replay(3, stats.players, stats.history, TOY)
    assert state.status == engine.FINISHED
    for pid in stats.players:
        assert engine.legal_moves(state, pid) == []
        for move in ({"type": "VOTE_END", "end": True}, {"type": "DRAW_DESTINATION_CARDS"}):
            with pytest.raises(engine.GameOver):
                engine.apply(state, pid, move)


def test_an_unknown_player_is_not_seated():
    state = started(3)
    with pytest.raises(engine.NotSeated):
        engine.apply(state, "stranger", {"type": "TAKE_WHEEL", "source": "deck"})
    with pytest.raises(engine.NotSeated):
        engine.legal_moves(state, "stranger")


# ---------------------------------------------------------------------------- replay and storage


@pytest.mark.parametrize("board_name", BOARDS)
@examples(10)
@given(data=st.data())
def test_R2_5_replay_rebuilds_the_same_game(data, board_name):
    players = data.draw(st.integers(2, 5), label="players")
    game = deal(data, board_name, players)
    depth = data.draw(st.sampled_from([0, 1, 5, 40, MOVE_CAP]), label="depth")
    for _ in states(game, max_moves=depth):
        pass
    rebuilt = engine.replay(game.seed, game.ids, game.history, game.board)
    assert engine.to_dict(rebuilt) == engine.to_dict(game.state)


@pytest.mark.parametrize("board_name", BOARDS)
@examples(10)
@given(data=st.data())
def test_R2_5_a_stored_game_continues_identically(data, board_name):
    players = data.draw(st.integers(2, 5), label="players")
    game = deal(data, board_name, players)
    depth = data.draw(st.integers(0, 300), label="depth")
    for _ in states(game, max_moves=depth):
        pass
    stored = json.loads(json.dumps(engine.to_dict(game.state)))
    loaded = engine.from_dict(stored, game.board)
    assert engine.to_dict(loaded) == engine.to_dict(game.state)
    for pid in game.ids:
        assert engine.view(loaded, pid) == engine.view(game.state, pid)
    while not game.over:
        pid, move = draw_move(game)
        _, events = engine.apply(game.state, pid, move)
        _, loaded_events = engine.apply(loaded, pid, move)
        assert loaded_events == events
        assert engine.to_dict(loaded) == engine.to_dict(game.state)


def test_R2_5_playing_a_loaded_game_leaves_the_stored_data_alone():
    stored = engine.to_dict(started(2))
    snapshot = copy.deepcopy(stored)
    state = engine.from_dict(stored, TOY)
    engine.apply(
        state, engine.view(state)["current_player"], {"type": "TAKE_WHEEL", "source": "deck"}
    )
    assert stored == snapshot


def test_R8_3_changing_a_view_leaves_the_game_alone():
    stats = play_random_game(3, 3, TOY)
    state = engine.replay(3, stats.players, stats.history, TOY)
    stored = engine.to_dict(state)
    snapshot = copy.deepcopy(stored)
    seen = engine.view(state, stats.players[0])
    seen["results"][0]["name"] = "Alice"
    seen["players"][0]["name"] = "Alice"
    assert engine.to_dict(state) == snapshot
    assert stored == snapshot


def test_R2_5_the_random_runner_is_deterministic_per_seed():
    first, second = play_random_game(11, 4, TOY), play_random_game(11, 4, TOY)
    assert first.history == second.history and first.results == second.results
    assert play_random_game(12, 4, TOY).history != first.history


# ---------------------------------------------------------------------------- the checker itself


def _mid_game(players: int = 4, moves: int = 60) -> engine.GameState:
    stats = play_random_game(5, players, TOY)
    state = engine.replay(5, stats.players, stats.history[:moves], TOY)
    assert check_invariants(state) == []
    return state


def _violations(state: engine.GameState, rule: str) -> list[str]:
    return [p for p in check_invariants(state) if rule in p]


def test_R1_4_a_lost_or_extra_wheel_card_is_a_violation():
    state = _mid_game()
    state.deck.pop()
    assert _violations(state, "R1.4")
    state = _mid_game()
    state.players[0].hand[engine.J] += 1
    assert _violations(state, "R1.4")
    state = _mid_game()
    state.deck[0] = (state.deck[0] + 1) % len(engine.COLORS)  # 90 cards, but 11 and 9 of two
    assert _violations(state, "R1.4")


def test_R1_5_a_destination_card_lost_or_held_twice_is_a_violation():
    state = _mid_game()
    state.short_deck.append(state.players[0].destinations[0])
    assert _violations(state, "R1.5")
    state = _mid_game()
    state.out_of_game.pop()
    assert _violations(state, "R1.5")


def test_R3_1_a_score_that_differs_from_the_built_roads_is_a_violation():
    state = _mid_game(moves=150)
    assert any(p.roads for p in state.players)
    state.players[0].score += 1
    assert _violations(state, "R3.1")
    state = _mid_game(moves=150)
    state.players[0].wheels -= 1
    assert _violations(state, "R6.1")


def test_R6_3_R6_4_both_roads_of_a_double_built_are_violations():
    state = started(4)
    state.road_owner[10] = state.road_owner[11] = 0
    state.players[0].roads = [10, 11]
    state.players[0].wheels -= 4
    state.players[0].score += 4
    assert _violations(state, "R6.3")
    state = started(3)
    state.road_owner[12], state.road_owner[13] = 0, 1
    state.players[0].roads, state.players[1].roads = [12], [13]
    for p in state.players[:2]:
        p.wheels, p.score = p.wheels - 1, p.score + 1
    assert _violations(state, "R6.4")


def test_R5_6_an_empty_deck_beside_a_full_discard_is_a_violation():
    state = _mid_game()
    state.discard.extend(state.deck)
    state.deck.clear()
    assert _violations(state, "R5.6")


def test_R2_4_R7_3_pending_cards_outside_a_choice_are_a_violation():
    state = started(2)
    state.players[1].pending.append(state.short_deck.pop())
    assert _violations(state, "R7.3")
