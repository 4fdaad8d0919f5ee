"""The rankings: the best final totals of finished games, ties sharing a rank."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Game, Seat
from rankings import selectors

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    users = get_user_model().objects
    return {name: users.create_user(name) for name in ("alice", "bob", "charlie", "dora")}


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
    assert rankings() == [{**dict(zip(keys, row, strict=True)), "rating": None} for row in rows]


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
