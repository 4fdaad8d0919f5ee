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
"""

from __future__ import annotations

import asyncio
import uuid

from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _wrap_close

# A payload's tag: 0xc1, which msgpack never writes, then 15 bytes naming the sending process.
MARKER = b"\xc1"
TAG_BYTES = 16
# Group channels in Redis under a name of their own: processes of an older version, which
# publish without tags and could not read tagged payloads, do not share them (while both run,
# their sockets catch up by ``seq`` and on their beat instead).
GROUP_CHANNEL = "{prefix}__group.v2__{group}"


class LocalFirstShard(RedisSingleShardConnection):
    """A connection to one Redis that strips the sender's tag, drops this process's own
    group messages (their members here have them already), and publishes in batches.

    channels_redis publishes one message per round trip, under the lock its subscriptions
    take too. A busy process then made more messages than one round trip at a time carries:
    they queued without end, and a new socket's subscription waited behind them all. Here the
    messages that wait while a batch is on its way go together in the next one (one pipeline,
    in order), and subscriptions do not wait for them.
    """

    def __init__(self, host, channel_layer) -> None:
        super().__init__(host, channel_layer)
        self._outbox: list[tuple[str, bytes, asyncio.Future]] = []
        self._sender: asyncio.Task | None = None

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

    def _receive_message(self, message: dict | None) -> None:
        if message is None:
            return
        data = message["data"]
        if data[:1] == MARKER:
            if data[:TAG_BYTES] == self.channel_layer.tag:
                return
            message = {**message, "data": data[TAG_BYTES:]}
        super()._receive_message(message)


def _settle(batch: list[tuple[str, bytes, asyncio.Future]], error: BaseException | None) -> None:
    for _, _, sent in batch:
        if sent.done():
            continue
        if error is None:
            sent.set_result(None)
        elif isinstance(error, asyncio.CancelledError):
            sent.cancel()
        else:
            sent.set_exception(error)


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
        await self._get_shard(channel).publish(channel, self.tag + data)

    async def group_send(self, group: str, message: dict) -> None:
        await self.group_send_soon(group, message)

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
    """``RedisPubSubChannelLayer`` whose group messages reach this process's members first."""

    def _get_layer(self) -> LocalFirstLoopLayer:
        # The parent's, with this module's loop layer (it names its class inline).
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = LocalFirstLoopLayer(*self._args, **self._kwargs, channel_layer=self)
            self._layers[loop] = layer
            _wrap_close(self, loop)
        return layer
