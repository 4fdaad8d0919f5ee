"""The Redis channel layer, with this process's own sockets served first.

channels_redis's pub/sub layer publishes every group message to Redis and hands it to the
group's members when Redis sends it back, those of the sending process too. A move's update
then reached the mover's own socket only after a round trip through Redis (about a
millisecond on a quiet machine), and each process decoded its own messages once more.

Here a group message goes at once to the group's members in this process, and through Redis
to those of the other processes. Every payload starts with a tag of the process that
published it; a process drops the copies Redis brings back of its own group messages (and
takes a payload without a tag as it is). A message to one channel of this process never
leaves it.

Order: a member gets the messages of one sending process in the order they were sent, as
before. Messages of different processes were never ordered among themselves (each process
publishes when its own change has committed); consumers order updates by ``seq``.

Redis away: nothing raises. A group message still reaches this process's members (the
other processes' lose it), a new socket's subscriptions wait for Redis, and the receiver
tries every ``RECONNECT_PAUSE`` to renew them all on a new connection. Once Redis has
confirmed them, every socket of the process gets ``layer.resumed`` and catches up with the
changes it missed (``games.consumers``). A publishing connection that Redis closed is opened
again and the batch sent once more.

Publishing goes through ``games.redis_publisher`` (one write per loop turn, about half the CPU
of redis-py's pipeline); redis-py's pipeline stays for addresses it does not serve.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import OrderedDict

from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _close_redis, _wrap_close, create_pool
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from games.redis_publisher import LeanPublisher, settle

log = logging.getLogger(__name__)

# A payload's tag: 0xc1, which msgpack never writes, then 15 bytes naming the sending process.
MARKER = b"\xc1"
TAG_BYTES = 16
# Group channels in Redis under a name of their own: processes of an older version, which
# publish without tags and could not read tagged payloads, do not share them (while both run,
# their sockets catch up by ``seq`` and on their beat instead).
GROUP_CHANNEL = "{prefix}__group.v2__{group}"

# What this process's sockets get when the layer hears Redis again after losing it: the
# updates published meanwhile are lost, and each socket checks its game at once.
RESUMED = {"type": "layer.resumed"}
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
# subscriptions without anyone learning that messages were lost meanwhile; the receiver
# below reconnects instead, and then tells this process's sockets.
SUBSCRIBE_OPTIONS = {"retry": None, "socket_connect_timeout": 2.0}
RECONNECT_PAUSE = 0.5  # seconds between attempts to reach Redis again
CONFIRM_TIMEOUT = 5.0  # seconds for Redis to confirm renewed subscriptions
DECODED_KEPT = 16  # payloads whose decoded message is kept for the members that follow


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
        self._publisher = (
            LeanPublisher(
                host["address"],
                connect_timeout=PUBLISH_OPTIONS["socket_connect_timeout"],
                reply_timeout=PUBLISH_OPTIONS["socket_timeout"],
            )
            if LeanPublisher.serves(host)
            else None
        )

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
                return
            try:
                await self._pubsub.subscribe(channel)
            except UNREACHABLE as error:
                self._lose(error)

    async def unsubscribe(self, channel: str) -> None:
        async with self._lock:
            if channel not in self._subscribed_to:
                return
            self._subscribed_to.discard(channel)
            if self._lost or self._pubsub is None:
                return
            try:
                await self._pubsub.unsubscribe(channel)
            except UNREACHABLE as error:
                self._lose(error)

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
        if self._publisher is not None:
            return self._publisher.publish_soon(channel, message)
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
        if self._publisher is not None:
            await self._publisher.close()
        if self._sender is not None:
            self._sender.cancel()
            await asyncio.gather(self._sender, return_exceptions=True)
        await super().flush()
        subscriber, self._subscriber = self._subscriber, None
        if subscriber is not None:
            await _close_redis(subscriber)
        self._lost = False

    def _receive_message(self, message: dict | None) -> None:
        if message is None or message["type"] != "message":
            return
        data = message["data"]
        if data[:1] == MARKER:
            if data[:TAG_BYTES] == self.channel_layer.tag:
                return
            message = {**message, "data": data[TAG_BYTES:]}
        super()._receive_message(message)


def _settle(batch: list[tuple[str, bytes, asyncio.Future]], error: BaseException | None) -> None:
    settle([sent for _, _, sent in batch], error)


class LocalFirstLoopLayer(RedisPubSubLoopLayer):
    """The layer of one event loop (channels_redis makes one per loop)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.tag = MARKER + uuid.uuid4().bytes[1:]  # this layer's (this process's loop's) own
        self._shards = [LocalFirstShard(shard.host, self) for shard in self._shards]

    def _get_group_channel_name(self, group: str) -> str:
        return GROUP_CHANNEL.format(prefix=self.prefix, group=group)

    def _deliver(self, channel: str, data: bytes) -> None:
        queue = self.channels.get(channel)
        if queue is not None:
            queue.put_nowait(data)

    async def send(self, channel: str, message: dict) -> None:
        data = self.channel_layer.serialize(message)
        if channel in self.channels:  # only this process subscribes to its channels
            self._deliver(channel, data)
            return
        try:
            await self._get_shard(channel).publish(channel, self.tag + data)
        except UNREACHABLE as error:
            log.warning("Redis unreachable, a message to %s is lost: %s", channel, error)

    async def group_send(self, group: str, message: dict) -> None:
        """The group's members in this process get the message in any case; while Redis is
        unreachable, those of other processes do not (their sockets catch up when it is
        back), and the sender goes on."""
        try:
            await self.group_send_soon(group, message)
        except UNREACHABLE as error:
            log.warning("Redis unreachable, %s heard only in this process: %s", group, error)

    def resumed(self) -> None:
        """Redis is back after messages were lost: tell every socket of this loop."""
        data = self.channel_layer.serialize(RESUMED)
        for channel in tuple(self.channels):
            self._deliver(channel, data)

    def group_send_soon(self, group: str, message: dict) -> asyncio.Future:
        """``group_send`` without waiting for Redis: the group's members in this process have
        the message when this returns; the future settles when Redis has it for the others.
        Messages leave in the order of these calls."""
        group_channel = self._get_group_channel_name(group)
        data = self.channel_layer.serialize(message)
        for channel in tuple(self.groups.get(group_channel, ())):
            self._deliver(channel, data)
        return self._get_shard(group_channel).publish_soon(group_channel, self.tag + data)


class LocalFirstPubSubChannelLayer(RedisPubSubChannelLayer):
    """``RedisPubSubChannelLayer`` whose group messages reach this process's members first,
    each decoded once for all of them."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The last payloads decoded, by their id, with the payload itself (kept alive, so that
        # its id is not another's).
        self._decoded: OrderedDict[int, tuple[bytes, dict]] = OrderedDict()

    def deserialize(self, message: bytes) -> dict:
        """A group message reaches each member's channel in this process as the same bytes
        (from this process or from Redis): decoded once, every member gets the same dict.
        Consumers only read what the layer brings them, as the lobby hub's sockets share the
        messages it hands on."""
        found = self._decoded.get(id(message))
        if found is not None and found[0] is message:
            return found[1]
        decoded = super().deserialize(message)
        self._decoded[id(message)] = (message, decoded)
        if len(self._decoded) > DECODED_KEPT:
            self._decoded.popitem(last=False)
        return decoded

    def _get_layer(self) -> LocalFirstLoopLayer:
        # The parent's, with this module's loop layer (it names its class inline).
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = LocalFirstLoopLayer(*self._args, **self._kwargs, channel_layer=self)
            self._layers[loop] = layer
            _wrap_close(self, loop)
        return layer
