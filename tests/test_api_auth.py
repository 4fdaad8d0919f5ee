"""Identity in the HTTP API: guests, tokens and sessions, CSRF, the rate limit, error bodies."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from lobby.api import GuestThrottle
from lobby.models import Guest
from ratumrad_site.tokens import token_and_user
from tests.races import SlowReads, at_once

pytestmark = pytest.mark.django_db

GAME = {"name": "Rheinufer", "max_players": 2}


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    cache.clear()  # the throttle counts live in the cache
    yield
    cache.clear()


def become_guest(client: Client, name: str, **extra) -> dict:
    response = client.post(
        "/api/auth/guest/", {"name": name}, content_type="application/json", **extra
    )
    assert response.status_code == 201, response.json()
    return response.json()


# ---------------------------------------------------------------------------- guests


def test_a_guest_gets_a_token_and_a_logged_in_session():
    browser = Client()
    answer = become_guest(browser, "Lea")
    user = get_user_model().objects.get(username="Lea")
    assert answer == {"token": user.auth_token.key, "user": {"id": user.pk, "name": "Lea"}}
    assert browser.get("/api/auth/me/").json() == {"user": {"id": user.pk, "name": "Lea"}}


def test_a_guest_is_a_user_without_a_usable_password_marked_as_guest():
    become_guest(APIClient(), "Lea")
    guest = Guest.objects.get()
    assert guest.user.username == "Lea" and not guest.user.has_usable_password()


def test_surrounding_spaces_are_dropped_from_a_name():
    assert become_guest(APIClient(), "  Lea Müller ")["user"]["name"] == "Lea Müller"


@pytest.mark.parametrize("again", ["Lea", "lea", "LEA", " lEa "])
def test_a_taken_name_is_refused_whatever_its_case(again):
    become_guest(APIClient(), "Lea")
    response = APIClient().post("/api/auth/guest/", {"name": again})
    assert response.status_code == 400
    assert response.json()["code"] == "name_taken"
    assert get_user_model().objects.count() == 1


def test_names_differing_only_in_the_case_of_umlauts_are_taken_too():
    become_guest(APIClient(), "Ärger")
    response = APIClient().post("/api/auth/guest/", {"name": "äRGER"})
    assert (response.status_code, response.json()["code"]) == (400, "name_taken")


def test_a_name_of_a_registered_user_is_taken():
    get_user_model().objects.create_user("Noah", password="a long secret")
    response = APIClient().post("/api/auth/guest/", {"name": "noah"})
    assert (response.status_code, response.json()["code"]) == (400, "name_taken")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 33},
        {"name": "Lea\nMia"},
        {"name": "Lea\u200bMia"},
        {"name": "Lea\x00"},
        {"name": ["Lea"]},
        {"name": None},
        {"name": 0},
        {"name": True},
    ],
)
def test_a_missing_empty_long_or_unprintable_name_is_a_bad_field(body):
    response = APIClient().post("/api/auth/guest/", body)
    assert response.status_code == 400
    assert response.json()["code"] == "bad_field"
    assert response.json()["message"].startswith("name: ")
    assert get_user_model().objects.count() == 0


def test_32_characters_are_enough_for_a_name():
    assert become_guest(APIClient(), "x" * 32)["user"]["name"] == "x" * 32


def test_a_body_that_is_not_json_is_bad_json():
    response = APIClient().post("/api/auth/guest/", "{name", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_json"


def test_a_form_post_is_refused_the_api_speaks_json():
    response = Client().post("/api/auth/guest/", {"name": "Lea"})  # multipart/form-data
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


def test_guest_creation_is_rate_limited_per_address(monkeypatch):
    monkeypatch.setattr(GuestThrottle, "THROTTLE_RATES", {"guest": "2/min"})
    client = APIClient()
    become_guest(client, "alice")
    become_guest(client, "bob")
    response = client.post("/api/auth/guest/", {"name": "charlie"}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 429
    assert response.json()["code"] == "rate_limited"
    assert "try again in" in response.json()["message"]
    assert int(response["Retry-After"]) > 0
    become_guest(client, "charlie", REMOTE_ADDR="192.0.2.7")


def test_a_flood_of_guests_at_once_from_one_address_makes_no_more_than_the_rate(monkeypatch):
    """Eighty at once with a limit of 30 a minute had made 40: DRF's throttle let every call
    that read the count before the first one wrote it pass (``games.limits.AtomicRate``)."""
    monkeypatch.setattr(GuestThrottle, "THROTTLE_RATES", {"guest": "4/min"})
    monkeypatch.setattr(GuestThrottle, "cache", SlowReads(cache))
    same_address = SimpleNamespace(META={"REMOTE_ADDR": "192.0.2.9"}, headers={})
    allowed = at_once(16, lambda: GuestThrottle().allow_request(same_address, None))
    assert allowed.count(True) == 4


# ---------------------------------------------------------------------------- CSRF


def test_a_browser_cannot_become_a_guest_without_the_csrf_token():
    browser = Client(enforce_csrf_checks=True)
    response = browser.post(
        "/api/auth/guest/",
        {"name": "Lea"},
        content_type="application/json",
        headers={"origin": "https://evil.example"},
    )
    assert response.status_code == 403
    assert response.json()["code"] == "csrf_failed"
    assert Guest.objects.count() == 0


def test_a_browser_with_the_csrf_token_becomes_a_guest_and_writes_with_it():
    browser = Client(enforce_csrf_checks=True)
    browser.get("/api/auth/me/")  # sets the csrftoken cookie
    same_site = {"origin": "http://testserver"}
    become_guest(
        browser, "Lea", headers={**same_site, "x-csrftoken": browser.cookies["csrftoken"].value}
    )
    # Logging in rotated the token: the old one no longer works, the new cookie does.
    refused = browser.post("/api/games/", GAME, content_type="application/json")
    assert (refused.status_code, refused.json()["code"]) == (403, "csrf_failed")
    created = browser.post(
        "/api/games/",
        GAME,
        content_type="application/json",
        headers={**same_site, "x-csrftoken": browser.cookies["csrftoken"].value},
    )
    assert created.status_code == 201


def test_a_script_without_cookies_needs_no_csrf_token():
    script = Client(enforce_csrf_checks=True)
    token = become_guest(script, "bot-builder")["token"]
    response = APIClient().post("/api/games/", GAME, headers={"authorization": f"Token {token}"})
    assert response.status_code == 201


# ---------------------------------------------------------------------------- tokens and sessions


def test_writes_work_with_a_token():
    token = become_guest(APIClient(), "Lea")["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.post("/api/games/", GAME).status_code == 201
    assert client.get("/api/auth/me/").json()["user"]["name"] == "Lea"


def test_writes_work_with_the_session_cookie():
    browser = Client()
    become_guest(browser, "Lea")
    response = browser.post("/api/games/", GAME, content_type="application/json")
    assert response.status_code == 201


@pytest.mark.parametrize(
    ("path", "body"),
    [("/api/games/", GAME), ("/api/games/1/join/", None), ("/api/games/1/start/", None)],
)
def test_writes_without_a_login_are_refused(path, body):
    response = APIClient().post(path, body, headers={"accept-language": "en"})
    assert response.status_code == 401
    assert response.json() == {
        "code": "not_authenticated",
        "message": "Authentication credentials were not provided.",
    }
    assert response["WWW-Authenticate"] == "Token"


def test_error_messages_from_the_framework_follow_the_language_codes_do_not():
    response = APIClient().post("/api/games/", GAME, headers={"accept-language": "de"})
    assert response.json() == {"code": "not_authenticated", "message": "Anmeldedaten fehlen."}


def test_a_wrong_token_is_refused():
    response = APIClient().get("/api/games/", headers={"authorization": "Token nonsense"})
    assert (response.status_code, response.json()["code"]) == (401, "not_authenticated")


def test_a_token_is_read_with_its_user_in_one_statement(django_assert_num_queries):
    token = become_guest(APIClient(), "Lea")["token"]
    with django_assert_num_queries(1):
        found = token_and_user(token)
    assert found is not None
    found_token, user = found
    assert (found_token.key, found_token.user, user.get_username()) == (token, user, "Lea")
    assert token_and_user("nonsense") is None


def test_the_token_of_an_inactive_user_is_refused_with_drf_s_message():
    token = become_guest(APIClient(), "Lea")["token"]
    get_user_model().objects.filter(username="Lea").update(is_active=False)
    headers = {"authorization": f"Token {token}", "accept-language": "en"}
    response = APIClient().get("/api/auth/me/", headers=headers)
    assert response.status_code == 401
    assert response.json() == {"code": "not_authenticated", "message": "User inactive or deleted."}
    wrong = APIClient().get("/api/auth/me/", headers={**headers, "authorization": "Token no"})
    assert wrong.json() == {"code": "not_authenticated", "message": "Invalid token."}


def test_nobody_is_logged_in_without_a_session_or_token():
    assert APIClient().get("/api/auth/me/").json() == {"user": None}


# ---------------------------------------------------------------------------- other errors


def test_an_unsupported_method_is_refused():
    response = APIClient().put("/api/maps/basel/", {}, headers={"accept-language": "en"})
    assert response.status_code == 405
    assert response.json() == {
        "code": "method_not_allowed",
        "message": 'Method "PUT" not allowed.',
    }


@pytest.mark.parametrize("path", ["/api/nothing/here/", "/api/games/seven/", "/api/"])
def test_an_unknown_api_path_is_a_json_not_found(path):
    response = APIClient().get(path)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_missing_trailing_slash_still_redirects():
    response = APIClient().get("/api/games")
    assert (response.status_code, response["Location"]) == (301, "/api/games/")
