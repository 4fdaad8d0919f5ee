"""A websocket's frames are read no faster than the site takes them.

daphne hands every frame autobahn reads to the application's queue, which has no bound, and
reads on while the application works. One socket that sent chat lines as fast as it could
(60,000 frames a second; each line waits for the database) had 357,000 frames waiting after
six seconds, the server 215 MiB large, and every other socket's PING answered 60 times later;
a flood of PINGs or unknown types took 1.5 cores and made the others wait 100-250 times longer.

Here a socket's frames are let in at ``SOCKET_FRAMES_PER_SECOND`` (a bucket of as many: a
burst of one second's worth at once; 0: no limit), the frames of all sockets of one client
address in this process at ``ADDRESS_FRAMES_PER_SECOND`` together, and none while
``FRAMES_WAITING`` of a socket's frames wait to be handled. A socket over any of these is
not read (Twisted's ``pauseProducing``) until it is under again: TCP's flow control then
holds its client's further frames in the client. Nothing is dropped or refused, only slowed,
so the frames keep their order and every one is answered. Control frames (a client's pings)
count as frames. A message is at most ``MAX_MESSAGE_BYTES``: what waits stays small, and a
larger one closes the socket with 1009.
"""

from __future__ import annotations

import asyncio
import time

from autobahn.websocket.protocol import WebSocketProtocol as _Autobahn
from daphne.ws_protocol import WebSocketProtocol

FRAMES_WAITING = 8  # of one socket, handed to the application and not yet taken
MAX_MESSAGE_BYTES = 64 * 1024  # a client message (the protocol refuses those over 8 KiB)
POLL_SECONDS = 0.01  # how often a socket held for its waiting frames looks again
OPEN, CLOSING = _Autobahn.STATE_OPEN, _Autobahn.STATE_CLOSING

_consume_data = _Autobahn.consumeData
_frame_begin = _Autobahn.onFrameBegin
_daphne_on_open = WebSocketProtocol.onOpen
_daphne_on_close = WebSocketProtocol.onClose


class Bucket:
    """Frames a second: ``rate`` of them, at most ``rate`` saved up."""

    __slots__ = ("at", "rate", "sockets", "tokens")

    def __init__(self, rate: float):
        self.rate = self.tokens = rate
        self.at = time.monotonic()
        self.sockets = 0  # that draw on it (an address's)

    def wait(self, now: float) -> float:
        """0 if a frame may come in now; else the seconds until one may. The sockets of an
        address that wait for it wait as many times longer: it wakes them about as often as
        it lets a frame in, instead of all of them each time."""
        self.tokens = min(self.rate, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            return 0.0
        return min(1.0, (1 - self.tokens) / self.rate * max(1, self.sockets))


addresses: dict[str, Bucket] = {}  # of the open sockets, by client address


class Inflow:
    """What lets one socket's frames in: its own bucket and its address's (each left out
    when its rate is 0)."""

    __slots__ = ("address", "buckets", "held", "paused")

    def __init__(self, rate: float, address: str = "", address_rate: float = 0):
        self.buckets = [Bucket(rate)] if rate else []
        self.address = address if address and address_rate else ""
        if self.address:
            shared = addresses.get(self.address)
            if shared is None:
                shared = addresses[self.address] = Bucket(address_rate)
            shared.sockets += 1
            self.buckets.append(shared)
        self.held = None  # the delayed call that lets the next frame in
        self.paused = False  # whether the socket is not read meanwhile

    def wait(self, waiting: int) -> float:
        """0 if a frame may come in now, with ``waiting`` frames not yet taken; else the
        seconds until one may."""
        if waiting >= FRAMES_WAITING:
            return POLL_SECONDS
        now = time.monotonic()
        return max((bucket.wait(now) for bucket in self.buckets), default=0.0)

    def took(self) -> None:
        """A frame came in."""
        for bucket in self.buckets:
            bucket.tokens -= 1

    def closed(self) -> None:
        if self.held is not None:
            self.held.cancel()
        self.held = None
        shared = addresses.get(self.address)
        if shared is not None:
            shared.sockets -= 1
            if shared.sockets <= 0:
                del addresses[self.address]
        self.address = ""


def consume_data(self: WebSocketProtocol) -> None:
    """autobahn's ``consumeData``, which reads the next frame only when the socket may."""
    inflow = getattr(self, "inflow", None)
    if inflow is None or self.state != OPEN:
        _consume_data(self)
        return
    while self.state in (OPEN, CLOSING):
        if self.current_frame is None and len(self.data) >= 2:  # a frame's header is in
            queue = getattr(self, "application_queue", None)
            wait = inflow.wait(queue.qsize() if queue is not None else 0)
            if wait:
                hold(self, inflow, wait)
                return
        if not self.processData():
            return


def frame_begin(self: WebSocketProtocol) -> None:
    inflow = getattr(self, "inflow", None)
    if inflow is not None:
        inflow.took()
    _frame_begin(self)


def hold(self: WebSocketProtocol, inflow: Inflow, seconds: float) -> None:
    if inflow.held is None:
        if not inflow.paused:
            self.transport.pauseProducing()
            inflow.paused = True
        # The event loop's own timer: with Twisted's callLater, 20 sockets held in turn took
        # 25% of a core instead of 14%.
        loop = asyncio.get_running_loop()
        inflow.held = loop.call_later(seconds, release, self, inflow)


def release(self: WebSocketProtocol, inflow: Inflow) -> None:
    inflow.held = None
    if self.state not in (OPEN, CLOSING) or not self.transport.connected:
        return
    self.consumeData()  # first the frames read before the pause
    if inflow.held is None and inflow.paused:  # all of them taken: read on
        inflow.paused = False
        self.transport.resumeProducing()


def on_open(self: WebSocketProtocol) -> None:
    from django.conf import settings

    from games.limits import scope_address

    address = scope_address({"headers": self.clean_headers, "client": self.client_addr})
    self.inflow = Inflow(
        settings.SOCKET_FRAMES_PER_SECOND, address, settings.ADDRESS_FRAMES_PER_SECOND
    )
    _daphne_on_open(self)


def on_close(self: WebSocketProtocol, was_clean, code, reason) -> None:
    inflow = getattr(self, "inflow", None)
    if inflow is not None:
        inflow.closed()
    _daphne_on_close(self, was_clean, code, reason)


def install() -> None:
    """Let every websocket of this process in at its pace (idempotent)."""
    WebSocketProtocol.consumeData = consume_data
    WebSocketProtocol.onFrameBegin = frame_begin
    WebSocketProtocol.onOpen = on_open
    WebSocketProtocol.onClose = on_close
