"""The channel layer of a single process without Redis: channels' in-memory layer, with its
clean-up of expired messages and memberships run at most once a ``SWEEP_SECONDS``.

channels' own layer runs that clean-up, a walk over every channel and every group, before
each ``receive`` and each ``group_send``. A group message to N sockets wakes N receives, so
one lobby change with 300 lobby sockets open walked the 300 channels 300 times: most of the
server's time for the change. Here a group message is put on its members' channels directly
(no task per member), and a message or membership outlives its expiry by at most
``SWEEP_SECONDS``.
"""

from __future__ import annotations

import contextlib
import time

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer

SWEEP_SECONDS = 1.0


class SweepingInMemoryChannelLayer(InMemoryChannelLayer):
    sweep_seconds = SWEEP_SECONDS

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.swept = float("-inf")  # monotonic time of the last clean-up

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self.swept < self.sweep_seconds:
            return
        self.swept = now
        super()._clean_expired()

    async def group_send(self, group: str, message: dict) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in tuple(self.groups.get(group, ())):
            # As channels' layer: a full channel misses the message, the others get it.
            with contextlib.suppress(ChannelFull):
                await self.send(channel, message)  # puts it on the queue, awaits nothing
