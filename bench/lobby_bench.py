"""Lobby fan-out: server CPU per public game creation, with lobby sockets open and without.

    .venv/bin/python bench/lobby_bench.py [--watchers 0 300] [--games 40] [--runs 2] [--rate 0]

It starts one server process (``ratumrad_site.cluster``) on a throwaway database: PostgreSQL
when ``DATABASE_URL`` names one, else SQLite; the Redis channel layer when ``REDIS_URL`` is
set, else the in-memory one. For each run and each ``--watchers`` count in turn (so that the
counts are measured in pairs, close in time), it opens that many lobby sockets, each of a
guest of its own that asked for the game list and its changes (as the lobby page does), then
creates ``--games`` public games one after another over REST, each by a guest of its own. A
creation is over when every lobby socket has had the new game (``GAMES_CHANGED``). With
``--rate R`` the creations are made at R a second instead, each at its time whether the last
has reached the sockets or not, as on a busy site; the run is over when every socket has had
every game. The server's CPU time over the creations, divided by their number, is printed
(also as its user and system time: on the loopback a socket's system time includes its
reader's TCP work) with PostgreSQL's (on PostgreSQL: all its processes on this machine) and
the wall time per creation. Before the creations the server's idle CPU with those sockets open
is read over ``IDLE`` seconds; the means are printed as they are and less what the server
would have spent idle for as long (its beats and timers): a creation that waits for the
lobby's next frame to go out takes longer, and is charged more idle time, without costing
more.

Between counts the server is left to settle: a closed lobby socket's user goes offline
``GRACE`` seconds after it closed (``PRESENCE_GRACE_SECONDS``), and 300 such departures cost
the server about a third of a second of CPU, which once fell into the next count's readings.
Creations one after another with lobby sockets open are paced by the lobby's frames (at most
one each ``lobby.hub.COALESCE_SECONDS``), without them they follow each other at once, and a
creation after a pause costs more: ``--rate 3`` makes each creation its own frame, sent at
once, at the same pace for every count.
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
from procfs import cpu_seconds, cpu_split, pids_named, until_quiet, with_descendants  # noqa: E402

GRACE = 5.0  # seconds a closed socket's user stays online (PRESENCE_GRACE_SECONDS, as the site's)
BENCH_ENV = {
    **SERVER_ENV,
    "PRESENCE_GRACE_SECONDS": str(GRACE),
    "GAMES_WAITING_PER_USER": "0",  # no limit
    "GAME_RATE": "1000000/min",
    "SOCKETS_PER_USER": "0",
}
SETTLE = 1.0  # seconds for the server to finish with sockets opening or closing
# Then it has settled once it used at most QUIET seconds of CPU over a second (a clock tick:
# less than a tenth of what 300 closed sockets' departures cost, GRACE after they closed), at
# most SETTLE_TIMEOUT seconds later. Without this a run's sockets left the server working
# into the next run's readings.
QUIET, SETTLE_TIMEOUT = 0.011, 60.0
IDLE = 2.0  # seconds the server's idle CPU is read over, with the run's sockets open
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


def postgres_cpu() -> dict[int, float]:
    """The CPU time of each PostgreSQL process by its id."""
    return {pid: cpu_seconds(pid) for pid in pids_named("postgres")}


def postgres_since(before: dict[int, float]) -> float:
    """PostgreSQL's CPU time since ``before``, process by process: one started meanwhile
    counts from zero, one that ended meanwhile is left out (a plain difference of the sums
    took its whole time off)."""
    return sum(used - before.get(pid, 0.0) for pid, used in postgres_cpu().items())


@dataclass(frozen=True)
class Figures:
    """Milliseconds per public game creation."""

    cpu: float  # the server's, user and system
    user: float
    system: float
    database: float  # PostgreSQL's
    wall: float
    idle: float  # the server's CPU per creation had it been idle for as long (``IDLE``)


def server_cpu(pids: list[int]) -> tuple[float, float]:
    split = [cpu_split(each) for each in pids]
    return sum(user for user, _ in split), sum(system for _, system in split)


async def settle(pids: list[int]) -> None:
    """Wait ``SETTLE`` seconds, then until the server is quiet (``QUIET``)."""
    if not await until_quiet(lambda: sum(server_cpu(pids)), QUIET, SETTLE, SETTLE_TIMEOUT):
        print(f"the server did not settle within {SETTLE_TIMEOUT:.0f} s", flush=True)


async def shows_all(socket: Watcher, game_ids: list[int]) -> None:
    for game_id in game_ids:
        await socket.shows(game_id)


async def measure(site: Site, pid: int, watchers: int, games: int, rate: float) -> Figures:
    """The figures per public game creation with ``watchers`` lobby sockets, the creations
    one after another (``rate`` 0) or ``rate`` a second."""
    sockets = await open_watchers(site, watchers)
    creators = []
    for start in range(0, games, 50):
        creators += await asyncio.gather(*(site.guest() for _ in range(min(50, games - start))))
    pids = with_descendants([pid])
    await settle(pids)
    idle_began, idle_before = time.perf_counter(), sum(server_cpu(pids))
    await asyncio.sleep(IDLE)
    idle_rate = (sum(server_cpu(pids)) - idle_before) / (time.perf_counter() - idle_began)
    user_before, system_before = server_cpu(pids)
    database_before = postgres_cpu()
    began = time.perf_counter()
    body = {"name": "lobby bench", "max_players": 2}
    if rate:

        async def create(at: float, token: str) -> int:
            await asyncio.sleep(at - (time.perf_counter() - began))
            return (await site.call("POST", "/api/games/", body, token))["id"]

        made = await asyncio.gather(
            *(create(number / rate, creator.token) for number, creator in enumerate(creators))
        )
        await asyncio.wait_for(asyncio.gather(*(shows_all(each, made) for each in sockets)), WAIT)
    else:
        for creator in creators:
            game = await site.call("POST", "/api/games/", body, creator.token)
            await asyncio.wait_for(
                asyncio.gather(*(socket.shows(game["id"]) for socket in sockets)), WAIT
            )
    wall = time.perf_counter() - began
    user, system = server_cpu(pids)
    user, system = user - user_before, system - system_before
    database = postgres_since(database_before)
    await asyncio.gather(*(socket.close() for socket in sockets))
    if sockets:
        await asyncio.sleep(GRACE)  # their users' departures are due then
    await settle(pids)
    per = 1000 / games
    return Figures(
        (user + system) * per,
        user * per,
        system * per,
        database * per,
        wall * per,
        idle_rate * wall * per,
    )


async def main_async(args) -> None:
    with contextlib.ExitStack() as stack:
        site, server, url = await one_server(stack, BENCH_ENV, "lobby")
        layer = "Redis" if os.environ.get("REDIS_URL") else "in-memory"
        database = "PostgreSQL" if url.startswith("postgres") else "SQLite"
        pace = f"{args.rate:g} a second" if args.rate else "one after another"
        print(
            f"one server process, {database}, {layer} channel layer;"
            f" {args.games} games a run, {pace}"
        )
        results: dict[int, list[Figures]] = {count: [] for count in args.watchers}
        for run in range(1, args.runs + 1):
            for count in args.watchers:
                got = await measure(site, server.pid, count, args.games, args.rate)
                results[count].append(got)
                postgres = ""
                if url.startswith("postgres"):
                    postgres = f", PostgreSQL {got.database:.1f} ms"
                print(
                    f"run {run}: {count} lobby sockets: server CPU {got.cpu:.1f} ms"
                    f" (user {got.user:.1f}, system {got.system:.1f}; idle for as long"
                    f" {got.idle:.1f}) per public game creation{postgres}"
                    f" (wall {got.wall:.1f} ms)",
                    flush=True,
                )
        base = args.watchers[0]

        def mean(count: int, less_idle: bool) -> float:
            got = results[count]
            return sum(each.cpu - (each.idle if less_idle else 0) for each in got) / len(got)

        for count in args.watchers:
            whole, less = mean(count, False), mean(count, True)
            print(
                f"mean with {count} lobby sockets: {whole:.1f} ms"
                f" ({whole / mean(base, False):.1f}x of {base}); less the server's idle CPU"
                f" for as long: {less:.1f} ms ({less / mean(base, True):.1f}x of {base})"
            )


def main() -> None:
    raise_file_limit()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, nargs="+", default=[0, 300])
    parser.add_argument("--games", type=int, default=40, help="public games created per count")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="creations a second (0: each once the last has reached every lobby socket)",
    )
    uvloop.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
