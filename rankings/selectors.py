"""Reads for the rankings: the best single-game scores."""

from __future__ import annotations

from games.models import Game, Seat

TOP = 100


def best_game_scores(*, limit: int = TOP) -> list[dict]:
    """The best final totals of finished games, one row per seat; equal totals share a rank.

    Ranks count the rows above ("1, 2, 2, 4"); among equal totals the earlier game comes first.
    """
    seats = (
        Seat.objects.filter(game__status=Game.Status.FINISHED, total__isnull=False)
        .select_related("user")
        .order_by("-total", "game__finished", "game_id", "id")[:limit]
    )
    rows: list[dict] = []
    for position, seat in enumerate(seats, start=1):
        tied = rows and rows[-1]["score"] == seat.total
        rows.append(
            {
                "rank": rows[-1]["rank"] if tied else position,
                "player": seat.user_id,
                "name": seat.user.get_username(),
                "score": seat.total,
                "game_id": seat.game_id,
                "rating": None,
            }
        )
    return rows
