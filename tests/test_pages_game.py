"""The game page: who may open it, and what it hands to its script (map, strings, the view)."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.moves import play
from games.services.lifecycle import game_create, game_join, game_start
from tests.csp_helpers import assert_page_keeps_policy

pytestmark = pytest.mark.django_db


def person(name: str):
    return get_user_model().objects.create_user(name)


def dealt_game(*people, name: str = "Rheinufer") -> int:
    game = game_create(user=people[0], name=name, max_players=len(people))
    for other in people[1:]:
        game_join(game_id=game.pk, user=other)
    game_start(game_id=game.pk, user=people[0])
    return game.pk


def page(client, game_id: int, viewer=None):
    if viewer is not None:
        client.force_login(viewer)
    return client.get(reverse("game-page", kwargs={"game_id": game_id}))


def script_data(response, element_id: str):
    """The JSON of a ``json_script`` block of the page."""
    html = response.content.decode()
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html)
    assert match, f"no {element_id} block"
    return json.loads(match.group(1))


def test_the_page_lives_under_games_and_its_number(alice):
    assert reverse("game-page", kwargs={"game_id": 7}) == "/games/7/"


def test_a_seated_player_gets_the_page_with_the_map_the_strings_and_their_own_view(
    client, alice, bob
):
    game_id = dealt_game(alice, bob)
    response = page(client, game_id, alice)
    assert response.status_code == 200
    assert response.templates[0].name == "games/game.html"
    assert script_data(response, "map-data") == client.get("/api/maps/basel/").json()
    strings = script_data(response, "ui-strings")
    assert strings["colors"]["red"] and strings["letters"]["red"]
    assert "{name}" in strings["their_turn"]
    state = script_data(response, "initial-state")
    assert state["game_id"] == game_id and state["status"] == "PREPARATION"
    assert state["you"]["player_id"] == alice.pk and len(state["you"]["pending_destinations"]) == 3
    html = response.content.decode()
    assert f'data-user-id="{alice.pk}"' in html and f'data-game-id="{game_id}"' in html
    assert f'data-socket-path="/ws/games/{game_id}/"' in html


def test_a_spectator_gets_the_public_view_and_the_spectator_badge(client, alice, bob, charlie):
    game_id = dealt_game(alice, bob)
    response = page(client, game_id, charlie)
    assert response.status_code == 200
    state = script_data(response, "initial-state")
    assert "you" not in state and state["legal"] == []
    assert "pending_destinations" not in response.content.decode()
    badge = re.search(
        r'<span class="badge badge-spectator" id="spectator-badge"[^>]*>', response.content.decode()
    )
    assert badge and "hidden" not in badge.group(0)


def test_a_seated_player_sees_no_spectator_badge(client, alice, bob):
    response = page(client, dealt_game(alice, bob), bob)
    badge = re.search(
        r'<span class="badge badge-spectator" id="spectator-badge"[^>]*>', response.content.decode()
    )
    assert badge and "hidden" in badge.group(0)


def test_an_anonymous_visitor_is_sent_to_the_front_page_and_back_afterwards(client, alice, bob):
    game_id = dealt_game(alice, bob)
    response = page(client, game_id)
    assert response.status_code == 302
    assert response["Location"] == f"/?next=/games/{game_id}/"


def test_an_unknown_game_is_a_404_page(client, alice):
    response = page(client, 999, alice)
    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")


def test_a_waiting_game_lists_its_seats_and_names_the_creator(client, alice, bob):
    game = game_create(user=alice, name="Kleinbasel", max_players=3)
    game_join(game_id=game.pk, user=bob)
    response = page(client, game.pk, bob)
    assert response.status_code == 200
    state = script_data(response, "initial-state")
    assert state["status"] == "WAITING" and state["creator"] == alice.pk
    assert [row["name"] for row in state["players"]] == ["alice", "bob"]
    assert "<li>alice</li>" in response.content.decode()


def test_player_and_game_names_are_escaped(client, bob):
    mallory = person('<script>alert("x")</script>')
    game_id = dealt_game(mallory, bob, name="<b>Rheinufer</b>")
    html = page(client, game_id, bob).content.decode()
    assert "<script>alert" not in html and "<b>Rheinufer" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "&lt;b&gt;Rheinufer&lt;/b&gt;" in html
    state = script_data(page(client, game_id, bob), "initial-state")
    assert '<script>alert("x")</script>' in [row["name"] for row in state["players"]]


def test_the_page_keeps_to_the_content_security_policy(client, alice, bob, charlie):
    game_id = dealt_game(alice, bob)
    for viewer in (alice, charlie):
        response = page(client, game_id, viewer)
        assert_page_keeps_policy(response)
        assert '<script type="module" src="/static/js/shell.js">' in response.content.decode()


def test_a_finished_game_hands_its_results_with_the_longest_paths(client, alice, bob):
    game_id = dealt_game(alice, bob)
    for voter in (alice, bob):
        play.move_apply(game_id=game_id, user=voter, move={"type": "VOTE_END", "end": True})
    state = script_data(page(client, game_id, alice), "initial-state")
    assert state["status"] == "FINISHED"
    assert {row["player"] for row in state["results"]} == {alice.pk, bob.pk}
    assert all(row["longest_path_roads"] == [] for row in state["results"])


def test_a_solo_game_of_road_to_300_has_no_chat_panel(client, alice):
    game = game_create(user=alice, name="Allein", kind="road300")
    response = page(client, game.pk, alice)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="r3-grid"' in html  # the table is there
    for element in ('id="chat-panel"', 'id="chat"', 'id="chat-form"', 'id="chat-text"'):
        assert element not in html


@pytest.mark.parametrize("kind", ["ratumrad", "rage"])
def test_a_table_game_keeps_its_chat_panel(client, alice, bob, kind):
    game = game_create(user=alice, name="Zu zweit", kind=kind, max_players=3)
    game_join(game_id=game.pk, user=bob)
    html = page(client, game.pk, bob).content.decode()
    for element in ('id="chat-panel"', 'id="chat-form"', 'id="chat-send"'):
        assert element in html


NOTIFY_CONTROLS = ('id="notify-ask"', 'id="notify-toggle"', 'id="notify-denied"')


@pytest.mark.parametrize("kind", ["ratumrad", "rage"])
def test_a_table_game_hands_its_script_the_turn_notification_in_german(client, alice, bob, kind):
    game = game_create(user=alice, name='<b>"Zu zweit"</b>', kind=kind, max_players=3)
    game_join(game_id=game.pk, user=bob)
    client.cookies["django_language"] = "de"
    response = page(client, game.pk, bob)
    html = response.content.decode()
    for element in NOTIFY_CONTROLS:  # shown by the script as the browser's permission says
        assert re.search(rf"<(button|span) [^>]*{element}[^>]* hidden>", html), element
    assert 'data-game-name="&lt;b&gt;&quot;Zu zweit&quot;&lt;/b&gt;"' in html
    kind_name = {"ratumrad": "Rat um Rad", "rage": "RAGE"}[kind]
    assert f'data-kind-name="{kind_name}"' in html
    assert script_data(response, "ui-strings")["notify_body"] == "Du bist am Zug in {kind}"
    assert ">Benachrichtigen</button>" in html


def test_a_solo_game_of_road_to_300_has_no_turn_notification(client, alice):
    game = game_create(user=alice, name="Allein", kind="road300")
    html = page(client, game.pk, alice).content.decode()
    assert 'id="sound-toggle"' in html
    for element in NOTIFY_CONTROLS:
        assert element not in html
