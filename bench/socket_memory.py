"""The memory of an idle socket: a server process's RSS per idle lobby socket and per idle
game socket, and what it is spent on.

    .venv/bin/python bench/socket_memory.py [--sockets 1000] [--traced 200] [--players 2]
                                            [--top 8] [--snapshots DIR] [--log FILE]

It sets up a throwaway database (PostgreSQL when ``DATABASE_URL`` names one, else SQLite; the
Redis channel layer when ``REDIS_URL`` is set, else the in-memory one) with running games of
Rat um Rad, ``--players`` guests each, enough for ``--sockets``. Then for each kind of socket
it starts one server process (``ratumrad_site.cluster``; a fresh one, as memory a process
has freed is not given back and would serve the next kind) and opens ``--sockets`` of that
kind, 10 at a time, each answered, and lets them idle:

* **lobby**: as the lobby page has it: it asked for the games, the connected players and the
  chat history, and got them. All are one guest's (the socket limits are off).
* **seated**: a player of a running game, who got their STATE on connect (and then the other
  player's arrival). Every player of every game, so ``--players`` sockets per game.
* **spectator**: one guest watching the same games, spread evenly, with the public STATE.

A few sockets of the kind are opened and closed first, so that what the first one loads once
is not counted. Once the server has settled (its CPU quiet), its RSS is read before and after
the sockets opened (no collection is forced; the server froze its start-up heap): the growth
divided by their number is the figure. Then they close, and as many open again: the RSS once
they closed and the growth of the second round show whether the memory is kept for the next
sockets or lost.

Then ``--traced`` sockets of each kind (0: none) on a server process under ``tracemalloc``
(``bench/traced_serve.py``; it runs many times slower, so its RSS is not the figure): a
snapshot before and one after the sockets opened show what the Python heap grew by, per
socket, grouped by who asked for it (``bench/allocations.py``), with the lines that asked
for the most. The RSS figure minus the traced growth is what tracemalloc cannot see: memory
of C libraries (uvloop's handles, hiredis, libpq) and of the allocator itself (partly filled
pages and arenas). Neither has the kernel's socket buffers, which are in no process's RSS.
``--snapshots DIR`` keeps the snapshots (``KIND-before.pickle``, ``KIND-after.pickle``) to dig
further with ``tracemalloc.Snapshot.load``; ``--log FILE`` keeps the servers' output.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import secrets
import signal
import sys
import tempfile
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402
import uvloop  # noqa: E402
from allocations import by_group, by_line, grown  # noqa: E402
from loadtest import Player, Site, Stats, Table, raise_file_limit, wait_ready  # noqa: E402
from lobby_bench import BENCH_ENV  # noqa: E402
from procfs import cpu_seconds, rss_kib, until_quiet  # noqa: E402

from ratumrad_site import cluster  # noqa: E402
from tests.real_server import server_database  # noqa: E402

KINDS = ("lobby", "seated", "spectator")
# Redis's pub/sub is one for all its databases: with the site's own prefix these servers would
# hear the groups (the lobby's) of any other server using the same Redis.
REDIS_PREFIX = "socket-memory-" + secrets.token_hex(4)
# Sockets opened, or REST calls made, at once: on a busy machine more sockets may wait past
# daphne's 5 seconds for their handshake.
BATCH = 10
WARM_UP = 5  # sockets of each kind opened and closed before the first reading
# The server has settled, done with sockets opening or closing (a closing socket's database
# work waits in one thread, behind the others'), once it has used less than QUIET of a core
# over a second; at least SETTLE seconds, at most SETTLE_TIMEOUT.
SETTLE, QUIET, SETTLE_TIMEOUT = 2.0, 0.2, 300.0
SNAPSHOT_TIMEOUT = 120.0
LOBBY_ANSWERS = {"GAMES", "CONNECTED_PLAYERS", "HISTORY"}  # what the lobby page asks for


class LobbySocket:
    """A lobby socket as the lobby page opens it: it asks for the game list, the connected
    players and the chat history, and reads whatever comes."""

    def __init__(self, socket):
        self.socket = socket
        self.seen: set[str] = set()
        self.answered = asyncio.Event()
        self.reader = asyncio.create_task(self.read())

    @classmethod
    async def open(cls, site: Site, token: str) -> LobbySocket:
        lobby = cls(await site.socket("/ws/lobby/", token))
        for kind in ("REQUEST_GAMES", "REQUEST_ALL_CONNECTED_PLAYERS", "REQUEST_HISTORY"):
            await lobby.socket.send(orjson.dumps({"type": kind}).decode())
        await lobby.answered.wait()
        return lobby

    async def read(self) -> None:
        async for raw in self.socket:
            self.seen.add(orjson.loads(raw)["type"])
            if self.seen >= LOBBY_ANSWERS:
                self.answered.set()

    async def close(self) -> None:
        self.reader.cancel()
        with contextlib.suppress(Exception):
            await self.socket.close()


@dataclass
class Server:
    """One server process, plain or traced, and how to ask it for a snapshot."""

    pid: int
    snapshot_file: Path | None = None

    async def settle(self) -> None:
        """Wait until the server is done with what the sockets asked for (see QUIET)."""
        if not await until_quiet(lambda: cpu_seconds(self.pid), QUIET, SETTLE, SETTLE_TIMEOUT):
            print(f"the server did not settle within {SETTLE_TIMEOUT:.0f} s", flush=True)

    async def snapshot(self) -> tracemalloc.Snapshot | None:
        if self.snapshot_file is None:
            return None
        self.snapshot_file.unlink(missing_ok=True)
        os.kill(self.pid, signal.SIGUSR1)
        waited = 0.0
        while not self.snapshot_file.exists():
            if waited > SNAPSHOT_TIMEOUT:
                raise RuntimeError("the traced server wrote no snapshot")
            await asyncio.sleep(0.2)
            waited += 0.2
        return await asyncio.to_thread(tracemalloc.Snapshot.load, str(self.snapshot_file))


@dataclass
class Reading:
    """A server process's RSS in KiB around ``count`` sockets of ``kind``."""

    kind: str
    count: int
    before: int
    opened: int  # with the sockets open
    closed: int  # once they closed
    again: int  # with as many open again

    @property
    def per_socket(self) -> float:
        return (self.opened - self.before) / self.count


class Bench:
    """The games and guests that the sockets of every kind use, on one site."""

    def __init__(self, site: Site, games: list[tuple[Table, int]], watcher: Player):
        self.site, self.games, self.watcher = site, games, watcher

    @classmethod
    async def set_up(cls, site: Site, sockets: int, players: int) -> Bench:
        rng, stats = random.Random(1), Stats()
        count = max(1, sockets // players)
        guests = await in_batches([site.guest for _ in range(count * players)])
        tables = [
            Table(site, guests[i * players : (i + 1) * players], rng, stats) for i in range(count)
        ]
        ids = await in_batches([table.new_game for table in tables])
        return cls(site, list(zip(tables, ids, strict=True)), await site.guest())

    async def open(self, kind: str, count: int) -> list:
        """``count`` sockets of ``kind``, open and answered; what :meth:`close` takes."""
        if kind == "lobby":
            token = self.watcher.token
            return await in_batches([lambda: LobbySocket.open(self.site, token)] * count)
        if kind == "seated":
            seats = [(table, p, game) for table, game in self.games for p in table.players]
            chosen = seats[:count]
        else:
            chosen = []
            for index in range(count):
                table, game = self.games[index % len(self.games)]
                chosen.append((table, Player(self.watcher.id, self.watcher.token), game))

        async def seat(table: Table, player: Player, game: int):
            await table.open(player, game)
            return table, player

        return await in_batches([lambda c=c: seat(*c) for c in chosen])

    async def close(self, opened: list) -> None:
        closing = [
            each.close() if isinstance(each, LobbySocket) else each[0].close(each[1])
            for each in opened
        ]
        await asyncio.gather(*closing)

    async def measure(self, server: Server, kind: str, count: int) -> Reading:
        """The RSS of a plain server before ``count`` sockets of ``kind`` opened, with them
        open, once they closed, and with as many open again."""
        await self.close(await self.open(kind, WARM_UP))
        await server.settle()
        rss = [rss_kib(server.pid)]
        for _ in range(2):
            opened = await self.open(kind, count)
            await server.settle()
            rss.append(rss_kib(server.pid))
            await self.close(opened)
            await server.settle()
            rss.append(rss_kib(server.pid))
        return Reading(kind, count, *rss[:4])

    async def trace(self, server: Server, kind: str, count: int):
        """The snapshots of a traced server before ``count`` sockets of ``kind`` opened and
        with them open."""
        await self.close(await self.open(kind, WARM_UP))
        await server.settle()
        before = await server.snapshot()
        opened = await self.open(kind, count)
        await server.settle()
        after = await server.snapshot()
        await self.close(opened)
        return before, after


async def in_batches(makers: list) -> list:
    """Await what each of ``makers`` returns, ``BATCH`` at a time, in order."""
    done = []
    for start in range(0, len(makers), BATCH):
        done += await asyncio.gather(*(make() for make in makers[start : start + BATCH]))
    return done


@contextlib.asynccontextmanager
async def server(sock, site: Site, url: str, log, traced_dir: Path | None, **extra: str):
    """A server process on ``sock`` for the ``with`` block: plain, or with ``traced_dir``
    under ``bench/traced_serve.py``, which writes its snapshots there; ``extra`` adds to its
    environment."""
    env = {**BENCH_ENV, "DATABASE_URL": url, "REDIS_PREFIX": REDIS_PREFIX, **extra}
    module = "ratumrad_site.serve"
    snapshot_file = None
    if traced_dir is not None:
        snapshot_file = traced_dir / "snapshot.pickle"
        env["TRACEMALLOC_SNAPSHOT"] = str(snapshot_file)
        module = "bench.traced_serve"
    process = cluster.start(sock, env, log, module=module)
    try:
        await wait_ready(site)
        yield Server(process.pid, snapshot_file)
    finally:
        cluster.stop([process])


def report_rss(reading: Reading) -> None:
    mib = 1024
    print(
        f"{reading.kind}: {reading.per_socket:.1f} KiB per socket (RSS"
        f" {(reading.opened - reading.before) / mib:+.1f} MiB with {reading.count} open;"
        f" {(reading.closed - reading.before) / mib:+.1f} MiB once they closed,"
        f" {(reading.again - reading.closed) / mib:+.1f} MiB more with as many open again)",
        flush=True,
    )


def report_breakdown(kind: str, count: int, snapshots, rss_per_socket: float, top: int) -> None:
    growth = list(grown(*snapshots))
    groups = by_group(growth)
    traced = sum(groups.values()) / 1024 / count
    print(
        f"{kind}: the traced heap grew by {traced:.1f} KiB per socket; the RSS above by"
        f" {rss_per_socket:.1f} KiB: {rss_per_socket - traced:.1f} KiB not traced",
        flush=True,
    )
    for group, size in sorted(groups.items(), key=lambda item: -item[1]):
        print(f"  {size / 1024 / count:6.2f}  {group}")
    lines = sorted(by_line(growth).items(), key=lambda item: -item[1])[:top]
    print(f"  the {len(lines)} lines that asked for the most:")
    for line, size in lines:
        print(f"  {size / 1024 / count:6.2f}  {line}")


async def main_async(args) -> None:
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(server_database())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ratumrad-memory-")))
        log = stack.enter_context(open(args.log or work / "servers.log", "wb"))
        layer = "Redis" if os.environ.get("REDIS_URL") else "in-memory"
        database = "PostgreSQL" if url.startswith("postgres") else "SQLite"
        print(
            f"{database}, {layer} channel layer; {args.sockets} idle sockets of each kind,"
            f" each kind on a server process of its own; {args.players} seated per game",
            flush=True,
        )
        # Every server process in turn listens here: the site's address stays the same.
        sock = stack.enter_context(cluster.listen("127.0.0.1", 0))
        site = Site(f"http://127.0.0.1:{sock.getsockname()[1]}")
        # Each REST call has a thread of its own in the server; their database connections
        # are closed at once, as PostgreSQL allows only so many.
        async with server(sock, site, url, log, None, DATABASE_CONN_MAX_AGE="0"):
            bench = await Bench.set_up(site, max(args.sockets, args.traced), args.players)
        plain: dict[str, Reading] = {}
        for kind in KINDS:
            async with server(sock, site, url, log, None) as process:
                plain[kind] = await bench.measure(process, kind, args.sockets)
            report_rss(plain[kind])
        if not args.traced:
            return
        print(f"under tracemalloc, {args.traced} sockets of each kind; KiB per socket:")
        for kind in KINDS:
            async with server(sock, site, url, log, work) as process:
                snapshots = await bench.trace(process, kind, args.traced)
            if args.snapshots:
                folder = Path(args.snapshots)
                folder.mkdir(parents=True, exist_ok=True)
                snapshots[0].dump(str(folder / f"{kind}-before.pickle"))
                snapshots[1].dump(str(folder / f"{kind}-after.pickle"))
            report_breakdown(kind, args.traced, snapshots, plain[kind].per_socket, args.top)


def main() -> None:
    raise_file_limit()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=1000, help="of each kind")
    parser.add_argument("--players", type=int, default=2, help="seated per game (2-6)")
    parser.add_argument(
        "--traced", type=int, default=200, help="sockets of each kind under tracemalloc (0: none)"
    )
    parser.add_argument("--top", type=int, default=8, help="allocating lines shown per kind")
    parser.add_argument("--snapshots", help="keep the traced run's snapshots in this folder")
    parser.add_argument("--log", help="the servers' output (default: a temporary file)")
    uvloop.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
