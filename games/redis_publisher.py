"""PUBLISH to Redis on a connection of its own, without redis-py's per-call machinery.

Every move and broadcast of a server process is a PUBLISH. Through redis-py's pipeline one
costs about twice the CPU of what Redis and the socket ask (its command packing, connection
checkout, response parsing and retry wrapper, per batch). Here the messages published in one
turn of the event loop leave in one write of hand-packed RESP, and ``hiredis`` reads the
replies as they come, settling each sender's future as its reply is in.

What the layer relied on with redis-py stays:
- messages leave in the order of the calls, those of one loop turn in one write;
- a batch that cannot be sent is the error of each of its senders (a redis
  ``ConnectionError``, ``TimeoutError`` or ``ResponseError``), and the next publish connects
  again;
- a connection that Redis closed (a restart) with batches on their way is opened again and
  those batches sent once more, as redis-py's ``Retry(NoBackoff(), 1)`` did (a message may then
  reach Redis twice; consumers order updates by ``seq`` and drop what they have);
- connecting waits at most ``connect_timeout``; a Redis that takes longer than
  ``reply_timeout`` to answer anything while batches wait has its connection aborted.

Only plain ``redis://`` and ``unix://`` addresses are served here; the layer keeps redis-py for
the rest (TLS, sentinels, host dicts with options of their own).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from urllib.parse import urlsplit

import hiredis
from redis.connection import UnixDomainSocketConnection, parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

SCHEMES = ("redis", "unix")


def _command(*parts: bytes) -> bytes:
    """One command in RESP, for the rare ones (AUTH); PUBLISH is packed inline."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(part), part))
    return b"".join(out)


def settle(futures, error: BaseException | None) -> None:
    """Each future not settled yet: done, cancelled, or its sender's error."""
    for future in futures:
        if future.done():
            continue
        if error is None:
            future.set_result(None)
        elif isinstance(error, asyncio.CancelledError):
            future.cancel()
        else:
            future.set_exception(error)


class _Batch:
    """The commands of one write: their futures, and the bytes to send once more."""

    __slots__ = ("answered", "futures", "payload", "resent")

    def __init__(self, futures: list[asyncio.Future], payload: bytes) -> None:
        self.futures = futures
        self.payload = payload
        self.answered = 0  # replies read: the futures before this index are settled
        self.resent = False

    def answer(self, reply) -> bool:
        """Settle the next future with Redis's reply; whether the batch is done."""
        future = self.futures[self.answered]
        self.answered += 1
        if not future.done():
            if isinstance(reply, ResponseError):
                future.set_exception(reply)
            else:
                future.set_result(None)
        return self.answered == len(self.futures)

    def fail(self, error: BaseException) -> None:
        """The futures not answered yet: each sender's error (or cancelled)."""
        settle(self.futures[self.answered :], error)


class _Connection(asyncio.Protocol):
    """One connection to Redis: replies settle the batches on their way, in order."""

    def __init__(self, publisher: LeanPublisher) -> None:
        self.publisher = publisher
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader(replyError=ResponseError)
        self.in_flight: deque[_Batch] = deque()
        self.lost = False
        self.progress = 0  # replies read; the watchdog compares it between its rounds

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        in_flight = self.in_flight
        while True:
            try:
                reply = self.reader.gets()
            except hiredis.ProtocolError as error:
                self.abort(RedisConnectionError(f"Redis sent what it should not: {error}"))
                return
            if reply is False:
                return
            self.progress += 1
            if not in_flight:  # nothing asked for it: the stream is not what we think
                self.abort(RedisConnectionError("Redis answered what was not asked"))
                return
            if in_flight[0].answer(reply):
                in_flight.popleft()

    def write(self, batch: _Batch) -> None:
        self.in_flight.append(batch)
        self.transport.write(batch.payload)

    def abort(self, error: BaseException) -> None:
        if self.transport is not None and not self.lost:
            self.publisher._lost(self, error)
            self.transport.abort()

    def connection_lost(self, error: BaseException | None) -> None:
        if not self.lost:
            self.publisher._lost(
                self, RedisConnectionError(f"Redis closed the connection: {error or 'EOF'}")
            )


class RedisAddress:
    """Where a Redis is and how to greet it, from a plain ``redis://`` or ``unix://`` URL."""

    def __init__(self, url: str) -> None:
        options = parse_url(url)
        self.unix_path = (
            options.get("path")
            if options.get("connection_class") is UnixDomainSocketConnection
            else None
        )
        self.host = options.get("host", "localhost")
        self.port = options.get("port", 6379)
        self.hello = b""  # AUTH, when the URL names a password
        if options.get("password") is not None:
            credentials = [options["password"].encode()]
            if options.get("username"):
                credentials.insert(0, options["username"].encode())
            self.hello = _command(b"AUTH", *credentials)

    async def connect(self, protocol: asyncio.Protocol) -> None:
        loop = asyncio.get_running_loop()
        if self.unix_path is not None:
            await loop.create_unix_connection(lambda: protocol, self.unix_path)
        else:
            await loop.create_connection(lambda: protocol, self.host, self.port)


class LeanPublisher:
    """PUBLISH on one connection of this event loop, opened when first needed."""

    def __init__(
        self, address: str | RedisAddress, connect_timeout: float = 2.0, reply_timeout: float = 5.0
    ):
        self._address = address if isinstance(address, RedisAddress) else RedisAddress(address)
        self.connect_timeout = connect_timeout
        self.reply_timeout = reply_timeout
        self._outbox: list[tuple[bytes, bytes, asyncio.Future]] = []
        self._resend: list[_Batch] = []  # batches a closed connection took with it
        self._scheduled = False
        self._connection: _Connection | None = None
        self._connecting: asyncio.Task | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self._watched = -1
        self.writes = 0  # writes made, for tests and benchmarks

    @staticmethod
    def serves(host: dict) -> bool:
        """Whether a channels_redis host dict is one this publisher can serve."""
        address = host.get("address")
        return (
            set(host) == {"address"}
            and isinstance(address, str)
            and urlsplit(address).scheme in SCHEMES
        )

    # ------------------------------------------------------------------ publishing

    def publish_soon(self, channel: str, message: bytes) -> asyncio.Future:
        """Put the message in this loop turn's write; the future settles when Redis has it."""
        sent = asyncio.get_running_loop().create_future()
        self._outbox.append((channel.encode(), message, sent))
        self._schedule()
        return sent

    def _flush(self) -> None:
        self._scheduled = False
        connection = self._connection
        if connection is None:
            if self._connecting is None and (self._outbox or self._resend):
                self._connecting = asyncio.create_task(self._connect())
            return
        if self._resend:
            resend, self._resend = self._resend, []
            for batch in resend:
                connection.write(batch)
                self.writes += 1
        if self._outbox:
            outbox, self._outbox = self._outbox, []
            parts = []
            for channel, message, _ in outbox:
                parts.append(
                    b"*3\r\n$7\r\nPUBLISH\r\n$%d\r\n%s\r\n$%d\r\n"
                    % (len(channel), channel, len(message))
                )
                parts.append(message)
                parts.append(b"\r\n")
            connection.write(_Batch([sent for _, _, sent in outbox], b"".join(parts)))
            self.writes += 1
        if self._watchdog is None and connection.in_flight:
            self._arm(connection)

    async def _connect(self) -> None:
        loop = asyncio.get_running_loop()
        connection = _Connection(self)
        try:
            async with asyncio.timeout(self.connect_timeout):
                await self._address.connect(connection)
                if self._address.hello:
                    greeted = loop.create_future()
                    hello = _Batch([greeted], self._address.hello)
                    hello.resent = True  # never sent again: a lost greeting fails the connect
                    connection.write(hello)
                    await greeted
        except (asyncio.CancelledError, OSError, RedisConnectionError, ResponseError) as error:
            # TimeoutError (asyncio.timeout's) is an OSError: tested first.
            if isinstance(error, TimeoutError):
                error = RedisTimeoutError(f"Redis did not answer in {self.connect_timeout} s")
            elif isinstance(error, OSError):
                error = RedisConnectionError(f"Redis cannot be reached: {error}")
            self._fail_pending(error)
            connection.lost = True
            if connection.transport is not None:
                connection.transport.abort()
            if isinstance(error, asyncio.CancelledError):
                raise
            return
        finally:
            self._connecting = None
        if connection.lost:  # closed while greeting: its batches are failed or queued again
            if self._outbox or self._resend:
                self._schedule()
            return
        self._connection = connection
        self._flush()

    def _schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _fail_pending(self, error: BaseException) -> None:
        outbox, self._outbox = self._outbox, []
        resend, self._resend = self._resend, []
        for batch in resend:
            batch.fail(error)
        settle([sent for _, _, sent in outbox], error)

    def _lost(self, connection: _Connection, error: BaseException) -> None:
        """A connection went: what it carried is sent once more on a new one, or fails."""
        connection.lost = True
        if self._connection is connection:
            self._connection = None
        for batch in connection.in_flight:
            if batch.resent or batch.answered:
                batch.fail(error)  # part of it reached Redis, or it was sent twice
            else:
                batch.resent = True
                self._resend.append(batch)
        connection.in_flight.clear()
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if self._resend:
            self._schedule()

    # ------------------------------------------------------------------ the watchdog

    def _arm(self, connection: _Connection) -> None:
        self._watched = connection.progress
        self._watchdog = asyncio.get_running_loop().call_later(
            self.reply_timeout, self._check, connection
        )

    def _check(self, connection: _Connection) -> None:
        """One timer for every batch on its way: a round in which Redis answered nothing
        while some waited aborts the connection (its batches fail: Redis may have them)."""
        self._watchdog = None
        if connection.lost or not connection.in_flight:
            return
        if connection.progress == self._watched:
            for batch in connection.in_flight:
                batch.resent = True  # Redis may have it: not sent again
            connection.abort(RedisTimeoutError(f"Redis did not answer in {self.reply_timeout} s"))
            return
        self._arm(connection)

    # ------------------------------------------------------------------ closing

    async def close(self) -> None:
        """Close the connection; no sender is left waiting."""
        connecting, self._connecting = self._connecting, None
        if connecting is not None:
            connecting.cancel()
            with contextlib.suppress(BaseException):
                await connecting
        connection, self._connection = self._connection, None
        if connection is not None:
            self._lost(connection, asyncio.CancelledError())
            connection.transport.abort()
        self._fail_pending(asyncio.CancelledError())
