"""A fourth kind from tests/ alone: "count to three" (tests/toy_count) joins the registry for
a test and is played through the site's REST API and game socket to its end, with its page,
its own URL and API view, and its achievement, without a shared file knowing of it."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from django.conf import settings as django_settings
from django.test import Client
from django.urls import clear_url_caches
from rest_framework.test import APIClient

from games import registry
from games.models import Game, Seat
from rankings.models import EarnedAchievement
from tests.toy_count import TOY
from tests.ws_helpers import (
    Socket,
    close_all,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    make_people,
    token_of,
)

pytestmark = pytest.mark.django_db(transaction=True)

TEMPLATES = Path(__file__).parent / "toy_count" / "templates"


def reload_urlconf() -> None:
    clear_url_caches()
    if django_settings.ROOT_URLCONF in sys.modules:
        importlib.reload(sys.modules[django_settings.ROOT_URLCONF])


@pytest.fixture
def toy_kind(monkeypatch, settings):
    """The toy in the registry (and its table's template found) for one test."""
    monkeypatch.setitem(registry.KINDS, TOY.key, TOY)
    templates = [dict(engine) for engine in settings.TEMPLATES]
    templates[0]["DIRS"] = [*templates[0].get("DIRS", []), TEMPLATES]
    settings.TEMPLATES = templates
    reload_urlconf()
    yield TOY
    monkeypatch.undo()
    reload_urlconf()


@database_sync_to_async
def api_of(user) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {user.auth_token.key}")
    return api


@database_sync_to_async
def call(api: APIClient, method: str, url: str, data=None):
    response = getattr(api, method)(url, data, format="json")
    return response.status_code, response.json()


@database_sync_to_async
def seats_of(game_id: int) -> dict[int, tuple]:
    return {
        seat.user_id: (seat.total, seat.place, seat.won)
        for seat in Seat.objects.filter(game_id=game_id)
    }


@database_sync_to_async
def achievements_of(user) -> set[tuple[str, str]]:
    return set(EarnedAchievement.objects.filter(user=user).values_list("kind", "key"))


@database_sync_to_async
def page_of(user, game_id: int):
    client = Client()
    client.force_login(user)
    return client.get(f"/games/{game_id}/")


async def test_a_toy_kind_from_tests_alone_is_played_through_the_socket_to_its_end(toy_kind):
    alice, bob = await make_people("alice", "bob")
    await token_of(alice), await token_of(bob)
    alice_api, bob_api = await api_of(alice), await api_of(bob)

    status, game = await call(
        alice_api, "post", "/api/games/", {"name": "Count", "kind": "toy", "max_players": 2}
    )
    assert status == 201, game
    game_id = game["id"]
    assert (await call(bob_api, "post", f"/api/games/{game_id}/join/"))[0] == 200
    assert (await call(alice_api, "post", f"/api/games/{game_id}/start/"))[0] == 200

    sockets = {alice.pk: await Socket.game(game_id, alice), bob.pk: await Socket.game(game_id, bob)}
    players = (await database_sync_to_async(Game.objects.get)(pk=game_id)).state["players"]
    for count in (1, 2, 3):  # each move adds 1 to the count and to seq
        mover = sockets[players[(count - 1) % 2]]
        await mover.send({"type": "COUNT", "ref": f"r{count}", "expect_seq": count - 1})
        while (ack := await mover.recv())["type"] not in ("ACK", "ERROR"):
            pass
        assert ack == {"type": "ACK", "ref": f"r{count}", "seq": count}
        for socket in sockets.values():
            state = await socket.state_at(count)
            assert state["count"] == count
    await close_all(*sockets.values())

    winner, loser = players[0], players[1]  # the first says 1 and 3
    assert state["status"] == "FINISHED"
    assert [(row["player"], row["place"], row["won"]) for row in state["results"]] == [
        (winner, 1, True),
        (loser, 2, False),
    ]
    assert await seats_of(game_id) == {winner: (2, 1, True), loser: (1, 2, False)}
    status, shown = await call(alice_api, "get", f"/api/games/{game_id}/")
    assert status == 200 and shown["status"] == "FINISHED"
    first = alice if winner == alice.pk else bob
    second = bob if first is alice else alice
    assert await achievements_of(first) == {("toy", "first_win")}
    assert await achievements_of(second) == set()

    page = await page_of(alice, game_id)
    assert page.status_code == 200
    assert '<span id="toy-count">3</span> of 3.' in page.content.decode()

    assert (await database_sync_to_async(Client().get)("/toy/goal/")).content == (
        b"Whoever says 3 wins."
    )
    assert (await call(APIClient(), "get", "/api/toy/goal/")) == (200, {"goal": 3})


def test_the_toy_leaves_no_trace_once_its_test_is_over(client):
    assert "toy" not in registry.KINDS
    assert client.get("/toy/goal/").status_code == 404
    assert client.get("/api/toy/goal/").status_code == 404
