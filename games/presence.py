"""One beat for all the sockets of a server process (``Presence``).

Every open socket refreshes its ``Connection`` row (who is online) and its socket slots
(``games.limits``) once a ``PRESENCE_BEAT``, then does its own ``on_beat``. One task per event
loop does that for all of them: once a tick it takes the sockets whose beat is due, refreshes
their rows in one statement and their slots in one trip to a worker thread, then runs their
``on_beat`` side by side. A socket's beats stay a ``PRESENCE_BEAT`` apart, and the sockets'
beats spread over it as the sockets opened, so the work comes in small, even portions: what
thousands of idle sockets cost is a statement a tick, not a task and a statement each.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from typing import TYPE_CHECKING

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone

from games.models import Connection

if TYPE_CHECKING:
    from games.protocol import ProtocolConsumer

logger = logging.getLogger(__name__)

TICK_SECONDS = 1.0  # how often due beats are looked for (or the beat itself, if shorter)


def beat_seconds() -> float:
    return settings.PRESENCE_BEAT.total_seconds()


def refresh_rows(channel_names: list[str]) -> int:
    return Connection.objects.filter(channel_name__in=channel_names).update(seen=timezone.now())


def renew_slots(sockets: list[ProtocolConsumer]) -> None:
    for socket in sockets:
        slots = getattr(socket, "slots", None)
        if slots is None:
            continue
        try:
            slots.renew()
        except Exception:  # a cache that fails does not keep anyone out (games.limits)
            logger.warning("socket %s: socket slots not renewed", socket.channel_name)


class Presence:
    """The beating sockets of one event loop, each with the time its next beat is due."""

    def __init__(self) -> None:
        self.due: dict[ProtocolConsumer, float] = {}
        self.task: asyncio.Task | None = None

    def add(self, socket: ProtocolConsumer) -> None:
        self.due[socket] = time.monotonic() + beat_seconds()
        if self.task is None:
            self.task = asyncio.create_task(self.run())

    def discard(self, socket: ProtocolConsumer) -> None:
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


_presences: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def presence() -> Presence:
    """The presence of the running event loop (a test has a loop of its own)."""
    loop = asyncio.get_running_loop()
    found = _presences.get(loop)
    if found is None:
        found = _presences[loop] = Presence()
    return found
