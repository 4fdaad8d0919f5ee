"""The ranking page and the player pages: public, linked, escaped, bots marked."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from games.models import Game, Seat
from games.signals import game_finished
from rankings.models import RatingChange
from tests.csp_helpers import assert_page_keeps_policy

pytestmark = pytest.mark.django_db

XSS = "<script>alert(1)</script>"


@pytest.fixture
def english(client):
    client.cookies["django_language"] = "en"
    return client


def played(places: dict, *, totals: dict, bots=(), days_ago: int = 0, name="Rheinufer") -> Game:
    """A finished game with these places and totals, rated as the services would rate it."""
    game = Game.objects.create(
        name=name,
        max_players=len(places),
        seed=1,
        status=Game.Status.FINISHED,
        finished=timezone.now() - timedelta(days=days_ago),
    )
    for order, (user, place) in enumerate(places.items()):
        Seat.objects.create(
            game=game,
            user=user,
            turn_order=order,
            place=place,
            won=place == 1,
            total=totals[user],
            is_bot=user in bots,
        )
    rows = [
        {"player": u.pk, "place": p, "total": totals[u], "won": p == 1} for u, p in places.items()
    ]
    game_finished.send(sender=Game, game=game, results=rows)
    return game


def rows_of(html: str, table: int) -> list[str]:
    """The body rows of the n-th ranking table, as text without tags and dates."""
    body = re.findall(r"<tbody>(.*?)</tbody>", html, re.S)[table]
    body = re.sub(r"<time .*?</time>", "", body, flags=re.S)
    return [
        " ".join(re.sub(r"<[^>]+>", " ", row).split())
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    ]


def test_the_rankings_page_is_public_and_named_rankings(client):
    assert reverse("rankings") == "/rankings/"
    response = client.get("/rankings/")
    assert response.status_code == 200
    assert_page_keeps_policy(response)


def test_without_games_both_lists_say_they_are_empty(english):
    html = english.get("/rankings/").content.decode()
    assert "No game has been finished yet." in html and "Nobody has been rated yet." in html
    assert "<tbody>" not in html


def test_the_best_scores_link_players_and_games_and_ratings_follow(english, people):
    alice, bob, charlie = people["alice"], people["bob"], people["charlie"]
    old = played({alice: 1, bob: 2}, totals={alice: 40, bob: 12}, days_ago=2)
    new = played({charlie: 1, alice: 2}, totals={charlie: 55, alice: -4})
    html = english.get("/rankings/").content.decode()
    assert rows_of(html, 0) == [
        f"1 charlie 55 #{new.pk}",
        f"2 alice 40 #{old.pk}",
        f"3 bob 12 #{old.pk}",
        f"4 alice -4 #{new.pk}",
    ]
    assert f'href="/players/{charlie.pk}/">charlie</a>' in html
    assert f'href="/games/{new.pk}/"' in html and f'href="/games/{old.pk}/"' in html
    ratings = rows_of(html, 1)
    assert [row.split()[1] for row in ratings] == ["charlie", "alice", "bob"]
    assert all(row.endswith((" 1", " 2")) for row in ratings)  # games played
    assert re.fullmatch(r"1 charlie \d+\.\d 1", ratings[0])


def test_bots_carry_a_badge_in_both_lists(english, people):
    bot = get_user_model().objects.create_user("Bot Anna")
    played({bot: 1, people["alice"]: 2}, totals={bot: 30, people["alice"]: 10}, bots={bot})
    html = english.get("/rankings/").content.decode()
    assert rows_of(html, 0)[0].startswith("1 Bot Anna Bot 30")
    assert rows_of(html, 1)[0].startswith("1 Bot Anna Bot")
    assert html.count('class="badge badge-bot"') == 2
    assert not any(" Bot " in row for row in rows_of(html, 0)[1:])


def test_player_names_are_escaped_on_both_pages(client, people):
    mallory = get_user_model().objects.create_user(XSS)
    played({mallory: 1, people["bob"]: 2}, totals={mallory: 9, people["bob"]: 3})
    for path in ("/rankings/", f"/players/{mallory.pk}/"):
        html = client.get(path).content.decode()
        assert XSS not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_player_page_shows_rating_record_and_history(english, people):
    alice, bob, charlie = people["alice"], people["bob"], people["charlie"]
    first = played({alice: 1, bob: 2}, totals={alice: 31, bob: 7}, days_ago=3, name="Rheinufer")
    second = played(
        {charlie: 1, alice: 2, bob: 3}, totals={charlie: 20, alice: 12, bob: 2}, name="Kleinbasel"
    )
    response = english.get(f"/players/{alice.pk}/")
    assert response.status_code == 200
    assert_page_keeps_policy(response)
    html = response.content.decode()
    stats = dict(re.findall(r"<dt>(.*?)</dt>\s*<dd>(.*?)</dd>", html))
    assert stats["Games played"] == "2" and stats["Wins"] == "1" and stats["Best score"] == "31"
    assert re.fullmatch(r"-?\d+\.\d", stats["Rating"])
    history = rows_of(html, 0)
    assert len(history) == 2
    delta = RatingChange.objects.get(game=second, user=alice).delta
    arrow = "▲ +" if delta > 0 else "▼ "
    assert history[0].endswith(f"Kleinbasel 2 of 3 12 {arrow}{delta:.1f}")
    assert "Rheinufer 1 of 2 31 ▲ +" in history[1]
    # Each finish in UTC, its date and its time of day (static/js/time.js shows them).
    finished = [game.finished.isoformat() for game in (second, first) for _ in ("date", "time")]
    assert re.findall(r'<time datetime="([^"]+)"', html) == finished
    assert f'href="/games/{second.pk}/">Kleinbasel</a>' in html
    assert f'href="/games/{first.pk}/">Rheinufer</a>' in html


def test_a_player_without_games_has_an_empty_page_and_no_rating(english, people):
    html = english.get(f"/players/{people['bob'].pk}/").content.decode()
    assert "not rated yet" in html and "No finished games yet." in html


def test_a_bot_player_page_says_it_is_a_computer_player(english, people):
    bot = get_user_model().objects.create_user("Bot Ben")
    played({bot: 1, people["alice"]: 2}, totals={bot: 30, people["alice"]: 10}, bots={bot})
    html = english.get(f"/players/{bot.pk}/").content.decode()
    assert 'class="badge badge-bot"' in html and "A computer player." in html


def test_an_unknown_player_is_a_404(client):
    assert client.get("/players/4242/").status_code == 404
    assert client.get("/players/alice/").status_code == 404
