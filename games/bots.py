"""The bot driver: computer players move after every committed change of their game.

It moves for the computer players' seats and for the seats of people whose turn timer ran
out or who left the game (``Seat.computer_plays``), always with the heuristic bot for the
latter (the kind's ``default_bot``).

``games.services`` sends ``games.signals.bots_may_move`` after the commit of every change of a
game being played that has bot seats, which calls :func:`kick`; the game socket calls it on
``SYNC`` too. A bot decides from its own seat's
view (``selectors.game_view``), exactly what a person in that seat would be sent, and moves
through ``play.move_apply`` with the ``expect_seq`` it decided on. So a bot moves at most
once per turn however many drivers run: a second driver's move is ``stale`` and dropped.

* ``BOT_DELAY`` 0 (tests): the bots move at once, one after the other, inside the call that
  committed the change (a loop; the kicks of the bots' own moves return at once).
* ``BOT_DELAY`` > 0: each bot move waits the delay, so no request or socket waits for it;
  the commit of that move starts the wait of the next one. In a server the wait is a task on
  its event loop and the move runs in a worker thread of it, so that its broadcast reaches
  the sockets at once with the in-memory channel layer too; elsewhere (a management
  command) it is a timer thread.

With several server processes the process that committed the previous move drives the bots.
A bot turn lost to a crash or restart is taken up by the next driver run: the next ``SYNC``
of any client (clients send one when they reconnect), the next change of the game, or the
sweeper (``games.sweeper``) once the game has stalled for ``BOT_STALL``.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connections

from games import errors, registry, selectors, serverloop
from games.models import Game, Seat
from games.moves import play

logger = logging.getLogger(__name__)

_local = threading.local()  # .driving: the games this thread is driving right now
_scheduled: set[int] = set()  # games with a timer waiting in this process
_scheduled_lock = threading.Lock()


def kick(game_id: int, at_once: bool = False) -> None:
    """Let the bots of ``game_id`` move if one may; returns at once if none may.

    ``at_once``: the first move comes without ``BOT_DELAY`` (a stand-in for a person whose
    turn ran out: the turn has lasted long enough); the moves after it keep the delay.
    Never raises: it runs after commits, and a bot's failure is no failure of that commit.
    """
    try:
        delay = settings.BOT_DELAY
        if delay > 0:
            _schedule(game_id, 0.0 if at_once else delay)
        else:
            _drive(game_id)
    except Exception:
        logger.exception("game %s: the bot driver failed", game_id)


def _drive(game_id: int) -> None:
    driving = _local.__dict__.setdefault("driving", set())
    if game_id in driving:
        return  # the kick of a bot move of the loop below: the loop goes on by itself
    driving.add(game_id)
    try:
        while step(game_id):
            pass
    finally:
        driving.discard(game_id)


def _schedule(game_id: int, delay: float) -> None:
    if _next_bot(game_id) is None:
        return
    with _scheduled_lock:
        if game_id in _scheduled:
            return  # that timer reads the game when it fires, so it sees this change too
        _scheduled.add(game_id)
    loop = serverloop.get()
    if loop is not None:
        # In a server: wait on its event loop, so that the move's broadcast reaches the sockets
        # at once with any channel layer. In a fresh context: this thread's tells asgiref that
        # the shared sync thread is busy (with this very call), which would refuse the move.
        loop.call_soon_threadsafe(_wait_then_move, game_id, delay, context=contextvars.Context())
        return
    timer = threading.Timer(delay, _fire, (game_id,))
    timer.daemon = True
    timer.start()


def _wait_then_move(game_id: int, delay: float) -> None:
    asyncio.get_running_loop().create_task(_fire_later(game_id, delay))


async def _fire_later(game_id: int, delay: float) -> None:
    await asyncio.sleep(delay)
    try:
        await database_sync_to_async(_move_now)(game_id)
    except Exception:
        logger.exception("game %s: a delayed bot move failed", game_id)


def _fire(game_id: int) -> None:
    try:
        _move_now(game_id)
    finally:
        connections.close_all()  # this timer thread's connections only


def _move_now(game_id: int) -> None:
    # Unmark before reading the game: a change committed after this point schedules again.
    with _scheduled_lock:
        _scheduled.discard(game_id)
    try:
        step(game_id)  # its commit kicks the next bot's timer
    except Exception:
        logger.exception("game %s: a bot move failed", game_id)


def on_bots_may_move(sender, game_id: int, at_once: bool = False, **kwargs) -> None:
    kick(game_id, at_once)


def _next_bot(game_id: int) -> tuple[Game, object, Seat, dict | None] | None:
    """The game, its state and a computer-played seat that may move now, if there is one.

    The last item is the move the seat must make regardless of its bot (the kind's
    ``forced_bot_move``), or None.
    """
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not game.is_playing or game.state is None:
        return None
    seats = list(game.seats.select_related("user"))
    computer = sorted(
        (seat for seat in seats if seat.computer_plays), key=lambda seat: seat.turn_order or 0
    )
    if not computer:
        return None
    kind = registry.get(game.kind)
    state = selectors.engine_state(game)
    people = [seat for seat in seats if not seat.computer_plays]
    forced = kind.glue.forced_bot_move(state, people, computer)
    if forced is not None:
        seat, move = forced
        return game, state, seat, move
    to_move = set(kind.engine.to_move(state))
    for seat in computer:
        if seat.user_id in to_move:
            return game, state, seat, None
    return None


def step(game_id: int) -> bool:
    """One bot move, if a bot may move; False when none may (or another driver was first)."""
    found = _next_bot(game_id)
    if found is None:
        return False
    game, state, seat, move = found
    view = selectors.game_view(game, seat.user_id, state)
    if move is None:
        kind = registry.get(game.kind)
        bot = kind.engine.make_bot(seat.bot or kind.default_bot, seed=game.seed + game.seq)
        move = bot.choose(view)
    try:
        play.move_apply(
            game_id=game_id, user=seat.user, move=move, expect_seq=view["seq"], by_bot=True
        )
    except errors.Stale:
        return False  # another driver moved first, or the person took the seat back
    return True
