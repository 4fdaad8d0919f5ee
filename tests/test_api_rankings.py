"""The rankings API: best final totals, the players by rating, one player's record."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Game, Seat
from games.signals import game_finished
from rankings import selectors
from rankings.models import Rating
from tests.test_api_schema import check

pytestmark = pytest.mark.django_db


def played(scores: dict, status: str = Game.Status.FINISHED, days_ago: int = 0) -> Game:
    """A game over (or not) with these final totals, by user."""
    game = Game.objects.create(
        name="Rheinufer",
        max_players=len(scores),
        seed=1,
        status=status,
        finished=timezone.now() - timedelta(days=days_ago),
    )
    finished = status == Game.Status.FINISHED
    Seat.objects.bulk_create(
        Seat(game=game, user=user, turn_order=n, total=total if finished else None)
        for n, (user, total) in enumerate(scores.items())
    )
    return game


def rankings() -> list[dict]:
    response = APIClient().get("/api/rankings/")
    assert response.status_code == 200
    return response.json()


def test_no_finished_game_means_an_empty_ranking():
    assert rankings() == []


def test_the_best_scores_come_first_one_row_per_seat(people):
    alice, bob, charlie = people["alice"], people["bob"], people["charlie"]
    old = played({alice: 40, bob: 12}, days_ago=3)
    new = played({alice: 55, charlie: -4})
    rows = [
        (1, alice.pk, "alice", 55, new.pk),
        (2, alice.pk, "alice", 40, old.pk),
        (3, bob.pk, "bob", 12, old.pk),
        (4, charlie.pk, "charlie", -4, new.pk),
    ]
    keys = ("rank", "player", "name", "score", "game_id")
    assert rankings() == [
        {**dict(zip(keys, row, strict=True)), "rating": None, "is_bot": False} for row in rows
    ]


def test_equal_scores_share_a_rank_and_the_next_rank_skips(people):
    played({people["alice"]: 30, people["bob"]: 20}, days_ago=2)
    played({people["charlie"]: 30, people["dora"]: 10}, days_ago=1)
    rows = rankings()
    assert [(r["rank"], r["name"], r["score"]) for r in rows] == [
        (1, "alice", 30),  # the earlier game first
        (1, "charlie", 30),
        (3, "bob", 20),
        (4, "dora", 10),
    ]


def test_only_finished_games_count(people):
    played({people["alice"]: 99, people["bob"]: 98}, status=Game.Status.RUNNING)
    played({people["alice"]: 97, people["bob"]: 96}, status=Game.Status.ABORTED)
    played({people["charlie"]: 5, people["dora"]: 4})
    assert [r["name"] for r in rankings()] == ["charlie", "dora"]


def test_the_ranking_stops_at_the_top_100(people, django_assert_max_num_queries):
    for n in range(51):
        played({people["alice"]: n, people["bob"]: n})
    with django_assert_max_num_queries(1):
        rows = selectors.best_game_scores()
    assert len(rows) == selectors.TOP == 100
    assert rows[0]["score"] == 50 and rows[-1]["score"] == 1
    assert [r["rank"] for r in rows[:4]] == [1, 1, 3, 3]


def rated(places: dict, bots=()) -> Game:
    """A finished game with these places (totals follow), announced as the services do."""
    game = played({user: 40 - 10 * place for user, place in places.items()})
    Seat.objects.filter(game=game, user__in=bots).update(is_bot=True)
    for user, place in places.items():
        Seat.objects.filter(game=game, user=user).update(place=place, won=place == 1)
    rows = [
        {"player": u.pk, "place": p, "total": 40 - 10 * p, "won": p == 1} for u, p in places.items()
    ]
    game_finished.send(sender=Game, game=game, results=rows)
    return game


def test_each_score_row_carries_the_players_current_rating_and_bot_mark(people):
    alice, bob = people["alice"], people["bob"]
    rated({alice: 1, bob: 2}, bots={bob})
    rows = {row["name"]: row for row in rankings()}
    assert rows["alice"]["rating"] == round(Rating.objects.get(user=alice).ordinal, 1) > 0
    assert rows["bob"]["rating"] < 0
    assert (rows["alice"]["is_bot"], rows["bob"]["is_bot"]) == (False, True)


def ratings() -> list[dict]:
    response = APIClient().get("/api/rankings/ratings/")
    assert response.status_code == 200
    return response.json()


def test_the_ratings_list_has_rated_players_best_first(people, django_assert_max_num_queries):
    alice, bob, charlie, dora = (people[name] for name in ("alice", "bob", "charlie", "dora"))
    assert ratings() == []
    rated({alice: 1, bob: 2, charlie: 2}, bots={charlie})
    rated({alice: 1, bob: 2})
    rows = ratings()
    assert [(r["rank"], r["name"], r["games"], r["is_bot"]) for r in rows] == [
        (1, "alice", 2, False),
        (2, "charlie", 1, True),
        (3, "bob", 2, False),
    ]
    assert rows[0]["rating"] == round(Rating.objects.get(user=alice).ordinal, 1)
    assert dora.pk not in {row["player"] for row in rows}
    with django_assert_max_num_queries(1):
        selectors.ratings()


def test_equal_ratings_share_a_rank(people):
    rated({people["alice"]: 1, people["bob"]: 1, people["charlie"]: 3})
    assert [(r["rank"], r["name"]) for r in ratings()] == [(1, "alice"), (1, "bob"), (3, "charlie")]


def test_a_players_record_has_rating_wins_best_score_and_history(people):
    alice, bob = people["alice"], people["bob"]
    first = rated({alice: 1, bob: 2})
    second = rated({alice: 2, bob: 1})
    played({alice: 99, bob: 98}, status=Game.Status.ABORTED)
    response = APIClient().get(f"/api/players/{alice.pk}/")
    assert response.status_code == 200
    record = response.json()
    rating = Rating.objects.get(user=alice)
    assert record["rating"] == round(rating.ordinal, 1)
    assert (record["name"], record["is_bot"], record["rated_games"]) == ("alice", False, 2)
    assert (record["games"], record["wins"], record["best_score"]) == (2, 1, 30)
    history = record["history"]
    assert [(g["game_id"], g["place"], g["players"], g["total"]) for g in history] == [
        (second.pk, 2, 2, 20),
        (first.pk, 1, 2, 30),
    ]
    assert history[0]["rating"] == record["rating"]
    assert history[0]["rating_change"] < 0 < history[1]["rating_change"]


def test_an_unknown_player_is_a_404_with_the_error_shape():
    response = APIClient().get("/api/players/4242/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "there is no player 4242"}


def test_the_rankings_answers_match_their_documented_schemas(people):
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    anonymous = APIClient()
    rated({people["alice"]: 1, people["bob"]: 2}, bots={people["bob"]})
    check(schema, "/api/rankings/", "get", anonymous.get("/api/rankings/"))
    check(schema, "/api/rankings/ratings/", "get", anonymous.get("/api/rankings/ratings/"))
    for user in (people["alice"], people["dora"]):
        response = anonymous.get(f"/api/players/{user.pk}/")
        check(schema, "/api/players/{user_id}/", "get", response)
    check(schema, "/api/players/{user_id}/", "get", anonymous.get("/api/players/0/"))
