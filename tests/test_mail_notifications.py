"""Your-turn and game-ended mails, delivered to a real SMTP server and read back: recipient,
language, the link to the game, the unsubscribe link and headers; sent once per game until the
person moved, never while they have the game open, never without a confirmed address."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import presence
from games.models import Connection, Game
from games.services.admin import game_end_now
from notifications import notify
from notifications.models import MailSettings, TurnMail
from notifications.tasks import send_your_turn_mail
from tests.mail_helpers import links, path_of, started, with_address

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(people) -> Game:
    return started([people["alice"], people["bob"]])


def your_turn(game: Game, user, capture) -> None:
    with capture(execute=True):
        notify.your_turn(game.pk, user.pk)


def test_a_your_turn_mail_goes_to_the_confirmed_address_in_english_with_the_game_link(
    people, game, smtp, django_capture_on_commit_callbacks
):
    alice = people["alice"]
    with_address(alice, "alice@example.org", "en")
    your_turn(game, alice, django_capture_on_commit_callbacks)

    [mail] = smtp.messages
    assert mail.rcpt_tos == ["alice@example.org"]
    assert mail.message["To"] == "alice@example.org"
    assert mail.message["Subject"] == "Your turn in Rheinufer"
    assert mail.message["Content-Language"] == "en"
    assert "it is your turn in Rheinufer (Rat um Rad)." in mail.body
    assert f"https://ratumrad.example/games/{game.pk}/" in links(mail.body)
    unsubscribe = mail.message["List-Unsubscribe"].strip()
    assert unsubscribe.startswith("<https://ratumrad.example/mail/unsubscribe/")
    assert unsubscribe.strip("<>") in links(mail.body)
    assert mail.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_a_your_turn_mail_is_in_german_for_a_person_whose_account_speaks_german(
    people, game, smtp, django_capture_on_commit_callbacks
):
    bob = people["bob"]
    with_address(bob, "bob@example.org", "de")
    your_turn(game, bob, django_capture_on_commit_callbacks)

    [mail] = smtp.to("bob@example.org")
    assert mail.message["Subject"] == "Du bist am Zug in Rheinufer"
    assert mail.message["Content-Language"] == "de"
    assert "Hallo bob," in mail.body
    assert "du bist am Zug in Rheinufer" in mail.body
    assert "Keine solchen E-Mails mehr:" in mail.body
    assert f"https://ratumrad.example/games/{game.pk}/" in links(mail.body)


def test_the_your_turn_mail_goes_once_per_game_until_the_person_has_moved(
    people, game, smtp, django_capture_on_commit_callbacks
):
    alice = people["alice"]
    with_address(alice, "alice@example.org")
    your_turn(game, alice, django_capture_on_commit_callbacks)
    your_turn(game, alice, django_capture_on_commit_callbacks)
    assert len(smtp.messages) == 1
    assert TurnMail.objects.filter(game=game, user=alice).exists()

    notify.moved(game.pk, alice.pk)
    assert not TurnMail.objects.filter(game=game, user=alice).exists()
    your_turn(game, alice, django_capture_on_commit_callbacks)
    assert len(smtp.messages) == 2


def test_the_once_per_game_rule_holds_per_game(people, smtp, django_capture_on_commit_callbacks):
    alice, bob = people["alice"], people["bob"]
    with_address(alice, "alice@example.org")
    first, second = started([alice, bob], "Erste"), started([alice, bob], "Zweite")
    your_turn(first, alice, django_capture_on_commit_callbacks)
    your_turn(second, alice, django_capture_on_commit_callbacks)
    subjects = sorted(mail.message["Subject"] for mail in smtp.messages)
    assert subjects == ["Your turn in Erste", "Your turn in Zweite"]


def test_no_your_turn_mail_while_the_person_has_a_socket_open_on_the_game(
    people, game, smtp, django_capture_on_commit_callbacks
):
    alice = people["alice"]
    with_address(alice, "alice@example.org")
    Connection.objects.create(channel_name="specific.alice!1", user=alice, game=game)
    your_turn(game, alice, django_capture_on_commit_callbacks)
    assert smtp.messages == []
    assert not TurnMail.objects.exists()


def test_a_socket_left_behind_by_a_dead_server_does_not_count_as_open(
    people, game, smtp, django_capture_on_commit_callbacks, settings
):
    alice = people["alice"]
    with_address(alice, "alice@example.org")
    long_ago = timezone.now() - settings.PRESENCE_TTL - timedelta(seconds=5)
    Connection.objects.create(channel_name="specific.alice!1", user=alice, game=game, seen=long_ago)
    your_turn(game, alice, django_capture_on_commit_callbacks)
    assert len(smtp.to("alice@example.org")) == 1


def test_a_socket_closed_within_its_presence_grace_does_not_keep_the_mail_back(
    people, game, smtp, django_capture_on_commit_callbacks
):
    alice = people["alice"]
    with_address(alice, "alice@example.org")
    Connection.objects.create(channel_name="specific.alice!1", user=alice, game=game)
    presence.linger("specific.alice!1", 60)  # she is still shown present, but gone
    assert presence.live_sockets(alice.pk, game.pk) == (True, True)
    your_turn(game, alice, django_capture_on_commit_callbacks)
    assert len(smtp.to("alice@example.org")) == 1


def test_a_socket_open_on_another_game_does_not_keep_the_mail_back(
    people, game, smtp, django_capture_on_commit_callbacks
):
    alice, bob = people["alice"], people["bob"]
    with_address(alice, "alice@example.org")
    other = started([alice, bob], "Andere")
    Connection.objects.create(channel_name="specific.alice!2", user=alice, game=other)
    your_turn(game, alice, django_capture_on_commit_callbacks)
    assert len(smtp.to("alice@example.org")) == 1


def test_a_person_without_a_confirmed_address_gets_nothing(
    people, game, smtp, django_capture_on_commit_callbacks
):
    alice, bob = people["alice"], people["bob"]
    with_address(alice, "alice@example.org", confirmed=False)  # bob has no address at all
    for user in (alice, bob):
        your_turn(game, user, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        game_end_now(game_id=game.pk)
    assert smtp.messages == []


def test_a_person_who_turned_your_turn_mails_off_gets_none(
    people, game, smtp, django_capture_on_commit_callbacks
):
    alice = people["alice"]
    with_address(alice, "alice@example.org", your_turn=False)
    your_turn(game, alice, django_capture_on_commit_callbacks)
    assert smtp.messages == []


def test_a_your_turn_mail_queued_before_the_game_went_on_is_not_sent(people, game, smtp):
    alice = people["alice"]
    with_address(alice, "alice@example.org")
    assert send_your_turn_mail.call(game.pk, alice.pk, game.seq + 1) == "stale"
    assert smtp.messages == []


def test_the_your_turn_mail_leaves_only_after_the_commit(people, game, smtp):
    alice = people["alice"]
    with_address(alice, "alice@example.org")
    notify.your_turn(game.pk, alice.pk)  # inside the test's transaction, never committed
    assert smtp.messages == []


def test_the_game_ended_mail_lists_every_place_score_and_name_in_each_persons_language(
    people, smtp, django_capture_on_commit_callbacks
):
    alice, bob, charlie = people["alice"], people["bob"], people["charlie"]
    with_address(alice, "alice@example.org", "en")
    with_address(bob, "bob@example.org", "de")
    game = started([alice, bob, charlie], "Kleinbasel")
    with django_capture_on_commit_callbacks(execute=True):
        game_end_now(game_id=game.pk)
    game.refresh_from_db()
    seats = list(game.seats.select_related("user").order_by("place", "turn_order"))
    assert game.status == Game.Status.FINISHED and all(seat.place for seat in seats)

    [english] = smtp.to("alice@example.org")
    assert english.message["Subject"] == "Kleinbasel has ended"
    assert "Kleinbasel (Rat um Rad) has ended. The results:" in english.body
    for seat in seats:
        line = f"{seat.place}. {seat.user.username}: {seat.total} points"
        assert line in english.body
    assert f"https://ratumrad.example/games/{game.pk}/" in links(english.body)
    assert english.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    [german] = smtp.to("bob@example.org")
    assert german.message["Subject"] == "Kleinbasel ist zu Ende"
    assert german.message["Content-Language"] == "de"
    for seat in seats:
        assert f"{seat.place}. {seat.user.username}: {seat.total} Punkte" in german.body
    assert smtp.to("charlie@example.org") == []  # charlie gave no address
    assert len(smtp.messages) == 2


def test_game_ended_mails_off_means_none(people, smtp, django_capture_on_commit_callbacks):
    alice, bob = people["alice"], people["bob"]
    with_address(alice, "alice@example.org", game_ended=False)
    game = started([alice, bob])
    with django_capture_on_commit_callbacks(execute=True):
        game_end_now(game_id=game.pk)
    assert smtp.messages == []


def test_a_dead_mail_server_neither_holds_up_nor_fails_the_end_of_a_game(
    people, settings, django_capture_on_commit_callbacks
):
    from tests.smtp_server import free_port

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nobody listens
    alice, bob = people["alice"], people["bob"]
    with_address(alice, "alice@example.org")
    game = started([alice, bob])
    with django_capture_on_commit_callbacks(execute=True):
        game_end_now(game_id=game.pk)
        notify.your_turn(game.pk, alice.pk)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED


@pytest.mark.parametrize("kind", ["your_turn", "game_ended"])
def test_the_unsubscribe_link_of_a_mail_asks_first_then_turns_that_mail_off(
    people, smtp, django_capture_on_commit_callbacks, kind
):
    alice, bob = people["alice"], people["bob"]
    with_address(alice, "alice@example.org")
    game = started([alice, bob])
    with django_capture_on_commit_callbacks(execute=True):
        if kind == "your_turn":
            notify.your_turn(game.pk, alice.pk)
        else:
            game_end_now(game_id=game.pk)
    [mail] = smtp.messages
    url = mail.message["List-Unsubscribe"].strip().strip("<>")
    browser = Client()  # not logged in

    page = browser.get(path_of(url))
    assert page.status_code == 200
    assert b'<form method="post"' in page.content
    assert getattr(MailSettings.objects.get(user=alice), kind) is True  # a GET changes nothing

    done = browser.post(path_of(url))
    assert done.status_code == 200 and b"unsubscribed" in done.content
    row = MailSettings.objects.get(user=alice)
    assert getattr(row, kind) is False
    other = {"your_turn": "game_ended", "game_ended": "your_turn"}[kind]
    assert getattr(row, other) is True


def test_a_mail_clients_one_click_post_unsubscribes_without_a_csrf_token(
    people, game, smtp, django_capture_on_commit_callbacks
):
    alice = people["alice"]
    with_address(alice, "alice@example.org")
    your_turn(game, alice, django_capture_on_commit_callbacks)
    url = smtp.messages[0].message["List-Unsubscribe"].strip().strip("<>")
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        path_of(url),
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert MailSettings.objects.get(user=alice).your_turn is False


def test_no_your_turn_mail_to_someone_who_does_not_sit_in_the_game(
    people, game, smtp, django_capture_on_commit_callbacks
):
    charlie = people["charlie"]
    with_address(charlie, "charlie@example.org")
    your_turn(game, charlie, django_capture_on_commit_callbacks)
    assert smtp.messages == []


def test_no_your_turn_mail_for_a_game_that_is_over(
    people, game, smtp, django_capture_on_commit_callbacks
):
    alice = people["alice"]
    with_address(alice, "alice@example.org", game_ended=False)
    with django_capture_on_commit_callbacks(execute=True):
        game_end_now(game_id=game.pk)
    your_turn(game, alice, django_capture_on_commit_callbacks)
    assert smtp.messages == []
