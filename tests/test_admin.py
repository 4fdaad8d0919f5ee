"""The Django admin: games with their history, searchable, and actions through the services."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games import services
from games.models import Event, Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    admin = get_user_model().objects.create_superuser("admin", "admin@example.org", "pw")
    client.force_login(admin)
    return client


@pytest.fixture
def running_game():
    users = get_user_model().objects
    alice, bob = users.create_user("alice"), users.create_user("bob")
    game = services.game_create(user=alice, name="Rheinufer", max_players=2)
    services.game_join(game_id=game.pk, user=bob)
    return services.game_start(game_id=game.pk, user=alice)


def test_the_game_list_filters_by_status_and_players_and_searches_names(admin_client, running_game):
    url = reverse("admin:games_game_changelist")
    assert "Rheinufer" in admin_client.get(url, {"status": "PREPARATION"}).content.decode()
    assert "Rheinufer" not in admin_client.get(url, {"status": "WAITING"}).content.decode()
    assert "Rheinufer" in admin_client.get(url, {"players": "2"}).content.decode()
    assert "Rheinufer" not in admin_client.get(url, {"players": "3"}).content.decode()
    assert "Rheinufer" in admin_client.get(url, {"q": "bob"}).content.decode()
    assert "Rheinufer" not in admin_client.get(url, {"q": "zoe"}).content.decode()
    assert "Rheinufer" in admin_client.get(url, {"kind": "ratumrad"}).content.decode()
    Game.objects.filter(pk=running_game.pk).update(kind="other")
    assert "Rheinufer" not in admin_client.get(url, {"kind": "ratumrad"}).content.decode()


def test_a_game_page_shows_seats_cards_and_moves_read_only(admin_client, running_game):
    page = admin_client.get(reverse("admin:games_game_change", args=[running_game.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "alice" in html and "bob" in html
    assert 'name="seats-0-score"' not in html  # read-only inline: no inputs


def test_the_abort_action_calls_off_a_game(admin_client, running_game):
    admin_client.post(
        reverse("admin:games_game_changelist"),
        {"action": "abort_games", "_selected_action": [running_game.pk]},
    )
    running_game.refresh_from_db()
    assert running_game.status == Game.Status.ABORTED
    assert Event.objects.filter(game=running_game, kind="aborted").exists()


def test_the_end_now_action_scores_the_game(admin_client, running_game):
    admin_client.post(
        reverse("admin:games_game_changelist"),
        {"action": "end_games_now", "_selected_action": [running_game.pk]},
    )
    running_game.refresh_from_db()
    assert running_game.status == Game.Status.FINISHED and running_game.end_reason == "admin"
    assert sorted(running_game.seats.values_list("place", flat=True)) in ([1, 1], [1, 2])


def test_ending_a_finished_game_again_only_warns(admin_client, running_game):
    services.game_end_now(game_id=running_game.pk)
    response = admin_client.post(
        reverse("admin:games_game_changelist"),
        {"action": "end_games_now", "_selected_action": [running_game.pk]},
        follow=True,
    )
    assert (
        "nur ein laufendes Spiel kann beendet werden" in response.content.decode()
    )  # German: the default
