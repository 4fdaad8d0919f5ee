"""The engine contract (``games.contract``), checked for every kind in ``games.registry.KINDS``.

Random legal play to the end, with at every step: the state survives JSON storage, every
viewer's view stays the same when what they may not know is scrambled (the very first state
included), every listed move is accepted and moves that are not listed are refused without
changing anything. Then the game replays exactly from its seed and moves.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import contract, registry
from games.contract import PHASES, BadOption, EngineError

pytestmark = pytest.mark.engine  # neither database nor channel layer

KINDS = list(registry.KINDS)
MAX_MOVES = 5_000
SEEDS = (1, 2)
CHECK_EVERY = 7  # the costly checks (every listed move, scrambles) run on every 7th state


def engine_of(kind: str):
    return registry.get(kind).engine


def players_of(engine, count: int) -> list[str]:
    return [f"p{i + 1}" for i in range(count)]


def seat_counts(engine) -> list[int]:
    return sorted({engine.MIN_PLAYERS, engine.MAX_PLAYERS})


def stored(engine, state) -> str:
    return json.dumps(engine.to_dict(state), sort_keys=True)


def copy_of(engine, state):
    return engine.from_dict(json.loads(json.dumps(engine.to_dict(state))))


def play(engine, seed: int, players: list[str], check=None):
    """Random legal play to the end; ``check(state, i)`` before every move. Returns the final
    state and the moves as ``(player, move)``."""
    rng = random.Random(seed * 7919)
    state = engine.new_game(seed, players, engine.check_options({}))
    moves = []
    for i in range(MAX_MOVES):
        if check is not None:
            check(state, i)
        if engine.is_over(state):
            return state, moves
        movers = engine.to_move(state)
        assert movers, "a game that is not over has someone to move"
        player = rng.choice(movers)
        legal = engine.legal_moves(state, player)
        assert legal, f"{player} is to move but has no legal move"
        move = rng.choice(legal)
        state, events = engine.apply(state, player, copy.deepcopy(move))
        assert all(isinstance(e, dict) and "kind" in e for e in events)
        json.dumps(events)
        moves.append((player, move))
    pytest.fail(f"no end within {MAX_MOVES} moves")


@pytest.mark.parametrize("kind", KINDS)
def test_the_engine_has_the_contract_names(kind):
    engine = engine_of(kind)
    for name in (
        *("KIND", "MIN_PLAYERS", "MAX_PLAYERS", "MOVE_TYPES", "BOTS", "check_options"),
        *("new_game", "legal_moves", "to_move", "apply", "end_game", "view", "phase"),
        *("is_over", "results", "replay", "to_dict", "from_dict", "scramble", "make_bot"),
        "simulate_report",
    ):
        assert hasattr(engine, name), name
    assert kind == engine.KIND
    assert 1 <= engine.MIN_PLAYERS <= engine.MAX_PLAYERS
    assert engine.MOVE_TYPES and all(isinstance(t, str) for t in engine.MOVE_TYPES)


@pytest.mark.parametrize("kind", KINDS)
def test_options_are_checked_and_defaults_filled(kind):
    engine = engine_of(kind)
    defaults = engine.check_options({})
    assert set(defaults) == {option.name for option in registry.get(kind).options}
    for option in registry.get(kind).options:
        assert defaults[option.name] == option.default
    with pytest.raises(BadOption) as refused:
        engine.check_options({"no_such_option": True})
    assert refused.value.field == "options.no_such_option"
    with pytest.raises(BadOption):
        engine.check_options(["not", "a", "dict"])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_legal_play_ends_and_replays_exactly(kind, seed):
    engine = engine_of(kind)
    for count in seat_counts(engine):
        players = players_of(engine, count)
        state, moves = play(engine, seed, players)
        assert engine.phase(state) == "FINISHED"
        rows = engine.results(state)
        assert sorted(row["player"] for row in rows) == sorted(players)
        assert all({"player", "total", "place", "won"} <= set(row) for row in rows)
        assert all(isinstance(row["won"], bool) for row in rows)
        assert [row["place"] for row in rows] == sorted(row["place"] for row in rows)
        assert rows[0]["place"] == 1
        again = engine.replay(seed, players, engine.check_options({}), moves)
        assert stored(engine, again) == stored(engine, state)
        assert engine.results(again) == rows
        for player in players:
            assert engine.legal_moves(state, player) == []
        for viewer in [None, *players]:
            assert engine.view(state, viewer)["results"] == json.loads(json.dumps(rows))


def check_state(engine, players: list[str], rng: random.Random):
    def check(state, i: int) -> None:
        assert engine.phase(state) in PHASES
        saved = stored(engine, state)
        again = copy_of(engine, state)
        assert stored(engine, again) == saved, "to_dict/from_dict round trip"
        for viewer in [None, *players]:
            view = engine.view(state, viewer)
            assert json.loads(json.dumps(view)) == view, "a view is plain JSON"
            assert {"status", "seq", "players", "legal"} <= set(view)
            if viewer is None:
                assert view["legal"] == []
            else:
                assert view["legal"] == engine.legal_moves(state, viewer)
            if i == 0 or i % CHECK_EVERY == 0:
                other = engine.scramble(state, viewer, rng)
                assert engine.view(other, viewer) == view, f"view of {viewer} leaks a secret"
                assert stored(engine, state) == saved, "scramble changed the state"
        if i % CHECK_EVERY == 0:
            check_moves(engine, state, players, rng)
        assert stored(engine, state) == saved, "looking changed the state"

    return check


def check_moves(engine, state, players: list[str], rng: random.Random) -> None:
    """Every listed move applies; a move not listed is refused and changes nothing, unless it
    is another spelling of a listed one (an optional field left out, as the protocol allows):
    then it must lead to exactly the state that listed move leads to."""
    saved = stored(engine, state)
    for player in players:
        legal = engine.legal_moves(state, player)
        outcomes = set()
        for move in legal:
            target = copy_of(engine, state)
            engine.apply(target, player, copy.deepcopy(move))
            assert target.seq == state.seq + 1
            outcomes.add(stored(engine, target))
        for move in not_listed(legal, players, rng):
            if move in legal:
                continue
            target = copy_of(engine, state)
            try:
                engine.apply(target, player, move)
            except EngineError:
                assert stored(engine, target) == saved, f"refused {move} changed the state"
            else:
                assert stored(engine, target) in outcomes, f"{player} may not send {move}"


def not_listed(legal: list[dict], players, rng: random.Random) -> list[dict]:
    """Moves near the listed ones: unknown types, missing and changed fields."""
    moves = [{"type": "NO_SUCH_MOVE"}, {}, {"type": 7}]
    for move in rng.sample(legal, min(len(legal), 5)):
        for name in [key for key in move if key != "type"]:
            moves.append({key: value for key, value in move.items() if key != name})
            for odd in (None, -1, 99, "x", [99, 99], True):
                moves.append({**move, name: odd})
    return moves


@pytest.mark.parametrize("kind", KINDS)
def test_every_listed_move_applies_and_nothing_else_and_views_keep_secrets(kind):
    engine = engine_of(kind)
    for count in seat_counts(engine):
        players = players_of(engine, count)
        rng = random.Random(count)
        play(engine, 3, players, check_state(engine, players, rng))


@pytest.mark.parametrize("kind", KINDS)
def test_nobody_but_the_players_to_move_may_move(kind):
    engine = engine_of(kind)
    players = players_of(engine, engine.MAX_PLAYERS)
    state = engine.new_game(4, players, engine.check_options({}))
    movers = set(engine.to_move(state))
    saved = stored(engine, state)
    for player in players:
        if player in movers:
            continue
        for other in movers:
            for move in engine.legal_moves(state, other):
                if move in engine.legal_moves(state, player):
                    continue
                with pytest.raises(EngineError):
                    engine.apply(state, player, copy.deepcopy(move))
    with pytest.raises(EngineError) as refused:
        engine.apply(state, "nobody", {"type": next(iter(engine.MOVE_TYPES))})
    assert refused.value.code == "not_seated"
    assert stored(engine, state) == saved


@pytest.mark.parametrize("kind", KINDS)
def test_end_game_finishes_with_results(kind):
    engine = engine_of(kind)
    players = players_of(engine, engine.MIN_PLAYERS)
    state = engine.new_game(5, players, engine.check_options({}))
    events = engine.end_game(state, "admin")
    assert isinstance(events, list)
    assert engine.is_over(state) and engine.phase(state) == "FINISHED"
    assert sorted(row["player"] for row in engine.results(state)) == sorted(players)
    with pytest.raises(EngineError) as refused:
        engine.apply(state, players[0], {"type": next(iter(engine.MOVE_TYPES))})
    assert refused.value.code == "game_over"


@pytest.mark.parametrize("kind", KINDS)
def test_every_bot_plays_only_legal_moves_from_its_view(kind):
    engine = engine_of(kind)
    players = players_of(engine, engine.MIN_PLAYERS)
    for name in engine.BOTS:
        bots = {player: engine.make_bot(name, seed=i) for i, player in enumerate(players)}
        state = engine.new_game(6, players, engine.check_options({}))
        for _ in range(60):
            if engine.is_over(state):
                break
            player = engine.to_move(state)[0]
            view = engine.view(state, player)
            move = bots[player].choose(view)
            assert move in view["legal"], (name, move)
            engine.apply(state, player, move)


def test_a_stored_generator_goes_on_where_it_stopped_from_either_stored_form():
    # R2.5: a game replays from its stored state; the generator is stored compactly now, and
    # states stored before still hold the list of its words.
    rng = random.Random(7)
    for _ in range(1000):
        rng.random()
    version, words, gauss = rng.getstate()
    stored, earlier = contract.dump_rng(rng), [version, list(words), gauss]
    assert isinstance(stored[1], str) and len(json.dumps(stored)) < len(json.dumps(earlier)) / 1.8
    expected = [rng.random() for _ in range(5)]
    for data in (stored, earlier):
        restored = contract.load_rng(json.loads(json.dumps(data)))
        assert [restored.random() for _ in range(5)] == expected


def scribble(data) -> None:
    """Change every dict and list inside ``data`` in place."""
    if isinstance(data, dict):
        for value in list(data.values()):
            scribble(value)
        data["scribbled"] = True
    elif isinstance(data, list):
        for value in data:
            scribble(value)
        data.append("scribbled")


@pytest.mark.parametrize("kind", KINDS)
def test_a_finished_games_views_stored_form_and_copy_share_nothing_with_its_state(kind):
    # A finished game's views, its stored form and the state loaded from it are sent,
    # stored and changed apart from the state they came from: changing them changes nothing.
    engine = engine_of(kind)
    state, _ = play(engine, 3, players_of(engine, engine.MIN_PLAYERS))
    assert engine.is_over(state) and engine.results(state)
    saved = stored(engine, state)
    data = engine.to_dict(state)
    loaded = engine.from_dict(json.loads(saved))
    scribble(data)
    for viewer in (None, *players_of(engine, engine.MIN_PLAYERS)):
        scribble(engine.view(state, viewer))
        scribble(engine.view(loaded, viewer))
    assert stored(engine, state) == saved
    assert stored(engine, loaded) == saved


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    )
)
def test_a_plain_copy_equals_a_deep_copy_and_shares_no_dict_or_list(data):
    before = copy.deepcopy(data)
    copied = contract.plain_copy(data)
    assert copied == before
    scribble(copied)
    assert data == before
    if isinstance(data, dict | list):
        assert copied != data
