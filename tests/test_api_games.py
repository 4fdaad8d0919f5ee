"""The games API: list, create, join, start, a game's view for players and spectators, the log."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from games.models import DestinationCard, Game
from games.moves import play
from games.ratumrad import board, engine
from lobby.models import Guest

pytestmark = pytest.mark.django_db

CARD_KEYS = {"destinations", "pending_destinations", "keep"}


@dataclass
class Persona:
    user: User
    api: APIClient  # logged in with the user's token


def player(name: str) -> Persona:
    user = Guest.objects.create_guest(name=name).user
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {user.auth_token.key}")
    return Persona(user, api)


@pytest.fixture
def alice():
    return player("alice")


@pytest.fixture
def bob():
    return player("bob")


@pytest.fixture
def charlie():
    return player("charlie")


@pytest.fixture
def anonymous():
    return APIClient()


def create_game(client: APIClient, name: str = "Rheinufer", max_players: int = 2) -> dict:
    response = client.post("/api/games/", {"name": name, "max_players": max_players})
    assert response.status_code == 201, response.json()
    return response.json()


def started_game(first: Persona, *others: Persona) -> int:
    """A game of ``first`` and ``others`` (persona fixtures), dealt: the preparation phase."""
    game = create_game(first.api, max_players=1 + len(others))
    for other in others:
        assert other.api.post(f"/api/games/{game['id']}/join/").status_code == 200
    assert first.api.post(f"/api/games/{game['id']}/start/").status_code == 200
    return game["id"]


def finished_game(first: Persona, *others: Persona) -> int:
    """A dealt game that everybody voted to end at once (R8.2)."""
    game_id = started_game(first, *others)
    for persona in (first, *others):
        play.move_apply(game_id=game_id, user=persona.user, move={"type": "VOTE_END", "end": True})
    return game_id


def secret_ids(data: object, under_cards: bool = False) -> set[int]:
    """Destination card ids anywhere under a key that holds cards (or a keep set)."""
    found: set[int] = set()
    if isinstance(data, dict):
        if under_cards and isinstance(data.get("id"), int):
            found.add(data["id"])
        for name, value in data.items():
            found |= secret_ids(value, under_cards or name in CARD_KEYS)
    elif isinstance(data, list):
        for item in data:
            if under_cards and isinstance(item, int) and not isinstance(item, bool):
                found.add(item)
            found |= secret_ids(item, under_cards)
    return found


def keys_in(data: object) -> set[str]:
    if isinstance(data, dict):
        return set(data).union(*(keys_in(value) for value in data.values()))
    if isinstance(data, list):
        return set().union(*(keys_in(item) for item in data))
    return set()


def cards_of(game_id: int, persona: Persona) -> set[int]:
    return set(
        DestinationCard.objects.filter(game_id=game_id, seat__user=persona.user).values_list(
            "card", flat=True
        )
    )


# ---------------------------------------------------------------------------- the list


def test_the_list_shows_games_newest_first_with_their_seat_counts(alice, bob, anonymous):
    first = create_game(alice.api, "Kleinbasel", 3)
    second = create_game(alice.api, "Grossbasel", 2)
    bob.api.post(f"/api/games/{first['id']}/join/")
    response = anonymous.get("/api/games/")
    assert response.status_code == 200
    games = response.json()
    assert [game["id"] for game in games] == [second["id"], first["id"]]
    assert games[1] == {
        "id": first["id"],
        "name": "Kleinbasel",
        "kind": "ratumrad",
        "options": {},
        "status": "WAITING",
        "players": 2,
        "max_players": 3,
        "pace": "live",
        "turn_seconds": 90,
        "created": first["created"],
        "finished": None,
    }


def test_the_list_filters_by_status(alice, bob, anonymous):
    waiting = create_game(alice.api)
    dealt = started_game(alice, bob)
    assert [g["id"] for g in anonymous.get("/api/games/?status=WAITING").json()] == [waiting["id"]]
    assert [g["id"] for g in anonymous.get("/api/games/?status=PREPARATION").json()] == [dealt]
    assert anonymous.get("/api/games/?status=FINISHED").json() == []


def test_an_unknown_status_is_a_bad_field_naming_the_parameter(anonymous):
    response = anonymous.get("/api/games/?status=PLAYING")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_field"
    assert response.json()["message"].startswith("status: ")


def test_the_list_pages_with_limit_and_offset_up_to_a_cap(alice, anonymous):
    ids = [create_game(alice.api, f"Spiel {n}")["id"] for n in range(5)]
    page = anonymous.get("/api/games/?limit=2&offset=1").json()
    assert [g["id"] for g in page] == ids[::-1][1:3]
    response = anonymous.get("/api/games/?limit=101")
    assert response.status_code == 400
    assert response.json()["message"].startswith("limit: ")


def test_the_list_costs_one_query_however_many_games(
    alice, bob, anonymous, django_assert_num_queries
):
    for n in range(4):
        game = create_game(alice.api, f"Spiel {n}")
        bob.api.post(f"/api/games/{game['id']}/join/")
    with django_assert_num_queries(1):
        games = anonymous.get("/api/games/").json()
    assert [g["players"] for g in games] == [2, 2, 2, 2]


# ---------------------------------------------------------------------------- create, join, start


def test_creating_a_game_seats_the_caller(alice):
    response = alice.api.post("/api/games/", {"name": "  Rheinufer ", "max_players": 4})
    assert response.status_code == 201
    game = response.json()
    assert game["name"] == "Rheinufer" and game["players"] == 1 and game["max_players"] == 4
    assert response["Location"] == f"/api/games/{game['id']}/"
    assert Game.objects.get(pk=game["id"]).seats.get().user == alice.user


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"max_players": 2}, "name"),
        ({"name": "", "max_players": 2}, "name"),
        ({"name": "x" * 65, "max_players": 2}, "name"),
        ({"name": 0, "max_players": 2}, "name"),
        ({"name": 4.5, "max_players": 2}, "name"),
        ({"name": "Rhein"}, "max_players"),
        ({"name": "Rhein", "max_players": 1}, "max_players"),
        ({"name": "Rhein", "max_players": 6}, "max_players"),
        ({"name": "Rhein", "max_players": "viele"}, "max_players"),
        ({"name": "Rhein", "max_players": 2, "bots": 5}, "bots"),
        ({"name": "Rhein", "max_players": 2, "bots": 2}, "bots"),
        ({"name": "Rhein", "max_players": 8, "kind": "rage", "bots": 8}, "bots"),
        ({"name": "Rhein", "max_players": 2, "bots": -1}, "bots"),
    ],
)
def test_bad_game_settings_are_a_bad_field_naming_the_field(alice, body, field):
    response = alice.api.post("/api/games/", body)
    assert response.status_code == 400
    assert response.json()["code"] == "bad_field"
    assert response.json()["message"].startswith(f"{field}: ")
    assert Game.objects.count() == 0


def test_bots_take_seats_next_to_the_creator(alice):
    response = alice.api.post("/api/games/", {"name": "Rhein", "max_players": 3, "bots": 2})
    assert response.status_code == 201
    assert response.json()["players"] == 3
    seats = list(Game.objects.get().seats.order_by("joined", "id"))
    assert [seat.is_bot for seat in seats] == [False, True, True]
    assert {seat.bot for seat in seats[1:]} == {"heuristic"}


def test_bots_must_leave_a_seat_for_the_creator(alice):
    response = alice.api.post("/api/games/", {"name": "Rhein", "max_players": 3, "bots": 3})
    assert response.status_code == 400
    assert response.json()["code"] == "bad_field"
    assert Game.objects.count() == 0


def test_a_body_that_is_not_json_is_bad_json(alice):
    response = alice.api.post("/api/games/", "{", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_json"


def test_joining_seats_the_caller(alice, bob):
    game = create_game(alice.api, max_players=3)
    response = bob.api.post(f"/api/games/{game['id']}/join/")
    assert response.status_code == 200
    assert response.json()["players"] == 2 and response.json()["id"] == game["id"]


def test_joining_a_full_game_is_a_conflict(alice, bob, charlie):
    game = create_game(alice.api, max_players=2)
    bob.api.post(f"/api/games/{game['id']}/join/")
    response = charlie.api.post(f"/api/games/{game['id']}/join/")
    assert (response.status_code, response.json()["code"]) == (409, "full")


def test_joining_twice_is_a_conflict(alice):
    game = create_game(alice.api)
    response = alice.api.post(f"/api/games/{game['id']}/join/")
    assert (response.status_code, response.json()["code"]) == (409, "already_seated")


def test_joining_a_started_game_is_a_conflict(alice, bob, charlie):
    game_id = started_game(alice, bob)
    response = charlie.api.post(f"/api/games/{game_id}/join/")
    assert (response.status_code, response.json()["code"]) == (409, "started")


def test_starting_deals_the_cards(alice, bob):
    game = create_game(alice.api)
    bob.api.post(f"/api/games/{game['id']}/join/")
    response = alice.api.post(f"/api/games/{game['id']}/start/")
    assert response.status_code == 200
    assert response.json()["status"] == "PREPARATION"


def test_only_the_creator_may_start(alice, bob):
    game = create_game(alice.api)
    bob.api.post(f"/api/games/{game['id']}/join/")
    response = bob.api.post(f"/api/games/{game['id']}/start/")
    assert (response.status_code, response.json()["code"]) == (403, "forbidden")


def test_a_game_needs_two_seats_to_start(alice):
    game = create_game(alice.api)
    response = alice.api.post(f"/api/games/{game['id']}/start/")
    assert (response.status_code, response.json()["code"]) == (409, "too_few_players")


def test_a_started_game_cannot_start_again(alice, bob):
    game_id = started_game(alice, bob)
    response = alice.api.post(f"/api/games/{game_id}/start/")
    assert (response.status_code, response.json()["code"]) == (409, "started")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/games/999999/"),
        ("get", "/api/games/999999/log/"),
        ("post", "/api/games/999999/join/"),
        ("post", "/api/games/999999/start/"),
    ],
)
def test_an_unknown_game_is_not_found(alice, method, path):
    response = getattr(alice.api, method)(path, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "there is no game 999999"}


# ---------------------------------------------------------------------------- a game's view


def test_a_waiting_game_shows_its_seats_to_anyone(alice, anonymous):
    game = create_game(alice.api)
    view = anonymous.get(f"/api/games/{game['id']}/").json()
    assert view["status"] == "WAITING" and "you" not in view
    assert [(p["id"], p["name"]) for p in view["players"]] == [(alice.user.pk, "alice")]
    assert alice.api.get(f"/api/games/{game['id']}/").json()["you"] == {"player_id": alice.user.pk}


def test_a_waiting_game_has_every_state_field_of_the_protocol(alice, anonymous):
    game = create_game(alice.api)
    view = anonymous.get(f"/api/games/{game['id']}/").json()
    assert set(view) >= {
        "game_id",
        "status",
        "seq",
        "current_player",
        "turn",
        "final_round",
        "players",
        "face_up",
        "deck",
        "discard",
        "short_deck",
        "roads",
        "legal",
    }
    assert set(view["players"][0]) >= {
        "id",
        "name",
        "color",
        "score",
        "wheels",
        "wheel_cards",
        "destination_cards",
        "is_bot",
        "connected",
    }


def test_a_seated_player_sees_their_own_hand_and_cards(alice, bob):
    game_id = started_game(alice, bob)
    view = alice.api.get(f"/api/games/{game_id}/").json()
    you = view["you"]
    assert you["player_id"] == alice.user.pk
    assert sum(you["hand"].values()) == 4
    assert {card["id"] for card in you["destinations"] + you["pending_destinations"]} == cards_of(
        game_id, alice
    )
    assert view["legal"]  # the keep sets of R2.4 and the vote to end
    assert secret_ids(view) <= cards_of(game_id, alice)
    assert not secret_ids(view) & cards_of(game_id, bob)


def test_a_seated_player_gets_the_same_view_as_the_websocket_state(alice, bob):
    from games import selectors

    game_id = started_game(alice, bob)
    game = Game.objects.get(pk=game_id)
    expected = selectors.game_view(game, bob.user.pk)
    assert bob.api.get(f"/api/games/{game_id}/").json() == expected


@pytest.mark.parametrize("viewer", ["charlie", "anonymous"])
def test_a_spectator_sees_no_hand_and_no_destination_card(alice, bob, charlie, anonymous, viewer):
    game_id = started_game(alice, bob)
    client = charlie.api if viewer == "charlie" else anonymous
    view = client.get(f"/api/games/{game_id}/").json()
    assert "you" not in view and view["legal"] == []
    assert not keys_in(view) & {"hand", "destinations", "pending_destinations"}
    assert not secret_ids(view) & (cards_of(game_id, alice) | cards_of(game_id, bob))
    assert [p["wheel_cards"] for p in view["players"]] == [4, 4]


def test_a_finished_game_shows_its_results_to_everyone(alice, bob, anonymous):
    game_id = finished_game(alice, bob)
    view = anonymous.get(f"/api/games/{game_id}/").json()
    assert view["status"] == "FINISHED"
    assert {row["name"] for row in view["results"]} == {"alice", "bob"}
    assert sorted(row["place"] for row in view["results"]) in ([1, 2], [1, 1])


# ---------------------------------------------------------------------------- the log


def test_the_log_is_refused_while_the_game_is_not_finished(alice, bob, anonymous):
    game = create_game(alice.api)
    response = anonymous.get(f"/api/games/{game['id']}/log/")
    assert (response.status_code, response.json()["code"]) == (409, "not_finished")
    game_id = started_game(alice, bob)
    response = anonymous.get(f"/api/games/{game_id}/log/")
    assert (response.status_code, response.json()["code"]) == (409, "not_finished")


def test_the_log_of_a_finished_game_replays_to_the_same_results(alice, bob, anonymous):
    game_id = finished_game(alice, bob)
    response = anonymous.get(f"/api/games/{game_id}/log/")
    assert response.status_code == 200
    log = response.json()
    assert [m["move"] for m in log["moves"]] == [{"type": "VOTE_END", "end": True}] * 2
    replayed = engine.replay(
        log["seed"], log["players"], [(m["player"], m["move"]) for m in log["moves"]]
    )
    assert replayed.status == engine.FINISHED
    assert replayed.results == log["results"]
    assert engine.to_dict(replayed) == Game.objects.get(pk=game_id).state


# ---------------------------------------------------------------------------- the map


def test_the_basel_map_is_public(anonymous):
    response = anonymous.get("/api/maps/basel/")
    assert response.status_code == 200
    assert response.json() == board.basel().to_public_dict()
