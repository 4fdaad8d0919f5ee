"""What every socket of the site shares: ``ProtocolConsumer``, the base of the game socket
(``games.consumers``) and of the lobby socket (``lobby.consumers``).

A client frame is JSON with a ``type`` and an optional ``ref``, at most ``MAX_FRAME_BYTES``
long. ``ProtocolConsumer`` parses it, checks the limits (open sockets per player and address,
moves per second, chat lines), hands it to the subclass's handler for its type and answers
whatever is refused with ``ERROR`` in the socket's language (``Refused``). A refused frame
changes nothing and leaves the socket open; so does a crash in a handler, which is logged and
answered with ``server_error``. The protocol is in docs/protocol.md.

The base runs its own read loop instead of Channels' (``ProtocolConsumer.__call__``, with the
reasons there); tests/test_ws_channels.py fails when an upgrade of Channels changes what it
replaces.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import math
import re
from collections.abc import Awaitable, Callable
from datetime import timedelta

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import DatabaseError
from django.utils import translation

from games import broadcast, errors, presence, wire
from games.fanout import Frame
from games.limits import SocketRates, SocketSlots, scope_address
from games.scope import socket_language
from games.services.chat import chat_post, too_many_lines

logger = logging.getLogger(__name__)

TOO_MANY_FOR_USER = "at most {max} open sockets per player"
TOO_MANY_FOR_ADDRESS = "at most {max} open sockets per address"
MAX_FRAME_BYTES = 8 * 1024  # checked before parsing
MOVES_PER_SECOND = 50  # per socket: a flood guard, far above any human or sane bot
# Per socket, the messages that make the server read and send a whole state, list or history
# (``reads``: SYNC costs it about 3 ms of CPU): a flood guard too.
READS_PER_SECOND = 10
# Per socket, the requests for a seat or a game (join, leave, take back, create, play again):
# each a transaction, refused or not.
WRITES_PER_SECOND = 10
CHAT_LINES, CHAT_WINDOW = 5, timedelta(seconds=10)  # per user, lobby and games together
RATE_REFUSED = {  # by kind, and who is over (games.limits.SocketRates)
    ("move", "socket"): "at most {max} moves per second",
    ("move", "user"): "at most {max} moves per second from one player's sockets together",
    ("move", "address"): "at most {max} moves per second from one address",
    ("read", "socket"): "at most {max} requests for a state, a list or a history per second",
    ("read", "user"): "at most {max} requests for a state, a list or a history per second"
    " from one player's sockets together",
    ("read", "address"): "at most {max} requests for a state, a list or a history per second"
    " from one address",
    ("write", "socket"): "at most {max} requests for a seat or a game per second",
    ("write", "user"): "at most {max} requests for a seat or a game per second"
    " from one player's sockets together",
    ("write", "address"): "at most {max} requests for a seat or a game per second from one address",
}

_SURROGATE = re.compile(r"[\ud800-\udfff]")

CLOSE_NOT_AUTHENTICATED = 4001
CLOSE_NOT_FOUND = 4004
CLOSE_FORBIDDEN = 4003
CLOSE_TOO_MANY_SOCKETS = 4429
CLOSE_SERVER_ERROR = 1011


class Refused(errors.ServiceError):
    """A client message the socket answers with ``ERROR`` (in the socket's language)."""

    def __init__(self, code: str, message: str, **params: object):
        super().__init__(message, code, **params)


def _chat_post(user, text, game_id: int | None) -> None:
    chat_post(user=user, text=text, game_id=game_id, rate=(CHAT_LINES, CHAT_WINDOW))


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
    reads: frozenset[str] = frozenset()  # at most READS_PER_SECOND of these
    writes: frozenset[str] = frozenset()  # at most WRITES_PER_SECOND of these

    async def __call__(self, scope, receive, send) -> None:
        """Channels' ``AsyncConsumer.__call__`` with one reader task per source (the socket,
        the channel layer) for the consumer's whole life.

        Channels' ``await_many_dispatch`` made a new task and an ``asyncio.wait`` for every
        message, a good part of the servers' event-loop time under load. What it promises
        still holds: messages are handled one at a time, each source's in the order it
        arrived, and none after the one that stopped the consumer (``StopConsumer`` at
        ``websocket.disconnect``, or a crash, which ends the consumer as in Channels).
        """
        # Replaces, not extends: Channels has no hook for its read loop. Derived from
        # channels 4.3.2; tests/test_ws_channels.py fails when an upgrade changes the code
        # this stands in for (AsyncConsumer.__call__, its await_many_dispatch, dispatch).
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        sources = [receive]
        if self.channel_layer is not None:
            self.channel_name = await self.channel_layer.new_channel()
            self.channel_receive = functools.partial(self.channel_layer.receive, self.channel_name)
            sources.append(self.channel_receive)
        sources += self.more_sources()
        self.base_send = send
        # Held while a message is handled; others that send to this socket take it too.
        self.turn = turn = asyncio.Lock()
        stopped = False

        async def read(source) -> None:
            nonlocal stopped
            while True:
                message = await source()
                async with turn:
                    if stopped:  # another source's message ended the consumer meanwhile
                        return
                    try:
                        await self.dispatch(message)
                    except BaseException:
                        stopped = True
                        raise

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

    def more_sources(self) -> list:
        """More sources of messages to handle in turn, beside the socket and the channel
        layer: coroutine functions that return the next message (none here)."""
        return []

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.language = socket_language(self.scope)
        self.rates = SocketRates(getattr(self.user, "pk", None), scope_address(self.scope))
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
            if self.accepted:
                # Every page's "My games" count follows this person's turns (MY_TURNS).
                await self.join_group(broadcast.user_group(self.user.pk))
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
        """Keep this socket's Connection row live (presence) and its slots taken for as long
        as it is open: the process's one beat (``games.presence``) does it."""
        self.beats = presence.beats()
        self.beats.add(self)

    beats_on = False  # whether ``on_beat`` does anything: the beat calls it only then

    async def on_beat(self) -> None:
        """More work for every beat of an open socket (set ``beats_on``; none here)."""

    async def layer_resumed(self, message: dict) -> None:
        """The channel layer hears Redis again after losing it (none here)."""

    async def disconnect(self, code: int) -> None:
        if getattr(self, "beats", None) is not None:
            self.beats.discard(self)
        await self.slots_call("release")
        if self.user is None or not self.user.is_authenticated:
            return
        try:
            await self.leave()
        except Exception:
            logger.exception("closing socket %s failed", self.channel_name)

    async def dispatch(self, message: dict) -> None:
        """Channels' hook for every message (``AsyncConsumer.dispatch``), overridden without
        calling it (see ``handle``): a socket event that fails ends the consumer as in
        Channels; a channel-layer message that fails is logged, and the socket stays open."""
        if message["type"].startswith("websocket."):
            await self.handle(message)
            return
        try:
            await self.handle(message)
        except Exception:
            # A failed push must not close the socket; the next STATE (or SYNC) repairs it.
            logger.exception("socket %s: handling %s failed", self.channel_name, message["type"])

    async def handle(self, message: dict) -> None:
        """Channels' ``AsyncConsumer.dispatch`` without its ``aclose_old_connections()``
        before every handler.

        That clean-up (``django.db.close_old_connections``, as Django runs it around each
        request) is one hop to asgiref's single sync thread per message, frames and group
        messages alike, and all sockets of the process queue for it. It closes the broken
        and expired connections of that thread, and these consumers touch the database only
        in threads that clean up themselves: ``database_sync_to_async`` (the sync thread)
        closes them before and after every call, and a move's own worker threads do the
        same (``games.moves.paths``). Channels still closes them once more when the socket
        closes (``websocket_disconnect``). tests/test_ws_channels.py shows every query of a
        socket between two clean-ups.
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
            if message["type"] in self.reads:
                self.check_rate("read", READS_PER_SECOND)
            elif message["type"] in self.writes:
                self.check_rate("write", WRITES_PER_SECOND)
            await getattr(self, handler)(message, ref)
        except errors.ServiceError as error:  # Refused too
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
        self.check_rate("move", MOVES_PER_SECOND)

    def check_rate(self, kind: str, most: int) -> None:
        over = self.rates.over(kind, most)
        if over is not None:
            raise Refused("rate_limited", RATE_REFUSED[kind, over[0]], max=over[1])

    async def post_chat(self, message: dict, game_id: int | None) -> None:
        # Counted here first: a line over the socket's limit costs no trip to the database.
        if self.rates.over("chat", CHAT_LINES, CHAT_WINDOW.total_seconds()) is not None:
            raise too_many_lines(CHAT_LINES, CHAT_WINDOW)
        await database_sync_to_async(_chat_post)(self.user, message.get("text"), game_id)

    # ------------------------------------------------------------------ server frames

    async def send(self, text_data=None, bytes_data=None, close=False) -> None:
        """A text goes straight to the socket's connection when it takes it plain
        (``games.fanout``): daphne's way hands it through four layers, and frames it there."""
        if text_data is not None and bytes_data is None and not close:
            await self.send_frame(Frame(text_data))
            return
        await super().send(text_data, bytes_data, close)

    async def send_frame(self, frame: Frame) -> None:
        """``frame``, made for several sockets perhaps: its bytes straight to the connection
        when it takes them plain, else its text through daphne."""
        if not frame.write(self):
            await super().send(text_data=frame.text)

    async def send_json(self, content: dict) -> None:
        await self.send(text_data=wire.dumps(content))

    async def send_error(
        self, code: str, message: str, ref: str | None = None, **params: object
    ) -> None:
        """``ERROR`` with ``message`` (an English template filled with ``params``) in the
        socket's language."""
        await self.send_refusal(errors.ServiceError(message, code, **params), ref)

    async def send_refusal(self, error: errors.ServiceError, ref: str | None) -> None:
        with translation.override(self.language):
            message = error.message
        await self.send_json({"type": "ERROR", "code": error.code, "message": message, "ref": ref})

    async def my_turns(self, message: dict) -> None:
        """Whether a game waits for this person's move now (``broadcast.turns_changed``)."""
        await self.send_json(
            {"type": "MY_TURNS", "game": message["game"], "your_move": message["your_move"]}
        )

    async def chat_line(self, message: dict) -> None:
        await self.send_json({**message, "type": "CHAT"})

    # ------------------------------------------------------------------ presence

    def record_connection(self, game_id: int | None) -> tuple[bool, bool]:
        """Record this socket: whether its user had no other live socket on game
        ``game_id``, and none on the site (``presence.record``)."""
        return presence.record(self.channel_name, self.user, game_id)

    def forget_connection(self) -> bool:
        """Forget this socket; True if its user has no live socket left on the site."""
        return not presence.forget(self.channel_name, self.user.pk, None)[1]

    async def depart(self, departure: Callable[[], Awaitable[None]]) -> None:
        """``departure`` (this closed socket's row forgotten, the change told) now, or once
        ``PRESENCE_GRACE`` is over, the row live until then: a socket of the same person
        that opens meanwhile (the next page) makes the departure no change of presence."""
        grace = settings.PRESENCE_GRACE.total_seconds()
        if grace <= 0:
            await departure()
            return
        await database_sync_to_async(presence.linger)(self.channel_name, grace)
        presence.later(grace, departure)

    async def tell_players_changed(self) -> None:
        """The lobby's list of connected players changed (``lobby.players``)."""
        message = {"type": "lobby.players", "sender": self.channel_name}
        message["change"] = broadcast.change_id()  # the list is read once per process
        await self.channel_layer.group_send(broadcast.LOBBY_GROUP, message)

    async def join_group(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups.append(group)  # the base class leaves these groups on disconnect
