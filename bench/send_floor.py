"""The floor of a fan-out: CPU per ``send`` of one small frame to each of N loopback sockets.

    .venv/bin/python bench/send_floor.py [--sockets 300] [--rounds 30] [--size 300]

A child process holds the other ends of ``--sockets`` TCP connections and reads them as a
server's clients would (one epoll loop, asleep between rounds). This process writes one
``--size``-byte websocket frame to each socket in a plain loop, ``--rounds`` times with a
pause between, and prints its own CPU time per ``send``: no Python beyond the loop and the
call, no Twisted, no autobahn. On the loopback the sender's system call also runs the
receiving side's TCP work and wakes the reader, so this is what one lobby socket's share of
a change cannot go below on this machine (``bench/lobby_bench.py``).
"""

from __future__ import annotations

import argparse
import os
import resource
import select
import socket
import time


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--size", type=int, default=300, help="payload bytes of the frame")
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
    spent = 0.0
    for _ in range(args.rounds):
        before = cpu()
        for each in sockets:
            each.send(frame)
        spent += cpu() - before
        time.sleep(0.02)  # the reader falls asleep again
    for each in sockets:
        each.close()
    os.wait()
    sends = args.sockets * args.rounds
    print(f"{sends} sends of {len(frame)} bytes: {spent / sends * 1e6:.1f} µs of CPU each")


if __name__ == "__main__":
    main()
