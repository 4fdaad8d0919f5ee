"""Rules within reach: ``/rules/`` lists every kind of game with a line on it and a link to
its rules, and each game page links the rules of its own kind."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.test import Client
from django.utils import translation

from games import registry
from games.services.lifecycle import game_create
from tests.csp_helpers import assert_page_keeps_policy

pytestmark = pytest.mark.django_db


def get(client: Client, path: str, language: str) -> str:
    client.cookies["django_language"] = language
    response = client.get(path)
    assert response.status_code == 200
    assert_page_keeps_policy(response)
    return response.content.decode()


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_rules_index_lists_every_kind_with_a_line_and_a_link_to_its_rules(client, language):
    html = get(client, "/rules/", language)
    assert list(registry.KINDS) == re.findall(r'<li class="kind-card" data-kind="(\w+)">', html)
    with translation.override(language):
        title = translation.gettext("The rules of our games")
        assert f'<h1 id="rules-index-heading">{title}</h1>' in html
        for key, kind in registry.KINDS.items():
            card = re.search(rf'data-kind="{key}">.*?</li>', html, re.S).group(0)
            assert f'<h2 class="kind-title">{kind.name}</h2>' in card
            assert f'<p class="kind-line">{kind.summary}</p>' in card
            link = translation.gettext("Rules of %(game)s") % {"game": kind.name}
            assert f'href="/rules/{key}/">{link}</a>' in card


def test_the_rules_index_is_no_longer_rat_um_rads_rules(client):
    html = get(client, "/rules/", "en")
    assert "The rules of Rat um Rad" not in html and 'id="r1"' not in html


def test_a_new_kind_appears_in_the_rules_index_by_itself(client, monkeypatch):
    tricks = registry.GameKind(
        key="tricks", name="Tricks", engine_module="", glue_module="", summary="Take tricks."
    )
    tricks.__dict__["engine"] = SimpleNamespace(MIN_PLAYERS=3, MAX_PLAYERS=6, BOTS={})
    monkeypatch.setitem(registry.KINDS, "tricks", tricks)
    html = get(client, "/rules/", "en")
    assert 'href="/rules/tricks/">Rules of Tricks</a>' in html and "Take tricks." in html


def test_the_navigations_rules_link_opens_the_index(client):
    html = get(client, "/rankings/", "en")
    assert re.search(r'<nav class="site-nav".*?<a href="/rules/"[^>]*>Rules</a>', html, re.S)


@pytest.mark.parametrize(
    ("kind", "seats", "language", "link"),
    [
        ("rage", 3, "en", "Rules of RAGE"),
        ("rage", 3, "de", "Regeln von RAGE"),
        ("road300", None, "en", "Rules of Road to 300"),
        ("road300", None, "de", "Regeln von Road to 300"),
        ("ratumrad", 2, "en", "Rules of Rat um Rad"),
    ],
)
def test_each_game_page_links_the_rules_of_its_own_kind(alice, kind, seats, language, link):
    game = game_create(user=alice, name="Tisch", kind=kind, max_players=seats)
    client = Client()
    client.force_login(alice)
    html = get(client, f"/games/{game.pk}/", language)
    head = re.search(r'<header class="game-head">.*?</header>', html, re.S).group(0)
    apart = 'target="_blank" rel="noopener"'  # the game stays open in its own tab
    anchor = re.search(rf'<a class="game-rules" href="/rules/{kind}/" {apart}>(.*?)</a>', head)
    assert anchor and anchor.group(1).startswith(link + '<span class="visually-hidden">')
