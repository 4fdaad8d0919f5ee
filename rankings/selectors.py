"""Reads for the rankings: the best single-game scores, the ratings and a player's record."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Max, Q

from games.models import Game, Seat
from rankings.models import Rating, RatingChange
from rankings.services import display

TOP = 100
HISTORY = 50  # games on a player's page


def _ranked(rows: list[dict], key: str) -> list[dict]:
    """Number sorted rows; equal values share a rank and the next rank skips ("1, 2, 2, 4")."""
    for position, row in enumerate(rows, start=1):
        tied = position > 1 and rows[position - 2][key] == row[key]
        row["rank"] = rows[position - 2]["rank"] if tied else position
    return rows


def _rating_of(user: AbstractBaseUser) -> float | None:
    rating = getattr(user, "rating", None)
    return display(rating.ordinal) if rating and rating.games else None


def best_game_scores(*, limit: int = TOP) -> list[dict]:
    """The best final totals of finished games, one row per seat; equal totals share a rank.

    Ranks count the rows above ("1, 2, 2, 4"); among equal totals the earlier game comes first.
    """
    seats = (
        Seat.objects.filter(game__status=Game.Status.FINISHED, total__isnull=False)
        .select_related("user", "user__rating")
        .order_by("-total", "game__finished", "game_id", "id")[:limit]
    )
    rows = [
        {
            "rank": 0,
            "player": seat.user_id,
            "name": seat.user.get_username(),
            "score": seat.total,
            "game_id": seat.game_id,
            "rating": _rating_of(seat.user),
            "is_bot": seat.is_bot,
        }
        for seat in seats
    ]
    return _ranked(rows, "score")


def ratings(*, limit: int = TOP) -> list[dict]:
    """Rated players, best rating (ordinal) first; equal shown ratings share a rank."""
    found = (
        Rating.objects.filter(games__gt=0)
        .select_related("user")
        .order_by("-ordinal", "user_id")[:limit]
    )
    rows = [
        {
            "rank": 0,
            "player": rating.user_id,
            "name": rating.user.get_username(),
            "rating": display(rating.ordinal),
            "games": rating.games,
            "is_bot": rating.is_bot,
        }
        for rating in found
    ]
    return _ranked(rows, "rating")


def player_record(user: AbstractBaseUser) -> dict:
    """A player's rating, totals over finished games and their latest games, newest first."""
    rating = Rating.objects.filter(user=user).first()
    seats = Seat.objects.filter(user=user, game__status=Game.Status.FINISHED)
    totals = seats.aggregate(
        games=Count("id"), wins=Count("id", filter=Q(place=1)), best=Max("total")
    )
    latest = list(
        seats.select_related("game")
        .annotate(players=Count("game__seats"))
        .order_by("-game__finished", "-game_id")[:HISTORY]
    )
    changes = {
        change.game_id: change
        for change in RatingChange.objects.filter(
            user=user, game_id__in=[seat.game_id for seat in latest]
        )
    }
    history = []
    for seat in latest:
        change = changes.get(seat.game_id)
        history.append(
            {
                "game_id": seat.game_id,
                "game_name": seat.game.name,
                "finished": seat.game.finished,
                "place": seat.place,
                "players": seat.players,
                "total": seat.total,
                "rating": display(change.ordinal_after) if change else None,
                "rating_change": display(change.delta) if change else None,
            }
        )
    rated = rating is not None and rating.games > 0
    return {
        "player": user.pk,
        "name": user.get_username(),
        "is_bot": Seat.objects.filter(user=user, is_bot=True).exists(),
        "rating": display(rating.ordinal) if rated else None,
        "rated_games": rating.games if rating else 0,
        "games": totals["games"],
        "wins": totals["wins"],
        "best_score": totals["best"],
        "history": history,
    }
