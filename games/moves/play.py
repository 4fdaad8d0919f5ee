"""One move: checked, applied by the engine, written; the same on every path (``games.moves``).

``check_move`` and ``do_move`` are the move itself. ``move_apply`` makes it from a thread:
under the game row's lock (SQLite; PostgreSQL when the guarded tries gave up), or as a guarded
write (PostgreSQL). ``prepare_guarded`` builds a guarded write and its callbacks for both
PostgreSQL paths, this thread's and the event loop's (``games.moves.on_loop``); ``Tries`` is the
one retry policy both follow; ``run_after_write`` runs the callbacks of both once the write is
made.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from channels.db import database_sync_to_async
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from games import selectors, turns
from games.contract import EngineError
from games.errors import Conflict, ServiceError, Stale
from games.models import Game, Seat
from games.moves import sql
from games.moves.base import (
    kind_of,
    load_state,
    locked,
    no_game,
    seat_of,
    still_as_read,
    valid_game_id,
)
from games.moves.record import autopilot_off, hand_back, moved_in_time, record

logger = logging.getLogger(__name__)

# A move is first tried without a lock this many times (PostgreSQL), each time on a fresh
# read if another change came first; then it waits for the lock.
UNLOCKED_TRIES = 3


@dataclass(frozen=True)
class MoveResult:
    seq: int
    events: list[dict]


@dataclass
class MoveCheck:
    """A move that may be tried: the game, its seats (with presence), the mover's; the game
    locked, or read with its version (``locked`` false) for a guarded write."""

    game: Game
    seats: list[Seat]
    seat: Seat
    locked: bool = True


@dataclass(frozen=True)
class Ahead:
    """A move that ends the game as tried on a read without a lock: its check on that read,
    and the state and events the engine gave. Under the lock it is taken as it is if the
    game's row is still the version read (``move_locked``), instead of read and applied again."""

    checked: MoveCheck
    state: object
    events: list[dict]


class NeedsLock(Exception):
    """A move read without a lock turned out to end the game: it is made under the lock."""

    def __init__(self, ahead: Ahead):
        super().__init__("the move ends the game")
        self.ahead = ahead


class Tries:
    """The retry policy of a guarded move, on either path: at most ``UNLOCKED_TRIES`` tries,
    each on a fresh read if another change came first (``sql.Changed``); a move that ends the
    game (``NeedsLock``) or that lost every try is made under the lock."""

    def __init__(self) -> None:
        self.left = UNLOCKED_TRIES
        self.ahead: Ahead | None = None  # the last try, if it ended the game

    def __bool__(self) -> bool:
        return self.left > 0

    def failed(self, error: sql.Changed | NeedsLock) -> None:
        """Count a try that wrote nothing: after ``NeedsLock`` no other try is made."""
        self.left = 0 if isinstance(error, NeedsLock) else self.left - 1
        self.ahead = error.ahead if isinstance(error, NeedsLock) else None


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
        game = locked(game_id)
        seats = selectors.seats_with_presence(game.pk)
    else:
        game, seats = read
        if game is None:
            raise no_game(game_id)
    seat = seat_of(seats, user)
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
    game = checked.game
    state = load_state(game)
    try:
        state, events = kind_of(game).engine.apply(state, user.pk, move)
    except EngineError as error:
        raise ServiceError.from_engine(error) from error
    if not checked.locked and kind_of(game).engine.is_over(state):
        # The end is scored (ratings, achievements) with the ORM, under the lock.
        raise NeedsLock(Ahead(checked, state, events))
    return _record_move(checked, user, move, by_bot, state, events)


def _record_move(
    checked: MoveCheck, user: AbstractBaseUser, move: dict, by_bot: bool, state, events: list
) -> list:
    game, seat = checked.game, checked.seat
    if not by_bot:
        moved_in_time(game, seat)
    if seat.autopilot and not by_bot:
        events = [*autopilot_off(seat), *events]
    elif turns.hands_back(game, seat, state):
        events = [*events, *hand_back(seat)]
    record(game, state, checked.seats, user, move, events)
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
    guarded: bool = True,
    ahead: Ahead | None = None,
) -> MoveResult:
    """Apply one protocol move for ``user``; raises ServiceError (nothing changed) if refused.

    ``by_bot``: the bot driver moves for the seat. A person's own move takes their seat back
    from the autopilot; the driver's move for a seat its person has taken back is ``stale``.
    ``guarded``: first try guarded writes where the database can (PostgreSQL); false when the
    event loop's path has tried them already (``ahead``: its try, if it ended the game).
    """
    move = move_body(move)
    args = {"game_id": game_id, "user": user, "expect_seq": expect_seq, "by_bot": by_bot}
    tries = Tries() if guarded and sql.can_guard() else None
    while tries:
        read = selectors.versioned_game_with_seats(valid_game_id(game_id))
        try:
            prepared = prepare_guarded(args, move, read)
            sql.execute_guarded(prepared.statement)
        except (sql.Changed, NeedsLock) as error:
            tries.failed(error)
            continue
        run_after_write(prepared.callbacks)
        return prepared.result
    return move_locked(args, move, tries.ahead if tries is not None else ahead)


def move_locked(args: dict, move: dict, ahead: Ahead | None = None) -> MoveResult:
    """The move in a transaction that holds the game row's lock from the read to the commit.
    ``ahead``: the move as tried without the lock, taken as it is if the game is unchanged."""
    user, by_bot = args["user"], args["by_bot"]
    with transaction.atomic(durable=True):
        checked = _unchanged(ahead)
        if checked is not None:
            events = _record_move(checked, user, move, by_bot, ahead.state, ahead.events)
        else:
            checked = check_move(**args)
            events = do_move(checked=checked, user=user, move=move, by_bot=by_bot)
    return MoveResult(seq=checked.game.seq, events=events)


def _unchanged(ahead: Ahead | None) -> MoveCheck | None:
    """``ahead``'s check, its game now locked, if the game's row is still the version it was
    read at: every change of a game being played writes its row (``prepare_guarded``), so
    the read, its check and the engine's answer on it all hold. Else None."""
    if ahead is None:
        return None
    game = ahead.checked.game
    if not still_as_read(game):
        return None
    return replace(ahead.checked, locked=True)


@dataclass(frozen=True)
class Prepared:
    """A move checked and applied on a read without a lock, not yet written: its one guarded
    statement, the callbacks to run once that wrote, and the answer it will then have."""

    statement: sql.GuardedStatement
    callbacks: list[tuple[Callable[[], object], bool]]
    result: MoveResult


def prepare_guarded(args: dict, move: dict, read: tuple[Game | None, list[Seat]]) -> Prepared:
    """The guarded write of a move on ``read`` (``selectors.versioned_from_rows``), for both
    PostgreSQL paths. Refusals raise as ``check_move`` and ``do_move`` do; ``NeedsLock`` if
    the move ends the game. Every change of a game's seats while it is played also writes its
    game row (``record``, ``record_seats``, ``do_game_abort``), so the guard on the game row
    sees those too."""
    checked = check_move(**args, read=read)
    with sql.collected() as caught:
        events = do_move(checked=checked, user=args["user"], move=move, by_bot=args["by_bot"])
    return Prepared(
        sql.guarded_statement(checked.game, caught.writes),
        caught.callbacks,
        MoveResult(seq=checked.game.seq, events=events),
    )


def run_after_write(callbacks: list[tuple[Callable[[], object], bool]]) -> None:
    """A guarded write's callbacks, as after a commit: each one's failure is logged, not
    raised. On an event loop, those that read the database run after the others, in the
    sockets' database thread; in a thread, all in order."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    blocking = []
    for func, reads in callbacks:
        if reads and loop is not None:
            blocking.append(func)
        else:
            _call(func)
    if blocking:
        task = loop.create_task(database_sync_to_async(_call_all)(blocking))
        _running.add(task)  # the loop keeps only weak references to its tasks
        task.add_done_callback(_running.discard)


_running: set[asyncio.Task] = set()


def _call_all(callbacks: list[Callable[[], object]]) -> None:
    for func in callbacks:
        _call(func)


def _call(func: Callable[[], object]) -> None:
    try:
        func()
    except Exception:
        logger.exception("a callback after a move failed")
