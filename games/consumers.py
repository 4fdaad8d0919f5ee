"""The game socket (``/ws/games/<id>/``) and what every socket of the site shares.

Consumers parse frames, call a service or a selector and format the answer; the rules live
in the engine, state changes in ``games.services``. The protocol is in docs/protocol.md.

Every client frame gets at most one direct answer (``ACK``, ``ERROR``, ``STATE`` for ``SYNC``,
...). A refused frame changes nothing and leaves the socket open; so does a crash in a handler,
which is logged and answered with ``server_error``.

What a game socket receives from the channel layer (``games.broadcast``):

* ``game.update`` (game group): one ``EVENT`` per event, with a sentence for the activity
  feed in the socket's language, then the ``STATE`` frame that was computed for this
  socket's seat (or for spectators) after the commit: only that one of the message's frames.
* ``presence.changed`` (game group, sent by the consumers themselves when a seated player's
  socket opens or closes): ``PRESENCE`` and then a fresh ``STATE``.
* ``chat.line`` (game group): ``CHAT``.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import math
import re
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection
from django.utils import timezone, translation
from django.utils.translation import trans_real

from games import async_moves, bots, broadcast, registry, selectors, services, wire
from games.limits import SocketSlots, scope_address
from games.models import ChatMessage, Connection, Game, Seat
from games.scope import header

logger = logging.getLogger(__name__)

TOO_MANY_FOR_USER = "at most {max} open sockets per player"
TOO_MANY_FOR_ADDRESS = "at most {max} open sockets per address"
MAX_FRAME_BYTES = 8 * 1024  # checked before parsing
MOVES_PER_SECOND = 50  # per socket: a flood guard, far above any human or sane bot
CHAT_LINES, CHAT_WINDOW = 5, timedelta(seconds=10)  # per user, lobby and games together
# A change this old whose update a socket has not had was lost on the way (see on_beat).
MESSAGE_GRACE = timedelta(seconds=2)

_SURROGATE = re.compile(r"[\ud800-\udfff]")

CLOSE_NOT_AUTHENTICATED = 4001
CLOSE_NOT_FOUND = 4004
CLOSE_FORBIDDEN = 4003
CLOSE_TOO_MANY_SOCKETS = 4429
CLOSE_SERVER_ERROR = 1011


def parallel_moves() -> bool:
    """Whether moves run off the shared sync thread, side by side (``PARALLEL_MOVES``).

    On PostgreSQL the moves of different games then run at the same time (each locks its own
    game's row) and one slow move does not hold up every other socket of the process. SQLite
    has one writer at a time anyway, and its shared-cache test databases refuse a second
    writer instead of waiting: there every move takes the shared thread.
    """
    return settings.PARALLEL_MOVES and connection.vendor != "sqlite"


# The worker threads of parallel moves that take the thread's way (as many as asyncio's
# default executor has).
_move_threads = ThreadPoolExecutor(thread_name_prefix="moves")


def _with_connection(kwargs: dict) -> services.MoveResult:
    # As ``database_sync_to_async`` does: a broken or expired connection is closed before and
    # after, and the next query opens a new one.
    close_old_connections()
    try:
        return services.move_apply(**kwargs)
    finally:
        close_old_connections()


def reads_ahead() -> bool:
    """Whether a socket's process reads a game ahead of its player's move
    (``async_moves.prefetch``): when moves are made on the event loop."""
    return settings.MOVES_ON_EVENT_LOOP and parallel_moves()


async def apply_move(**kwargs) -> services.MoveResult:
    """``services.move_apply``: with ``parallel_moves()`` on the event loop itself where it can
    (``games.async_moves``, unless ``MOVES_ON_EVENT_LOOP`` is off), else in a worker thread of
    its own; on SQLite in the shared sync thread.

    ``database_sync_to_async`` also copies the task's context variables into the thread and
    back, which a move does not read: 70-130 against 50 µs of CPU per hop.
    """
    if not parallel_moves():
        return await database_sync_to_async(services.move_apply)(**kwargs)
    if settings.MOVES_ON_EVENT_LOOP:
        result = await async_moves.move_apply(**kwargs)
        if result is not None:
            return result
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_move_threads, _with_connection, kwargs)


class Refused(services.ServiceError):
    """A client message the socket answers with ``ERROR`` (in the socket's language)."""

    def __init__(self, code: str, message: str, **params: object):
        super().__init__(message, code, **params)


def socket_language(scope: dict) -> str:
    """The language of a socket: the language cookie, then Accept-Language, then German.

    The same order as Django's LocaleMiddleware (``get_language_from_request``) for pages.
    """
    code = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    if code:
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            pass
    for code, _quality in trans_real.parse_accept_lang_header(
        header(scope, b"accept-language") or ""
    ):
        if code == "*":
            break
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


def _chat_post(user, text, game_id: int | None) -> None:
    since = timezone.now() - CHAT_WINDOW
    if ChatMessage.objects.filter(user=user, created__gte=since).count() >= CHAT_LINES:
        raise Refused(
            "rate_limited",
            "at most {lines} chat lines per {seconds} seconds",
            lines=CHAT_LINES,
            seconds=CHAT_WINDOW.seconds,
        )
    services.chat_post(user=user, text=text, game_id=game_id)


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text} is too large")
    return number


def _storable(message: dict) -> bool:
    """Whether no key or string holds NUL or an unpaired surrogate.

    Neither can be stored (PostgreSQL, SQLite's JSON) or sent back in a UTF-8 frame; both only
    reach ``json.loads`` as ``\\u`` escapes.
    """
    stack: list = [message]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and ("\x00" in item or _SURROGATE.search(item)):
            return False
    return True


class ProtocolConsumer(AsyncWebsocketConsumer):
    """JSON frames with a ``type`` and an optional ``ref``; ``ERROR`` for whatever is refused.

    Subclasses fill ``handlers`` (message type → method name; the method gets the message
    and its ref) and implement ``open`` (after authentication) and ``leave``.
    """

    handlers: dict[str, str] = {}
    common_handlers = {"PING": "on_ping"}

    async def __call__(self, scope, receive, send) -> None:
        """Channels' ``AsyncConsumer.__call__`` with one reader task per source (the socket,
        the channel layer) for the consumer's whole life.

        Channels' ``await_many_dispatch`` made a new task and an ``asyncio.wait`` for every
        message, a good part of the servers' event-loop time under load. Messages are still
        handled one at a time, each source's in the order it arrived.
        """
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        sources = [receive]
        if self.channel_layer is not None:
            self.channel_name = await self.channel_layer.new_channel()
            self.channel_receive = functools.partial(self.channel_layer.receive, self.channel_name)
            sources.append(self.channel_receive)
        self.base_send = send
        turn = asyncio.Lock()

        async def read(source) -> None:
            while True:
                message = await source()
                async with turn:
                    await self.dispatch(message)

        readers = [asyncio.create_task(read(source)) for source in sources]
        try:
            done, _ = await asyncio.wait(readers, return_when=asyncio.FIRST_COMPLETED)
            for reader in done:
                error = reader.exception()
                if error is not None and not isinstance(error, StopConsumer):
                    raise error
        finally:
            for reader in readers:
                reader.cancel()
            await asyncio.gather(*readers, return_exceptions=True)

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.language = socket_language(self.scope)
        self.moves_sent: deque[float] = deque()
        self.accepted = False
        if self.user is None or not self.user.is_authenticated:
            await self.accept()
            await self.send_error("not_authenticated", "log in, or send 'Authorization: Token'")
            await self.close(CLOSE_NOT_AUTHENTICATED)
            return
        full = await self.claim_slots()
        if full is not None:
            await self.accept()
            limit = settings.SOCKETS_PER_USER if full == "user" else settings.SOCKETS_PER_ADDRESS
            if full == "user":
                await self.send_error("too_many_sockets", TOO_MANY_FOR_USER, max=limit)
            else:
                await self.send_error("too_many_sockets", TOO_MANY_FOR_ADDRESS, max=limit)
            await self.close(CLOSE_TOO_MANY_SOCKETS)
            return
        try:
            await self.open()
        except Exception:
            logger.exception("socket %s: opening failed", self.channel_name)
            if not self.accepted:
                await self.accept()
            await self.send_error("server_error", "the server could not open this socket")
            await self.close(CLOSE_SERVER_ERROR)

    async def claim_slots(self) -> str | None:
        """Take this socket's slots (``games.limits``): None, or the kind that is full. A cache
        that fails does not keep anyone out."""
        self.slots = SocketSlots(self.channel_name, self.user.pk, scope_address(self.scope))
        try:
            return await sync_to_async(self.slots.claim, thread_sensitive=False)()
        except Exception:
            logger.warning("socket %s: no socket slots counted", self.channel_name, exc_info=True)
            self.slots = None
            return None

    async def slots_call(self, action: str) -> None:
        slots = getattr(self, "slots", None)
        if slots is None:
            return
        try:
            await sync_to_async(getattr(slots, action), thread_sensitive=False)()
        except Exception:
            logger.warning("socket %s: socket slots not %sd", self.channel_name, action)

    async def accept(self, subprotocol=None, headers=None) -> None:
        self.accepted = True
        await super().accept(subprotocol, headers)

    async def open(self) -> None:
        """Set the socket up and accept it (authenticated users only)."""
        raise NotImplementedError

    async def leave(self) -> None:
        raise NotImplementedError

    def start_heartbeat(self) -> None:
        self.heartbeat = asyncio.create_task(self.beat())

    async def beat(self) -> None:
        """Keep this socket's Connection row live (presence) for as long as it is open."""
        refresh = database_sync_to_async(
            lambda: Connection.objects.filter(channel_name=self.channel_name).update(
                seen=timezone.now()
            )
        )
        while True:
            await asyncio.sleep(settings.PRESENCE_BEAT.total_seconds())
            try:
                await self.slots_call("renew")
                await refresh()
                await self.on_beat()
            except Exception:
                logger.exception("socket %s: the beat failed", self.channel_name)

    async def on_beat(self) -> None:
        """More work for every beat of an open socket (none here)."""

    async def layer_resumed(self, message: dict) -> None:
        """The channel layer hears Redis again after losing it (none here)."""

    async def disconnect(self, code: int) -> None:
        heartbeat = getattr(self, "heartbeat", None)
        if heartbeat is not None:
            heartbeat.cancel()
        await self.slots_call("release")
        if self.user is None or not self.user.is_authenticated:
            return
        try:
            await self.leave()
        except Exception:
            logger.exception("closing socket %s failed", self.channel_name)

    async def dispatch(self, message: dict) -> None:
        if message["type"].startswith("websocket."):
            await self.handle(message)
            return
        try:
            await self.handle(message)
        except Exception:
            # A failed push must not close the socket; the next STATE (or SYNC) repairs it.
            logger.exception("socket %s: handling %s failed", self.channel_name, message["type"])

    async def handle(self, message: dict) -> None:
        """Channels' dispatch without its database clean-up before every message.

        That clean-up is one hop to asgiref's single sync thread per message, frames and
        group messages alike, and all sockets of the process queue for it. These consumers
        touch the database only through ``database_sync_to_async``, which closes broken and
        expired connections in its own thread before and after every call.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)

    # ------------------------------------------------------------------ client frames

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None):
        ref = None
        try:
            message = self.parse(text_data, bytes_data)
            ref = message.get("ref")
            if not (ref is None or isinstance(ref, str)):
                ref = None
                raise Refused("bad_field", "'ref' must be a string")
            if not isinstance(message.get("type"), str):
                raise Refused("bad_field", "a message needs a 'type' string")
            handler = self.handlers.get(message["type"]) or self.common_handlers.get(
                message["type"]
            )
            if handler is None:
                raise Refused(
                    "unknown_type", "unknown message type {type}", type=repr(message["type"])
                )
            await getattr(self, handler)(message, ref)
        except services.ServiceError as error:  # Refused too
            await self.send_refusal(error, ref)
        except DatabaseError:
            # The transaction was rolled back: nothing changed, and the client may try again.
            logger.exception("socket %s: the database refused a change", self.channel_name)
            await self.send_error(
                "unavailable", "the server could not save this; nothing changed, try again", ref
            )
        except Exception:
            logger.exception("socket %s: handling a client message failed", self.channel_name)
            await self.send_error("server_error", "the server could not handle this message", ref)

    async def on_ping(self, message: dict, ref: str | None) -> None:
        # A round trip through the server and nothing else: clients show their latency with
        # it, and the load benchmark measures the floor of a move's round trip.
        await self.send_json({"type": "PONG", "ref": ref})

    def parse(self, text_data: str | None, bytes_data: bytes | None) -> dict:
        if text_data is None:
            raise Refused("bad_json", "send JSON in text frames")
        if len(text_data) > MAX_FRAME_BYTES or len(text_data.encode()) > MAX_FRAME_BYTES:
            raise Refused("too_large", "a message has at most {max} bytes", max=MAX_FRAME_BYTES)
        try:
            message = json.loads(text_data, parse_constant=_not_json, parse_float=_finite)
        except (ValueError, RecursionError):
            raise Refused("bad_json", "the message is not valid JSON") from None
        if not isinstance(message, dict):
            raise Refused("bad_json", "a message is a JSON object with a 'type'")
        if "\\u" in text_data and not _storable(message):
            raise Refused("bad_json", "strings may not hold NUL or unpaired surrogates")
        return message

    def check_move_rate(self) -> None:
        now = time.monotonic()
        sent = self.moves_sent
        while sent and sent[0] <= now - 1:
            sent.popleft()
        if len(sent) >= MOVES_PER_SECOND:
            raise Refused("rate_limited", "at most {max} moves per second", max=MOVES_PER_SECOND)
        sent.append(now)

    async def post_chat(self, message: dict, game_id: int | None) -> None:
        await database_sync_to_async(_chat_post)(self.user, message.get("text"), game_id)

    # ------------------------------------------------------------------ server frames

    async def send_json(self, content: dict) -> None:
        await self.send(text_data=wire.dumps(content))

    async def send_error(
        self, code: str, message: str, ref: str | None = None, **params: object
    ) -> None:
        """``ERROR`` with ``message`` (an English template filled with ``params``) in the
        socket's language."""
        await self.send_refusal(services.ServiceError(message, code, **params), ref)

    async def send_refusal(self, error: services.ServiceError, ref: str | None) -> None:
        with translation.override(self.language):
            message = error.message
        await self.send_json({"type": "ERROR", "code": error.code, "message": message, "ref": ref})

    async def chat_line(self, message: dict) -> None:
        await self.send_json({**message, "type": "CHAT"})

    # ------------------------------------------------------------------ presence

    def record_connection(self, game_id: int | None) -> bool:
        """Record this socket; True if its user had no other live socket on the site."""
        Connection.objects.stale().delete()
        was_connected = Connection.objects.live().filter(user=self.user).exists()
        Connection.objects.create(channel_name=self.channel_name, user=self.user, game_id=game_id)
        return not was_connected

    def forget_connection(self) -> bool:
        """Forget this socket; True if its user has no live socket left on the site."""
        Connection.objects.filter(channel_name=self.channel_name).delete()
        return not Connection.objects.live().filter(user=self.user).exists()

    async def tell_players_changed(self) -> None:
        """The lobby's list of connected players changed (``lobby.players``)."""
        message = {"type": "lobby.players", "sender": self.channel_name}
        message["change"] = broadcast.change_id()  # the list is read once per process
        await self.channel_layer.group_send(broadcast.LOBBY_GROUP, message)

    async def join_group(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups.append(group)  # the base class leaves these groups on disconnect


class GameConsumer(ProtocolConsumer):
    """``/ws/games/<id>/``: seated players get their own view, anyone else the public one."""

    # The game's moves (its kind's MOVE_TYPES) are added when the socket opens.
    handlers = {
        "SYNC": "on_sync",
        "CHAT": "on_chat",
        "REQUEST_HISTORY": "on_history",
        "TAKE_SEAT_BACK": "on_take_seat_back",
        "LEAVE_GAME": "on_leave_game",
        "REMATCH": "on_rematch",
    }

    async def open(self) -> None:
        self.game_id = self.scope["url_route"]["kwargs"]["game_id"]
        self.seated = False
        self.recorded = False
        self.sent_seq = -1
        self.sent_status = None
        self.fed_seq = 0  # the feed entries (EVENTs) this socket has had go up to here
        self.caught_up_seq = -1  # the feed entries up to here came with a catch-up
        self.names: dict[int, str] = {}
        await self.accept()
        found = await database_sync_to_async(self._seated)()
        if found is None:
            await self.send_error("not_found", "there is no game {game}", game=self.game_id)
            await self.close(CLOSE_NOT_FOUND)
            return
        self.kind, self.seated, sealed = found
        if sealed and not self.seated:
            await self.send_error(
                "sealed",
                "today's daily challenge games are shown to their own player only until the"
                " day is over",
            )
            await self.close(CLOSE_FORBIDDEN)
            return
        if self.seated and reads_ahead():
            async_moves.open_soon()
        moves = {move_type: "on_move" for move_type in self.kind.engine.MOVE_TYPES}
        self.handlers = {**moves, **type(self).handlers}
        self.joined_at = time.time()
        await self.join_group(broadcast.game_group(self.game_id))
        view, arrived = await database_sync_to_async(self._enter)()
        self.recorded = True
        self.start_heartbeat()
        if self.seated:
            await self.tell_presence(True)
        if arrived:
            await self.tell_players_changed()
        await self.send_state(view)
        self.fed_seq = view["seq"]  # older entries come with REQUEST_HISTORY

    async def leave(self) -> None:
        if not getattr(self, "recorded", False):
            return
        still_connected, departed = await database_sync_to_async(self._exit)()
        if self.seated:
            await self.tell_presence(still_connected)
        if departed:
            await self.tell_players_changed()

    # database work, run in a worker thread

    def _seated(self) -> tuple[registry.GameKind, bool, bool] | None:
        """The game's kind, whether the user has a seat and whether the game is sealed (shown
        to its players only); None if there is no such game."""
        game = Game.objects.filter(pk=self.game_id).only("kind", "options").first()
        if game is None:
            return None
        seated = Seat.objects.filter(game_id=self.game_id, user=self.user).exists()
        kind = registry.get(game.kind)
        return kind, seated, kind.glue.sealed(game)

    def _enter(self) -> tuple[dict, bool]:
        arrived = self.record_connection(self.game_id)
        if Seat.objects.filter(
            game_id=self.game_id, user=self.user, autopilot=True, left=False
        ).exists():
            # Back at the table (a reload, a new device): the person plays again.
            services.seat_take_back(game_id=self.game_id, user=self.user)
        return self._view(), arrived

    def _exit(self) -> tuple[bool, bool]:
        """Whether the user still has a socket on this game, and whether they left the site."""
        departed = self.forget_connection()
        here = Connection.objects.live().filter(game_id=self.game_id, user=self.user).exists()
        return here, departed

    def _view(self) -> dict:
        game = Game.objects.filter(pk=self.game_id).first()
        if game is None:
            raise services.NotFound("there is no game {game}", game=self.game_id)
        return selectors.game_view(game, self.user.pk)

    # client messages

    async def on_move(self, message: dict, ref: str | None) -> None:
        expect_seq = message.get("expect_seq")
        if expect_seq is not None and (
            isinstance(expect_seq, bool) or not isinstance(expect_seq, int)
        ):
            raise Refused("bad_field", "'expect_seq' must be a whole number")
        self.check_move_rate()
        result = await apply_move(
            game_id=self.game_id, user=self.user, move=message, expect_seq=expect_seq
        )
        # The update itself reaches every client (this one too) through its group.
        await self.send_json({"type": "ACK", "ref": ref, "seq": result.seq})

    async def on_sync(self, message: dict, ref: str | None) -> None:
        # A bot turn lost to a crashed server is taken up here (at once if none is due).
        await database_sync_to_async(bots.kick)(self.game_id)
        await self.send_state(await database_sync_to_async(self._view)())

    async def on_chat(self, message: dict, ref: str | None) -> None:
        await self.post_chat(message, self.game_id)

    async def on_take_seat_back(self, message: dict, ref: str | None) -> None:
        seq = await database_sync_to_async(services.seat_take_back)(
            game_id=self.game_id, user=self.user
        )
        await self.send_json({"type": "ACK", "ref": ref, "seq": seq})

    async def on_leave_game(self, message: dict, ref: str | None) -> None:
        game = await database_sync_to_async(services.game_leave)(
            game_id=self.game_id, user=self.user
        )
        await self.send_json({"type": "ACK", "ref": ref, "seq": game.seq})

    async def on_rematch(self, message: dict, ref: str | None) -> None:
        rematch = await database_sync_to_async(services.rematch_answer)(
            game_id=self.game_id, user=self.user, accept=message.get("accept", True)
        )
        # Every socket of the game (this one too) gets its STATE with the offer as it stands.
        await self.send_json({"type": "ACK", "ref": ref, "seq": rematch.game.seq})

    async def on_history(self, message: dict, ref: str | None) -> None:
        events, chat = await database_sync_to_async(self._history)()
        entries = self.feed_entries([event for _, event in events])
        await self.send_json(
            {
                "type": "HISTORY",
                "events": [
                    {"seq": seq, "event": entry}
                    for (seq, _), entry in zip(events, entries, strict=True)
                ],
                "chat": chat,
            }
        )

    def _history(self) -> tuple[list[tuple[int, dict]], list[dict]]:
        # Names of everyone seated now: some may have joined after this socket's last STATE.
        seats = Seat.objects.filter(game_id=self.game_id).select_related("user")
        self.names.update({seat.user_id: seat.user.get_username() for seat in seats})
        chat = [broadcast.chat_line(line) for line in selectors.chat_history(self.game_id)]
        return selectors.event_history(self.game_id), chat

    # channel-layer messages

    async def game_update(self, message: dict) -> None:
        players = dict(message["players"])  # user id -> name
        # A spectator may have taken a seat meanwhile, or a player given theirs back before
        # the deal: the frame is chosen by the seats of this update.
        self.seated = self.user.pk in players
        self.names.update(players)
        if message["seq"] > self.caught_up_seq:  # else a catch-up has sent these already
            for entry in self.feed_entries(message["events"]):
                await self.send_json({"type": "EVENT", "seq": message["seq"], "event": entry})
            self.fed_seq = max(self.fed_seq, message["seq"])
        # A STATE fetched for a presence change may already be newer than this update.
        if message["seq"] < self.sent_seq:
            return
        frame = message["frames"].get(str(self.user.pk)) if self.seated else message["public"]
        if frame is None:  # a computer player's own socket: its seat has no frame
            await self.send_state(await database_sync_to_async(self._view)())
            return
        self.sent_seq, self.sent_status = message["seq"], message["status"]
        await self.send(text_data=frame)
        if self.user.pk in message.get("movers", ()) and reads_ahead():
            async_moves.prefetch(self.game_id, message["seq"])

    async def on_beat(self) -> None:
        """Send what this socket missed: changes whose update never came (lost in the channel
        layer, as when Redis restarts) are noticed within a beat, with their feed entries."""
        await self.catch_up(MESSAGE_GRACE)

    async def layer_resumed(self, message: dict) -> None:
        """Redis is back: the updates of other processes published meanwhile are lost, and
        any update still on its way comes after this (its process published it after Redis
        had this process's subscriptions again), so catch up at once, without the grace."""
        await self.catch_up(timedelta(0))

    async def catch_up(self, grace: timedelta) -> None:
        missed = await database_sync_to_async(self._missed)(grace)
        if missed is None:
            return
        events, view = missed
        entries = self.feed_entries([event for _, event in events])
        for (seq, _), entry in zip(events, entries, strict=True):
            await self.send_json({"type": "EVENT", "seq": seq, "event": entry})
            self.caught_up_seq = self.fed_seq = max(self.fed_seq, seq)
        news = (view["seq"], view["status"]) != (self.sent_seq, self.sent_status)
        if news and view["seq"] >= self.sent_seq:
            await self.send_state(view)

    def _missed(self, grace: timedelta) -> tuple[list[tuple[int, dict]], dict] | None:
        settled = timezone.now() - grace
        games = Game.objects.filter(pk=self.game_id, updated__lt=settled)
        latest = games.values_list("seq", "status").first()
        if latest is None:
            return None
        # A SYNC may have brought the state already, but not the feed entries.
        if latest[0] <= self.fed_seq and latest == (self.sent_seq, self.sent_status):
            return None
        game = Game.objects.filter(pk=self.game_id).first()
        if game is None:
            return None
        events = selectors.event_history(self.game_id, after_seq=self.fed_seq)
        return events, selectors.game_view(game, self.user.pk)

    async def presence_changed(self, message: dict) -> None:
        if reads_ahead():  # the read ahead knew the presence before this change
            async_moves.forget(self.game_id)
        if message.get("sender") == self.channel_name:
            return
        if message.get("at", math.inf) < self.joined_at:
            # Older than this socket (Redis pub/sub hands a group's messages to the members
            # it has when they arrive): the STATE this socket opened with knew it already.
            return
        await self.send_json(
            {"type": "PRESENCE", "player": message["player"], "connected": message["connected"]}
        )
        view = await database_sync_to_async(self._view)()
        if view["seq"] >= self.sent_seq:
            await self.send_state(view)

    # helpers

    async def tell_presence(self, connected: bool) -> None:
        await self.channel_layer.group_send(
            broadcast.game_group(self.game_id),
            {
                "type": "presence.changed",
                "player": self.user.pk,
                "connected": connected,
                "sender": self.channel_name,
                "at": time.time(),
            },
        )

    async def send_state(self, view: dict) -> None:
        self.sent_seq, self.sent_status = view["seq"], view["status"]
        self.names.update({row["id"]: row.get("name", "") for row in view["players"]})
        await self.send(text_data=wire.state_frame(view))

    def feed_entries(self, events: list[dict]) -> list[dict]:
        """The feed's entries of ``events``, in the socket's language (switched to once)."""
        describe = self.kind.glue.describe
        with translation.override(self.language):
            return [
                {"player": None, **event, "text": describe(event, self.names)} for event in events
            ]
