"""Kinds of game on the site: ``GET /api/kinds/``, ``kind`` and ``options`` when creating a game
(REST and the lobby socket alike), the ``kind`` filters and the rules page of each kind."""

from __future__ import annotations

import json
import random

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from games import registry
from games.models import Game
from lobby.models import Guest
from tests.csp_helpers import assert_page_keeps_policy
from tests.ws_helpers import Socket, close_all, make_people

pytestmark = pytest.mark.django_db


def api_of(name: str) -> APIClient:
    user = Guest.objects.create_guest(name=name).user
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {user.auth_token.key}")
    return api


def test_the_kinds_are_listed_with_their_seats_and_options(client):
    response = client.get("/api/kinds/")
    assert response.status_code == 200
    listed = {item["kind"]: item for item in response.json()}
    assert set(listed) == set(registry.KINDS)
    ratumrad = listed["ratumrad"]
    assert (ratumrad["min_players"], ratumrad["max_players"]) == (2, 5)
    assert ratumrad["options"] == {} and ratumrad["solo"] is False
    assert "heuristic" in ratumrad["bots"]
    for key, item in listed.items():
        kind = registry.get(key)
        assert item["name"] == str(kind.name)
        for name, option in item["options"].items():
            assert option["default"] in option["choices"], (key, name)


def test_a_game_is_rat_um_rad_unless_told_otherwise_and_carries_its_kind():
    api = api_of("alice")
    made = api.post("/api/games/", {"name": "Rhein", "max_players": 2}, format="json").json()
    assert (made["kind"], made["options"]) == ("ratumrad", {})
    game = Game.objects.get(pk=made["id"])
    assert (game.kind, game.options) == ("ratumrad", {})
    view = api.get(f"/api/games/{game.pk}/").json()
    assert (view["kind"], view["options"]) == ("ratumrad", {})


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "chess"}, "kind"),
        ({"kind": 7}, "kind"),
        ({"kind": "ratumrad", "options": {"fast": True}}, "options.fast"),
        ({"kind": "ratumrad", "options": "fast"}, "options"),
        ({"kind": "ratumrad", "max_players": 6}, "max_players"),
    ],
)
def test_a_bad_kind_or_option_is_a_bad_field_naming_the_field(body, field):
    api = api_of("alice")
    response = api.post("/api/games/", {"name": "Rhein", "max_players": 2, **body}, format="json")
    assert response.status_code == 400, response.json()
    answer = response.json()
    assert answer["code"] == "bad_field"
    assert answer["message"].startswith(f"{field}:"), answer
    assert not Game.objects.exists()


def test_the_game_list_filters_by_kind(client):
    api = api_of("alice")
    api.post("/api/games/", {"name": "Rhein", "max_players": 2}, format="json")
    assert [g["name"] for g in client.get("/api/games/?kind=ratumrad").json()] == ["Rhein"]
    for other in set(registry.KINDS) - {"ratumrad"}:
        assert client.get(f"/api/games/?kind={other}").json() == []
    refused = client.get("/api/games/?kind=chess")
    assert refused.status_code == 400 and refused.json()["message"].startswith("kind:")


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_creates_games_and_refuses_bad_kinds_like_rest():
    alice, bob = await make_people("alice", "bob")
    lobby = await Socket.lobby(alice)
    watcher = await Socket.lobby(bob)
    await watcher.send({"type": "REQUEST_GAMES", "kind": "ratumrad"})
    assert (await watcher.expect("GAMES"))["games"] == []
    await lobby.send({"type": "CREATE_GAME", "name": "Rhein", "kind": "chess", "ref": "a"})
    error = await lobby.expect("ERROR")
    assert (error["code"], error["ref"]) == ("bad_field", "a")
    assert error["message"].startswith("kind:")
    await lobby.send({"type": "CREATE_GAME", "name": "Rhein", "options": {"x": 1}, "ref": "b"})
    error = await lobby.expect("ERROR")
    assert error["message"].startswith("options.x:") or error["message"].startswith("max_players:")
    frame = {"type": "CREATE_GAME", "name": "Rhein", "max_players": 3, "ref": "c"}
    await lobby.send(frame)
    created = await lobby.expect("GAME_CREATED")
    assert created["ref"] == "c"
    assert (created["game"]["kind"], created["game"]["max_players"]) == ("ratumrad", 3)
    pushed = await watcher.expect("GAMES")
    assert [game["id"] for game in pushed["games"]] == [created["game"]["id"]]
    assert pushed["kind"] == "ratumrad"
    await watcher.send({"type": "REQUEST_GAMES", "kind": "chess", "ref": "d"})
    assert (await watcher.expect("ERROR"))["code"] == "bad_field"
    await close_all(lobby, watcher)


def test_each_kind_has_a_rules_page_and_unknown_kinds_are_not_found(client):
    for key in registry.KINDS:
        response = client.get(reverse("rules-kind", kwargs={"kind": key}))
        assert response.status_code == 200, key
        assert_page_keeps_policy(response)
    assert "Die Spielregeln von Rat um Rad" in client.get("/rules/ratumrad/").content.decode()
    assert client.get("/rules/chess/").status_code == 404


@pytest.mark.parametrize("key", list(registry.KINDS))
def test_a_kinds_turn_key_reads_the_same_from_a_state_and_from_its_stored_form(key):
    kind = registry.get(key)
    engine, glue = kind.engine, kind.glue
    players = list(range(1, kind.min_players + 1))
    state = engine.new_game(3, players, engine.check_options({}))
    rng = random.Random(3)
    keys = set()
    for _ in range(60):
        stored = json.loads(json.dumps(engine.to_dict(state)))
        assert glue.turn_key(state) == glue.stored_turn_key(stored)
        keys.add(glue.turn_key(state))
        if engine.is_over(state):
            break
        player = rng.choice(engine.to_move(state))
        engine.apply(state, player, rng.choice(engine.legal_moves(state, player)))
    assert len(keys) > 1  # the key moves on as the game does
