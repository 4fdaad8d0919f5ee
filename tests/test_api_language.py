"""API errors speak one language: the client's Accept-Language where it sends one, else the
site's (German), for the framework's own messages, the site's and the rules engine's alike.
The codes never change."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from lobby.models import Guest
from tests.ws_helpers import Socket, close_all, current_person, make_people, running_game

pytestmark = pytest.mark.django_db


def with_token(name: str) -> APIClient:
    api = APIClient()
    token = Guest.objects.create_guest(name=name).user.auth_token.key
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return api


def refusals(headers: dict) -> dict[str, dict]:
    """One refusal of each origin: the framework's, the site's, a missing endpoint's."""
    anonymous, alice = APIClient(), with_token("alice")
    return {
        "framework": anonymous.post("/api/games/", {}, format="json", headers=headers).json(),
        "service": alice.get("/api/games/999999/", headers=headers).json(),
        "range": alice.post(
            "/api/games/", {"name": "x", "max_players": 9}, format="json", headers=headers
        ).json(),
        "endpoint": anonymous.get("/api/nothing/", headers=headers).json(),
    }


def test_without_accept_language_every_api_error_is_german():
    found = refusals({})
    assert found["framework"] == {
        "code": "not_authenticated",
        "message": "Anmeldedaten fehlen.",
    }
    assert found["service"] == {"code": "not_found", "message": "es gibt kein Spiel 999999"}
    assert found["range"]["code"] == "bad_field"
    assert found["range"]["message"].startswith("max_players: Stelle sicher")
    assert found["endpoint"]["message"] == "es gibt keinen API-Endpunkt /api/nothing/"


def test_with_accept_language_english_every_api_error_is_english():
    found = refusals({"accept-language": "en-GB,en;q=0.8"})
    assert found["framework"] == {
        "code": "not_authenticated",
        "message": "Authentication credentials were not provided.",
    }
    assert found["service"] == {"code": "not_found", "message": "there is no game 999999"}
    assert found["range"]["message"].startswith("max_players: Ensure this value")
    assert found["endpoint"]["message"] == "there is no API endpoint /api/nothing/"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("language", "expected"),
    [(None, "R4.1: du bist nicht am Zug"), ("en", "R4.1: it is not your turn")],
)
async def test_the_engines_refusals_follow_the_sockets_language(language, expected):
    people = await make_people("alice", "bob")
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    other = next(person for person in people if person != mover)
    socket = await Socket.game(game_id, other, language=language)
    await socket.send({"type": "TAKE_WHEEL", "source": "deck", "ref": "late"})
    error = await socket.expect("ERROR")
    assert (error["code"], error["ref"], error["message"]) == ("not_your_turn", "late", expected)
    await close_all(socket)
