"""A game's life before and after its moves: created, joined, dealt, offered again."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games import broadcast, registry, rows, selectors, turns
from games.contract import EngineError
from games.errors import (
    Conflict,
    Forbidden,
    RateLimited,
    ServiceError,
)
from games.limits import RateLimit
from games.models import Event, Game, Seat
from games.moves import sql
from games.moves.base import (
    after_commit,
    kind_of,
    lobby_changed,
    locked,
)
from games.moves.record import record

NAME_MAX_LENGTH = 64
BOT_NAMES = (
    "Bot Anna", "Bot Ben", "Bot Clara", "Bot Dario", "Bot Ella", "Bot Fritz", "Bot Greta",
    "Bot Hans", "Bot Ida", "Bot Jakob",
)  # fmt: skip


TURN_SECONDS_RANGE = (10, 3600)
SITE_DEFAULT = "default"  # turn_seconds: the site's setting for a public game, none if private


@dataclass(frozen=True)
class NewGame:
    """A new game's settings, checked (``check_game_create``)."""

    kind: registry.GameKind
    options: dict
    name: str
    max_players: int
    bots: int
    private: bool
    turn_seconds: int | None
    pace: str = Game.Pace.LIVE


def check_game_kind(kind: object, options: object) -> tuple[registry.GameKind, dict]:
    """The kind of a new game and its options with their defaults; ``bad_field`` naming the
    field otherwise."""
    try:
        game_kind = registry.get(kind)
    except registry.UnknownKind:
        raise ServiceError(
            "there is no game kind {kind}; known: {known}",
            "bad_field",
            prefix="kind",
            kind=repr(kind),
            known=", ".join(registry.KINDS),
        ) from None
    try:
        return game_kind, game_kind.engine.check_options({} if options is None else options)
    except EngineError as error:
        field = getattr(error, "field", "options")
        raise ServiceError.from_engine(error, 400, prefix=field) from None


def check_game_create(
    *,
    name: object,
    max_players: object = None,
    bots: object = 0,
    private: object = False,
    turn_seconds: object = SITE_DEFAULT,
    kind: object = registry.DEFAULT_KIND,
    options: object = None,
    pace: object = Game.Pace.LIVE,
) -> NewGame:
    """The settings of a new game, or ``bad_field`` naming the first wrong one. A solo kind
    takes one seat, no computer players and no timer, whatever was asked.

    ``pace``: live (``turn_seconds`` as given), or turn-based: ``turn_seconds`` one of
    ``turns.TURN_BASED_SECONDS`` (by default a day)."""
    game_kind, options = check_game_kind(kind, options)
    try:
        options = game_kind.glue.site_options(options)
    except EngineError as error:
        raise ServiceError.from_engine(
            error, 400, prefix=getattr(error, "field", "options")
        ) from None
    name = _game_name(name)
    if game_kind.solo:
        return NewGame(game_kind, options, name, 1, 0, True, None)
    turn_seconds = _turn_seconds(pace, turn_seconds, private)
    low, high = game_kind.min_players, game_kind.max_players
    if max_players is None:
        max_players = low
    if isinstance(max_players, bool) or not isinstance(max_players, int):
        raise ServiceError("A valid integer is required.", "bad_field", prefix="max_players")
    # The same words (and translations) as the API's own range checks.
    if max_players < low:
        raise ServiceError(
            "Ensure this value is greater than or equal to {min_value}.",
            "bad_field",
            prefix="max_players",
            min_value=low,
        )
    if max_players > high:
        raise ServiceError(
            "Ensure this value is less than or equal to {max_value}.",
            "bad_field",
            prefix="max_players",
            max_value=high,
        )
    if isinstance(bots, bool) or not isinstance(bots, int) or not 0 <= bots < max_players:
        raise ServiceError("must leave at least one seat for you", "bad_field", prefix="bots")
    return NewGame(
        game_kind, options, name, max_players, bots, bool(private), turn_seconds or None, pace
    )


def _turn_seconds(pace: object, turn_seconds: object, private: object) -> int | None:
    """A new game's seconds a turn (None: no limit), checked for its pace."""
    if pace not in Game.Pace.values:
        raise ServiceError(
            "the pace is one of {paces}", "bad_field", prefix="pace", paces=", ".join(Game.Pace)
        )
    if pace == Game.Pace.TURN_BASED:
        if turn_seconds == SITE_DEFAULT:
            return turns.TURN_BASED_DEFAULT
        if isinstance(turn_seconds, bool) or turn_seconds not in turns.TURN_BASED_SECONDS:
            raise ServiceError(
                "a turn-based game gives {choices} seconds a turn",
                "bad_field",
                prefix="turn_seconds",
                choices=", ".join(map(str, turns.TURN_BASED_SECONDS)),
            )
        return turn_seconds
    if turn_seconds == SITE_DEFAULT:
        return None if private else settings.TURN_SECONDS_PUBLIC
    low, high = TURN_SECONDS_RANGE
    if turn_seconds is not None and turn_seconds != 0 and not low <= turn_seconds <= high:
        raise ServiceError(
            "a turn lasts {low} to {high} seconds, or 0 for no limit",
            "bad_field",
            low=low,
            high=high,
        )
    return turn_seconds or None


def do_game_create(*, user: AbstractBaseUser, new: NewGame) -> Game:
    """Create the game with ``user`` in its first seat; a solo game is dealt at once."""
    game = Game(
        name=new.name,
        kind=new.kind.key,
        options=new.options,
        max_players=new.max_players,
        creator=user,
        seed=new.kind.glue.new_seed(new.options),
        private=new.private,
        turn_seconds=new.turn_seconds,
        pace=new.pace,
    )
    seats = [Seat(user=user)]
    for bot_user in bot_users(new.bots, exclude={user.pk}):
        seats.append(Seat(user=bot_user, is_bot=True, bot=new.kind.default_bot))
    sql.create_with(game, seats, "game")  # one statement for them all, in their seats' order
    game.seat_count = len(seats)  # as the lobby's queries annotate it (``game_summary``)
    if new.kind.solo:
        do_game_start(game=game, seats=seats, fresh=True)
    else:
        lobby_changed(game, [seat.user_id for seat in seats])
    return game


def game_create(
    *,
    user: AbstractBaseUser,
    name: str,
    max_players: int | None = None,
    bots: int = 0,
    private: bool = False,
    turn_seconds: int | str | None = SITE_DEFAULT,
    kind: str = registry.DEFAULT_KIND,
    options: dict | None = None,
    pace: str = Game.Pace.LIVE,
) -> Game:
    """A new game of ``kind`` with ``user`` in its first seat and ``bots`` computer players.

    ``turn_seconds``: a person's time per turn (``None`` or 0: no limit); by default
    ``settings.TURN_SECONDS_PUBLIC`` for a public game and no limit for a private one.
    A solo kind seats ``user`` alone and starts at once (no bots, no timer).
    """
    new = check_game_create(
        name=name,
        max_players=max_players,
        bots=bots,
        private=private,
        turn_seconds=turn_seconds,
        kind=kind,
        options=options,
        pace=pace,
    )
    with transaction.atomic(durable=True):
        check_game_limits(user=user, new=new)
        return do_game_create(user=user, new=new)


def check_game_limits(*, user: AbstractBaseUser, new: NewGame) -> None:
    """At most ``GAMES_WAITING_PER_USER`` games created by ``user`` wait for players (409
    ``too_many_waiting``), and at most ``GAME_RATE`` new games per user (429
    ``rate_limited``). The user's row is locked, so that parallel calls count each other."""
    rows.lock(get_user_model(), user.pk)
    most = settings.GAMES_WAITING_PER_USER
    if not new.kind.solo and most > 0:
        waiting = Game.objects.filter(creator=user, status=Game.Status.WAITING).count()
        if waiting >= most:
            raise Conflict(
                "you already have {count} games waiting for players; start one or leave it first",
                "too_many_waiting",
                count=waiting,
            )
    limit = RateLimit("game", user.pk)
    if not limit.allowed():
        raise RateLimited(
            "too many new games; try again in {seconds} seconds",
            seconds=max(1, round(limit.wait() or 1)),
        )


def _game_name(name: object) -> str:
    name = (name if isinstance(name, str) else "").strip()
    if not 1 <= len(name) <= NAME_MAX_LENGTH:
        raise ServiceError(
            "a game name has 1 to {max} characters", "bad_field", max=NAME_MAX_LENGTH
        )
    return name


def bot_users(count: int, exclude: Collection[int]) -> list[AbstractBaseUser]:
    """``count`` users of the fixed pool of computer players, created on first use.

    A pool name some person registered first (a guest, an account with a password) is
    skipped: a bot never plays in a person's name.
    """
    found = []
    for name in BOT_NAMES:
        if len(found) == count:
            break
        user, created = get_user_model().objects.get_or_create(username=name)
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        elif user.has_usable_password() or hasattr(user, "guest") or user.pk in exclude:
            continue
        found.append(user)
    if len(found) < count:
        raise ServiceError("there are not enough computer players", "bad_field")
    return found


def check_game_join(*, game_id: int, user: AbstractBaseUser) -> tuple[Game, list[Seat]]:
    """The locked waiting game with a seat free for ``user``, and its seats."""
    game = locked(game_id)
    if game.status != Game.Status.WAITING:
        raise Conflict("the game has already started", "started")
    seats = selectors.seats_in_joining_order(game.pk)
    if any(seat.user_id == user.pk for seat in seats):
        raise Conflict("you already have a seat in this game", "already_seated")
    if len(seats) >= game.max_players:
        raise Conflict("the game is full", "full")
    return game, seats


def do_game_join(*, game: Game, user: AbstractBaseUser, seats: list[Seat] | None = None) -> Seat:
    """``user`` takes a seat. ``seats``: the game's seats before, if read already (then who
    sits in it is not read again)."""
    seat = Seat(game=game, user=user)
    sql.create([seat])
    events = [{"kind": "joined", "player": user.pk}]
    sql.insert([Event(game=game, seq=game.seq, kind="joined", data=events[0])])
    after_commit(lambda: broadcast.game_changed(game, None, events))
    if seats is None:
        lobby_changed(game)
    else:
        game.seat_count = len(seats) + 1
        lobby_changed(game, [*(other.user_id for other in seats), user.pk])
    return seat


def game_join(*, game_id: int, user: AbstractBaseUser) -> Seat:
    with transaction.atomic(durable=True):
        game, seats = check_game_join(game_id=game_id, user=user)
        return do_game_join(game=game, user=user, seats=seats)


def check_game_start(*, game_id: int, user: AbstractBaseUser) -> tuple[Game, list[Seat]]:
    """The locked waiting game, started by its creator with enough seats taken; its seats in
    the order the log replays."""
    game = locked(game_id)
    if game.creator_id != user.pk:
        raise Forbidden("only the player who created the game can start it")
    if game.status != Game.Status.WAITING:
        raise Conflict("the game has already started", "started")
    seats = selectors.seats_in_joining_order(game.pk)
    game_kind = kind_of(game)
    count, rule = game_kind.min_players, game_kind.seats_rule
    if len(seats) >= count:
        return game, seats
    if rule:
        raise Conflict(
            "a game needs at least {count} players ({rule})",
            "too_few_players",
            count=count,
            rule=rule,
        )
    raise Conflict("a game needs at least {count} players", "too_few_players", count=count)


def do_game_start(*, game: Game, seats: list[Seat], fresh: bool = False) -> None:
    """Deal: the engine's new game for these seats (Rat um Rad: the preparation phase, R2).
    ``fresh``: the game was made in this transaction (``record``)."""
    game_kind = kind_of(game)
    state = game_kind.engine.new_game(game.seed, [seat.user_id for seat in seats], game.options)
    game.started = timezone.now()
    record(game, state, seats, None, None, game_kind.glue.start_events(state), fresh=fresh)
    after_commit(lambda: game_kind.glue.warm_up(game, state))


def game_start(*, game_id: int, user: AbstractBaseUser) -> Game:
    with transaction.atomic(durable=True):
        game, seats = check_game_start(game_id=game_id, user=user)
        do_game_start(game=game, seats=seats)
    game.seat_count = len(seats)
    return game
