"""Moves on PostgreSQL made on the server's event loop, without a worker thread.

A guarded move (``games.moves.play``) is two statements: the read of the game and its
seats, and the write that checks the game row is still the version read.
Here both go through psycopg's async connections, a small pool per event loop, and the rules
run on the loop in between: no hop to a worker thread and back, and no wait for the
interpreter lock between that thread and the loop. The statements, the rows and the checks
are the thread's own (``selectors.versioned_query``, ``play.prepare_guarded``), and so is the
retry policy (``play.Tries``); only the round trips differ.

What the thread's way does instead: the move that ends a game (scored with the ORM under the
lock), a game that changed under three tries, and every move on SQLite. Callbacks that read
the database (the computer players' driver) run in the sockets' database thread
(``database_sync_to_async``) after the write.

A psycopg error becomes Django's ``DatabaseError``, as on the thread's way; the socket
answers ``unavailable``. A connection that broke is replaced by the pool, and a read that
found its connection broken is tried once more on another.

A move's read may also come before the move (``prefetch``): when a game's update reaches a
socket of a player who is to move next, its process reads the game at once, and the move
takes that read instead of making its own. One round trip fewer while the player waits for
the ACK, none more in all. The read is only ever a guess: the guarded write still checks the
game row is the version read, and a refusal made on it is made again on a fresh read. A
change that the game row's version does not show, a socket's arrival or departure, drops
the read (``forget``), as does its age (``PREFETCH_MAX_AGE``, for the presence of a socket
whose server died).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

import psycopg
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from psycopg_pool import AsyncConnectionPool

from games import selectors
from games.errors import ServiceError
from games.moves import play, sql
from games.moves.base import valid_game_id
from games.moves.placeholders import numbered
from games.postgres import TIMESTAMPTZ, UtcTimestampLoader

logger = logging.getLogger(__name__)

POOL_SIZE = 4  # connections per event loop: moves of different games at the same time
APPLICATION_NAME = "ratumrad-moves"

_pools: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}  # each opens its loop's pool

PREFETCH_MAX_AGE = 15.0  # seconds a read made before its move may serve it


async def _configure(connection: psycopg.AsyncConnection) -> None:
    # As Django's own connections: UTC sessions, whose timestamps the fast loader reads.
    if connection.info.parameter_status("TimeZone") != "UTC":
        await connection.execute("SET TIME ZONE 'UTC'")
    connection.adapters.register_loader(TIMESTAMPTZ, UtcTimestampLoader)


async def pool() -> AsyncConnectionPool:
    """This event loop's pool, opened on first use with Django's connection settings."""
    return await open_soon()


def open_soon() -> asyncio.Task:
    """The task that opens this event loop's pool, started if it is not open or opening.

    A seated player's socket calls it: the first moves of a burst of new games would
    otherwise wait for connections the pool opens one by one (30-80 ms).
    """
    loop = asyncio.get_running_loop()
    opening = _pools.get(loop)
    if opening is None or _failed(opening):
        # One task opens it: moves that arrive meanwhile wait for that one.
        opening = _pools[loop] = loop.create_task(_open())
        opening.add_done_callback(_opened)
    return opening


def _failed(task: asyncio.Task) -> bool:
    """Whether ``task`` ended without a result: it raised, or was cancelled."""
    return task.done() and (task.cancelled() or task.exception() is not None)


def _opened(opening: asyncio.Task) -> None:
    # Seen here too, as no move may await it: the next move tries again, and says why.
    if not opening.cancelled() and opening.exception() is not None:
        logger.warning("the moves' pool did not open", exc_info=opening.exception())


async def _open() -> AsyncConnectionPool:
    params = connections[DEFAULT_DB_ALIAS].get_connection_params()
    params.pop("cursor_factory", None)  # the statements go through raw cursors
    opened = AsyncConnectionPool(
        # Named, so that pg_stat_activity tells these connections from the threads' ones.
        kwargs={"application_name": APPLICATION_NAME, **params, "autocommit": True},
        min_size=POOL_SIZE,  # kept open: a connection takes milliseconds to open
        max_size=POOL_SIZE,
        configure=_configure,
        open=False,
        name="moves",
    )
    await opened.open()
    return opened


async def close_pools() -> None:
    """Close this event loop's pool (its connections end)."""
    _prefetched.pop(asyncio.get_running_loop(), None)
    opening = _pools.pop(asyncio.get_running_loop(), None)
    if opening is not None and not _failed(opening):
        await (await opening).close()


async def _fetch(connection, statement: str, params: list) -> list[tuple]:
    cursor = psycopg.AsyncRawCursor(connection)
    await cursor.execute(numbered(statement), params)
    return await cursor.fetchall()


async def move_apply(
    *, game_id: int, user, move: dict, expect_seq: int | None = None, by_bot: bool = False
) -> play.MoveResult | play.Ahead | None:
    """``play.move_apply`` on the event loop; else the move must be made under the lock:
    ``play.Ahead`` if it ends the game (as tried here), None if it lost every try. It raises
    what that raises: a refusal, a missing game, ``DatabaseError``."""
    move = play.move_body(move)
    game_id = valid_game_id(game_id)
    args = {"game_id": game_id, "user": user, "expect_seq": expect_seq, "by_bot": by_bot}
    moves = await pool()
    found = await _take(game_id)
    tries = play.Tries()
    while tries:
        try:
            return await _try(moves, args, move, found)
        except (sql.Changed, play.NeedsLock) as error:
            tries.failed(error)
        except ServiceError:
            if found is None:
                raise
            # Refused on a read made before the move: it may be a change behind, as is
            # ``expect_seq``. The read is made again, and that try does not count.
        except psycopg.Error as error:
            raise DatabaseError(str(error)) from error
        found = None
    return tries.ahead


async def _try(
    moves: AsyncConnectionPool, args: dict, move: dict, found: list[tuple] | None = None
) -> play.MoveResult:
    """One guarded try, on ``found`` if given (the rows of the game's read), else on a fresh
    read; ``sql.Changed`` if the game changed after the read (nothing was written),
    ``play.NeedsLock`` if the move ends the game (nothing was written)."""
    for last in (False, True):
        async with moves.connection() as connection:
            if found is None:
                try:
                    found = await _fetch(connection, *selectors.versioned_query(args["game_id"]))
                except psycopg.OperationalError:
                    if last:
                        raise
                    # The connection broke (PostgreSQL restarted, its backend ended): the read
                    # changed nothing, so it is made again on another one (the pool drops it).
                    continue
            prepared = play.prepare_guarded(args, move, selectors.versioned_from_rows(found))
            statement = prepared.statement
            [(written,)] = await _fetch(connection, statement.sql, statement.params)
        sql.check_guarded(statement, written)
        play.run_after_write(prepared.callbacks)
        return prepared.result
    raise AssertionError("unreachable")


@dataclass
class _Prefetch:
    seq: int  # the game's update that asked for it
    started: float  # time.monotonic()
    read: asyncio.Task  # its rows


# Per event loop (the pools are), by game id: at most one read waiting for a move.
_prefetched: dict[asyncio.AbstractEventLoop, dict[int, _Prefetch]] = {}


def prefetch(game_id: int, seq: int) -> asyncio.Task | None:
    """Read game ``game_id`` now, for the move that follows its update ``seq``: a player of
    this process is to move. Once per game and update, however many sockets ask: the read's
    task, or None if it was asked for already."""
    loop = asyncio.get_running_loop()
    waiting = _prefetched.setdefault(loop, {})
    known = waiting.get(game_id)
    if known is not None and known.seq >= seq:
        return None
    now = time.monotonic()
    waiting.pop(game_id, None)  # put back last: the oldest reads come first
    while waiting:  # games whose move never came
        oldest = next(iter(waiting))
        if now - waiting[oldest].started <= PREFETCH_MAX_AGE:
            break
        del waiting[oldest]
    read = loop.create_task(_prefetch_rows(game_id))
    read.add_done_callback(_seen)
    waiting[game_id] = _Prefetch(seq, now, read)
    return read


def forget(game_id: int) -> None:
    """Drop the read waiting for game ``game_id``'s move (a change its version does not show)."""
    waiting = _prefetched.get(asyncio.get_running_loop())
    if waiting:
        waiting.pop(game_id, None)


async def _prefetch_rows(game_id: int) -> list[tuple]:
    moves = await pool()
    async with moves.connection() as connection:
        return await _fetch(connection, *selectors.versioned_query(game_id))


def _seen(read: asyncio.Task) -> None:
    # A failed read is only a missed guess: the move reads for itself.
    if not read.cancelled() and read.exception() is not None:
        logger.debug("a read ahead of a move failed", exc_info=read.exception())


async def _take(game_id: int) -> list[tuple] | None:
    """The rows read ahead for this move of game ``game_id`` (awaited if still on their way),
    or None. Each read serves one move at most."""
    waiting = _prefetched.get(asyncio.get_running_loop())
    entry = waiting.pop(game_id, None) if waiting else None
    if entry is None or time.monotonic() - entry.started > PREFETCH_MAX_AGE:
        return None
    try:
        return await asyncio.shield(entry.read)
    except Exception:  # psycopg's and the pool's errors: the move reads for itself
        return None
