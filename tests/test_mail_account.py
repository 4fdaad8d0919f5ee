"""The account page's mail section and the signed links of the mails, from the person's side
and from an attacker's: confirm an address by its link (expired, tampered, replaced links are
refused with a clear page), bad input refused with clear errors, and no link that reaches
another person's settings."""

from __future__ import annotations

import time

import pytest
from django.core import signing
from django.core.cache import cache
from django.test import Client

from lobby.models import Guest
from notifications import tokens
from notifications.models import MailSettings
from tests.conftest import PASSWORD, person
from tests.csp_helpers import assert_page_keeps_policy
from tests.mail_helpers import links, path_of, with_address

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_limits():
    """The confirm mails' limit counts per person in the cache; ids come again in each test."""
    cache.clear()


@pytest.fixture
def alice():
    return person("alice")


@pytest.fixture
def bob():
    return person("bob")


def logged_in(user, lang: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=lang)
    client.force_login(user)
    client.cookies["django_language"] = lang
    return client


def add_address(client: Client, email: str, capture):
    with capture(execute=True):
        return client.post("/account/", {"action": "address", "email": email})


def confirm_link(smtp, email: str) -> str:
    [mail] = smtp.to(email)
    [url] = [url for url in links(mail.body) if "/mail/confirm/" in url]
    return path_of(url)


def at(monkeypatch, seconds_ago: float) -> None:
    """Sign what follows as if it were ``seconds_ago`` seconds ago."""
    now = time.time()
    monkeypatch.setattr(signing.time, "time", lambda: now - seconds_ago)


def test_the_account_page_shows_the_mail_section_in_english_and_german(alice):
    english = logged_in(alice, "en").get("/account/").content.decode()
    assert "No address yet: you get no mails." in english
    assert "A mail when it is my turn" in english
    german = logged_in(alice, "de").get("/account/").content.decode()
    assert "Noch keine Adresse: Du erhältst keine E-Mails." in german
    assert "Eine E-Mail, wenn ich am Zug bin" in german


def test_the_account_page_needs_a_login():
    response = Client().get("/account/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_an_added_address_gets_a_confirm_mail_whose_link_confirms_it(
    alice, smtp, django_capture_on_commit_callbacks
):
    client = logged_in(alice, "de")
    response = add_address(client, "alice@example.org", django_capture_on_commit_callbacks)
    assert response.status_code == 302
    row = MailSettings.objects.get(user=alice)
    assert row.email == "alice@example.org" and row.confirmed is None
    [mail] = smtp.to("alice@example.org")
    assert mail.message["Subject"] == "Bestätige deine Adresse für Rat um Rad"
    page = client.get("/account/").content.decode()
    assert "alice@example.org" in page and "noch nicht bestätigt" in page

    confirmed = Client().get(confirm_link(smtp, "alice@example.org"))  # no login needed
    assert confirmed.status_code == 200
    row.refresh_from_db()
    assert row.confirmed is not None and row.address == "alice@example.org"
    assert "bestätigt" in client.get("/account/").content.decode()


def test_an_expired_confirm_link_is_refused_and_confirms_nothing(alice, monkeypatch):
    with_address(alice, "alice@example.org", confirmed=False)
    at(monkeypatch, tokens.CONFIRM_MAX_AGE.total_seconds() + 60)
    token = tokens.confirm_token(alice.pk, "alice@example.org")
    monkeypatch.undo()
    response = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/mail/confirm/{token}/")
    assert response.status_code == 400
    assert "The link has expired." in response.content.decode()
    assert MailSettings.objects.get(user=alice).confirmed is None


@pytest.mark.parametrize(
    "tamper",
    [
        lambda token: token[:-2] + ("AA" if not token.endswith("AA") else "BB"),
        lambda token: token[:20],
        lambda token: "x" * 5000,
        lambda token: "not-a-token",
    ],
    ids=["changed-signature", "cut", "huge", "garbage"],
)
def test_a_tampered_confirm_link_is_refused_with_a_clear_page(alice, tamper):
    with_address(alice, "alice@example.org", confirmed=False)
    token = tamper(tokens.confirm_token(alice.pk, "alice@example.org"))
    response = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/mail/confirm/{token}/")
    assert response.status_code == 400
    assert "The link is not valid" in response.content.decode()
    assert MailSettings.objects.get(user=alice).confirmed is None


def test_a_confirm_link_whose_person_is_changed_is_refused(alice, bob):
    with_address(bob, "bob@example.org", confirmed=False)
    token = tokens.confirm_token(alice.pk, "bob@example.org")
    rest = token.split(":", 1)[1]
    forged_payload = signing.b64_encode(
        signing.JSONSerializer().dumps({"u": bob.pk, "e": "bob@example.org"})
    ).decode()
    response = Client().get(f"/mail/confirm/{forged_payload}:{rest}/")
    assert response.status_code == 400
    assert MailSettings.objects.get(user=bob).confirmed is None


def test_a_link_signed_for_unsubscribing_does_not_confirm_and_back(alice):
    with_address(alice, "alice@example.org", confirmed=False)
    unsubscribe = tokens.unsubscribe_token(alice.pk, "alice@example.org", "your_turn")
    assert Client().get(f"/mail/confirm/{unsubscribe}/").status_code == 400
    confirm = tokens.confirm_token(alice.pk, "alice@example.org")
    assert Client().post(f"/mail/unsubscribe/{confirm}/").status_code == 400
    row = MailSettings.objects.get(user=alice)
    assert row.confirmed is None and row.your_turn is True


def test_the_link_of_an_address_that_was_replaced_confirms_nothing(
    alice, smtp, django_capture_on_commit_callbacks
):
    client = logged_in(alice)
    add_address(client, "old@example.org", django_capture_on_commit_callbacks)
    old_link = confirm_link(smtp, "old@example.org")
    add_address(client, "new@example.org", django_capture_on_commit_callbacks)
    response = Client(HTTP_ACCEPT_LANGUAGE="en").get(old_link)
    assert response.status_code == 400
    assert "no longer on the account" in response.content.decode()
    row = MailSettings.objects.get(user=alice)
    assert row.email == "new@example.org" and row.confirmed is None


def test_an_unsubscribe_link_acts_only_on_its_own_person(alice, bob):
    with_address(alice, "alice@example.org")
    with_address(bob, "bob@example.org")
    token = tokens.unsubscribe_token(alice.pk, "alice@example.org", "game_ended")
    assert Client().post(f"/mail/unsubscribe/{token}/").status_code == 200
    assert MailSettings.objects.get(user=alice).game_ended is False
    assert MailSettings.objects.get(user=bob).game_ended is True
    # Alice's link with bob's id or address in it is no signed link.
    payload = signing.b64_encode(
        signing.JSONSerializer().dumps({"u": bob.pk, "e": "bob@example.org", "k": "game_ended"})
    ).decode()
    forged = payload + ":" + token.split(":", 1)[1]
    response = Client(HTTP_ACCEPT_LANGUAGE="en").post(f"/mail/unsubscribe/{forged}/")
    assert response.status_code == 400
    assert "The link is not valid" in response.content.decode()
    assert MailSettings.objects.get(user=bob).game_ended is True


def test_an_expired_unsubscribe_link_is_refused_with_a_clear_page(alice, monkeypatch):
    with_address(alice, "alice@example.org")
    at(monkeypatch, tokens.UNSUBSCRIBE_MAX_AGE.total_seconds() + 60)
    token = tokens.unsubscribe_token(alice.pk, "alice@example.org", "your_turn")
    monkeypatch.undo()
    for method in ("get", "post"):
        response = getattr(Client(HTTP_ACCEPT_LANGUAGE="de"), method)(f"/mail/unsubscribe/{token}/")
        assert response.status_code == 400
        page = response.content.decode()
        assert "Der Link ist abgelaufen." in page
        assert "Auf deiner Kontoseite kannst du E-Mails abstellen." in page
    assert MailSettings.objects.get(user=alice).your_turn is True


def test_a_tampered_unsubscribe_link_is_refused(alice):
    with_address(alice, "alice@example.org")
    token = tokens.unsubscribe_token(alice.pk, "alice@example.org", "your_turn")
    tampered = token[:-3] + ("abc" if not token.endswith("abc") else "xyz")
    response = Client(HTTP_ACCEPT_LANGUAGE="en").post(f"/mail/unsubscribe/{tampered}/")
    assert response.status_code == 400
    assert "The link is not valid" in response.content.decode()
    assert MailSettings.objects.get(user=alice).your_turn is True


@pytest.mark.parametrize(
    ("email", "error"),
    [
        ("not-an-address", "Enter a valid email address."),
        ("a" * 5000 + "@example.org", "Ensure this value has at most 254 characters"),
        ("", "This field is required."),
        ("alice@exa mple.org", "Enter a valid email address."),
        ("alice@example.org\r\nBcc: victim@example.org", "Enter a valid email address."),
    ],
    ids=["no-at", "huge", "empty", "space", "header-injection"],
)
def test_a_bad_address_is_refused_with_a_clear_error_and_nothing_sent(
    alice, smtp, django_capture_on_commit_callbacks, email, error
):
    client = logged_in(alice)
    response = add_address(client, email, django_capture_on_commit_callbacks)
    assert response.status_code == 400
    assert error in response.content.decode()
    assert MailSettings.objects.get(user=alice).email == ""
    assert smtp.messages == []


def test_confirm_mails_are_limited_so_the_form_cannot_flood_an_inbox(
    alice, smtp, django_capture_on_commit_callbacks
):
    client = logged_in(alice)
    for number in range(8):
        add_address(client, f"victim+{number}@example.org", django_capture_on_commit_callbacks)
    assert len(smtp.messages) == 5
    page = client.get("/account/").content.decode()
    assert "Too many confirmation mails. Please try again in an hour." in page


def test_the_toggles_are_saved_for_the_logged_in_person_only(alice, bob):
    with_address(alice, "alice@example.org")
    with_address(bob, "bob@example.org")
    client = logged_in(alice)
    # A forged "user" field changes nothing: the form knows only the two toggles.
    response = client.post(
        "/account/", {"action": "choices", "your_turn": "on", "user": bob.pk, "email": "x@y.z"}
    )
    assert response.status_code == 302
    alice_row, bob_row = (MailSettings.objects.get(user=user) for user in (alice, bob))
    assert alice_row.your_turn is True and alice_row.game_ended is False
    assert alice_row.email == "alice@example.org"
    assert bob_row.your_turn is True and bob_row.game_ended is True


def test_removing_the_address_stops_all_mails(alice):
    with_address(alice, "alice@example.org")
    logged_in(alice).post("/account/", {"action": "remove"})
    row = MailSettings.objects.get(user=alice)
    assert row.email == "" and row.address == ""


def test_an_unknown_action_is_refused(alice):
    response = logged_in(alice).post("/account/", {"action": "x" * 10000})
    assert response.status_code == 400


def test_a_guest_cannot_add_an_address(smtp, django_capture_on_commit_callbacks):
    guest = Guest.objects.create_guest(name="Gast").user
    client = logged_in(guest, "en")
    assert "keep your name first" in client.get("/account/").content.decode()
    add_address(client, "guest@example.org", django_capture_on_commit_callbacks)
    assert MailSettings.objects.get(user=guest).email == ""
    assert smtp.messages == []


def test_logging_in_with_a_password_then_adding_an_address_works_end_to_end(
    alice, smtp, django_capture_on_commit_callbacks
):
    client = Client()
    client.post("/login/", {"username": "alice", "password": PASSWORD})
    add_address(client, "alice@example.org", django_capture_on_commit_callbacks)
    assert client.get(confirm_link(smtp, "alice@example.org")).status_code == 200
    assert MailSettings.objects.get(user=alice).address == "alice@example.org"


def test_the_account_page_and_the_link_pages_keep_the_content_security_policy(alice):
    with_address(alice, "alice@example.org", confirmed=False)
    client = logged_in(alice)
    confirm = tokens.confirm_token(alice.pk, "alice@example.org")
    unsubscribe = tokens.unsubscribe_token(alice.pk, "alice@example.org", "your_turn")
    pages = [
        client.get("/account/"),
        client.post("/account/", {"action": "address", "email": "bad"}),
        Client().get(f"/mail/confirm/{confirm}/"),
        Client().get("/mail/confirm/not-a-token/"),
        Client().get(f"/mail/unsubscribe/{unsubscribe}/"),
        Client().post(f"/mail/unsubscribe/{unsubscribe}/"),
    ]
    for response in pages:
        assert_page_keeps_policy(response)
