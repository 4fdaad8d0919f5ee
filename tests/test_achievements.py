"""Achievements (rankings.achievements): what each kind's finished games earn their people,
stored once per person, and shown on the game page, the player page, the rankings page and in
``GET /api/players/{id}/``."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Game, Seat
from games.services.lifecycle import game_create
from rankings import achievements
from rankings.models import EarnedAchievement
from rankings.services import award_achievements
from tests.test_road300_site import play_out

pytestmark = pytest.mark.django_db


def keys(kind: str, row: dict, rows=None, state=None, options=None) -> set[str]:
    game = achievements.Finished(
        row=row, rows=rows or [row], state=state or {}, options=options or {}
    )
    return {a.key for a in achievements.earned_by(kind, game)}


def test_rat_um_rad_earns_a_win_every_destination_and_the_longest_route():
    mine = {"player": 1, "place": 1, "destinations_reached": 3, "destinations_missed": 0,
            "longest_path": 9}  # fmt: skip
    theirs = {"player": 2, "place": 2, "destinations_reached": 1, "destinations_missed": 2,
              "longest_path": 4}  # fmt: skip
    rows = [mine, theirs]
    assert keys("ratumrad", mine, rows) == {"first_win", "all_destinations", "longest_path"}
    assert keys("ratumrad", theirs, rows) == set()
    assert keys("ratumrad", mine) == {"all_destinations"}  # alone at the table: no win


def test_road300_earns_300_four_corners_beating_the_bot_and_the_daily():
    corners = {"circled": [[1, 1], [6, 1], [3, 3], [1, 6], [6, 6]]}
    row = {"player": 1, "place": 1, "total": 310, "won": True, "bot_score": 280}
    assert keys("road300", row, state=corners, options={"daily": True}) == {
        "first_300", "four_corners", "beat_the_bot", "daily"
    }  # fmt: skip
    row = {"player": 1, "place": 1, "total": 200, "won": False, "bot_score": 200}
    assert keys("road300", row, state={"circled": [[1, 1]]}) == set()


def test_rage_earns_a_win_a_clean_sweep_and_every_bid_made():
    def sheet(bid_made: bool, sweep: bool) -> list[list[dict]]:
        rounds = []
        for k in range(1, 11):
            cards = 11 - k
            tricks = cards if sweep and k == 3 else 1 if cards > 1 else 0
            bid = tricks if bid_made else tricks + 1
            rounds.append([{"player": 1, "cards": cards, "bid": bid, "tricks": tricks}])
        return rounds

    row, other = {"player": 1, "place": 1}, {"player": 2, "place": 2}
    state = {"sheet": sheet(True, True)}
    assert keys("rage", row, [row, other], state) == {"first_win", "all_tricks", "every_bid"}
    assert keys("rage", other, [row, other], {"sheet": sheet(False, False)}) == set()


def test_a_finished_game_awards_its_people_once_and_computer_players_never(people):
    game = game_create(user=people[0], name="Solo", kind="road300")
    game = play_out(game, people[0])
    earned = set(EarnedAchievement.objects.filter(user=people[0]).values_list("kind", "key"))
    row = game.state["results"][0]
    expected = {
        ("road300", a.key)
        for a in achievements.earned_by(
            "road300", achievements.Finished(row, [row], game.state, game.options)
        )
    }
    assert earned == expected
    daily = game_create(user=people[0], name="Daily", kind="road300", options={"daily": True})
    play_out(daily, people[0])
    assert EarnedAchievement.objects.filter(user=people[0], key="daily", game=daily).exists()
    before = EarnedAchievement.objects.count()
    award_achievements(game=Game.objects.get(pk=daily.pk), results=[])  # again: nothing new
    assert EarnedAchievement.objects.count() == before
    Seat.objects.filter(game=daily).update(is_bot=True)
    EarnedAchievement.objects.all().delete()
    award_achievements(game=Game.objects.get(pk=daily.pk), results=[])
    assert not EarnedAchievement.objects.exists()


def test_achievements_show_on_the_game_player_and_rankings_pages_and_in_the_api(people):
    daily = game_create(user=people[0], name="Daily", kind="road300", options={"daily": True})
    play_out(daily, people[0])
    page = Client()
    page.force_login(people[0])
    html = page.get(f"/games/{daily.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    panel = html[html.index('id="achievements-panel"') :]
    panel = panel[: panel.index("</section>")]
    assert "Daily player" in panel and "is-earned" in panel and "The road to 300" in panel
    player = page.get(f"/players/{people[0].pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Daily player" in player and f"#{daily.pk}" in player
    ranking = page.get("/rankings/?kind=road300", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Daily player" in ranking and "1 player" in ranking
    record = page.get(f"/api/players/{people[0].pk}/").json()
    assert ("road300", "daily", daily.pk) in {
        (item["kind"], item["key"], item["game_id"]) for item in record["achievements"]
    }
