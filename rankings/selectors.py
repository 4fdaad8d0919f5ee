"""Reads for the rankings: the best single-game scores, the ratings and a player's record, each
within one kind of game (Rat um Rad unless told otherwise)."""

from __future__ import annotations

import functools
import threading
from datetime import UTC, date, datetime, time, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Count, Max, OuterRef, Q, Subquery

from games import registry, rows
from games import selectors as game_selectors
from games.models import Game, Seat
from rankings import achievements
from rankings.models import EarnedAchievement, Rating, RatingChange
from rankings.services import display

TOP = 100
HISTORY = 50  # games on a player's page


def _ranked(rows: list[dict], key: str) -> list[dict]:
    """Number sorted rows; equal values share a rank and the next rank skips ("1, 2, 2, 4")."""
    for position, row in enumerate(rows, start=1):
        tied = position > 1 and rows[position - 2][key] == row[key]
        row["rank"] = rows[position - 2]["rank"] if tied else position
    return rows


def finished_seats(kind: str):
    return Seat.objects.filter(
        game__status=Game.Status.FINISHED, game__kind=kind, total__isnull=False
    )


def day_end(day: str) -> datetime:
    """Midnight (UTC) after ``day``, a ``YYYY-MM-DD`` date (an unreadable one: long ago)."""
    try:
        start = date.fromisoformat(day)
    except (TypeError, ValueError):
        return datetime(1970, 1, 1, tzinfo=UTC)
    return datetime.combine(start + timedelta(days=1), time.min, tzinfo=UTC)


def best_game_scores(
    *, kind: str = registry.DEFAULT_KIND, day: str | None = None, limit: int = TOP
) -> list[dict]:
    """The best final totals of finished games of ``kind``, one row per seat; equal totals
    share a rank ("1, 2, 2, 4"); among equal totals the earlier game comes first.

    With ``day`` (``YYYY-MM-DD``): that day's daily games only, each account's first finished
    daily game of the day and no other (T5.2). A game finished after its day (UTC) does not
    count: by then the day's seed is published and tells every die.
    """
    seats = finished_seats(kind)
    if day is not None:
        daily = seats.filter(game__options__daily=True, game__options__day=day)
        daily = daily.filter(game__finished__lt=day_end(day))
        first = {}
        for seat_id, user_id in daily.order_by("game__finished", "game_id").values_list(
            "id", "user_id"
        ):
            first.setdefault(user_id, seat_id)
        seats = seats.filter(id__in=first.values())
    rating = Rating.objects.filter(user_id=OuterRef("user_id"), kind=kind, games__gt=0)
    seats = (
        seats.select_related("user")
        .annotate(rating=Subquery(rating.values("ordinal")[:1]))
        .order_by("-total", "game__finished", "game_id", "id")
    )
    rows = [
        {
            "rank": 0,
            "player": seat.user_id,
            "name": seat.user.get_username(),
            "score": seat.total,
            "game_id": seat.game_id,
            "rating": None if seat.rating is None else display(seat.rating),
            "is_bot": seat.is_bot,
        }
        for seat in seats[:limit]
    ]
    return _ranked(rows, "score")


def daily_days(kind: str, limit: int = 30) -> list[str]:
    """The latest days with a finished daily game of ``kind``, newest first."""
    days = (
        finished_seats(kind)
        .filter(game__options__daily=True)
        .values_list("game__options__day", flat=True)
        .distinct()
    )
    return sorted({day for day in days if day}, reverse=True)[:limit]


def ratings(*, kind: str = registry.DEFAULT_KIND, limit: int = TOP) -> list[dict]:
    """Rated players in ``kind``, best rating (ordinal) first; equal shown ratings share a
    rank."""
    found = (
        Rating.objects.filter(games__gt=0, kind=kind)
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


def player_kinds(user: AbstractBaseUser) -> list[dict]:
    """Per kind of game the player has finished: rating (if the kind rates), games, wins and
    the best total."""
    ratings = {rating.kind: rating for rating in Rating.objects.filter(user=user)}
    totals = {
        row["game__kind"]: row
        for row in Seat.objects.filter(user=user, game__status=Game.Status.FINISHED)
        .values("game__kind")
        .annotate(games=Count("id"), wins=Count("id", filter=Q(won=True)), best=Max("total"))
    }
    found = []
    for key, kind in registry.KINDS.items():
        if key not in totals:
            continue
        rating = ratings.get(key)
        found.append(
            {
                "kind": key,
                "name": str(kind.name),
                "rating": display(rating.ordinal) if rating and rating.games else None,
                "rated_games": rating.games if rating else 0,
                "games": totals[key]["games"],
                "wins": totals[key]["wins"],
                "best_score": totals[key]["best"],
            }
        )
    return found


def player_record(user: AbstractBaseUser) -> dict:
    """A player's Rat um Rad rating, totals over finished games and their latest games, newest
    first; ``kinds``: the same per kind of game."""
    rating = Rating.objects.filter(user=user, kind=registry.DEFAULT_KIND).first()
    seats = Seat.objects.filter(user=user, game__status=Game.Status.FINISHED)
    totals = seats.aggregate(
        games=Count("id"), wins=Count("id", filter=Q(won=True)), best=Max("total")
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
                "day_name": game_selectors.day_name(seat.game.kind, seat.game.options),
                "kind": seat.game.kind,
                "finished": seat.game.finished,
                "place": seat.place,
                "won": bool(seat.won),
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
        "kinds": player_kinds(user),
        "history": history,
        "achievements": [item for item in achievements_of(user.pk) if item["earned"]],
    }


def achievements_of(user_id: int | None, kind: str | None = None) -> list[dict]:
    """Every achievement (of ``kind``, or of every kind), each with whether and when the user
    earned it and in which game: earned ones first, newest first, then the rest in order."""
    earned = {
        (row.kind, row.key): row
        for row in EarnedAchievement.objects.filter(user_id=user_id)
        if user_id is not None
    }
    listed = []
    for achievement in achievements.all_achievements():
        if kind is not None and achievement.kind != kind:
            continue
        row = earned.get((achievement.kind, achievement.key))
        listed.append(
            {
                "kind": achievement.kind,
                "key": achievement.key,
                "title": str(achievement.title),
                "description": str(achievement.description),
                "earned": row.earned if row else None,
                "game_id": row.game_id if row else None,
            }
        )
    listed.sort(key=lambda item: item["earned"] is None)
    return listed


def achievement_counts(kind: str) -> list[dict]:
    """The achievements of ``kind``, each with how many people have earned it."""
    counts = dict(
        EarnedAchievement.objects.filter(kind=kind)
        .values("key")
        .annotate(people=Count("id"))
        .values_list("key", "people")
    )
    return [
        {
            "key": achievement.key,
            "title": str(achievement.title),
            "description": str(achievement.description),
            "people": counts.get(achievement.key, 0),
        }
        for achievement in achievements.of_kind(kind)
    ]


def finished_game_extras(game: Game):
    """What a finished game's views show of the rankings (``games.selectors``'s hook): each
    results row's ``rating_change`` (``null`` where the game rated nobody: a kind ranked by
    scores, or not rated yet) and, in a seat's own view, ``you.new_achievements``: the keys of
    the achievements this game earned the seat first. One statement, whatever the views."""
    key = (game.pk, game.finished)  # (a game deleted, its id may come again: not its end)
    found = _final.get(key)
    if found is None:
        found = _read_extras(game.pk)
        # Only as committed: a transaction that read its own rating could still roll back.
        if found[0] and not connection.in_atomic_block:
            _remember(key, found)
    changes, earned = found

    def add(view: dict, seated: int | None) -> None:
        for row in view.get("results") or []:
            row["rating_change"] = changes.get(row["player"])
        if seated is not None and isinstance(view.get("you"), dict):
            view["you"]["new_achievements"] = earned.get(seated, [])

    return add


# The extras of rated games, by game, in this process. A game is rated once, and its
# achievements are made with its rating: once it has rating changes, what its views show
# of the rankings is final, and every later view of it (each answer to "Play again", a
# page) needs no read. A game without (a kind ranked by scores, a rating that failed and
# waits for ``rate_games``) is read every time.
FINAL_KEPT = 1000
_final: dict[tuple, tuple[dict[int, float], dict[int, list[str]]]] = {}  # by (id, end)
_final_lock = threading.Lock()


def keep_when_committed(
    game: Game, changes: list[RatingChange], earned: list[EarnedAchievement]
) -> None:
    """What ``finished_game_extras`` would read of ``game``, from the rating changes and
    achievements its end has just made (those earned first have an id), kept once the
    transaction commits: the views after it (its end's broadcast first) read nothing."""
    if not changes:
        return  # as read: only a rated game's extras are final
    deltas = {
        change.user_id: display(change.ordinal_after - change.ordinal_before) for change in changes
    }
    first: dict[int, list[str]] = {}
    for one in sorted((one for one in earned if one.pk is not None), key=lambda one: one.pk):
        first.setdefault(one.user_id, []).append(one.key)
    key = (game.pk, game.finished)
    transaction.on_commit(lambda: _remember(key, (deltas, first)), robust=True)


def _read_extras(game_id: int) -> tuple[dict[int, float], dict[int, list[str]]]:
    changes: dict[int, float] = {}
    earned: dict[int, list[str]] = {}
    for user_id, before, after, key, _, _ in rows.fetch_rows(_finished_sql(), [game_id] * 2):
        if key is None:
            changes[user_id] = display(after - before)
        else:
            earned.setdefault(user_id, []).append(key)
    return changes, earned


def _remember(key: tuple, extras: tuple[dict, dict]) -> None:
    with _final_lock:
        _final[key] = extras
        while len(_final) > FINAL_KEPT:  # the oldest first (a dict keeps its order)
            del _final[next(iter(_final))]


@functools.cache
def _finished_sql() -> str:
    """A game's rating changes (``key`` null), then its achievements in the order earned."""
    quote = connection.ops.quote_name

    def column(model, name: str) -> str:
        return quote(model._meta.get_field(name).column)

    changes, earned = RatingChange, EarnedAchievement
    return f"""SELECT {column(changes, "user")}, {column(changes, "ordinal_before")},
            {column(changes, "ordinal_after")}, NULL, 0, {column(changes, "id")}
        FROM {quote(changes._meta.db_table)} WHERE {column(changes, "game")} = %s
        UNION ALL
        SELECT {column(earned, "user")}, NULL, NULL, {column(earned, "key")}, 1,
            {column(earned, "id")}
        FROM {quote(earned._meta.db_table)} WHERE {column(earned, "game")} = %s
        ORDER BY 5, 6"""
