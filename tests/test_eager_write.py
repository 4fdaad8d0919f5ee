"""The servers' TCP connections send at once (``ratumrad_site.eager_write``): a write with
nothing buffered reaches the socket before it returns; what the socket cannot take yet is
buffered, and later writes wait behind it, so bytes keep their order."""

import socket

import pytest
from twisted.internet import tcp
from twisted.internet.protocol import Protocol
from twisted.internet.testing import MemoryReactor

from ratumrad_site import eager_write


@pytest.fixture
def connection(monkeypatch):
    monkeypatch.setattr(tcp.Connection, "write", tcp.Connection.write)  # undone afterwards
    eager_write.install()
    ours, theirs = socket.socketpair()
    reactor = MemoryReactor()
    made = tcp.Connection(ours, Protocol(), reactor)
    made.connected = True
    theirs.setblocking(False)
    yield made, theirs, reactor
    ours.close()
    theirs.close()


def received(peer: socket.socket) -> bytes:
    chunks = []
    while True:
        try:
            chunk = peer.recv(1 << 16)
        except BlockingIOError:
            return b"".join(chunks)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def test_a_write_with_nothing_buffered_reaches_the_socket_at_once(connection):
    made, peer, reactor = connection
    made.write(b'{"type": "ACK"}')
    assert received(peer) == b'{"type": "ACK"}'
    assert made not in reactor.getWriters()  # nothing left for the next turn of the loop


def test_what_the_socket_cannot_take_is_buffered_and_later_writes_keep_their_order(connection):
    made, peer, reactor = connection
    big = bytes(range(256)) * 40_000  # 10 MB: more than the socket's buffers take
    made.write(big)
    assert made in reactor.getWriters()  # the rest waits for the socket to be writable
    made.write(b"after")  # must not overtake the buffered rest
    out = received(peer)
    while made in reactor.getWriters():
        made.doWrite()
        out += received(peer)
    assert out == big + b"after"


def test_a_closing_connection_keeps_twisted_s_buffered_write(connection):
    made, peer, reactor = connection
    made.disconnecting = True  # loseConnection: Twisted sends what is buffered, then closes
    made.write(b"last words")
    assert received(peer) == b"" and made in reactor.getWriters()
    made.doWrite()
    assert received(peer) == b"last words"
