"""The front page before a name is chosen: every kind of game the site offers, each with its
picture, a line on it, its number of players and a button that plays it."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from types import SimpleNamespace

import pytest
from django.contrib.staticfiles import finders
from django.core.cache import cache
from django.test import Client
from django.utils import translation

from games import registry
from tests.csp_helpers import assert_page_keeps_policy

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    cache.clear()  # the guest throttle counts in the cache
    yield
    cache.clear()


def front_page(language: str) -> str:
    client = Client()
    client.cookies["django_language"] = language
    response = client.get("/")
    assert response.status_code == 200
    assert_page_keeps_policy(response)
    return response.content.decode()


def card_of(html: str, key: str) -> str:
    match = re.search(rf'<li class="kind-card" data-kind="{key}">.*?</li>', html, re.S)
    assert match, f"no card for {key}"
    return match.group(0)


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_front_page_shows_every_kind_with_its_picture_line_players_and_play_button(language):
    html = front_page(language)
    assert list(registry.KINDS) == re.findall(r'<li class="kind-card" data-kind="(\w+)">', html)
    with translation.override(language):
        for key, kind in registry.KINDS.items():
            card = card_of(html, key)
            assert f'<img class="kind-picture" src="/static/img/kinds/{key}.svg"' in card
            assert f'<h3 class="kind-title">{kind.name}</h3>' in card
            assert f'<p class="kind-line">{kind.summary}</p>' in card
            assert f'<p class="kind-players">{kind.players_text}</p>' in card
            button = re.search(r"<button[^>]*>(.*?)</button>", card, re.S)
            assert 'form="play-form" name="kind" value="' + key + '"' in button.group(0)
            assert button.group(1) == translation.gettext("Play %(game)s") % {"game": kind.name}
            assert f'href="/rules/{key}/"' in card


def test_the_player_counts_are_the_engines_in_words():
    english = front_page("en")
    assert "2 to 5 players" in card_of(english, "ratumrad")
    assert "3 to 8 players" in card_of(english, "rage")
    assert "solo: one player" in card_of(english, "road300")
    german = front_page("de")
    assert "2 bis 5 Personen" in card_of(german, "ratumrad")
    assert "solo: für eine Person" in card_of(german, "road300")


def test_a_new_kind_appears_on_the_front_page_by_itself(monkeypatch):
    tricks = registry.GameKind(
        key="tricks", name="Tricks", engine_module="", glue_module="", summary="Take tricks."
    )
    tricks.__dict__["engine"] = SimpleNamespace(MIN_PLAYERS=4, MAX_PLAYERS=4, BOTS={})
    monkeypatch.setitem(registry.KINDS, "tricks", tricks)
    card = card_of(front_page("en"), "tricks")
    assert "Take tricks." in card and "4 players" in card and 'value="tricks"' in card


@pytest.mark.parametrize("key", list(registry.KINDS))
def test_each_kinds_picture_is_a_plain_svg_of_this_site(key):
    path = finders.find(registry.get(key).picture)
    assert path, key
    root = ElementTree.parse(path).getroot()
    svg = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{svg}svg" and root.get("viewBox")
    tags = {element.tag.removeprefix(svg) for element in root.iter()}
    assert not tags & {"script", "style", "foreignObject", "image", "a"}
    assert not any(
        key.startswith("on") or key in {"style", "href"}
        for element in root.iter()
        for key in element.attrib
    )


def test_playing_a_kind_after_choosing_a_name_opens_the_lobby_with_that_kind_chosen(client):
    response = client.post("/", {"name": "dora", "next": "/", "kind": "rage"})
    assert response.status_code == 302
    assert response["Location"] == "/?kind=rage#new-game"
    html = client.get("/?kind=rage").content.decode()
    assert 'name="kind" value="rage" checked' in html
    assert 'name="kind" value="ratumrad" checked' not in html


def test_the_plain_play_button_opens_the_lobby_with_the_default_kind(client):
    response = client.post("/", {"name": "dora", "next": "/"})
    assert response["Location"] == "/"
    assert 'name="kind" value="ratumrad" checked' in client.get("/").content.decode()


def test_an_empty_name_keeps_the_chosen_game_for_the_next_try(client):
    client.cookies["django_language"] = "en"
    response = client.post("/", {"name": "", "next": "/", "kind": "road300"})
    html = response.content.decode()
    assert response.status_code == 200
    form = re.search(r'<form[^>]*id="play-form".*?</form>', html, re.S).group(0)
    assert re.search(r'name="kind" value="road300">Play Road to 300</button>', form)


@pytest.mark.parametrize("kind", ["chess", "", "rage\n"])
def test_an_unknown_kind_opens_the_lobby_as_the_plain_button_does(client, kind):
    response = client.post("/", {"name": "dora", "next": "/", "kind": kind})
    assert response["Location"] == "/"
    assert 'name="kind" value="ratumrad" checked' in client.get("/?kind=chess").content.decode()
