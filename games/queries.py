"""Reads for the HTTP API that ``games.selectors`` does not have: lists and lookups by id."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from games import registry, selectors
from games.errors import Conflict, Forbidden, NotFound
from games.models import Game, Seat


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
    games = listed_games(user_id).defer(*selectors.NOT_SUMMARIZED)
    games = games.annotate(seat_count=Count("seats")).order_by("-created", "-id")
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


def check_visible(game: Game, user_id: int | None) -> None:
    """Refuse a sealed game (a daily game of a day that still runs) to all but its players."""
    if registry.get(game.kind).glue.sealed(game) and not (
        user_id is not None and game.seats.filter(user_id=user_id).exists()
    ):
        raise Forbidden(
            "today's daily challenge games are shown to their own player only until the day"
            " is over",
            "sealed",
        )


def visible_game(game_id: object, user_id: int | None) -> Game:
    """The game, if ``user_id`` (None: nobody logged in) may see it."""
    game = game_by_id(game_id)
    check_visible(game, user_id)
    return game


def finished_game_log(game_id: object, user_id: int | None = None) -> dict:
    """The move log, published only once the game is finished (it reveals every card); a
    sealed game's only to its players, and without its seed."""
    game = visible_game(game_id, user_id)
    if game.status != Game.Status.FINISHED:
        raise Conflict("the log is published once the game is finished", "not_finished")
    return selectors.game_log(game)


def game_hint(game_id: object, user_id: int | None) -> dict:
    """What the kind's hint bot would play in the caller's seat now (T5.1): ``move`` (an entry
    of the seat's ``legal``) and the kind's extras (Road to 300: the ``path``). The daily
    challenge is played without hints: everyone faces the same dice alone."""
    game = game_by_id(game_id)
    kind = registry.get(game.kind)
    if not kind.hint_bot:
        raise Conflict("{kind} offers no hints", "no_hint", kind=str(kind.name))
    if not game.seats.filter(user_id=user_id).exists():
        raise Forbidden("only a player of this game may ask for a hint", "not_seated")
    if game.options.get("daily"):
        raise Conflict("the daily challenge is played without hints", "no_hint")
    state = selectors.engine_state(game)
    if state is None or kind.engine.is_over(state) or user_id not in kind.engine.to_move(state):
        raise Conflict("there is nothing for you to decide now", "not_your_turn")
    view = kind.engine.view(state, user_id)
    move = kind.engine.make_bot(kind.hint_bot, game.seed).choose(view)
    return {"seq": view["seq"], "move": move, **kind.glue.hint_extra(view, move)}


FINISHED_SHOWN = 20  # a person's ended games on their "my games" list, the newest


def waiting_for(user_id: int) -> QuerySet[Seat]:
    """The seats of ``user_id`` in games being played whose move is theirs now (not while
    the computer stands in for them)."""
    return Seat.objects.filter(
        user_id=user_id, to_move=True, autopilot=False, left=False, game__status__in=Game.PLAYING
    )


def my_games(user_id: int) -> list[dict]:
    """Every game ``user_id`` sits in: those waiting for their move first (the nearest
    deadline first), then the others being played, those waiting for players, and the newest
    ``FINISHED_SHOWN`` that ended. Each a game summary with ``your_move`` and
    ``turn_deadline``. Three queries, however many games."""
    seats = Seat.objects.filter(user_id=user_id).select_related("game")
    seats = seats.defer(*(f"game__{field}" for field in selectors.NOT_SUMMARIZED))
    open_seats = list(seats.exclude(game__status__in=Game.OVER))
    ended = list(
        seats.filter(game__status__in=Game.OVER).order_by("-game__finished", "-game_id")[
            :FINISHED_SHOWN
        ]
    )
    counts = dict(
        Seat.objects.filter(game_id__in=[seat.game_id for seat in open_seats + ended])
        .values_list("game_id")
        .annotate(count=Count("id"))
    )

    def your_move(seat: Seat) -> bool:  # as ``waiting_for`` reads it
        return seat.game.is_playing and seat.to_move and not seat.autopilot and not seat.left

    def row(seat: Seat) -> dict:
        game = seat.game
        deadline = game.turn_deadline if game.is_playing else None
        return {
            **selectors.game_summary(game, counts.get(game.pk, 0)),
            "your_move": your_move(seat),
            "turn_deadline": deadline.isoformat() if deadline else None,
        }

    def order(seat: Seat) -> tuple:
        game, mine = seat.game, your_move(seat)
        deadline = game.turn_deadline.timestamp() if mine and game.turn_deadline else float("inf")
        group = 0 if mine else 1 if game.is_playing else 2
        return (group, deadline, -game.updated.timestamp())

    return [row(seat) for seat in sorted(open_seats, key=order)] + [row(seat) for seat in ended]
