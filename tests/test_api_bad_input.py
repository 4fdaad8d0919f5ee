"""Hostile or sloppy bodies get the protocol's JSON errors, never a 500 or an HTML page, and
game options are taken only as documented (REST and the lobby socket alike)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games.models import Game
from tests.ws_helpers import Socket, close_all, isolated_sockets, make_people  # noqa: F401

NESTED = "[" * 1000
HUGE = '{"name": "' + "x" * (10 * 1024 * 1024) + '"}'


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice")


def api_of(user=None) -> APIClient:
    api = APIClient(raise_request_exception=False)
    if user is not None:
        api.force_authenticate(user)
    return api


def assert_json_error(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == code and response.json()["message"]


@pytest.mark.django_db
def test_a_body_of_a_thousand_nested_brackets_is_bad_json_not_a_server_error(alice):
    assert_json_error(
        api_of().post("/api/auth/guest/", NESTED, content_type="application/json"),
        400,
        "bad_json",
    )
    assert_json_error(
        api_of(alice).post("/api/games/", NESTED, content_type="application/json"), 400, "bad_json"
    )
    assert Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/auth/guest/", "/api/games/"])
def test_a_ten_megabyte_body_is_refused_as_too_large_in_json(alice, path):
    assert_json_error(
        api_of(alice).post(path, HUGE, content_type="application/json"), 413, "too_large"
    )
    assert_json_error(
        api_of(alice).post(path, HUGE, content_type="application/x-www-form-urlencoded"),
        415,
        "unsupported_media_type",
    )


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["join", "start", "leave"])
def test_endpoints_that_read_no_body_answer_a_ten_megabyte_one_in_json(alice, action):
    response = api_of(alice).post(f"/api/games/999/{action}/", HUGE, content_type="text/plain")
    assert_json_error(response, 404, "not_found")


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["yes", "true", 1, "on", None])
def test_private_must_be_a_json_boolean(alice, value):
    body = {"name": "Spiel", "max_players": 2, "private": value}
    response = api_of(alice).post("/api/games/", body, format="json")
    assert_json_error(response, 400, "bad_field")
    assert response.json()["message"].startswith("private:")
    assert Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    "extra, field", [({"max_players": 3}, "max_players"), ({"bots": 1}, "bots")]
)
def test_a_road300_game_refuses_seats_and_computer_players(alice, extra, field):
    body = {"name": "Solo", "kind": "road300", **extra}
    response = api_of(alice).post("/api/games/", body, format="json")
    assert_json_error(response, 400, "bad_field")
    assert response.json()["message"].startswith(f"{field}:")
    assert Game.objects.count() == 0
    assert api_of(alice).post("/api/games/", {"name": "Solo", "kind": "road300"}).status_code == 201


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_refuses_the_same_options_naming_the_field():
    (alice,) = await make_people("alice")
    socket = await Socket.lobby(alice)
    bad = [
        ({"name": "Spiel", "max_players": 2, "private": "yes"}, "private"),
        ({"name": "Solo", "kind": "road300", "max_players": 2}, "max_players"),
        ({"name": "Solo", "kind": "road300", "bots": 1}, "bots"),
    ]
    for fields, name in bad:
        await socket.send({"type": "CREATE_GAME", "ref": "c", **fields})
        error = await socket.expect("ERROR")
        assert error["code"] == "bad_field" and error["message"].startswith(f"{name}:"), error
    await close_all(socket)
