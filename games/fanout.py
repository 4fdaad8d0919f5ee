"""One text to many sockets: its websocket frame built once and written to each (``Frame``).

autobahn, under daphne, frames a message anew for every socket it goes to: the text encoded,
a header built, a debug line's arguments formatted, five calls deep. A server's frames are
not masked, so one message's frame is the same bytes for every socket that takes it plain:
open, without a compression extension, with nothing waiting in autobahn's own queue. Those
get the bytes straight on their TCP transport. Any other socket, and a consumer that daphne
does not serve (the tests' communicator), gets the text through its own ``send``.

Which protocol and transport a socket has is found once and kept on its consumer: a change
for thousands of sockets then costs each a few attribute checks and its ``send`` call.
"""

from __future__ import annotations

import contextlib
import functools

from autobahn.websocket.protocol import WebSocketProtocol
from daphne.server import Server

FIN_TEXT = 0x81  # FIN, opcode 1 (text); no RSV bit, no mask


def text_frame(payload: bytes) -> bytes:
    """A complete, unmasked websocket text frame (RFC 6455, 5.2) carrying ``payload``."""
    size = len(payload)
    if size <= 125:
        header = bytes((FIN_TEXT, size))
    elif size <= 0xFFFF:
        header = bytes((FIN_TEXT, 126)) + size.to_bytes(2, "big")
    else:
        header = bytes((FIN_TEXT, 127)) + size.to_bytes(8, "big")
    return header + payload


class Frame:
    """A text for many sockets, framed once (at the first socket that takes the bytes)."""

    __slots__ = ("_framed", "text")

    def __init__(self, text: str):
        self.text = text
        self._framed: bytes | None = None

    def framed(self) -> bytes:
        if self._framed is None:
            self._framed = text_frame(self.text.encode())
        return self._framed

    def write(self, consumer) -> bool:
        """Write the frame to ``consumer``'s socket if it takes it plain (True, also for a
        socket daphne has closed, which gets nothing, as daphne's own send does); False
        when it must go through the consumer's ``send``."""
        route = getattr(consumer, ROUTE, None)
        if route is None:
            route = _route(consumer)
        if route is False:
            return False
        server, protocol, limit = route
        framed = self.framed()
        # What changes once a socket is open: whether it still is, and whether autobahn holds
        # frames of its own (they go first).
        if protocol.state == OPEN and not protocol.send_queue and len(framed) <= limit:
            protocol.transport.write(framed)
            return True
        details = server.connections.get(protocol)
        return details is None or bool(details.get("disconnected"))


OPEN = WebSocketProtocol.STATE_OPEN
ROUTE = "_fanout_route"  # a consumer's attribute: how frames reach its socket (``_route``)


def _served(consumer) -> tuple[Server, WebSocketProtocol] | None:
    """The daphne server and autobahn protocol behind ``consumer``, if daphne serves it."""
    send = getattr(consumer, "base_send", None)
    if not (isinstance(send, functools.partial) and len(send.args) == 1):
        return None
    server, protocol = getattr(send.func, "__self__", None), send.args[0]
    if not (isinstance(server, Server) and isinstance(protocol, WebSocketProtocol)):
        return None
    return server, protocol


def _limit(protocol: WebSocketProtocol) -> float:
    """The longest frame ``protocol`` sends whole, as it is (autobahn's own limits)."""
    limits = (protocol.autoFragmentSize, protocol.maxMessagePayloadSize)
    return min((limit for limit in limits if limit > 0), default=float("inf"))


def _route(consumer) -> tuple[Server, WebSocketProtocol, float] | bool:
    """How frames reach ``consumer``'s socket: its server, protocol and longest plain frame;
    False for a socket that never takes frames plain (not served by daphne, or compressed).
    Kept on the consumer once the socket is open (compression is agreed on by then)."""
    served = _served(consumer)
    if served is None:
        route: tuple | bool = False
    else:
        server, protocol = served
        plain = protocol._perMessageCompress is None
        route = (server, protocol, _limit(protocol)) if plain else False
        if protocol.state != OPEN:
            return route
    with contextlib.suppress(AttributeError):  # (an object without attributes of its own)
        setattr(consumer, ROUTE, route)
    return route
