"""Accounts in the browser: play as a guest, register, log in and out, keep a guest's name."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.utils import translation

from games import errors
from games.models import Seat
from games.services.lifecycle import BOT_NAMES, game_create
from lobby.api import GuestThrottle, login_name_key
from lobby.models import Guest

pytestmark = pytest.mark.django_db

PASSWORD = "Velo-im-Regen-42"
NAME_TAKEN = "This name is already taken. Please choose another one."
NAME_TAKEN_DE = "Dieser Name ist schon vergeben. Bitte wähle einen anderen."


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    cache.clear()  # the guest throttle counts live in the cache
    yield
    cache.clear()


def in_language(language: str, text: str) -> str:
    with translation.override(language):
        return translation.gettext(text)


def logged_in_user(client: Client):
    response = client.get("/api/auth/me/")
    return response.json()["user"]


def play_as_guest(client: Client, name: str, **extra):
    return client.post("/", {"name": name, **extra})


def register(client: Client, name: str, password: str = PASSWORD, again: str | None = None):
    return client.post(
        "/register/",
        {"username": name, "password1": password, "password2": again or password},
    )


# ---------------------------------------------------------------------------- guests


def test_the_front_page_asks_an_anonymous_visitor_for_a_name(client):
    html = client.get("/").content.decode()
    assert 'name="name"' in html and 'action="/"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'id="chat-log"' not in html  # the lobby is for players only


def test_a_visitor_who_chooses_a_name_becomes_a_logged_in_guest_in_the_lobby(client):
    response = play_as_guest(client, "  alice ")
    assert response.status_code == 302 and response["Location"] == "/"
    guest = Guest.objects.get()
    assert guest.user.username == "alice" and not guest.user.has_usable_password()
    assert logged_in_user(client) == {"id": guest.user.pk, "name": "alice"}
    assert 'id="chat-log"' in client.get("/").content.decode()


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("again", ["alice", "ALICE", " Alice "])
def test_a_taken_name_is_refused_in_the_form_in_the_pages_language(client, language, again):
    Guest.objects.create_guest(name="alice")
    response = client.post("/", {"name": again}, headers={"accept-language": language})
    assert response.status_code == 200
    html = response.content.decode()
    assert in_language(language, NAME_TAKEN) in html
    assert 'aria-invalid="true"' in html
    assert logged_in_user(client) is None
    assert get_user_model().objects.count() == 1


@pytest.mark.parametrize("name", ["", "   ", "x" * 33, "Lea\u200bMia"])
def test_an_empty_long_or_unprintable_name_is_refused_in_the_form(client, name):
    response = play_as_guest(client, name)
    assert response.status_code == 200
    assert 'aria-invalid="true"' in response.content.decode()
    assert get_user_model().objects.count() == 0


def test_a_registered_users_name_is_taken_for_guests(client):
    get_user_model().objects.create_user("Noah", password=PASSWORD)
    assert NAME_TAKEN_DE in play_as_guest(client, "noah").content.decode()
    assert Guest.objects.count() == 0


@pytest.mark.parametrize("name", [*BOT_NAMES[:3], "bot anna", "BOT JAKOB"])
def test_the_computer_players_names_are_kept_from_guests(client, name):
    assert NAME_TAKEN_DE in play_as_guest(client, name).content.decode()
    with pytest.raises(errors.ServiceError) as refused:
        Guest.objects.create_guest(name=name)
    assert refused.value.code == "name_taken"
    assert get_user_model().objects.count() == 0


def test_a_name_that_looks_like_html_is_shown_as_text(client):
    play_as_guest(client, "<script>alert(1)</script>")
    html = client.get("/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)</script>" not in html


def test_a_guest_is_sent_back_to_where_they_came_from(client):
    response = play_as_guest(client, "alice", next="/games/7/")
    assert response["Location"] == "/games/7/"


def test_a_next_on_another_site_is_ignored(client):
    response = play_as_guest(client, "alice", next="https://evil.example/")
    assert response["Location"] == "/"


def test_the_guest_form_keeps_the_next_address_of_the_page(client):
    html = client.get("/", {"next": "/games/7/"}).content.decode()
    assert 'name="next" value="/games/7/"' in html


def test_the_guest_form_shares_the_rate_limit_of_the_guest_api(client, monkeypatch):
    monkeypatch.setattr(GuestThrottle, "THROTTLE_RATES", {"guest": "2/min"})
    play_as_guest(Client(), "alice")
    play_as_guest(Client(), "bob")
    response = play_as_guest(client, "charlie")
    assert response.status_code == 200
    assert "Zu viele neue Spielpersonen" in response.content.decode()
    assert not get_user_model().objects.filter(username="charlie").exists()


def test_registering_is_rate_limited_per_address_at_the_guests_rate(monkeypatch):
    monkeypatch.setattr(GuestThrottle, "THROTTLE_RATES", {"guest": "2/min"})
    for name in ("alice", "bob"):
        answer = Client().post(
            "/register/", {"username": name, "password1": PASSWORD, "password2": PASSWORD}
        )
        assert answer.status_code == 302
    answer = Client().post(
        "/register/", {"username": "charlie", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert answer.status_code == 429
    assert "Zu viele neue Konten" in answer.content.decode()
    assert not get_user_model().objects.filter(username="charlie").exists()
    elsewhere = Client(REMOTE_ADDR="10.0.0.5").post(
        "/register/", {"username": "charlie", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert elsewhere.status_code == 302


def test_the_guest_form_needs_the_csrf_token():
    browser = Client(enforce_csrf_checks=True)
    assert browser.post("/", {"name": "alice"}).status_code == 403
    assert Guest.objects.count() == 0


# ---------------------------------------------------------------------------- register


def test_registering_creates_an_account_with_a_password_and_logs_it_in(client):
    response = register(client, "alice")
    assert response.status_code == 302 and response["Location"] == "/"
    user = get_user_model().objects.get()
    assert user.username == "alice" and user.check_password(PASSWORD)
    assert not Guest.objects.exists()
    assert logged_in_user(client) == {"id": user.pk, "name": "alice"}
    assert "Willkommen, alice!" in client.get("/").content.decode()


@pytest.mark.parametrize("name", ["ALICE", "bob", "Bot Anna", "bot ben"])
def test_a_name_of_a_player_or_a_computer_player_cannot_be_registered(client, name):
    Guest.objects.create_guest(name="alice")
    get_user_model().objects.create_user("Bob", password=PASSWORD)
    response = register(client, name)
    assert response.status_code == 200
    assert NAME_TAKEN_DE in response.content.decode()
    assert get_user_model().objects.count() == 2


def test_a_registered_name_can_have_spaces_like_a_guests_name(client):
    register(client, "Lea Müller")
    assert get_user_model().objects.get().username == "Lea Müller"


@pytest.mark.parametrize(
    ("password", "again"), [("short1", "short1"), ("12345678901", "12345678901"), (PASSWORD, "x")]
)
def test_a_weak_or_mistyped_password_is_refused(client, password, again):
    response = register(client, "alice", password, again)
    assert response.status_code == 200
    assert 'aria-invalid="true"' in response.content.decode()
    assert get_user_model().objects.count() == 0


def test_a_guest_who_opens_register_is_sent_to_keep_their_name(client):
    play_as_guest(client, "alice")
    assert client.get("/register/")["Location"] == "/keep-name/"


# ---------------------------------------------------------------------------- log in and out


def test_an_account_logs_in_with_its_name_in_any_case(client):
    user = get_user_model().objects.create_user("Alice", password=PASSWORD)
    response = client.post("/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    assert logged_in_user(client)["id"] == user.pk


def test_a_wrong_password_is_refused(client):
    get_user_model().objects.create_user("alice", password=PASSWORD)
    response = client.post("/login/", {"username": "alice", "password": "wrong"})
    assert response.status_code == 200 and "banner-error" in response.content.decode()
    assert logged_in_user(client) is None


def test_a_guest_cannot_log_in_having_no_password(client):
    Guest.objects.create_guest(name="alice")
    response = client.post("/login/", {"username": "alice", "password": ""})
    assert response.status_code == 200
    assert logged_in_user(client) is None


def test_logging_in_returns_to_the_next_page(client):
    get_user_model().objects.create_user("alice", password=PASSWORD)
    response = client.post(
        "/login/?next=/games/3/", {"username": "alice", "password": PASSWORD, "next": "/games/3/"}
    )
    assert response["Location"] == "/games/3/"


def test_logging_out_is_a_post_and_leads_to_the_front_page(client):
    user = get_user_model().objects.create_user("alice", password=PASSWORD)
    client.force_login(user)
    assert client.get("/logout/").status_code == 405
    assert logged_in_user(client) is not None
    response = client.post("/logout/")
    assert response.status_code == 302 and response["Location"] == "/"
    assert logged_in_user(client) is None
    assert "Du bist abgemeldet." in client.get("/").content.decode()


def test_the_header_shows_the_players_name_and_a_logout_button(client):
    client.force_login(get_user_model().objects.create_user("alice", password=PASSWORD))
    html = client.get("/").content.decode()
    assert ">alice</a>" in html and 'action="/logout/"' in html
    assert 'href="/login/"' not in html and "/keep-name/" not in html


def test_the_header_offers_log_in_and_register_to_visitors(client):
    html = client.get("/").content.decode()
    assert 'href="/login/"' in html and 'href="/register/"' in html
    assert 'action="/logout/"' not in html


# ---------------------------------------------------------------------------- keep the name


def test_a_guest_keeps_their_name_user_and_seats_by_choosing_a_password(client):
    play_as_guest(client, "alice")
    alice = get_user_model().objects.get(username="alice")
    game = game_create(user=alice, name="Rheinufer", max_players=3)
    seats = list(Seat.objects.filter(user=alice).values_list("pk", "game_id"))
    assert "/keep-name/" in client.get("/").content.decode()

    response = client.post("/keep-name/", {"new_password1": PASSWORD, "new_password2": PASSWORD})

    assert response.status_code == 302 and response["Location"] == "/"
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
    assert not Guest.objects.filter(user=alice).exists()
    assert logged_in_user(client) == {"id": alice.pk, "name": "alice"}  # still logged in
    assert list(Seat.objects.filter(user=alice).values_list("pk", "game_id")) == seats
    assert seats == [(seats[0][0], game.pk)]
    client.post("/logout/")
    client.post("/login/", {"username": "alice", "password": PASSWORD})
    assert logged_in_user(client)["id"] == alice.pk


def test_keeping_a_name_needs_a_good_password_typed_twice(client):
    play_as_guest(client, "alice")
    response = client.post("/keep-name/", {"new_password1": PASSWORD, "new_password2": "typo"})
    assert response.status_code == 200
    assert Guest.objects.filter(user__username="alice").exists()
    assert not get_user_model().objects.get(username="alice").has_usable_password()


def test_an_account_has_no_name_to_keep(client):
    client.force_login(get_user_model().objects.create_user("alice", password=PASSWORD))
    assert client.get("/keep-name/")["Location"] == "/"


def test_keeping_a_name_needs_a_login(client):
    response = client.get("/keep-name/")
    assert response.status_code == 302 and response["Location"] == "/login/?next=/keep-name/"


def limit_logins(monkeypatch, per_name_and_address: str, per_address: str) -> None:
    rates = {"guest": "30/min", "login": per_name_and_address, "login_address": per_address}
    monkeypatch.setattr(GuestThrottle, "THROTTLE_RATES", rates)


def test_password_guessing_is_stopped_per_address_even_with_the_right_password(monkeypatch):
    limit_logins(monkeypatch, "100/min", "3/min")
    get_user_model().objects.create_user("lea", password=PASSWORD)
    guesser = Client()
    for name, guess in (("lea", "velo1"), ("noah", "velo2"), ("emil", "velo3")):
        answer = guesser.post("/login/", {"username": name, "password": guess})
        assert answer.status_code == 200 and "_auth_user_id" not in guesser.session
    answer = guesser.post("/login/", {"username": "lea", "password": PASSWORD})
    assert answer.status_code == 429
    assert "_auth_user_id" not in guesser.session
    assert "Bitte warte eine Minute" in answer.content.decode() or "wait a minute" in (
        answer.content.decode()
    )


def test_password_guessing_for_one_name_is_stopped_per_address(monkeypatch):
    limit_logins(monkeypatch, "3/min", "100/min")
    get_user_model().objects.create_user("lea", password=PASSWORD)
    guesser = Client(REMOTE_ADDR="10.0.0.1")
    for guess in ("velo1", "velo2", "velo3"):
        guesser.post("/login/", {"username": "lea", "password": guess})
    answer = guesser.post("/login/", {"username": "lea", "password": PASSWORD})
    assert answer.status_code == 429 and "_auth_user_id" not in guesser.session
    other = guesser.post("/login/", {"username": "noah", "password": "x"})
    assert other.status_code == 200  # another name from that address may still try


@pytest.mark.parametrize("look_alike", ["LEA", "Lea", "\uff4c\uff45\uff41", " lea "])
def test_look_alike_spellings_of_a_name_share_one_count(monkeypatch, look_alike):
    """NFKC and case, as names are compared for uniqueness: fullwidth letters are plain."""
    limit_logins(monkeypatch, "3/min", "100/min")
    get_user_model().objects.create_user("lea", password=PASSWORD)
    guesser = Client(REMOTE_ADDR="10.0.0.1")
    for guess in ("velo1", "velo2", "velo3"):
        guesser.post("/login/", {"username": look_alike, "password": guess})
    answer = guesser.post("/login/", {"username": "lea", "password": PASSWORD})
    assert answer.status_code == 429


def test_a_names_login_count_is_keyed_as_names_are_compared_for_uniqueness():
    assert login_name_key("\uff2c\uff25\uff21") == login_name_key(" Lea ") == "lea"
    assert login_name_key("Stra\u00dfe") == login_name_key("STRASSE")
    assert login_name_key("lea") != login_name_key("leah")


def test_ten_wrong_passwords_from_one_address_do_not_lock_the_owner_out_elsewhere():
    """With the site's own limits: an attacker's guesses used to make the right password
    fail from every address."""
    get_user_model().objects.create_user("lea", password=PASSWORD)
    attacker = Client(REMOTE_ADDR="10.0.0.66")
    for number in range(10):
        attacker.post("/login/", {"username": "LEA", "password": f"velo{number}"})
    assert attacker.post("/login/", {"username": "lea", "password": PASSWORD}).status_code == 429
    owner = Client(REMOTE_ADDR="10.0.0.9")
    answer = owner.post("/login/", {"username": "lea", "password": PASSWORD})
    assert answer.status_code == 302 and "_auth_user_id" in owner.session


def test_the_admin_login_is_rate_limited_like_the_sites_own(monkeypatch):
    """25 wrong passwords for a superuser used to be answered, and then the right one let in."""
    limit_logins(monkeypatch, "3/min", "100/min")
    get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD)
    guesser = Client()
    for guess in ("velo1", "velo2", "velo3"):
        answer = guesser.post("/admin/login/", {"username": "root", "password": guess})
        assert answer.status_code == 200 and "_auth_user_id" not in guesser.session
    answer = guesser.post("/admin/login/", {"username": "root", "password": PASSWORD})
    assert answer.status_code == 429
    assert "_auth_user_id" not in guesser.session
    assert "Bitte warte eine Minute" in answer.content.decode()
    elsewhere = Client(REMOTE_ADDR="10.0.0.7")
    answer = elsewhere.post("/admin/login/", {"username": "root", "password": PASSWORD})
    assert answer.status_code == 302, "the owner is not locked out from another address"
    assert "_auth_user_id" in elsewhere.session


def test_the_admin_login_lets_the_right_password_in_within_the_limit():
    get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD)
    admin = Client()
    answer = admin.post("/admin/login/?next=/admin/", {"username": "root", "password": PASSWORD})
    assert answer.status_code == 302 and answer["Location"] == "/admin/"
    assert admin.get("/admin/").status_code == 200
