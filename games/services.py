"""Every change to a game goes through here; consumers, API views and the admin only call these.

A move is one transaction: lock the game row, check the expected ``seq``, load the engine
state, apply, write the state and its projections, bump ``seq``. The game's kind
(``games.registry``) supplies the engine and the projections; nothing here knows the rules of
any game. Messages to clients leave
only after the commit (``transaction.on_commit``), each seat its own view, spectators the
public view (``games.broadcast``).

Each entry point (the services without ``check_``/``do_``) owns its transaction, a durable
one: called inside another transaction it fails at once (RuntimeError), rather than sending
its messages after a commit that has not happened yet.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from games import broadcast, registry, rows, selectors, turns
from games.contract import EngineError
from games.limits import RateLimit
from games.models import ChatMessage, Event, Game, Move, Rematch, Seat
from games.signals import bots_may_move, game_finished, turn_deadline_set

CHAT_MAX_LENGTH = 500
NAME_MAX_LENGTH = 64
BOT_NAMES = (
    "Bot Anna", "Bot Ben", "Bot Clara", "Bot Dario", "Bot Ella", "Bot Fritz", "Bot Greta",
    "Bot Hans", "Bot Ida", "Bot Jakob",
)  # fmt: skip


def localized(template: str, params: dict, prefix: str | None = None) -> str:
    """A refusal in the active language: ``template`` translated, then filled with ``params``
    (which a caller may have put in a catalog: engine rules, field names stay as they are)."""
    text = gettext(template)
    if params:
        text = text.format(**params)
    return f"{prefix}: {text}" if prefix else text


class ServiceError(Exception):
    """A refused request: ``code`` is the protocol's error code, ``status`` the HTTP status.

    ``message`` is the English ``template`` filled with ``params``, translated into the
    active language when it is read (the request's, or the socket's), after ``prefix`` (a
    rule id or a field name) and a colon.
    """

    code = "bad_request"
    status = 400

    def __init__(
        self,
        message: str,
        code: str | None = None,
        status: int | None = None,
        *,
        prefix: str | None = None,
        **params: object,
    ):
        super().__init__(message.format(**params) if params else message)
        self.template, self.params, self.prefix = message, params, prefix
        if code:
            self.code = code
        if status:
            self.status = status

    @property
    def message(self) -> str:
        return localized(self.template, self.params, self.prefix)

    @classmethod
    def from_engine(cls, error: EngineError, status: int = 409, prefix: str | None = None):
        """An engine's refusal, with its rule (or ``prefix``) in front."""
        return cls(error.template, error.code, status, prefix=prefix or error.rule, **error.params)


class NotFound(ServiceError):
    code, status = "not_found", 404


class Conflict(ServiceError):
    code, status = "conflict", 409


class Forbidden(ServiceError):
    code, status = "forbidden", 403


class Stale(ServiceError):
    code, status = "stale", 409


class TurnNotOver(Stale):
    """The turn has not run out (any more): another server process was first, or the player
    moved just in time."""


@dataclass(frozen=True)
class MoveResult:
    seq: int
    events: list[dict]


def kind_of(game: Game) -> registry.GameKind:
    return registry.get(game.kind)


def _after_commit(func, blocking: bool = False) -> None:
    # Robust: a message that cannot go out (Redis down) must not turn a committed change into
    # an error for its sender. The others notice the gap in ``seq`` and ask for the state.
    # ``blocking``: it reads the database (see rows.on_commit).
    rows.on_commit(func, blocking)


def _lobby_changed(
    game: Game, users: Iterable[int] | None = None, also: Iterable[int] = ()
) -> None:
    """Tell the lobby once the change is committed. A private game's entry is listed only to
    its players: ``users``, who sit in it (read now when not given), and ``also``, who just
    left it; a public game's change reaches every lobby socket."""
    listed_to = None
    if game.private:
        seated = game.seats.values_list("user_id", flat=True) if users is None else users
        listed_to = sorted({*seated, *also})
    _after_commit(lambda: broadcast.lobby_changed(listed_to))


def _seat_of(seats: list[Seat], user: AbstractBaseUser) -> Seat:
    seat = next((seat for seat in seats if seat.user_id == user.pk), None)
    if seat is None:
        raise ServiceError("you have no seat in this game", "not_seated", 403)
    return seat


def _no_game(game_id: object) -> NotFound:
    return NotFound("there is no game {game}", game=repr(game_id))


def valid_game_id(game_id: object) -> int:
    """``game_id`` if it can be a game's id, else NotFound."""
    low, high = connection.ops.integer_field_range(Game._meta.pk.get_internal_type())
    if isinstance(game_id, int) and not isinstance(game_id, bool) and low <= game_id <= high:
        return game_id
    raise _no_game(game_id)


def _locked(game_id: int) -> Game:
    """The game's row, locked until the transaction ends (``select_for_update``)."""
    game = rows.lock(Game, valid_game_id(game_id))
    if game is None:
        raise _no_game(game_id)
    return game


# ---------------------------------------------------------------------------- lobby


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
) -> NewGame:
    """The settings of a new game, or ``bad_field`` naming the first wrong one. A solo kind
    takes one seat, no computer players and no timer, whatever was asked."""
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
    if turn_seconds == SITE_DEFAULT:
        turn_seconds = None if private else settings.TURN_SECONDS_PUBLIC
    low, high = TURN_SECONDS_RANGE
    if turn_seconds is not None and turn_seconds != 0 and not low <= turn_seconds <= high:
        raise ServiceError(
            "a turn lasts {low} to {high} seconds, or 0 for no limit",
            "bad_field",
            low=low,
            high=high,
        )
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
    return NewGame(game_kind, options, name, max_players, bots, bool(private), turn_seconds or None)


def do_game_create(*, user: AbstractBaseUser, new: NewGame) -> Game:
    """Create the game with ``user`` in its first seat; a solo game is dealt at once."""
    game = Game.objects.create(
        name=new.name,
        kind=new.kind.key,
        options=new.options,
        max_players=new.max_players,
        creator=user,
        seed=new.kind.glue.new_seed(new.options),
        private=new.private,
        turn_seconds=new.turn_seconds,
    )
    Seat.objects.create(game=game, user=user)
    for bot_user in _bot_users(new.bots, exclude={user.pk}):
        Seat.objects.create(game=game, user=bot_user, is_bot=True, bot=new.kind.default_bot)
    if new.kind.solo:
        do_game_start(game=game, seats=list(game.seats.all()))
    else:
        _lobby_changed(game)
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
    )
    with transaction.atomic(durable=True):
        check_game_limits(user=user, new=new)
        return do_game_create(user=user, new=new)


class RateLimited(ServiceError):
    code, status = "rate_limited", 429


def check_game_limits(*, user: AbstractBaseUser, new: NewGame) -> None:
    """At most ``GAMES_WAITING_PER_USER`` games created by ``user`` wait for players (409
    ``too_many_waiting``), and at most ``GAME_RATE`` new games per user (429
    ``rate_limited``). The user's row is locked, so that parallel calls count each other."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
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


def _bot_users(count: int, exclude: Collection[int]) -> list[AbstractBaseUser]:
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


def check_game_join(*, game_id: int, user: AbstractBaseUser) -> Game:
    """The locked waiting game with a seat free for ``user``."""
    game = _locked(game_id)
    if game.status != Game.Status.WAITING:
        raise Conflict("the game has already started", "started")
    seats = list(game.seats.all())
    if any(seat.user_id == user.pk for seat in seats):
        raise Conflict("you already have a seat in this game", "already_seated")
    if len(seats) >= game.max_players:
        raise Conflict("the game is full", "full")
    return game


def do_game_join(*, game: Game, user: AbstractBaseUser) -> Seat:
    seat = Seat.objects.create(game=game, user=user)
    events = [{"kind": "joined", "player": user.pk}]
    Event.objects.create(game=game, seq=game.seq, kind="joined", data=events[0])
    _after_commit(lambda: broadcast.game_changed(game, None, events))
    _lobby_changed(game)
    return seat


def game_join(*, game_id: int, user: AbstractBaseUser) -> Seat:
    with transaction.atomic(durable=True):
        return do_game_join(game=check_game_join(game_id=game_id, user=user), user=user)


def check_game_start(*, game_id: int, user: AbstractBaseUser) -> tuple[Game, list[Seat]]:
    """The locked waiting game, started by its creator with enough seats taken; its seats in
    the order the log replays."""
    game = _locked(game_id)
    if game.creator_id != user.pk:
        raise Forbidden("only the player who created the game can start it")
    if game.status != Game.Status.WAITING:
        raise Conflict("the game has already started", "started")
    seats = list(game.seats.order_by("joined", "id"))
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


def do_game_start(*, game: Game, seats: list[Seat]) -> None:
    """Deal: the engine's new game for these seats (Rat um Rad: the preparation phase, R2)."""
    game_kind = kind_of(game)
    state = game_kind.engine.new_game(game.seed, [seat.user_id for seat in seats], game.options)
    game.started = timezone.now()
    _record(game, state, seats, None, None, game_kind.glue.start_events(state))
    _after_commit(lambda: game_kind.glue.warm_up(game, state))


def game_start(*, game_id: int, user: AbstractBaseUser) -> Game:
    with transaction.atomic(durable=True):
        game, seats = check_game_start(game_id=game_id, user=user)
        do_game_start(game=game, seats=seats)
    return game


# ---------------------------------------------------------------------------- play


def load_state(game: Game):
    """The engine state of a dealt game."""
    return kind_of(game).engine.from_dict(game.state)


@dataclass
class MoveCheck:
    """A move that may be tried: the game, its seats (with presence), the mover's; the game
    locked, or read with its version (``locked`` false) for a guarded write."""

    game: Game
    seats: list[Seat]
    seat: Seat
    locked: bool = True


class NeedsLock(Exception):
    """A move read without a lock turned out to end the game: it is made under the lock."""


# A move is first tried without a lock this many times (PostgreSQL), each time on a fresh
# read if another change came first; then it waits for the lock.
UNLOCKED_TRIES = 3


def check_move(
    *,
    game_id: int,
    user: AbstractBaseUser,
    expect_seq: int | None,
    by_bot: bool,
    read: tuple[Game | None, list[Seat]] | None = None,
) -> MoveCheck:
    """The game and seats of a move, checked: locked, or as ``read`` without a lock, with
    their version (``selectors.versioned_game_with_seats``)."""
    # The broadcast needs the seats' presence.
    if read is None:
        game = _locked(game_id)
        seats = selectors.seats_with_presence(game.pk)
    else:
        game, seats = read
        if game is None:
            raise _no_game(game_id)
    seat = _seat_of(seats, user)
    if by_bot and not seat.computer_plays:
        raise Stale("the person plays this seat again")
    if seat.left and not by_bot:
        raise Conflict("you have left this game", "left_game")
    if game.status in Game.OVER:
        raise ServiceError("the game is over", "game_over", 409)
    if game.status == Game.Status.WAITING:
        raise ServiceError("the game has not started yet", "not_started", 409)
    if expect_seq is not None and expect_seq != game.seq:
        raise Stale("the game is at move {seq}, not {expected}", seq=game.seq, expected=expect_seq)
    return MoveCheck(game, seats, seat, locked=read is None)


def do_move(*, checked: MoveCheck, user: AbstractBaseUser, move: dict, by_bot: bool) -> list:
    """The engine applies the move (its refusal changes nothing); the change is recorded."""
    game, seat = checked.game, checked.seat
    state = load_state(game)
    try:
        state, events = kind_of(game).engine.apply(state, user.pk, move)
    except EngineError as error:
        raise ServiceError.from_engine(error) from error
    if not checked.locked and kind_of(game).engine.is_over(state):
        # The end is scored (ratings, achievements) with the ORM, under the lock.
        raise NeedsLock
    if seat.autopilot and not by_bot:
        events = [*_autopilot_off(seat), *events]
    _record(game, state, checked.seats, user, move, events)
    return events


def move_body(message: dict) -> dict:
    """A move as the engine takes it and the log keeps it: without the frame's ``ref`` and
    ``expect_seq``."""
    return {key: value for key, value in message.items() if key not in ("ref", "expect_seq")}


def move_apply(
    *,
    game_id: int,
    user: AbstractBaseUser,
    move: dict,
    expect_seq: int | None = None,
    by_bot: bool = False,
) -> MoveResult:
    """Apply one protocol move for ``user``; raises ServiceError (nothing changed) if refused.

    ``by_bot``: the bot driver moves for the seat. A person's own move takes their seat back
    from the autopilot; the driver's move for a seat its person has taken back is ``stale``.
    """
    move = move_body(move)
    args = {"game_id": game_id, "user": user, "expect_seq": expect_seq, "by_bot": by_bot}
    if rows.can_guard():
        for _ in range(UNLOCKED_TRIES):
            try:
                return _move_unlocked(args, move)
            except rows.Changed:
                continue  # another change came between the read and the write
            except NeedsLock:
                break
    with transaction.atomic(durable=True):
        checked = check_move(**args)
        events = do_move(checked=checked, user=user, move=move, by_bot=by_bot)
    return MoveResult(seq=checked.game.seq, events=events)


def _move_unlocked(args: dict, move: dict) -> MoveResult:
    """A move read without a lock and written in one guarded statement: two round trips to
    the database instead of five. Every change of a game's seats while it is played also
    writes its game row (``_record``, ``_record_seats``, ``do_game_abort``), so the guard on
    the game row sees those too."""
    read = selectors.versioned_game_with_seats(valid_game_id(args["game_id"]))
    checked = check_move(**args, read=read)
    with rows.guarded(checked.game):
        events = do_move(checked=checked, user=args["user"], move=move, by_bot=args["by_bot"])
    return MoveResult(seq=checked.game.seq, events=events)


def _autopilot_off(seat: Seat) -> list[dict]:
    seat.autopilot = False
    rows.update(seat, ["autopilot"])
    return [{"kind": "autopilot_off", "player": seat.user_id}]


def check_turn_expire(*, game_id: int, now) -> Game:
    """The locked game whose turn ran out; TurnNotOver if another server process was first
    or the player moved just in time."""
    game = _locked(game_id)
    if not game.is_playing or game.turn_deadline is None or game.turn_deadline > now:
        raise TurnNotOver("the turn has not run out")
    return game


def do_turn_expire(*, game: Game) -> None:
    seats = list(game.seats.select_related("user"))
    state = load_state(game)
    events = []
    for seat in turns.late_seats(game, state, seats):
        seat.autopilot = True
        seat.save(update_fields=["autopilot"])
        events.append({"kind": "autopilot_on", "player": seat.user_id, "reason": "timeout"})
    _record_seats(game, state, seats, events, timed_out=True)


def turn_expire(*, game_id: int, now=None) -> bool:
    """The turn timer ran out: the computer plays the late seats (False if it had not)."""
    with transaction.atomic(durable=True):
        try:
            game = check_turn_expire(game_id=game_id, now=now or timezone.now())
        except TurnNotOver:
            return False
        do_turn_expire(game=game)
    return True


def check_seat_take_back(*, game_id: int, user: AbstractBaseUser) -> tuple[Game, list, Seat]:
    game = _locked(game_id)
    seats = list(game.seats.all())
    seat = _seat_of(seats, user)
    if seat.left:
        raise Conflict("you have left this game", "left_game")
    return game, seats, seat


def do_seat_take_back(*, game: Game, seats: list[Seat], seat: Seat) -> None:
    if seat.autopilot and game.is_playing:
        _record_seats(game, load_state(game), seats, _autopilot_off(seat))


def seat_take_back(*, game_id: int, user: AbstractBaseUser) -> int:
    """The person plays their seat again after the computer stood in (no-op if it did not).

    Returns the game's ``seq``.
    """
    with transaction.atomic(durable=True):
        game, seats, seat = check_seat_take_back(game_id=game_id, user=user)
        do_seat_take_back(game=game, seats=seats, seat=seat)
    return game.seq


def check_game_leave(*, game_id: int, user: AbstractBaseUser) -> tuple[Game, list, Seat]:
    game = _locked(game_id)
    seats = list(game.seats.select_related("user"))
    if game.status in Game.OVER:
        raise Conflict("the game is over", "game_over")
    seat = _seat_of(seats, user)
    if seat.left:
        raise Conflict("you have already left this game", "left_game")
    return game, seats, seat


def do_game_leave(*, game: Game, seats: list[Seat], seat: Seat) -> None:
    if game.status == Game.Status.WAITING:
        _leave_waiting(game, seat, [other for other in seats if other != seat])
        return
    seat.left = seat.autopilot = True
    seat.save(update_fields=["left", "autopilot"])
    if all(other.left or other.is_bot for other in seats):
        # Nobody is left to play for: computer players do not finish it, and it is not rated.
        Event.objects.create(game=game, seq=game.seq, kind="left", data=_left(seat, False))
        do_game_abort(game=game, before=[_left(seat, False)])
        return
    _record_seats(game, load_state(game), seats, [_left(seat, True)])


def _left(seat: Seat, replaced: bool) -> dict:
    return {"kind": "left", "player": seat.user_id, "replaced": replaced}


def game_leave(*, game_id: int, user: AbstractBaseUser) -> Game:
    """Leave a game for good: give the seat back before the deal, else the computer plays it.

    A waiting game that no person sits in any more is called off; its creator's part
    (starting it) passes on to the next person who joined.
    """
    with transaction.atomic(durable=True):
        game, seats, seat = check_game_leave(game_id=game_id, user=user)
        do_game_leave(game=game, seats=seats, seat=seat)
    return game


def _leave_waiting(game: Game, seat: Seat, others: list[Seat]) -> None:
    seat.delete()
    people = [other for other in others if not other.is_bot]
    if not people:
        game.status = Game.Status.ABORTED
        game.finished = timezone.now()
        game.seq += 1
    elif game.creator_id == seat.user_id:
        game.creator = min(people, key=lambda other: (other.joined, other.pk)).user
    game.save(update_fields=["status", "finished", "seq", "creator", "updated"])
    events = [_left(seat, False)]
    if not people:
        events.append({"kind": "aborted", "player": None})
    Event.objects.bulk_create(
        Event(game=game, seq=game.seq, kind=event["kind"], data=event) for event in events
    )
    _after_commit(lambda: broadcast.game_changed(game, None, events))
    _lobby_changed(game, also=[seat.user_id])  # the seat is gone; its user's list changes


def check_game_end_now(*, game_id: int) -> Game:
    game = _locked(game_id)
    if not game.is_playing:
        raise Conflict("only a game being played can be ended", "not_playing")
    return game


def do_game_end_now(*, game: Game, reason: str) -> None:
    state = load_state(game)
    events = kind_of(game).engine.end_game(state, reason)
    _record(game, state, list(game.seats.all()), None, None, events)


def game_end_now(*, game_id: int, reason: str = "admin") -> Game:
    """End a game that is being played, scored as usual (an admin's decision)."""
    with transaction.atomic(durable=True):
        game = check_game_end_now(game_id=game_id)
        do_game_end_now(game=game, reason=reason)
    return game


def check_game_abort(*, game_id: int) -> Game:
    game = _locked(game_id)
    if game.status in Game.OVER:
        raise Conflict("the game is already over", "game_over")
    return game


def do_game_abort(*, game: Game, before: list[dict] = ()) -> None:
    """Call the game off without results; ``before``: events announced with it."""
    game.status = Game.Status.ABORTED
    game.finished = timezone.now()
    game.seq += 1
    game.turn_deadline = None
    game.save(update_fields=["status", "finished", "seq", "turn_deadline", "updated"])
    events = [*before, {"kind": "aborted", "player": None}]
    Event.objects.create(game=game, seq=game.seq, kind="aborted", data=events[-1])
    state = load_state(game) if game.state else None
    _after_commit(lambda: broadcast.game_changed(game, state, events))
    _lobby_changed(game)


def game_abort(*, game_id: int) -> Game:
    """Call a game off without results."""
    with transaction.atomic(durable=True):
        game = check_game_abort(game_id=game_id)
        do_game_abort(game=game)
    return game


def _record(
    game: Game,
    state,
    seats: list[Seat],
    user: AbstractBaseUser | None,
    move: dict | None,
    events: list[dict],
) -> None:
    """Write a changed state, its log entries and projections; publish after commit."""
    engine = kind_of(game).engine
    was_playing = game.is_playing
    deadline_before = game.turn_deadline
    game.turn_deadline = turns.deadline(
        game, turns.stored_turn_key(game, game.state), state, seats, timezone.now()
    )
    _timer_follows(game, deadline_before)
    game.status = engine.phase(state)
    finished = engine.is_over(state)
    if finished:
        kind_of(game).glue.complete_results(game, state)
        game.finished = timezone.now()
        game.end_reason = state.end_reason or ""
    with rows.batch():  # one statement on PostgreSQL
        if move is not None:
            rows.insert([Move(game=game, seq=state.seq, user=user, payload=move)])
        _store(game, state, seats, events)
        rows.insert(
            [Event(game=game, seq=state.seq, kind=event["kind"], data=event) for event in events]
        )
    if was_playing and finished:
        game_finished.send(sender=Game, game=game, results=engine.results(state), seats=seats)
    _after_commit(lambda: broadcast.game_changed(game, state, events, seats))
    if was_playing != game.is_playing:
        _lobby_changed(game, [seat.user_id for seat in seats])
    if game.is_playing and any(seat.computer_plays for seat in seats):
        # After the broadcast: the players see this move before the bots' answers.
        _after_commit(lambda: bots_may_move.send(sender=Game, game_id=game.pk), blocking=True)


def _record_seats(
    game: Game, state, seats: list[Seat], events: list[dict], timed_out: bool = False
) -> None:
    """Publish a change of who plays the seats (no move: ``seq`` stays); the timer follows.
    ``timed_out``: people's turns ran out, and the computer now plays them."""
    before = turns.stored_turn_key(game, game.state)  # the turn goes on: its deadline may stay
    deadline_before = game.turn_deadline
    game.turn_deadline = turns.deadline(game, before, state, seats, timezone.now())
    game.save(update_fields=["turn_deadline", "updated"])
    _timer_follows(game, deadline_before)
    Event.objects.bulk_create(
        Event(game=game, seq=game.seq, kind=event["kind"], data=event) for event in events
    )
    _after_commit(lambda: broadcast.game_changed(game, state, events))
    if any(seat.computer_plays for seat in seats):
        # A stand-in for a person whose time ran out plays at once: they had their whole turn.
        _after_commit(
            lambda: bots_may_move.send(sender=Game, game_id=game.pk, at_once=timed_out),
            blocking=True,
        )


def _timer_follows(game: Game, before) -> None:
    """A new deadline: once committed, this process expires the turn at that very moment
    (``games.sweeper``), not at its next sweep."""
    deadline = game.turn_deadline
    if deadline is not None and deadline != before:
        _after_commit(
            lambda: turn_deadline_set.send(sender=Game, game_id=game.pk, deadline=deadline)
        )


def _store(game: Game, state, seats: list[Seat], events: list[dict]) -> None:
    """Save the engine state; the kind's glue keeps its own rows in step with it."""
    before = game.state
    game.state = kind_of(game).engine.to_dict(state)
    game.seq = state.seq
    rows.update(
        game,
        [
            *("state", "seq", "status", "started", "finished", "end_reason"),
            *("turn_deadline", "updated"),
        ],
    )
    kind_of(game).glue.project(game, state, seats, events, before)


# ---------------------------------------------------------------------------- rematch


@dataclass(frozen=True)
class RematchCheck:
    """An answer to a finished game's offer of the same game again, checked; the game locked."""

    game: Game
    seats: list[Seat]  # in the order of the deal
    rematch: Rematch
    user_id: int
    accept: bool


def rematch_people(seats: Iterable[Seat]) -> list[Seat]:
    """The seats whose person is asked to play again: not the computer players, nor whoever
    left the game (a computer player takes their seat in the new game)."""
    return [seat for seat in seats if not seat.is_bot and not seat.left]


def check_rematch_answer(*, game_id: int, user: AbstractBaseUser, accept: object) -> RematchCheck:
    """The locked finished game that ``user`` has a seat in, and may be played again."""
    if not isinstance(accept, bool):
        raise ServiceError("'accept' must be true or false", "bad_field")
    game = _locked(game_id)
    seats = list(game.seats.order_by("joined", "id"))
    seat = _seat_of(seats, user)
    if game.status != Game.Status.FINISHED:
        raise Conflict("only a finished game can be played again", "not_finished")
    if kind_of(game).glue.rematch_leaderboard(game):
        raise Conflict("this game counts one attempt: it is not played again", "no_rematch")
    if seat.left:
        raise Conflict("you have left this game", "left_game")
    # Read under the game's lock: one new game, however many answer at the same moment.
    rematch = Rematch.objects.filter(game=game).first() or Rematch(game=game, answers={})
    if rematch.new_game_id is not None and not accept:
        raise Conflict("the new game has begun already", "rematch_started")
    if rematch.declined and accept and rematch.new_game_id is None:
        raise Conflict(
            "someone declined to play again: start a new game from the lobby", "rematch_declined"
        )
    return RematchCheck(game, seats, rematch, user.pk, accept)


def do_rematch_answer(*, checked: RematchCheck) -> Rematch:
    """Record the answer; the last person's acceptance deals the new game. Every socket of
    the finished game is sent its view again, with the offer (``rematch``) as it now stands."""
    game, rematch, key = checked.game, checked.rematch, str(checked.user_id)
    if rematch.new_game_id is not None or rematch.answers.get(key) is checked.accept:
        return rematch  # answered before (a second press, a retry): nothing changes
    rematch.answers[key] = checked.accept
    events = [{"kind": "rematch", "player": checked.user_id, "accept": checked.accept}]
    people = rematch_people(checked.seats)
    if all(rematch.answers.get(str(seat.user_id)) is True for seat in people):
        rematch.new_game = _deal_again(game, checked.seats, people)
        events.append({"kind": "rematch_started", "player": None, "game": rematch.new_game_id})
    rematch.save()
    Event.objects.bulk_create(
        Event(game=game, seq=game.seq, kind=event["kind"], data=event) for event in events
    )
    _after_commit(lambda: broadcast.game_changed(game, None, events))
    return rematch


def _deal_again(game: Game, seats: list[Seat], people: list[Seat]) -> Game:
    """The same game again: its name, options, timer and privacy, its people and computer
    players in the same seats (a computer player in the seat of whoever left), dealt."""
    game_kind = kind_of(game)
    creator = game.creator_id
    if creator not in {seat.user_id for seat in people}:
        creator = people[0].user_id
    new = Game.objects.create(
        name=game.name,
        kind=game.kind,
        options=game.options,
        max_players=game.max_players,
        creator_id=creator,
        seed=game_kind.glue.new_seed(game.options),
        private=game.private,
        turn_seconds=game.turn_seconds,
    )
    gone = [seat for seat in seats if seat.left and not seat.is_bot]
    stand_ins = iter(_bot_users(len(gone), exclude={seat.user_id for seat in seats}))
    new_seats = []
    for seat in seats:
        user_id, is_bot, bot = seat.user_id, seat.is_bot, seat.bot
        if seat in gone:
            user_id, is_bot, bot = next(stand_ins).pk, True, game_kind.default_bot
        new_seats.append(Seat.objects.create(game=new, user_id=user_id, is_bot=is_bot, bot=bot))
    do_game_start(game=new, seats=new_seats)
    return new


def rematch_answer(*, game_id: int, user: AbstractBaseUser, accept: object = True) -> Rematch:
    """``user``'s answer to playing a finished game again: the same seats, computer players
    and options. Once every person of it accepted, the new game is dealt (a solo game's at
    once); one decline ends the offer. A kind whose game counts one attempt (Road to 300's
    daily challenge) is not played again (``no_rematch``)."""
    with transaction.atomic(durable=True):
        checked = check_rematch_answer(game_id=game_id, user=user, accept=accept)
        return do_rematch_answer(checked=checked)


# ---------------------------------------------------------------------------- chat


def check_chat_post(
    *, user: AbstractBaseUser, text: object, game_id: int | None = None
) -> tuple[str, Game | None]:
    """The message's text, stripped, and its game (None: the lobby's chat)."""
    if not isinstance(text, str) or not text.strip():
        raise ServiceError("a chat message needs some text", "bad_field")
    text = text.strip()
    if len(text) > CHAT_MAX_LENGTH:
        raise ServiceError(
            "chat messages have at most {max} characters", "too_large", max=CHAT_MAX_LENGTH
        )
    game = None
    if game_id is not None:
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise NotFound("there is no game {game}", game=repr(game_id))
    return text, game


def do_chat_post(*, user: AbstractBaseUser, text: str, game: Game | None) -> ChatMessage:
    message = ChatMessage.objects.create(game=game, user=user, text=text)
    _after_commit(lambda: broadcast.chat_posted(message))
    return message


def chat_post(*, user: AbstractBaseUser, text: str, game_id: int | None = None) -> ChatMessage:
    with transaction.atomic(durable=True):
        text, game = check_chat_post(user=user, text=text, game_id=game_id)
        return do_chat_post(user=user, text=text, game=game)
