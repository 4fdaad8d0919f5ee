"""The lobby page: games by status, joining, creating a game, the chat history, the layout."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from games.models import ChatMessage, Game, Seat
from games.services.lifecycle import game_create, game_join, game_start
from lobby.models import Guest

pytestmark = pytest.mark.django_db


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def json_block(html: str, block_id: str):
    match = re.search(rf'<script id="{block_id}" type="application/json">(.*?)</script>', html)
    assert match, f"no json_script block {block_id}"
    return json.loads(match.group(1))


def game_list(html: str, group: str) -> str:
    match = re.search(rf'<ul class="game-list" id="games-{group}".*?</ul>', html, re.S)
    assert match, f"no list of {group} games"
    return match.group(0)


def new_game(client: Client, **fields):
    settings = {"name": "Rheinufer", "max_players": 3, "bots": 0, "turn_seconds": 60}
    return client.post("/new-game/", {**settings, **fields})


# ---------------------------------------------------------------------------- the page


def test_a_logged_in_player_gets_the_lobby_with_its_script_and_strings(alice):
    response = browser(alice).get("/", headers={"accept-language": "en"})
    html = response.content.decode()
    assert response.status_code == 200
    assert '<script type="module" src="/static/js/lobby.js"></script>' in html
    strings = json_block(html, "lobby-strings")
    assert strings["status"]["FINAL_ROUND"] == "final round"
    assert strings["errors"]["full"] == "This game is full."
    assert json_block(html, "lobby-data") == {"user": alice.pk, "seated": [], "inviting": []}
    assert 'href="/rules/"' in html
    assert 'id="connection-banner" role="status" hidden' in html


@pytest.mark.parametrize(("language", "label"), [("de", "letzte Runde"), ("en", "final round")])
def test_the_scripts_strings_follow_the_pages_language(alice, language, label):
    html = browser(alice).get("/", headers={"accept-language": language}).content.decode()
    assert json_block(html, "lobby-strings")["status"]["FINAL_ROUND"] == label


def test_the_lobby_lists_games_by_status_with_seats_and_time(alice, bob, charlie):
    waiting = game_create(user=alice, name="Wartend", max_players=3)
    running = game_create(user=bob, name="Laufend", max_players=2)
    game_join(game_id=running.pk, user=charlie)
    game_start(game_id=running.pk, user=bob)
    finished = game_create(user=bob, name="Vorbei", max_players=2)
    Game.objects.filter(pk=finished.pk).update(status=Game.Status.FINISHED)
    aborted = game_create(user=bob, name="Abgebrochen", max_players=2)
    Game.objects.filter(pk=aborted.pk).update(status=Game.Status.ABORTED)

    html = browser(charlie).get("/", headers={"accept-language": "en"}).content.decode()

    waiting_list = game_list(html, "waiting")
    assert f'href="/games/{waiting.pk}/">Wartend</a>' in waiting_list
    assert "1 of 3 seats" in waiting_list and "<time" in waiting_list
    running_list = game_list(html, "running")
    assert f'href="/games/{running.pk}/">Laufend</a>' in running_list
    assert "badge-preparation" in running_list and "2 of 2 seats" in running_list
    finished_list = game_list(html, "finished")
    assert "Vorbei" in finished_list and "Abgebrochen" in finished_list
    assert "badge-aborted" in finished_list
    assert "Laufend" not in waiting_list + finished_list


def test_join_buttons_appear_only_on_open_waiting_games_of_others(alice, bob, charlie):
    open_game = game_create(user=alice, name="Offen", max_players=3)
    full = game_create(user=alice, name="Voll", max_players=2)
    game_join(game_id=full.pk, user=bob)
    mine = game_create(user=charlie, name="Meins", max_players=2)

    html = browser(charlie).get("/").content.decode()

    waiting_list = game_list(html, "waiting")
    assert f'action="/join/{open_game.pk}/"' in waiting_list
    assert f'action="/join/{full.pk}/"' not in waiting_list
    assert f'action="/join/{mine.pk}/"' not in waiting_list
    assert json_block(html, "lobby-data")["seated"] == [mine.pk]


def test_game_names_and_chat_lines_are_escaped(alice):
    game_create(user=alice, name="<img src=x onerror=alert(1)>", max_players=2)
    ChatMessage.objects.create(user=alice, text="<script>alert(2)</script>")
    html = browser(alice).get("/").content.decode()
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "<script>alert" not in html


def test_the_lobby_shows_the_lobby_chat_history_oldest_first(alice, bob):
    game = game_create(user=alice, name="Rheinufer", max_players=2)
    ChatMessage.objects.create(user=alice, text="Wer spielt mit?")
    ChatMessage.objects.create(user=bob, text="Ich!")
    ChatMessage.objects.create(user=bob, game=game, text="nur im Spiel")
    html = browser(alice).get("/").content.decode()
    assert html.index("Wer spielt mit?") < html.index("Ich!")
    assert "nur im Spiel" not in html


def test_a_guest_is_invited_to_keep_their_name_in_the_lobby():
    guest = Guest.objects.create_guest(name="alice").user
    html = browser(guest).get("/").content.decode()
    assert 'href="/keep-name/"' in html and 'class="banner banner-info"' in html


def test_every_page_has_the_navigation_and_a_landmark_for_messages(client):
    html = client.get("/").content.decode()
    assert '<nav class="site-nav"' in html
    for path in ('href="/"', 'href="/rankings/"', 'href="/rules/"'):
        assert path in html
    assert '<div class="messages" role="status" aria-live="polite">' in html
    assert '<main class="site-main" id="main">' in html


def test_the_site_icon_is_found_at_favicon_ico_too(client):
    # Browsers ask for it on pages without a link to the icon, such as the API's JSON.
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == "/static/img/favicon.svg"


# ---------------------------------------------------------------------------- joining


def test_joining_from_the_page_takes_a_seat_and_opens_the_game(alice, bob):
    game = game_create(user=alice, name="Rheinufer", max_players=2)
    response = browser(bob).post(f"/join/{game.pk}/")
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert Seat.objects.filter(game=game, user=bob).exists()


def test_joining_a_full_game_explains_why_in_the_lobby(alice, bob, charlie):
    game = game_create(user=alice, name="Rheinufer", max_players=2)
    game_join(game_id=game.pk, user=bob)
    client = browser(charlie)
    response = client.post(f"/join/{game.pk}/", headers={"accept-language": "en"})
    assert response["Location"] == "/"
    html = client.get("/", headers={"accept-language": "en"}).content.decode()
    assert "This game is full." in html
    assert not Seat.objects.filter(game=game, user=charlie).exists()


def test_joining_a_game_one_is_seated_in_just_opens_it(alice):
    game = game_create(user=alice, name="Rheinufer", max_players=2)
    assert browser(alice).post(f"/join/{game.pk}/")["Location"] == f"/games/{game.pk}/"
    assert Seat.objects.filter(game=game).count() == 1


def test_joining_needs_a_login_and_a_post(client, alice):
    game = game_create(user=alice, name="Rheinufer", max_players=2)
    assert client.post(f"/join/{game.pk}/")["Location"].startswith("/login/")
    assert browser(alice).get(f"/join/{game.pk}/").status_code == 405


# ---------------------------------------------------------------------------- new game


def test_the_new_game_form_creates_a_game_and_opens_it(alice):
    response = new_game(browser(alice), name="Rheinufer", max_players=4, bots=2)
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert (game.name, game.max_players, game.creator) == ("Rheinufer", 4, alice)
    seats = list(game.seats.order_by("id").values_list("user__username", "is_bot"))
    assert seats == [("alice", False), ("Bot Anna", True), ("Bot Ben", True)]
    assert (game.turn_seconds, game.private) == (60, False)


@pytest.mark.parametrize("seconds", [30, 300])
def test_a_new_game_gets_the_chosen_time_per_turn(alice, seconds):
    new_game(browser(alice), turn_seconds=seconds)
    assert Game.objects.get().turn_seconds == seconds


def test_a_new_game_can_do_without_a_time_limit(alice):
    new_game(browser(alice), turn_seconds=0)
    assert not Game.objects.get().turn_seconds


def test_a_private_game_is_listed_only_for_the_players_in_it(alice, bob):
    new_game(browser(alice), name="Geheim", private="on")
    game = Game.objects.get()
    assert game.private
    assert "Geheim" in game_list(browser(alice).get("/").content.decode(), "waiting")
    assert "Geheim" not in browser(bob).get("/").content.decode()


def test_the_lobby_offers_the_new_game_form_with_a_name_suggested(alice):
    html = browser(alice).get("/", headers={"accept-language": "en"}).content.decode()
    assert 'action="/new-game/"' in html
    assert 'value="Game of alice"' in html
    assert '<script type="module" src="/static/js/lobby.js"></script>' in html


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 65}, "name"),
        ({"max_players": 1}, "max_players"),
        ({"max_players": 6}, "max_players"),
        ({"bots": 3}, "bots"),
        ({"bots": -1}, "bots"),
        ({"bots": "zwei"}, "bots"),
        ({"turn_seconds": 45}, "turn_seconds"),
        ({"turn_seconds": ""}, "turn_seconds"),
    ],
)
def test_bad_new_game_settings_are_shown_on_the_form_and_create_nothing(alice, fields, field):
    response = new_game(browser(alice), **fields)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'id="id_{field}_error"' in html
    assert 'action="/new-game/"' in html
    assert Game.objects.count() == 0


def test_the_new_game_page_offers_the_form_on_its_own(alice):
    response = browser(alice).get("/new-game/")
    html = response.content.decode()
    assert response.status_code == 200
    for field in ("name", "max_players", "bots", "turn_seconds", "private"):
        assert f'name="{field}"' in html
    assert '<script type="module" src="/static/js/new_game.js"></script>' in html


def test_creating_a_game_needs_a_login(client):
    response = new_game(client)
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert Game.objects.count() == 0


def test_the_new_game_form_offers_every_kind_with_its_options_and_seats(alice, monkeypatch):
    from types import SimpleNamespace

    from games import registry

    tricks = registry.GameKind(
        key="tricks",
        name="Tricks",
        engine_module="",
        glue_module="",
        options=(
            registry.Option("bids", "Bids", "open", ("open", "hidden")),
            registry.Option("fast", "Fast", False),
        ),
    )
    tricks.__dict__["engine"] = SimpleNamespace(MIN_PLAYERS=3, MAX_PLAYERS=8, BOTS={})
    monkeypatch.setitem(registry.KINDS, "tricks", tricks)
    html = browser(alice).get("/", headers={"accept-language": "en"}).content.decode()
    assert 'name="kind" value="ratumrad" checked' in html
    assert 'name="kind" value="tricks"' in html and 'href="/rules/tricks/"' in html
    fieldset = re.search(
        r'<fieldset class="kind-options" data-kind="tricks">.*?</fieldset>', html, re.S
    )
    assert (
        fieldset and 'name="tricks__bids"' in fieldset[0] and 'name="tricks__fast"' in fieldset[0]
    )
    kinds = json_block(html, "new-game-kinds")
    assert kinds["tricks"] == {"min": 3, "max": 8, "solo": False}
    assert kinds["ratumrad"] == {"min": 2, "max": 5, "solo": False}
    # Seats out of the chosen kind's range are refused on the form, and nothing is created.
    refused = new_game(browser(alice), kind="ratumrad", max_players=8)
    assert 'id="id_max_players_error"' in refused.content.decode()
    assert not Game.objects.exists()
    created = new_game(browser(alice), kind="ratumrad", max_players=3)
    assert created.status_code == 302
    assert Game.objects.get().kind == "ratumrad"


@pytest.mark.django_db
def test_the_lobby_names_a_games_variant_beside_its_kind(people, client):
    game_create(
        user=people[1],
        name="Stiche",
        kind="rage",
        max_players=4,
        options={"bids": "secret", "durchmarsch": True},
    )
    game_create(user=people[1], name="Rheinufer", max_players=2)
    client.force_login(people[0])
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    row = html[html.index("Stiche") : html.index("</li>", html.index("Stiche"))]
    assert "secret bids" in row and "Durchmarsch" in row and "plus/minus one" not in row
    plain = html[html.index("Rheinufer") : html.index("</li>", html.index("Rheinufer"))]
    assert "badge-variant" not in plain
