"""The sweeper: no game stalls because someone walked away or a server died.

A turn runs out at its deadline: after the commit that set it, the server process that made
the change arms a timer on its event loop for that moment (``on_turn_deadline_set``), which
puts the late seats on autopilot; their stand-in plays at once (``bots.kick(at_once=True)``).
So the computer moves right after the clock shows 0:00, not a sweep and a bot delay later.

Every server process also runs a sweep, as a task on its event loop (started by its first
connection, so that the in-memory channel layer carries what it broadcasts). Every
``TURN_SWEEP_SECONDS`` it puts the seats of people whose turn timer ran out on autopilot
(``turn_expire``; a timer lost with a process that died), and restarts the bot
driver of games whose computer player should have moved but has not for ``BOT_STALL`` (a bot
timer lost with a crashed process).
Several processes may sweep the same game: ``turn_expire`` locks the game and looks at the
deadline again, and a bot move is applied once (``expect_seq``).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import weakref
from datetime import datetime

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone

from games import bots, serverloop
from games.models import Game
from games.services.seats import turn_expire

logger = logging.getLogger(__name__)

BATCH = 100  # games per look; the rest wait for the next one
_tasks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # event loop -> task
_timers: dict[int, asyncio.TimerHandle] = {}  # game id -> the timer at its deadline


def on_turn_deadline_set(sender, game_id: int, deadline: datetime, **kwargs) -> None:
    """``games.signals.turn_deadline_set``: expire the turn at ``deadline`` in this process.
    Outside a server (a management command, most tests) there is no loop: the sweep does it."""
    loop = serverloop.get()
    if loop is not None:
        # In a fresh context: the committing thread's tells asgiref that the shared sync
        # thread is busy (with this very call), which would refuse the expiry (as in bots).
        loop.call_soon_threadsafe(arm, loop, game_id, deadline, context=contextvars.Context())


def arm(loop: asyncio.AbstractEventLoop, game_id: int, deadline: datetime) -> None:
    """On the loop: the game's timer fires at ``deadline`` (a later deadline replaces it)."""
    old = _timers.pop(game_id, None)
    if old is not None:
        old.cancel()
    delay = max(0.0, (deadline - timezone.now()).total_seconds())
    _timers[game_id] = loop.call_later(delay, _fire, loop, game_id)


def _fire(loop: asyncio.AbstractEventLoop, game_id: int) -> None:
    _timers.pop(game_id, None)
    loop.create_task(_expire(game_id))


async def _expire(game_id: int) -> None:
    try:  # False: the player moved in time, or another process was first
        await database_sync_to_async(turn_expire)(game_id=game_id)
    except Exception:
        logger.exception("game %s: the turn timer failed", game_id)


def sweep(now: datetime | None = None) -> int:
    """One look at every game; returns how many turn timers ran out."""
    now = now or timezone.now()
    playing = Game.objects.filter(status__in=Game.PLAYING)
    due = playing.filter(turn_deadline__lte=now).order_by("turn_deadline")
    expired = 0
    for game_id in list(due.values_list("pk", flat=True)[:BATCH]):
        try:
            expired += turn_expire(game_id=game_id, now=now)
        except Exception:
            logger.exception("game %s: the turn timer failed", game_id)
    # Only games whose computer player is to move (an index of its own): not the many that
    # wait hours for a person of a turn-based game.
    stalled = Game.objects.filter(computer_to_move=True, updated__lte=now - settings.BOT_STALL)
    for game_id in list(
        stalled.filter(status__in=Game.PLAYING).values_list("pk", flat=True)[:BATCH]
    ):
        bots.kick(game_id)  # returns at once when no computer player may move
    return expired


def ensure_running() -> None:
    """Start this process's sweeper on the running event loop unless it runs already.

    The loop is also where delayed computer players wait and where worker threads hand
    their broadcasts (``games.serverloop``).
    """
    loop = asyncio.get_running_loop()
    serverloop.note(loop)
    if settings.TURN_SWEEP_SECONDS <= 0:
        return
    task = _tasks.get(loop)
    if task is None or task.done():
        _tasks[loop] = loop.create_task(_run(settings.TURN_SWEEP_SECONDS))


async def _run(interval: float) -> None:
    while True:
        try:
            await database_sync_to_async(sweep)()
        except Exception:
            logger.exception("the sweeper failed")
        await asyncio.sleep(interval)


class SweeperMiddleware:
    """ASGI middleware: every connection (HTTP or websocket) makes sure the sweeper runs."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            ensure_running()
        return await self.app(scope, receive, send)
