"""The floor of a fan-out: CPU per ``send`` of one small frame to each of N loopback sockets.

    .venv/bin/python bench/send_floor.py [--sockets 300] [--rounds 30] [--size 300] [--hub]

A child process holds the other ends of ``--sockets`` TCP connections and reads them as a
server's clients would (one epoll loop, asleep between rounds). This process writes one
``--size``-byte websocket frame to each socket in a plain loop, ``--rounds`` times with a
pause between, and prints its own CPU time per ``send``: no Python beyond the loop and the
call, no Twisted, no autobahn. On the loopback the sender's system call also runs the
receiving side's TCP work and wakes the reader, so this is what one lobby socket's share of
a change cannot go below on this machine (``bench/lobby_bench.py``).

``--hub`` also writes the frame the way a server's lobby hub does, in rounds taken turn
about with the plain ones: ``lobby.hub.push`` to each socket's consumer, ``Frame.write``,
and the TCP connection's write (Twisted's ``tcp.Connection`` as the server patches it,
``ratumrad_site.eager_write``) on the same sockets. Only the consumer and its autobahn
protocol are stand-ins, with the attributes those calls read. The difference between the
two figures is what the site's code adds to a socket's share of a change.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import select
import socket
import sys
import time
from collections import deque
from pathlib import Path


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def read_all(address: tuple[str, int], count: int) -> None:
    """The clients: ``count`` connections read until the other side closes them."""
    clients = [socket.create_connection(address) for _ in range(count)]
    poller = select.epoll()
    by_fd = {}
    for client in clients:
        client.setblocking(False)
        poller.register(client.fileno(), select.EPOLLIN)
        by_fd[client.fileno()] = client
    open_count = count
    while open_count:
        for fd, _ in poller.poll():
            if not by_fd[fd].recv(65536):
                poller.unregister(fd)
                open_count -= 1
    os._exit(0)


class Hub:
    """The server's own path from a frame to each socket (``--hub``): ``lobby.hub.push``
    for every consumer, as ``LobbyHub.public_change`` does."""

    def __init__(self, sockets: list[socket.socket]):
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratumrad_site.settings")
        import django

        django.setup()
        from autobahn.websocket.protocol import WebSocketProtocol
        from twisted.internet import tcp

        from games import fanout
        from lobby import hub
        from ratumrad_site import eager_write

        eager_write.install()  # as ``ratumrad_site.serve`` does
        self.push, self.frame_of = hub.push, fanout.Frame
        self.consumers = []
        for each in sockets:
            connection = tcp.Connection(each, None)
            connection.connected = 1
            protocol = WebSocketProtocol()
            protocol.state, protocol.send_queue = WebSocketProtocol.STATE_OPEN, deque()
            protocol.transport = connection
            consumer = Consumer(f"socket-{len(self.consumers)}")
            setattr(consumer, fanout.ROUTE, (None, protocol, float("inf")))
            self.consumers.append(consumer)

    def write(self, frame: bytes) -> None:
        text = frame[4:].decode()  # the payload: ``Frame`` makes the header itself
        shared = self.frame_of(text)
        for consumer in self.consumers:
            self.push(consumer, shared)


class Consumer:
    """A lobby socket's consumer as ``lobby.hub.push`` sees it: idle, nothing queued."""

    def __init__(self, channel_name: str) -> None:
        self.channel_name = channel_name
        self.turn, self.inbox = asyncio.Lock(), asyncio.Queue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--size", type=int, default=300, help="payload bytes of the frame")
    parser.add_argument("--hub", action="store_true", help="also through the lobby hub's path")
    args = parser.parse_args()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(args.sockets)
    if os.fork() == 0:
        read_all(listener.getsockname(), args.sockets)
    sockets = []
    for _ in range(args.sockets):
        server_side, _ = listener.accept()
        server_side.setblocking(False)
        server_side.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as daphne's
        sockets.append(server_side)
    frame = bytes((0x81, 126)) + args.size.to_bytes(2, "big") + b"x" * args.size
    hub = Hub(sockets) if args.hub else None
    spent = {"send": 0.0, "hub": 0.0}
    for _ in range(args.rounds):
        before = cpu()
        for each in sockets:
            each.send(frame)
        spent["send"] += cpu() - before
        time.sleep(0.02)  # the reader falls asleep again
        if hub is not None:
            before = cpu()
            hub.write(frame)
            spent["hub"] += cpu() - before
            time.sleep(0.02)
    for each in sockets:
        each.close()
    os.wait()
    sends = args.sockets * args.rounds
    print(f"{sends} sends of {len(frame)} bytes: {spent['send'] / sends * 1e6:.1f} µs of CPU each")
    if hub is not None:
        each = spent["hub"] / sends * 1e6
        print(f"through lobby.hub.push: {each:.1f} µs of CPU a socket")


if __name__ == "__main__":
    main()
