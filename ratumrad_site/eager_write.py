"""Bytes written to a TCP connection of the server leave at once.

Twisted buffers every write and sends it on the next turn of the event loop
(twisted/twisted#5303): a frame handed to daphne waited behind every task that was ready
then, 0.4-0.7 ms under load, and each write cost two more system calls to watch the socket
for writability and stop again. Here a write to a connection with nothing buffered goes to
the socket at once, as asyncio's own transports do. What the socket does not take (its
buffer is full) waits in Twisted's buffer as before, and so does everything written after it,
so bytes keep their order. TLS connections, and those closing, keep Twisted's way.
"""

from __future__ import annotations

from twisted.internet import tcp

_buffered_write = tcp.Connection.write


def _write_now(self: tcp.Connection, data: bytes) -> None:
    if (
        data
        and self.connected
        and not self.disconnecting
        and not self._writeDisconnected
        and not self.TLS
        and not self._tempDataBuffer
        and self.offset == len(self.dataBuffer)
    ):
        try:
            sent = self.socket.send(data)
        except OSError:
            # Full (EAGAIN) or broken: Twisted's own write buffers it, and its next try to
            # send meets the error and closes the connection as it always did.
            sent = 0
        if sent == len(data):
            return
        data = data[sent:]
    _buffered_write(self, data)


def install() -> None:
    """Make every TCP connection of this process write at once (idempotent)."""
    tcp.Connection.write = _write_now
