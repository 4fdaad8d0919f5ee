"""Who is connected where: a ``Connection`` row per open socket (``games.models``), read by
the game views (a seat's ``connected``) and the lobby's list of players online.

A socket records its row when it opens and forgets it when it closes; its beat keeps it
live. Rows of sockets whose server died stop counting after ``PRESENCE_TTL`` (``live``) and
are deleted when a socket opens, at most once every ``PRESENCE_BEAT`` per process.

The beat (``Beats``): every open socket refreshes its row and its socket slots
(``games.limits``) once a ``PRESENCE_BEAT``, then does its own ``on_beat``. One task per event
loop does that for all of them: once a tick it takes the sockets whose beat is due, refreshes
their rows in one statement and their slots in one trip to a worker thread, then runs their
``on_beat`` side by side. A socket's beats stay a ``PRESENCE_BEAT`` apart, and the sockets'
beats spread over it as the sockets opened, so the work comes in small, even portions: what
thousands of idle sockets cost is a statement a tick, not a task and a statement each.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import time
import weakref
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Protocol

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection
from django.utils import timezone

from games import limits, rows
from games.models import Connection
from games.moves import sql

logger = logging.getLogger(__name__)

_stale_dropped = -math.inf  # time.monotonic() when this process last deleted stale rows


def record(channel_name: str, user, game_id: int | None) -> tuple[bool, bool]:
    """Record a socket of ``user`` (on game ``game_id``, or elsewhere: None): whether the
    user had no other live socket on that game (True for None), and none on the site."""
    drop_stale()
    # Written without the ORM's compiler, as a move's rows are (nothing refers to the row,
    # no signal watches it).
    row = Connection(channel_name=channel_name, user=user, game_id=game_id)
    here, anywhere = _write_and_ask(lambda: sql.insert([row]), channel_name, user.pk, game_id)
    return not here, not anywhere


def forget(channel_name: str, user_id: int, game_id: int | None) -> tuple[bool, bool]:
    """Forget a socket of user ``user_id``: as ``live_sockets`` says after that."""

    def delete() -> None:
        sql.delete_where(Connection, {"channel_name": channel_name})

    return _write_and_ask(delete, channel_name, user_id, game_id)


def _write_and_ask(
    write: Callable[[], None], channel_name: str, user_id: int, game_id: int | None
) -> tuple[bool, bool]:
    """``write()`` (of socket ``channel_name``'s row), then ``live_sockets`` for the user's
    other sockets: one statement on PostgreSQL. The read leaves this socket's row out, so it
    answers the same whether it sees the write or not."""
    found: list[tuple] = []
    with sql.batch():
        write()
        sql.read_last(*_live_sockets_query(user_id, game_id, channel_name), found.extend)
    return _answer(found)


def linger(channel_name: str, seconds: float) -> None:
    """Keep the row of a socket that closed live for ``seconds`` more, and no longer; marked
    closed (``Connection.objects.open`` leaves it out)."""
    now = timezone.now()
    seen = now - settings.PRESENCE_TTL + timedelta(seconds=seconds)
    sql.update_where(Connection, {"seen": seen, "closed": now}, {"channel_name": channel_name})


# The departures waiting for their grace to end (``later``), kept from the garbage collector.
_departures: set[asyncio.Task] = set()


def later(seconds: float, departure: Callable[[], Awaitable[None]]) -> asyncio.Task:
    """Run ``departure`` (a closed socket's row forgotten, the change told) once ``seconds``
    have passed, on this event loop. A server that stops meanwhile tells nobody: the row
    expires at the same moment, and the next list read leaves it out."""

    async def run() -> None:
        await asyncio.sleep(seconds)
        try:
            await departure()
        except Exception:
            logger.exception("a departure after its grace failed")

    task = asyncio.get_running_loop().create_task(run())
    _departures.add(task)
    task.add_done_callback(_departures.discard)
    return task


def drop_stale() -> None:
    """Delete the rows of sockets whose server died, unless this process did lately."""
    global _stale_dropped
    now = time.monotonic()
    if now - _stale_dropped < settings.PRESENCE_BEAT.total_seconds():
        return
    _stale_dropped = now
    Connection.objects.stale().delete()


def live_sockets(user_id: int, game_id: int | None) -> tuple[bool, bool]:
    """Whether user ``user_id`` has a live socket on game ``game_id`` (False for None), and
    whether they have one anywhere on the site: one statement."""
    return _answer(rows.fetch_rows(*_live_sockets_query(user_id, game_id)))


def _live_sockets_query(
    user_id: int, game_id: int | None, other_than: str | None = None
) -> tuple[str, list]:
    """``live_sockets``' statement and parameters; ``other_than``: leaving that socket out."""
    since = timezone.now() - settings.PRESENCE_TTL
    if other_than is None:
        return _live_sockets_sql(False), [user_id, since, game_id, user_id, since]
    return _live_sockets_sql(True), [
        *(user_id, since, other_than, game_id),
        *(user_id, since, other_than),
    ]


def _answer(found: list[tuple]) -> tuple[bool, bool]:
    [(here, anywhere)] = found
    return bool(here), bool(anywhere)  # SQLite answers 0 or 1


@functools.cache
def _live_sockets_sql(other: bool) -> str:
    meta, quote = Connection._meta, connection.ops.quote_name
    column = {
        name: quote(meta.get_field(name).column)
        for name in ("channel_name", "user", "game", "seen")
    }
    live = (
        f"SELECT 1 FROM {quote(meta.db_table)} live WHERE live.{column['user']} = %s"
        f" AND live.{column['seen']} >= %s"
    )
    if other:
        live += f" AND live.{column['channel_name']} <> %s"
    return f"SELECT EXISTS ({live} AND live.{column['game']} = %s), EXISTS ({live})"


TICK_SECONDS = 1.0  # how often due beats are looked for (or the beat itself, if shorter)


def beat_seconds() -> float:
    return settings.PRESENCE_BEAT.total_seconds()


def refresh_rows(channel_names: list[str]) -> int:
    return Connection.objects.filter(channel_name__in=channel_names).update(seen=timezone.now())


def renew_slots(sockets: list[Beating]) -> None:
    every = [slots for socket in sockets if (slots := getattr(socket, "slots", None)) is not None]
    try:
        limits.renew_all(every)
    except Exception:  # a cache that fails does not keep anyone out (games.limits)
        logger.warning("socket slots of %d sockets not renewed", len(every), exc_info=True)


class Beating(Protocol):
    """What the beat needs of a socket (``games.protocol.ProtocolConsumer``)."""

    channel_name: str
    beats_on: bool  # whether its ``on_beat`` does anything

    async def on_beat(self) -> None: ...


class Beats:
    """The beating sockets of one event loop, each with the time its next beat is due."""

    def __init__(self) -> None:
        self.due: dict[Beating, float] = {}
        self.task: asyncio.Task | None = None

    def add(self, socket: Beating) -> None:
        self.due[socket] = time.monotonic() + beat_seconds()
        if self.task is None:
            self.task = asyncio.create_task(self.run())

    def discard(self, socket: Beating) -> None:
        self.due.pop(socket, None)

    async def run(self) -> None:
        try:
            while self.due:
                await asyncio.sleep(min(TICK_SECONDS, beat_seconds()))
                try:
                    await self.tick(time.monotonic())
                except Exception:
                    logger.exception("presence: a beat failed")
        finally:
            self.task = None

    async def tick(self, now: float) -> None:
        """Beat every socket that is due at ``now``."""
        due = [socket for socket, at in self.due.items() if at <= now]
        if not due:
            return
        for socket in due:
            self.due[socket] = now + beat_seconds()
        await asyncio.gather(
            database_sync_to_async(refresh_rows)([socket.channel_name for socket in due]),
            sync_to_async(renew_slots, thread_sensitive=False)(due),
        )
        hooks = [socket for socket in due if socket.beats_on and socket in self.due]  # open
        results = await asyncio.gather(
            *(socket.on_beat() for socket in hooks), return_exceptions=True
        )
        for socket, result in zip(hooks, results, strict=True):
            if isinstance(result, Exception):
                logger.error("socket %s: its beat failed", socket.channel_name, exc_info=result)


_beats: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def beats() -> Beats:
    """The beats of the running event loop (a test has a loop of its own)."""
    loop = asyncio.get_running_loop()
    found = _beats.get(loop)
    if found is None:
        found = _beats[loop] = Beats()
    return found
