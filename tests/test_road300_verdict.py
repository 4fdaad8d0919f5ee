"""Road to 300 is won with 300 points or more (T4.3): a game that ends below is no win, although
its only player has the first place, on the player page, in the API and in the achievements."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games.models import Game, Seat
from games.moves import play
from games.road300 import bots, engine
from games.services.admin import game_end_now
from games.services.lifecycle import game_create, game_join, game_start
from rankings.models import EarnedAchievement

WINNING_SEED = 1  # the strong bot reaches exactly 300 on these dice; the first legal turn never


def played(user, *, strong: bool) -> Game:
    """A game on WINNING_SEED's dice played to its end through the services: by the strong
    bot's choices, or always the first legal turn."""
    game = game_create(user=user, name="Solo", kind="road300")
    state = engine.new_game(WINNING_SEED, [user.pk], {})
    Game.objects.filter(pk=game.pk).update(seed=WINNING_SEED, state=engine.to_dict(state))
    bot = bots.make_bot("strong", 0)
    while True:
        game.refresh_from_db()
        state = engine.from_dict(game.state)
        if engine.is_over(state):
            return game
        view = engine.view(state, user.pk)
        move = bot.choose(view) if strong else view["legal"][0]
        play.move_apply(game_id=game.pk, user=user, move=move, expect_seq=state.seq)


def record_of(user) -> dict:
    return APIClient().get(f"/api/players/{user.pk}/").json()


def page_stats(user) -> tuple[dict, str]:
    html = Client().get(f"/players/{user.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    return dict(re.findall(r"<dt>(.*?)</dt>\s*<dd>(.*?)</dd>", html)), html


def earned(user) -> set[str]:
    return set(EarnedAchievement.objects.filter(user=user).values_list("key", flat=True))


@pytest.mark.django_db
def test_T4_3_a_game_that_ends_below_300_is_no_win_anywhere(people):
    alice = people["alice"]
    game = played(alice, strong=False)
    row = engine.results(engine.from_dict(game.state))[0]
    assert row["place"] == 1 and row["total"] < 300 and row["won"] is False
    assert Seat.objects.get(game=game).won is False

    record = record_of(alice)
    assert (record["games"], record["wins"]) == (1, 0)
    assert [(k["kind"], k["games"], k["wins"]) for k in record["kinds"]] == [("road300", 1, 0)]
    assert [(g["place"], g["won"]) for g in record["history"]] == [(1, False)]

    stats, html = page_stats(alice)
    assert (stats["Games played"], stats["Wins"]) == ("1", "0")
    assert 'class="winner"' not in html
    assert "first_300" not in earned(alice)


@pytest.mark.django_db
def test_T4_3_a_game_of_300_points_counts_as_a_win_everywhere(people):
    bob = people["bob"]
    game = played(bob, strong=True)
    row = engine.results(engine.from_dict(game.state))[0]
    assert row["total"] >= 300 and row["won"] is True
    assert Seat.objects.get(game=game).won is True

    record = record_of(bob)
    assert (record["games"], record["wins"]) == (1, 1)
    assert [(g["place"], g["won"]) for g in record["history"]] == [(1, True)]

    stats, html = page_stats(bob)
    assert stats["Wins"] == "1"
    assert 'class="winner"' in html
    assert "first_300" in earned(bob)


@pytest.mark.django_db
def test_first_place_against_others_is_still_a_win(people):
    """Rat um Rad and RAGE: the results rows say ``won`` for every first place."""
    alice, bob = people["alice"], people["bob"]
    game = game_create(user=alice, name="Rheinufer", max_players=2)
    game_join(game_id=game.pk, user=bob)
    game_start(game_id=game.pk, user=alice)
    game_end_now(game_id=game.pk, reason="admin")
    seats = {seat.user_id: seat for seat in Seat.objects.filter(game=game)}
    assert {seat.won for seat in seats.values()} <= {True, False}
    assert [seat.won for seat in seats.values()] == [seat.place == 1 for seat in seats.values()]
    winners = sum(seat.won for seat in seats.values())
    assert (record_of(alice)["wins"] + record_of(bob)["wins"]) == winners >= 1
