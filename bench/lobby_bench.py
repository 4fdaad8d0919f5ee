"""Lobby fan-out: server CPU per public game creation, with lobby sockets open and without.

    .venv/bin/python bench/lobby_bench.py [--watchers 0 300] [--games 40] [--runs 2]

It starts one server process (``ratumrad_site.cluster``) on a throwaway database: PostgreSQL
when ``DATABASE_URL`` names one, else SQLite; the Redis channel layer when ``REDIS_URL`` is
set, else the in-memory one. For each run and each ``--watchers`` count in turn (so that the
counts are measured in pairs, close in time), it opens that many lobby sockets, each of a
guest of its own that asked for the game list and its changes (as the lobby page does), then
creates ``--games`` public games one after another over REST, each by a guest of its own. A
creation is over when every lobby socket has had the new game (``GAMES_CHANGED``). The
server's CPU time over the creations, divided by their number, is printed (also as its user
and system time: on the loopback a socket's system time includes its reader's TCP work) with
PostgreSQL's (on PostgreSQL: all its processes on this machine) and the wall time per
creation.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402
import uvloop  # noqa: E402
from loadtest import SERVER_ENV, Site, one_server, raise_file_limit  # noqa: E402
from procfs import cpu_seconds, cpu_split, pids_named, with_descendants  # noqa: E402

BENCH_ENV = {
    **SERVER_ENV,
    "GAMES_WAITING_PER_USER": "0",  # no limit
    "GAME_RATE": "1000000/min",
    "SOCKETS_PER_USER": "0",
}
SETTLE = 1.0  # seconds for the server to finish with sockets opening or closing
WAIT = 30.0  # seconds a creation may take to reach every lobby socket


class Watcher:
    """A lobby socket that remembers which games its lists have shown."""

    def __init__(self, socket):
        self.socket = socket
        self.listed: set[int] = set()
        self.changed = asyncio.Event()
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        async for raw in self.socket:
            message = orjson.loads(raw)
            if message.get("type") in ("GAMES", "GAMES_CHANGED"):
                self.listed.update(game["id"] for game in message["games"])
                self.changed.set()

    async def shows(self, game_id: int) -> None:
        while game_id not in self.listed:
            self.changed.clear()
            await self.changed.wait()

    async def close(self) -> None:
        self.reader.cancel()
        with contextlib.suppress(Exception):
            await self.socket.close()


async def open_watcher(site: Site) -> Watcher:
    guest = await site.guest()
    watcher = Watcher(await site.socket("/ws/lobby/", guest.token))
    await watcher.socket.send('{"type": "REQUEST_GAMES", "changes": true}')
    await watcher.changed.wait()
    return watcher


async def open_watchers(site: Site, count: int) -> list[Watcher]:
    """``count`` lobby sockets, 50 opening at a time."""
    watchers: list[Watcher] = []
    for start in range(0, count, 50):
        watchers += await asyncio.gather(
            *(open_watcher(site) for _ in range(min(50, count - start)))
        )
    return watchers


def postgres_cpu() -> float:
    return sum(cpu_seconds(pid) for pid in pids_named("postgres"))


@dataclass(frozen=True)
class Figures:
    """Milliseconds per public game creation."""

    cpu: float  # the server's, user and system
    user: float
    system: float
    database: float  # PostgreSQL's
    wall: float


def server_cpu(pids: list[int]) -> tuple[float, float]:
    split = [cpu_split(each) for each in pids]
    return sum(user for user, _ in split), sum(system for _, system in split)


async def measure(site: Site, pid: int, watchers: int, games: int) -> Figures:
    """The figures per public game creation with ``watchers`` lobby sockets."""
    sockets = await open_watchers(site, watchers)
    creators = []
    for start in range(0, games, 50):
        creators += await asyncio.gather(*(site.guest() for _ in range(min(50, games - start))))
    await asyncio.sleep(SETTLE)
    pids = with_descendants([pid])
    user_before, system_before = server_cpu(pids)
    database_before = postgres_cpu()
    began = time.perf_counter()
    for creator in creators:
        body = {"name": "lobby bench", "max_players": 2}
        game = await site.call("POST", "/api/games/", body, creator.token)
        await asyncio.wait_for(
            asyncio.gather(*(socket.shows(game["id"]) for socket in sockets)), WAIT
        )
    wall = time.perf_counter() - began
    user, system = server_cpu(pids)
    user, system = user - user_before, system - system_before
    database = postgres_cpu() - database_before
    await asyncio.gather(*(socket.close() for socket in sockets))
    await asyncio.sleep(SETTLE)
    per = 1000 / games
    return Figures((user + system) * per, user * per, system * per, database * per, wall * per)


async def main_async(args) -> None:
    with contextlib.ExitStack() as stack:
        site, server, url = await one_server(stack, BENCH_ENV, "lobby")
        layer = "Redis" if os.environ.get("REDIS_URL") else "in-memory"
        database = "PostgreSQL" if url.startswith("postgres") else "SQLite"
        print(f"one server process, {database}, {layer} channel layer; {args.games} games a run")
        results: dict[int, list[float]] = {count: [] for count in args.watchers}
        for run in range(1, args.runs + 1):
            for count in args.watchers:
                got = await measure(site, server.pid, count, args.games)
                results[count].append(got.cpu)
                postgres = ""
                if url.startswith("postgres"):
                    postgres = f", PostgreSQL {got.database:.1f} ms"
                print(
                    f"run {run}: {count} lobby sockets: server CPU {got.cpu:.1f} ms"
                    f" (user {got.user:.1f}, system {got.system:.1f}) per public game"
                    f" creation{postgres} (wall {got.wall:.1f} ms)",
                    flush=True,
                )
        base = args.watchers[0]
        for count in args.watchers:
            mean = sum(results[count]) / len(results[count])
            ratio = mean / (sum(results[base]) / len(results[base]))
            print(f"mean with {count} lobby sockets: {mean:.1f} ms ({ratio:.1f}x of {base})")


def main() -> None:
    raise_file_limit()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, nargs="+", default=[0, 300])
    parser.add_argument("--games", type=int, default=40, help="public games created per count")
    parser.add_argument("--runs", type=int, default=2)
    uvloop.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
