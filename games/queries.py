"""Reads for the HTTP API that ``games.selectors`` does not have: lists and lookups by id."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from games import selectors
from games.models import Game, Seat
from games.services import Conflict, NotFound


def listed_games(user_id: int | None) -> QuerySet[Game]:
    """The games a user sees in lists: the public ones and the private ones they sit in."""
    mine = Seat.objects.filter(user_id=user_id).values("game_id")
    return Game.objects.filter(Q(private=False) | Q(pk__in=mine))


def lobby_games(
    *,
    user_id: int | None = None,
    status: str | None = None,
    kind: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> list[dict]:
    """Game summaries, newest first, in one query (the seat count is annotated)."""
    games = listed_games(user_id).annotate(seat_count=Count("seats")).order_by("-created", "-id")
    if status:
        games = games.filter(status=status)
    if kind:
        games = games.filter(kind=kind)
    return [
        selectors.game_summary(game, game.seat_count) for game in games[offset : offset + limit]
    ]


def game_by_id(game_id: object) -> Game:
    try:
        return Game.objects.get(pk=game_id)
    except (Game.DoesNotExist, ValueError, TypeError):
        raise NotFound("there is no game {game}", game=repr(game_id)) from None


def finished_game_log(game_id: object) -> dict:
    """The move log, published only once the game is finished (it reveals every card)."""
    game = game_by_id(game_id)
    if game.status != Game.Status.FINISHED:
        raise Conflict("the log is published once the game is finished", "not_finished")
    return selectors.game_log(game)
