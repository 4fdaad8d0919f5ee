"""The Redis channel layer's connections to one Redis (its shards; ``games.channel_layer``).

A shard subscribes the channels and groups of this process's sockets, hands what Redis
brings to them (dropping this process's own group messages, which its members have had
already), and publishes. While Redis is unreachable it keeps what it should have subscribed,
and renews all of it on a new connection once Redis answers; then every socket of the process
gets ``layer.resumed``.

``LeanShard`` does this on connections of its own (``games.redis_publisher``,
``games.redis_subscriber``) for plain ``redis://`` and ``unix://`` addresses;
``LocalFirstShard`` through redis-py for the rest (TLS, sentinels, host dicts with options
of their own).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from channels_redis.pubsub import RedisSingleShardConnection
from channels_redis.utils import _close_redis, create_pool
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from games.redis_publisher import LeanPublisher, RedisAddress, settle
from games.redis_subscriber import SubscriberConnection

log = logging.getLogger(__name__)

# A payload's tag: 0xc1, which msgpack never writes, then 15 bytes naming the sending process.
MARKER = b"\xc1"
TAG_BYTES = 16
# Redis cannot be reached: a message then reaches only this process's members.
UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)
# Publishing: a pooled connection that Redis closed (a restart) is opened again and the batch
# sent once more, so the first broadcast after Redis returns goes out. No call waits long for
# a Redis that does not answer.
PUBLISH_OPTIONS = {
    "retry": Retry(NoBackoff(), 1),
    "socket_connect_timeout": 2.0,
    "socket_timeout": 5.0,
}
# Subscribing: no retry inside redis-py, whose silent reconnection would renew the
# subscriptions without anyone learning that messages were lost meanwhile; the shard
# reconnects instead, and then tells this process's sockets.
SUBSCRIBE_OPTIONS = {"retry": None, "socket_connect_timeout": 2.0}
RECONNECT_PAUSE = 0.5  # seconds between attempts to reach Redis again
CONFIRM_TIMEOUT = 5.0  # seconds for Redis to confirm renewed subscriptions


class LocalFirstShard(RedisSingleShardConnection):
    """A connection to one Redis that strips the sender's tag, drops this process's own
    group messages (their members here have them already), and publishes in batches.

    channels_redis publishes one message per round trip, under the lock its subscriptions
    take too. A busy process then made more messages than one round trip at a time carries:
    they queued without end, and a new socket's subscription waited behind them all. Here the
    messages of one loop turn leave together in one write, in order, without waiting for the
    batches before them (``LeanPublisher``); with redis-py's pipeline (addresses it does not
    serve) those that wait while a batch is on its way go together in the next one.
    Subscriptions wait for neither.
    """

    def __init__(self, host, channel_layer) -> None:
        super().__init__(host, channel_layer)
        self._outbox: list[tuple[str, bytes, asyncio.Future]] = []
        self._sender: asyncio.Task | None = None
        self._subscriber: aioredis.Redis | None = None
        # Whether the subscriptions are lost (Redis unreachable): the receiver renews them.
        # ``_subscribed_to`` is what this process wants, whether Redis has it now or not.
        self._lost = False
        self._publisher: LeanPublisher | None = None  # LeanShard's

    def _ensure_redis(self) -> None:
        if self._redis is None:
            self._redis = aioredis.Redis(
                connection_pool=create_pool(self._options(PUBLISH_OPTIONS))
            )
            self._subscriber = aioredis.Redis(
                connection_pool=create_pool(self._options(SUBSCRIBE_OPTIONS))
            )
            self._pubsub = self._subscriber.pubsub()

    def _options(self, defaults: dict) -> dict:
        if "address" not in self.host:  # a sentinel or host/port: as channels_redis has it
            return self.host
        return {**defaults, **self.host}

    # ------------------------------------------------------------------ subscriptions

    async def subscribe(self, channel: str) -> None:
        """Subscribe, or (Redis unreachable) note the channel for when Redis is back: a
        socket opens all the same and hears this process's own messages meanwhile."""
        async with self._lock:
            if channel in self._subscribed_to:
                return
            self._subscribed_to.add(channel)
            self._ensure_redis()
            self._ensure_receiver()
            if self._lost:
                return  # the renewal takes it
            try:
                await self._subscribe_now(channel)
            except UNREACHABLE as error:
                self._lose(error)

    async def unsubscribe(self, channel: str) -> None:
        async with self._lock:
            if channel not in self._subscribed_to:
                return
            self._subscribed_to.discard(channel)
            if self._lost:
                return
            try:
                await self._unsubscribe_now(channel)
            except UNREACHABLE as error:
                self._lose(error)

    async def _subscribe_now(self, channel: str) -> None:
        await self._pubsub.subscribe(channel)

    async def _unsubscribe_now(self, channel: str) -> None:
        if self._pubsub is not None:
            await self._pubsub.unsubscribe(channel)

    def _lose(self, error: BaseException) -> None:
        if not self._lost:
            self._lost = True
            log.warning(
                "Redis subscriptions lost (%s): this process serves its own sockets until"
                " Redis is back",
                f"{type(error).__name__}: {error}",
            )

    async def _do_receiving(self) -> None:
        while True:
            try:
                if self._lost:
                    await self._renew()
                if self._pubsub is not None and self._pubsub.subscribed:
                    message = await self._pubsub.get_message(
                        ignore_subscribe_messages=True, timeout=0.1
                    )
                    self._receive_message(message)
                else:
                    await asyncio.sleep(0.1)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis went away (or is still away)
                self._lose(error)
                await asyncio.sleep(RECONNECT_PAUSE)

    async def _renew(self) -> None:
        """A new connection with every wanted subscription; once Redis has confirmed them
        (its answer to a PING sent after them), this process's sockets are told."""
        async with self._lock:
            await self._drop_pubsub()
            self._pubsub = self._subscriber.pubsub()
            wanted = tuple(self._subscribed_to)
            if wanted:
                await self._pubsub.subscribe(*wanted)
                await self._pubsub.ping()
            else:
                await self._subscriber.ping()
            self._lost = False  # subscriptions made from now on go straight to Redis
        if wanted:
            deadline = asyncio.get_running_loop().time() + CONFIRM_TIMEOUT
            while True:
                message = await self._pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=0.1
                )
                if message is not None and message["type"] == "pong":
                    break
                self._receive_message(message)
                if asyncio.get_running_loop().time() > deadline:
                    raise RedisTimeoutError("Redis did not confirm the subscriptions")
        log.warning("Redis subscriptions renewed (%d channels)", len(wanted))
        self.channel_layer.resumed()

    async def _drop_pubsub(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    # ------------------------------------------------------------------ publishing

    async def publish(self, channel: str, message: bytes) -> None:
        await self.publish_soon(channel, message)

    def publish_soon(self, channel: str, message: bytes) -> asyncio.Future:
        """Put the message in the next batch; the future settles when Redis has it."""
        sent = asyncio.get_running_loop().create_future()
        self._outbox.append((channel, message, sent))
        if self._sender is None:
            self._sender = asyncio.create_task(self._send_batches())
        return sent

    async def _send_batches(self) -> None:
        batch: list = []
        try:
            while self._outbox:
                batch, self._outbox = self._outbox, []
                try:
                    self._ensure_redis()
                    pipeline = self._redis.pipeline(transaction=False)
                    for channel, message, _ in batch:
                        pipeline.publish(channel, message)
                    await pipeline.execute()
                except Exception as error:  # Redis is down: each sender hears it
                    _settle(batch, error)
                else:
                    _settle(batch, None)
        except BaseException as error:  # cancelled (flush): no sender waits for ever
            _settle(batch + self._outbox, error)
            self._outbox = []
            raise
        finally:
            self._sender = None

    async def flush(self) -> None:
        if self._sender is not None:
            self._sender.cancel()
            await asyncio.gather(self._sender, return_exceptions=True)
        await super().flush()
        subscriber, self._subscriber = self._subscriber, None
        if subscriber is not None:
            await _close_redis(subscriber)
        self._lost = False

    def _receive_message(self, message: dict | None) -> None:
        if message is not None and message["type"] == "message":
            name = message["channel"]
            self._hear(name.encode() if isinstance(name, str) else name, message["data"])

    def _hear(self, name: bytes, data: bytes) -> None:
        """A message Redis brought: to the channel, or to the group's members here."""
        layer = self.channel_layer
        if data[:1] == MARKER:
            if data[:TAG_BYTES] == layer.tag:
                return  # this process's own group message: its members here have it
            data = data[TAG_BYTES:]
        name = name.decode()
        queue = layer.channels.get(name)
        if queue is not None:
            queue.put_nowait(data)
            return
        for channel in layer.groups.get(name, ()):
            queue = layer.channels.get(channel)
            if queue is not None:
                queue.put_nowait(data)


class LeanShard(LocalFirstShard):
    """A shard that publishes and subscribes on connections of its own
    (``games.redis_publisher``, ``games.redis_subscriber``): no loop turn, timeout or dict
    per message read, and one write per loop turn published. For the addresses those serve;
    ``LocalFirstShard`` keeps redis-py for the rest.

    Subscribing only writes once the connection is open; Redis confirms in order. A lost
    connection is renewed as ``LocalFirstShard`` does: every ``RECONNECT_PAUSE`` a new one
    with every wanted channel, confirmed by a PING within ``CONFIRM_TIMEOUT``, and then
    ``layer.resumed`` for every socket of the process.
    """

    def __init__(self, host, channel_layer) -> None:
        super().__init__(host, channel_layer)
        self._address = RedisAddress(host["address"])
        self._publisher = LeanPublisher(
            self._address,
            connect_timeout=PUBLISH_OPTIONS["socket_connect_timeout"],
            reply_timeout=PUBLISH_OPTIONS["socket_timeout"],
        )
        self._connection: SubscriberConnection | None = None
        self._renewer: asyncio.Task | None = None

    async def _open(self) -> SubscriberConnection:
        return await SubscriberConnection.open(
            self._address, self._hear, self._dropped, SUBSCRIBE_OPTIONS["socket_connect_timeout"]
        )

    def _ensure_redis(self) -> None:
        pass  # no redis-py client: the connections are this shard's own

    def _ensure_receiver(self) -> None:
        pass  # the connection hands messages on as they arrive

    async def _subscribe_now(self, channel: str) -> None:
        if self._connection is None:
            self._connection = await self._open()
        self._connection.subscribe(channel)

    async def _unsubscribe_now(self, channel: str) -> None:
        if self._connection is not None:
            self._connection.unsubscribe(channel)

    def _dropped(self, connection: SubscriberConnection, error: BaseException) -> None:
        if connection is self._connection:
            self._connection = None
            self._lose(error)

    def _lose(self, error: BaseException) -> None:
        super()._lose(error)
        if self._renewer is None:
            self._renewer = asyncio.create_task(self._keep_renewing())

    async def _keep_renewing(self) -> None:
        try:
            while self._lost:
                await asyncio.sleep(RECONNECT_PAUSE)
                try:
                    await self._renew()
                except Exception as error:  # still away, or not answering as it should
                    self._lose(error)
        finally:
            self._renewer = None

    async def _renew(self) -> None:
        async with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
            connection = await self._open()
            self._connection = connection
            wanted = tuple(self._subscribed_to)
            if wanted:
                connection.subscribe(*wanted)
            confirmed = connection.ping()
            self._lost = False  # subscriptions made from now on go straight to Redis
        try:
            async with asyncio.timeout(CONFIRM_TIMEOUT):
                await confirmed
        except TimeoutError:
            error = RedisTimeoutError("Redis did not confirm the subscriptions")
            connection.abort(error)
            raise error from None
        log.warning("Redis subscriptions renewed (%d channels)", len(wanted))
        self.channel_layer.resumed()

    def publish_soon(self, channel: str, message: bytes) -> asyncio.Future:
        return self._publisher.publish_soon(channel, message)

    async def flush(self) -> None:
        renewer, self._renewer = self._renewer, None
        if renewer is not None:
            renewer.cancel()
            await asyncio.gather(renewer, return_exceptions=True)
        await self._publisher.close()
        async with self._lock:
            connection, self._connection = self._connection, None
            if connection is not None:
                connection.close()
            self._subscribed_to = set()
            self._lost = False


def _settle(batch: list[tuple[str, bytes, asyncio.Future]], error: BaseException | None) -> None:
    settle([sent for _, _, sent in batch], error)


def shard_for(host: dict, channel_layer) -> LocalFirstShard:
    """The shard for a channels_redis host dict."""
    return (LeanShard if LeanPublisher.serves(host) else LocalFirstShard)(host, channel_layer)
