"""A player's coming and going at a table that people watch: server CPU per change of presence.

    .venv/bin/python bench/presence_bench.py [--onlookers 0 50] [--changes 40] [--runs 2]

It starts one server process (``ratumrad_site.cluster``) on a throwaway database: PostgreSQL
when ``DATABASE_URL`` names one, else SQLite; the Redis channel layer when ``REDIS_URL`` is
set, else the in-memory one. A game of two is dealt; the first player's socket and, for each
``--onlookers`` count in turn, that many onlookers' sockets (guests of their own) stay open
on it. Then the second player's socket opens and closes ``--changes`` times: each opening is
a change of presence (``PRESENCE_GRACE_SECONDS`` is 0 here, so each closing is one too), and
it is over when every other socket has had its ``PRESENCE`` and the ``STATE`` after it. The
server's CPU per change (an opening or a closing, with the second player's socket's own
work) is printed with the wall time, the counts in pairs close in time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402
from loadtest import SERVER_ENV, Site, one_server, raise_file_limit  # noqa: E402
from procfs import cpu_seconds, with_descendants  # noqa: E402

BENCH_ENV = {**SERVER_ENV, "PRESENCE_GRACE_SECONDS": "0", "GAME_RATE": "1000000/min"}
SETTLE = 0.5  # seconds for the server to finish with sockets opening or closing
WAIT = 30.0  # seconds a change may take to reach every socket


class Onlooker:
    """A socket on the game that counts the ``STATE``s that follow a ``PRESENCE``."""

    def __init__(self, socket):
        self.socket = socket
        self.told = 0  # PRESENCE, then its STATE
        self.changed = asyncio.Event()
        self.reader = asyncio.create_task(self.read())
        self.pending = False

    async def read(self) -> None:
        async for raw in self.socket:
            kind = orjson.loads(raw)["type"]
            if kind == "PRESENCE":
                self.pending = True
            elif kind == "STATE" and self.pending:
                self.pending = False
                self.told += 1
                self.changed.set()

    async def told_at_least(self, count: int) -> None:
        while self.told < count:
            self.changed.clear()
            await self.changed.wait()

    async def close(self) -> None:
        self.reader.cancel()
        with contextlib.suppress(Exception):
            await self.socket.close()


async def open_onlooker(site: Site, path: str, token: str) -> Onlooker:
    socket = await site.socket(path, token)
    await socket.recv()  # its first STATE
    return Onlooker(socket)


async def dealt_game(site: Site) -> tuple[str, list]:
    players = [await site.guest() for _ in range(2)]
    body = {"name": "presence bench", "max_players": 2, "turn_seconds": 0}
    game = await site.call("POST", "/api/games/", body, players[0].token)
    await site.call("POST", f"/api/games/{game['id']}/join/", {}, players[1].token)
    await site.call("POST", f"/api/games/{game['id']}/start/", {}, players[0].token)
    return f"/ws/games/{game['id']}/", players


async def measure(site: Site, pid: int, onlookers: int, changes: int) -> tuple[float, float]:
    """Server CPU and wall milliseconds per change of presence with ``onlookers``."""
    path, (first, second) = await dealt_game(site)
    guests = []
    for start in range(0, onlookers, 50):
        guests += await asyncio.gather(*(site.guest() for _ in range(min(50, onlookers - start))))
    watching = [await open_onlooker(site, path, first.token)]
    for start in range(0, onlookers, 25):
        part = guests[start : start + 25]
        watching += await asyncio.gather(*(open_onlooker(site, path, g.token) for g in part))
    await asyncio.sleep(SETTLE)
    pids = with_descendants([pid])
    cpu_before = sum(cpu_seconds(each) for each in pids)
    began = time.perf_counter()
    told = 0
    for _ in range(changes // 2):
        socket = await site.socket(path, second.token)
        await socket.recv()
        told += 1
        await asyncio.wait_for(asyncio.gather(*(w.told_at_least(told) for w in watching)), WAIT)
        await socket.close()
        told += 1
        await asyncio.wait_for(asyncio.gather(*(w.told_at_least(told) for w in watching)), WAIT)
    wall = time.perf_counter() - began
    cpu = sum(cpu_seconds(each) for each in pids) - cpu_before
    await asyncio.gather(*(w.close() for w in watching))
    await asyncio.sleep(SETTLE)
    return cpu / told * 1000, wall / told * 1000


async def main_async(args) -> None:
    with contextlib.ExitStack() as stack:
        site, server, url = await one_server(stack, BENCH_ENV, "presence")
        database = "PostgreSQL" if url.startswith("postgres") else "SQLite"
        print(f"one server process, {database}; {args.changes} changes of presence a run")
        results: dict[int, list[float]] = {count: [] for count in args.onlookers}
        for run in range(1, args.runs + 1):
            for count in args.onlookers:
                cpu, wall = await measure(site, server.pid, count, args.changes)
                results[count].append(cpu)
                print(
                    f"run {run}: {count} onlookers: server CPU {cpu:.2f} ms per change"
                    f" (wall {wall:.1f} ms)",
                    flush=True,
                )
        for count in args.onlookers:
            print(f"mean with {count} onlookers: {sum(results[count]) / args.runs:.2f} ms")


def main() -> None:
    raise_file_limit()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--onlookers", type=int, nargs="+", default=[0, 50])
    parser.add_argument("--changes", type=int, default=40, help="openings and closings a run")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
