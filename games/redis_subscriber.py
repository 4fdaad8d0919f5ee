"""SUBSCRIBE to Redis on a connection of its own, each message handed on as it is read.

redis-py's ``PubSub`` reads one message per ``get_message`` call: a timeout wrapper, its
parser, a dict and a loop turn for each. A server process reads back every group message it
publishes (Redis sends a channel's messages to every subscriber, the sender too), so that
was most of the Redis layer's CPU per move. Here ``hiredis`` parses whatever arrives in
``data_received`` and each message goes to ``on_message(channel, data)`` at once.

This connection knows nothing of what should be subscribed: the layer's shard
(``games.redis_shards.LeanShard``) keeps that, and renews it on a new connection when this
one is lost (``on_lost``). Like the publisher, it serves plain ``redis://`` and ``unix://``
addresses (``games.redis_publisher.RedisAddress``).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

import hiredis
from redis.exceptions import AuthenticationError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from games.redis_publisher import RedisAddress, _command, settle


class SubscriberConnection(asyncio.Protocol):
    """One subscribing connection. ``subscribe`` and ``unsubscribe`` only write (Redis
    confirms them in order, and nothing waits for that); ``ping`` answers once Redis has
    handled everything written before it."""

    def __init__(
        self,
        on_message: Callable[[bytes, bytes], None],
        on_lost: Callable[[SubscriberConnection, BaseException], None],
    ) -> None:
        self.on_message = on_message
        self.on_lost = on_lost
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader(replyError=ResponseError)
        self.waiting: deque[asyncio.Future] = deque()  # replies asked for: AUTH's, PING's
        self.lost = False

    @classmethod
    async def open(
        cls,
        address: RedisAddress,
        on_message: Callable[[bytes, bytes], None],
        on_lost: Callable[[SubscriberConnection, BaseException], None],
        timeout: float,
    ) -> SubscriberConnection:
        """Connect and greet within ``timeout``; a redis ``ConnectionError`` (a refused
        password is an ``AuthenticationError``, one of them) or ``TimeoutError`` if not."""
        connection = cls(on_message, on_lost)
        try:
            async with asyncio.timeout(timeout):
                await address.connect(connection)
                if address.hello:
                    await connection._ask(address.hello)
        except BaseException as error:
            connection.close()
            if isinstance(error, TimeoutError):  # asyncio.timeout's, an OSError: first
                raise RedisTimeoutError(f"Redis did not answer in {timeout} s") from None
            if isinstance(error, OSError):
                raise RedisConnectionError(f"Redis cannot be reached: {error}") from None
            if isinstance(error, ResponseError):
                raise AuthenticationError(f"Redis refused the password: {error}") from None
            raise
        return connection

    # ------------------------------------------------------------------ commands

    def subscribe(self, *channels: str) -> None:
        self._write(_command(b"SUBSCRIBE", *(channel.encode() for channel in channels)))

    def unsubscribe(self, *channels: str) -> None:
        self._write(_command(b"UNSUBSCRIBE", *(channel.encode() for channel in channels)))

    def ping(self) -> asyncio.Future:
        return self._ask(_command(b"PING"))

    def _ask(self, command: bytes) -> asyncio.Future:
        self._write(command)
        answered = asyncio.get_running_loop().create_future()
        self.waiting.append(answered)
        return answered

    def _write(self, command: bytes) -> None:
        if self.lost or self.transport is None:
            raise RedisConnectionError("the subscribing connection is closed")
        self.transport.write(command)

    def close(self) -> None:
        """Close without telling ``on_lost``; nothing waits on it any more."""
        self.lost = True
        settle(self.waiting, RedisConnectionError("the subscribing connection is closed"))
        self.waiting.clear()
        if self.transport is not None:
            self.transport.abort()

    def abort(self, error: BaseException) -> None:
        """Close, and tell ``on_lost`` (the shard renews its subscriptions)."""
        if not self.lost:
            self.close()
            self.on_lost(self, error)

    # ------------------------------------------------------------------ asyncio.Protocol

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        reader.feed(data)
        while not self.lost:
            try:
                reply = reader.gets()
            except hiredis.ProtocolError as error:
                self.abort(RedisConnectionError(f"Redis sent what it should not: {error}"))
                return
            if reply is False:
                return
            if type(reply) is list:
                kind = reply[0]
                if kind == b"message":
                    self.on_message(reply[1], reply[2])
                elif kind == b"pong":  # PING's answer once subscribed
                    self._answer(None)
                # subscribe and unsubscribe confirmations: nothing waits for them
            elif isinstance(reply, ResponseError) and not self.waiting:
                self.abort(RedisConnectionError(f"Redis refused a subscription: {reply}"))
            else:  # +OK (AUTH), +PONG (PING with nothing subscribed), or their error
                self._answer(reply)

    def _answer(self, reply) -> None:
        if not self.waiting:
            self.abort(RedisConnectionError("Redis answered what was not asked"))
            return
        answered = self.waiting.popleft()
        if answered.done():
            return
        if isinstance(reply, ResponseError):
            answered.set_exception(reply)
        else:
            answered.set_result(None)

    def connection_lost(self, error: BaseException | None) -> None:
        self.abort(RedisConnectionError(f"Redis closed the connection: {error or 'EOF'}"))
