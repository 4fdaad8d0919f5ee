"""Which way a socket's move goes (``games.moves``): the event loop, a worker thread, or the
shared sync thread."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import close_old_connections

from games import rows
from games.moves import on_loop, play


def parallel_moves() -> bool:
    """Whether moves run off the shared sync thread, side by side (``PARALLEL_MOVES``).

    On PostgreSQL the moves of different games then run at the same time (each locks its own
    game's row) and one slow move does not hold up every other socket of the process. SQLite
    has one writer at a time anyway, and its shared-cache test databases refuse a second
    writer instead of waiting: there every move takes the shared thread.
    """
    return settings.PARALLEL_MOVES and rows.facts().vendor != "sqlite"


def reads_ahead() -> bool:
    """Whether a socket's process reads a game ahead of its player's move
    (``on_loop.prefetch``): when moves are made on the event loop."""
    return settings.MOVES_ON_EVENT_LOOP and parallel_moves()


# The worker threads of parallel moves that take a thread's way (as many as asyncio's
# default executor has).
_move_threads = ThreadPoolExecutor(thread_name_prefix="moves")


def _with_connection(kwargs: dict) -> play.MoveResult:
    # As ``database_sync_to_async`` does: a broken or expired connection is closed before and
    # after, and the next query opens a new one.
    close_old_connections()
    try:
        return play.move_apply(**kwargs)
    finally:
        close_old_connections()


async def apply_move(**kwargs) -> play.MoveResult:
    """``play.move_apply`` for a socket: with ``parallel_moves()`` on the event loop itself
    where it can (``games.moves.on_loop``, unless ``MOVES_ON_EVENT_LOOP`` is off), else in a
    worker thread of its own; on SQLite in the shared sync thread. A move the event loop gives
    up on (it ends the game, or lost every try) is made under the lock in a worker thread.

    ``database_sync_to_async`` also copies the task's context variables into the thread and
    back, which a move does not read: 70-130 against 50 µs of CPU per hop.
    """
    if not parallel_moves():
        return await database_sync_to_async(play.move_apply)(**kwargs)
    if settings.MOVES_ON_EVENT_LOOP:
        result = await on_loop.move_apply(**kwargs)
        if isinstance(result, play.MoveResult):
            return result
        # The same retry policy: it has had its tries (and the one that ended the game).
        kwargs = {**kwargs, "guarded": False, "ahead": result}
    running = asyncio.get_running_loop()
    return await running.run_in_executor(_move_threads, _with_connection, kwargs)
