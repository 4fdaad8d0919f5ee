"""The Django admin: games with their history, searchable, and actions through the services."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.models import Event, Game, Move, Seat
from games.services.admin import game_end_now
from games.services.lifecycle import game_create, game_join, game_start

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
    game = game_create(user=alice, name="Rheinufer", max_players=2)
    game_join(game_id=game.pk, user=bob)
    return game_start(game_id=game.pk, user=alice)


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
    game_end_now(game_id=running_game.pk)
    response = admin_client.post(
        reverse("admin:games_game_changelist"),
        {"action": "end_games_now", "_selected_action": [running_game.pk]},
        follow=True,
    )
    assert (
        "nur ein laufendes Spiel kann beendet werden" in response.content.decode()
    )  # German: the default


def test_the_seat_list_filters_by_kind_and_status_and_searches_players_and_games(
    admin_client, running_game
):
    url = reverse("admin:games_seat_changelist")
    html = admin_client.get(url).content.decode()
    assert "alice" in html and "bob" in html
    assert reverse("admin:games_game_change", args=[running_game.pk]) in html  # game links
    assert "alice" in admin_client.get(url, {"kind": "ratumrad"}).content.decode()
    assert "alice" not in admin_client.get(url, {"kind": "rage"}).content.decode()
    assert "alice" in admin_client.get(url, {"status": "PREPARATION"}).content.decode()
    assert "alice" not in admin_client.get(url, {"status": "FINISHED"}).content.decode()
    found = admin_client.get(url, {"q": "bob"}).content.decode()
    assert "bob" in found and "alice" not in found
    assert "alice" in admin_client.get(url, {"q": "Rheinufer"}).content.decode()
    assert "alice" not in admin_client.get(url, {"q": "Birsig"}).content.decode()


def test_seats_and_moves_can_be_viewed_but_not_added_changed_or_deleted(admin_client, running_game):
    seat = running_game.seats.get(user__username="alice")
    move = Move.objects.create(game=running_game, seq=1, user=seat.user, payload={"type": "X"})
    for model, obj in (("seat", seat), ("move", move)):
        page = admin_client.get(reverse(f"admin:games_{model}_change", args=[obj.pk]))
        html = page.content.decode()
        assert page.status_code == 200
        assert 'name="_save"' not in html  # no form to change it
        assert 'name="user"' not in html and 'name="seq"' not in html
        assert reverse("admin:games_game_change", args=[running_game.pk]) in html
        assert admin_client.get(reverse(f"admin:games_{model}_add")).status_code == 403
        delete = reverse(f"admin:games_{model}_delete", args=[obj.pk])
        assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert Seat.objects.filter(pk=seat.pk).exists() and Move.objects.filter(pk=move.pk).exists()


def test_the_move_list_filters_by_kind_and_searches_game_id_name_and_player(
    admin_client, running_game
):
    other = game_create(
        user=running_game.seats.get(user__username="bob").user, name="Birsig", kind="road300"
    )
    alice = running_game.seats.get(user__username="alice").user
    Move.objects.create(game=running_game, seq=1, user=alice, payload={"type": "X"})
    url = reverse("admin:games_move_changelist")
    links = {
        game.pk: reverse("admin:games_game_change", args=[game.pk])
        for game in (running_game, other)
    }
    Move.objects.create(game=other, seq=1, user=other.seats.get().user, payload={"type": "ROLL"})

    def listed(**params) -> set[int]:
        html = admin_client.get(url, params).content.decode()
        return {pk for pk, link in links.items() if link in html}

    assert listed() == {running_game.pk, other.pk}
    assert listed(kind="ratumrad") == {running_game.pk}
    assert listed(kind="road300") == {other.pk}
    assert listed(q=str(other.pk)) == {other.pk}
    assert listed(q="Rheinufer") == {running_game.pk}
    assert listed(q="alice") == {running_game.pk}
    assert listed(game__id__exact=str(other.pk)) == {other.pk}


def test_a_game_page_links_to_its_seats_and_moves(admin_client, running_game):
    html = admin_client.get(
        reverse("admin:games_game_change", args=[running_game.pk])
    ).content.decode()
    for model in ("seat", "move"):
        link = reverse(f"admin:games_{model}_changelist") + f"?game__id__exact={running_game.pk}"
        assert link.replace("&", "&amp;") in html
    seats = admin_client.get(
        reverse("admin:games_seat_changelist"), {"game__id__exact": running_game.pk}
    )
    assert seats.status_code == 200 and "alice" in seats.content.decode()
