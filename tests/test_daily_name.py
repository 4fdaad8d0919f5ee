"""A daily challenge (T5.2) is named in the viewer's language with its day written for that
language, wherever it was created: its stored name stays in its creator's language."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from games.models import Game

DAY = "2026-11-26"


def page_of(user, language: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def daily_game(user) -> Game:
    """Alice's daily game, created from an English page."""
    english = page_of(user, "en")
    location = english.post("/road300/daily/")["Location"]
    game = Game.objects.get(pk=location.split("/")[2])
    game.options = {**game.options, "day": DAY}
    game.save(update_fields=["options"])
    return game


def name_in(html: str, game: Game) -> str:
    found = re.search(rf'<a class="game-name" href="/games/{game.pk}/">(.*?)</a>', html, re.S)
    assert found, html
    return found[1]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "before", "written"),
    [("de", "Tages-Challenge ", "26. November 2026"), ("en", "Daily challenge ", "Nov. 26, 2026")],
)
def test_T5_2_the_lobby_names_a_daily_game_in_the_pages_language(people, language, before, written):
    alice = people["alice"]
    game = daily_game(alice)
    html = page_of(alice, language).get("/").content.decode()
    assert name_in(html, game) == (
        f'{before}<time datetime="{DAY}" data-style="day">{written}</time>'
    )
    # The lobby script names it the same way, from the game's day, in the page's language.
    strings = json.loads(
        re.search(r'<script id="lobby-strings" type="application/json">(.*?)</script>', html)[1]
    )
    assert strings["day_names"] == {"road300": f"{before}%(day)s"}


@pytest.mark.django_db
def test_T5_2_the_game_page_and_the_player_page_name_it_in_german_too(people):
    alice = people["alice"]
    game = daily_game(alice)
    german = page_of(alice, "de")
    page = german.get(f"/games/{game.pk}/").content.decode()
    # (1): the day's game waits for its player's move (the count of "My games").
    assert "<title>(1) Tages-Challenge 26. November 2026 · " in page
    assert re.search(r"<h1>Tages-Challenge <time [^>]*>26. November 2026</time></h1>", page)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished=game.created)
    game.seats.update(total=100, place=1, won=False)
    player = german.get(f"/players/{alice.pk}/").content.decode()
    assert re.search(rf'href="/games/{game.pk}/">Tages-Challenge <time [^>]*>26\. November', player)
