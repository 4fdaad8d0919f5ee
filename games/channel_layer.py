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

The connections to Redis are the shards' (``games.redis_shards``). Publishing goes through
``games.redis_publisher`` (one write per loop turn, about a fifth of the CPU of redis-py's
pipeline) and subscribing through ``games.redis_subscriber`` (messages handed on as they are
read, without a ``get_message`` call each); redis-py stays for the addresses those do not
serve.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import OrderedDict

from channels_redis.pubsub import RedisPubSubChannelLayer, RedisPubSubLoopLayer
from channels_redis.utils import _wrap_close

from games.redis_shards import MARKER, TAG_BYTES, UNREACHABLE, shard_for

__all__ = ["MARKER", "RESUMED", "TAG_BYTES", "UNREACHABLE", "LocalFirstPubSubChannelLayer"]

log = logging.getLogger(__name__)

# Group channels in Redis under a name of their own: processes of an older version, which
# publish without tags and could not read tagged payloads, do not share them (while both run,
# their sockets catch up by ``seq`` and on their beat instead).
GROUP_CHANNEL = "{prefix}__group.v2__{group}"

# What this process's sockets get when the layer hears Redis again after losing it: the
# updates published meanwhile are lost, and each socket checks its game at once.
RESUMED = {"type": "layer.resumed"}
DECODED_KEPT = 16  # payloads whose decoded message is kept for the members that follow


class LocalFirstLoopLayer(RedisPubSubLoopLayer):
    """The layer of one event loop (channels_redis makes one per loop)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.tag = MARKER + uuid.uuid4().bytes[1:]  # this layer's (this process's loop's) own
        self._shards = [shard_for(shard.host, self) for shard in self._shards]

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
