"""The language a person chooses stays: the cookie lasts a year, and a signed-in player's
choice is kept on their account, so that it follows them to another browser."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

from lobby.models import Profile

pytestmark = pytest.mark.django_db

COOKIE = "django_language"
YEAR = 365 * 24 * 3600
PASSWORD = "Velo-im-Regen-42"


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    cache.clear()  # the guest and login throttles count in the cache
    yield
    cache.clear()


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def choose(client: Client, language: str):
    return client.post("/i18n/setlang/", {"language": language, "next": "/rules/"})


def page_language(client: Client, path: str = "/") -> str:
    html = client.get(path).content.decode()
    return html.split('<html lang="', 1)[1].split('"', 1)[0]


def saved_language(user) -> str:
    return Profile.objects.filter(user=user).values_list("language", flat=True).first() or ""


def test_the_language_cookie_lasts_a_year(client):
    response = choose(client, "en")
    cookie = response.cookies[COOKIE]
    assert cookie.value == "en"
    assert YEAR - 60 <= int(cookie["max-age"]) <= YEAR + 60


def test_a_signed_in_players_choice_follows_them_to_a_fresh_browser(alice):
    choose(signed_in(alice), "en")
    assert saved_language(alice) == "en"
    other_browser = signed_in(alice)
    response = other_browser.get("/")
    assert '<html lang="en">' in response.content.decode()
    assert response.cookies[COOKIE].value == "en"
    assert int(response.cookies[COOKIE]["max-age"]) >= YEAR - 60
    assert page_language(other_browser, "/rankings/") == "en"


def test_switching_back_to_german_is_kept_on_the_account_too(alice):
    laptop = signed_in(alice)
    choose(laptop, "en")
    choose(laptop, "de")
    assert saved_language(alice) == "de"
    phone = signed_in(alice)
    assert page_language(phone) == "de"


def test_signing_in_brings_the_accounts_language_over_the_browsers_cookie(alice):
    alice.set_password(PASSWORD)
    alice.save()
    choose(signed_in(alice), "en")
    borrowed = Client()
    borrowed.cookies[COOKIE] = "de"
    response = borrowed.post("/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert response.cookies[COOKIE].value == "en"
    assert page_language(borrowed) == "en"


def test_a_guest_keeps_the_language_chosen_before_taking_a_name(client):
    choose(client, "en")
    response = client.post("/", {"name": "charlie", "next": "/"})
    assert response.status_code == 302
    charlie = get_user_model().objects.get(username="charlie")
    assert saved_language(charlie) == "en"
    assert page_language(signed_in(charlie)) == "en"


def test_a_player_who_never_chose_gets_their_browsers_language(bob):
    assert saved_language(bob) == ""
    phone = signed_in(bob)
    response = phone.get("/", headers={"accept-language": "en"})
    assert '<html lang="en">' in response.content.decode()
    assert COOKIE not in response.cookies
    assert page_language(phone) == "de"


def test_a_visitor_who_is_not_signed_in_chooses_for_this_browser_only(client, alice):
    choose(client, "en")
    assert page_language(client) == "en"
    assert not Profile.objects.exists()


@pytest.mark.parametrize("language", ["fr", "xx", ""])
def test_a_language_the_site_does_not_speak_is_not_kept_on_the_account(alice, language):
    choose(signed_in(alice), "en")
    choose(signed_in(alice), language)
    assert saved_language(alice) == "en"
    assert page_language(signed_in(alice)) == "en"
