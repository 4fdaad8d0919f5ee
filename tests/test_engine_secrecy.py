"""R9: a view shows the public game (R9.1), the viewer's own cards (R9.2) and nothing else (R9.3).

Every state of random games, the very first included, is looked at by every seat and by a
spectator. The main check scrambles everything a viewer may not know and demands the same view.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.ratumrad import engine
from games.ratumrad.invariants import check_invariants
from tests.engine_boards import PERSONAS, TOY
from tests.test_engine_properties import BOARDS, copy_of, deal, draw_move, examples, states

pytestmark = pytest.mark.engine  # neither database nor channel layer

PLAYER_COUNTS = [2, 3, 4, 5]
SECRET_KEYS = {"deck", "discard", "short_deck", "out_of_game", "prep_returned", "rng", "seed"}
SECRET_EVENT_KEYS = {"hand", "destinations", "pending", "keep", "card", "complete", "deck"}


def scramble(state: engine.GameState, viewer: int | None, rng: random.Random) -> engine.GameState:
    """The engine's scramble (``engine.scramble``) for seat index ``viewer``."""
    return engine.scramble(state, None if viewer is None else state.players[viewer].id, rng)


def viewers(state: engine.GameState) -> list[tuple[int | None, str | None]]:
    return [(None, None)] + [(i, p.id) for i, p in enumerate(state.players)]


def keys_with_paths(data: object, path: tuple = ()):
    """Every (path, key, value) in a JSON-like tree."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield path, key, value
            yield from keys_with_paths(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from keys_with_paths(value, (*path, i))


def differences(a: object, b: object, path: str = "") -> list[str]:
    """Where two JSON-like trees differ, as short path: a != b lines."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = [*a, *(k for k in b if k not in a)]
        return [d for k in keys for d in differences(a.get(k), b.get(k), f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("board_name", BOARDS)
@examples(2)
@given(data=st.data())
def test_R9_3_a_view_does_not_change_when_what_its_viewer_cannot_know_is_scrambled(
    data, board_name, players
):
    game = deal(data, board_name, players)
    rng = random.Random(game.seed)
    for state in states(game):
        for seat, pid in viewers(state):
            seen = engine.view(state, pid)
            other = scramble(state, seat, rng)
            # R4.3 may not hold: whether the current player can act depends on their hand.
            broken = [p for p in check_invariants(other) if not p.startswith("R4.3")]
            assert broken == [], "the scramble itself broke the game"
            changed = differences(seen, engine.view(other, pid))
            assert not changed, (
                f"the view of {pid or 'a spectator'} depends on hidden cards "
                f"(status {state.status}, turn {state.turn}, move {len(game.history)}): {changed}"
            )


@pytest.mark.parametrize("board_name", BOARDS)
@examples(4)
@given(data=st.data())
def test_R9_1_everyone_sees_the_public_game_and_a_spectator_nothing_more(data, board_name):
    game = deal(data, board_name, data.draw(st.integers(2, 5), label="players"))
    for state in states(game):
        spectator = engine.view(state, None)
        assert "you" not in spectator
        assert spectator["legal"] == []
        for _, pid in viewers(state):
            seen = engine.view(state, pid)
            assert seen["status"] == state.status
            assert seen["deck"] == len(state.deck)
            assert seen["discard"] == len(state.discard)
            assert seen["short_deck"] == len(state.short_deck)
            assert seen["face_up"] == [
                None if card is None else engine.COLORS[card] for card in state.face_up
            ]
            assert seen["roads"] == [
                {"road": r, "owner": state.players[owner].id}
                for r, owner in enumerate(state.road_owner)
                if owner is not None
            ]
            public = ("id", "color", "score", "wheels", "wheel_cards", "destination_cards")
            assert [tuple(p[key] for key in public) for p in seen["players"]] == [
                (p.id, p.color, p.score, p.wheels, sum(p.hand), len(p.destinations))
                for p in state.players
            ]


@pytest.mark.parametrize("board_name", BOARDS)
@examples(4)
@given(data=st.data())
def test_R9_2_a_seat_sees_its_own_cards_and_no_one_elses(data, board_name):
    game = deal(data, board_name, data.draw(st.integers(2, 5), label="players"))
    for state in states(game):
        for seat, pid in viewers(state):
            if pid is None:
                continue
            seen = engine.view(state, pid)
            player = state.players[seat]
            you = seen["you"]
            assert you["player_id"] == pid and you["color"] == player.color
            assert list(you["hand"].values()) == player.hand
            assert list(you["hand"]) == list(engine.COLORS)
            assert [d["id"] for d in you["destinations"]] == player.destinations
            assert [d["id"] for d in you["pending_destinations"]] == player.pending
            assert seen["legal"] == engine.legal_moves(state, pid)
            if state.status == engine.FINISHED:
                continue
            for path, key, _ in keys_with_paths(seen):
                if key == "hand":
                    assert path == ("you",), f"a hand under {path} in the view of {pid}"


@pytest.mark.parametrize("board_name", BOARDS)
@examples(4)
@given(data=st.data())
def test_R9_3_no_view_lists_the_cards_of_a_deck_or_the_generator(data, board_name):
    game = deal(data, board_name, data.draw(st.integers(2, 5), label="players"))
    for state in states(game):
        for _, pid in viewers(state):
            seen = engine.view(state, pid)
            json.dumps(seen)  # a view is plain JSON
            for path, key, value in keys_with_paths(seen):
                if key in SECRET_KEYS:
                    assert path == () and key in {"deck", "discard", "short_deck"}, (
                        f"{key} under {path} in the view of {pid}"
                    )
                    assert isinstance(value, int) and not isinstance(value, bool)
            if state.status != engine.FINISHED:
                assert "results" not in seen


def test_R9_3_the_scramble_changes_the_hidden_deal_but_not_the_view():
    state = engine.new_game(7, PERSONAS[:3], TOY)
    for seat, pid in viewers(state):
        other = scramble(state, seat, random.Random(1))
        assert engine.to_dict(other) != engine.to_dict(state)
        assert engine.view(other, pid) == engine.view(state, pid)


@pytest.mark.parametrize("board_name", BOARDS)
@examples(4)
@given(data=st.data())
def test_R9_3_the_events_of_a_move_do_not_depend_on_the_order_of_any_deck(data, board_name):
    """Events go to every seat and spectator: the same move on a game whose deck, short deck
    and generator are scrambled must report the same events, unless the piles everyone sees
    came out differently (then wipes and reshuffles may differ too)."""
    game = deal(data, board_name, data.draw(st.integers(2, 5), label="players"))
    rng = random.Random(game.seed)
    while not game.over:
        state = game.state
        pid, move = draw_move(game)
        other = copy_of(state)
        other.rng = random.Random(rng.getrandbits(64))
        rng.shuffle(other.deck)
        rng.shuffle(other.short_deck)
        _, events = engine.apply(state, pid, move)
        _, other_events = engine.apply(other, pid, move)
        game.history.append((pid, move))
        for event in events:
            if event["kind"] == "took_wheel" and event["source"] == "deck":
                assert "color" not in event, "a blind draw names its card"
            assert not SECRET_EVENT_KEYS & set(event), f"{event} names hidden cards"
        if public_piles(other) == public_piles(state):
            assert dealt_apart(other_events) == dealt_apart(events)


def public_piles(state: engine.GameState) -> tuple:
    return state.face_up, len(state.deck), len(state.discard), len(state.short_deck)


def dealt_apart(events: list[dict]) -> list[dict]:
    """The events without the wipes and reshuffles a differently ordered deck may cause."""
    return [e for e in events if e["kind"] not in ("display_wiped", "deck_reshuffled")]
