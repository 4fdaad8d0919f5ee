"""Game turnover: server CPU per game end, its successor's set-up and its players' sockets.

    .venv/bin/python bench/turnover_bench.py [--games 30] [--kind ratumrad] [--players 2]
                                             [--tables 1] [--successor rest|rematch]
                                             [--onlookers 0] [--seed 1] [--py-spy FILE]

It starts one server process (``ratumrad_site.cluster``) on a throwaway database: PostgreSQL
when ``DATABASE_URL`` names one, else SQLite; the Redis channel layer when ``REDIS_URL`` is
set, else the in-memory one. Then the same players play ``--games`` games one after another,
as a table of ``bench/loadtest.py`` does: the game is created, joined and started over REST,
every player opens a socket on it (its first ``STATE`` in), they play random legal moves to
the end, and close their sockets. One game at a time, so that each step's CPU is its own:

- **set-up**: create, join, start (the REST calls);
- **sockets open**: each player's game socket until its first ``STATE``;
- **move**: an ordinary move, until every player has its ``STATE``;
- **end**: the move that ends the game, and what the server does after it;
- **sockets close**: the players' sockets closing, and what the server does after.

With ``--successor rematch`` each next game is made as the end screen's "Play again" makes
it instead: every player sends ``REMATCH`` on the finished game's socket (the set-up, until
every player's ``STATE`` names the new game); then the old sockets close and the new ones open.

The turnover is end + set-up + sockets open + sockets close: what a game's end and its
successor cost the server beyond the game's ordinary moves (its end is counted whole; the
line after it says what is left without an ordinary move's share).

The server's CPU is read before and after each step, thread by thread and to the nanosecond
(``procfs.task_seconds``; a thread that ends between two readings is missed, and the last
line says how much that was over the whole run, against the process's clock ticks, which
count every thread but only in steps of 10 ms); after an end and after the sockets close the
bench waits ``SETTLE`` seconds for the server to finish, and the server's idle CPU over that
wait is taken off. In parentheses: the part of it in the server's main thread, its event
loop (the sockets, the channel layer, the moves made on the loop), to the nanosecond
(``procfs.thread_seconds``); the rest is the worker threads' (the database thread, the moves
that end a game). On PostgreSQL the CPU of the server's database backends is shown too (to
the nanosecond: ``procfs.run_seconds``), with the connections they opened.

One game at a time, the server wakes up for every message: each step costs it more than
under load, where one wake-up serves many messages. ``--tables N`` plays N games at the same
time, as N tables of the load test, in lockstep: their set-ups together, their sockets
together, and their moves in rounds, one move of every table whose game goes on, all at
once. Each phase and each round is metered whole and divided among its steps: a round
without an end among its moves; a round in which games ended is its ordinary moves at that
cost, and the rest is its ends'. The ordinary move's figure then shows how much of the load
test's amortisation N tables give (compare its CPU per move at the same moment), and the
turnover's steps are metered under the same. ``bench/loadtest.py --turnover`` fits the
turnover's CPU under a real load, more roughly.

``--onlookers N`` (with the REST set-up) keeps N more sockets open on each game while it is
played, each a guest of its own that watches and reads every frame, as the people watching a
table: they open after the players' sockets and close after them, neither of which is
metered, and the moves' figures then include what the server does for them.

``--py-spy FILE`` records the server with py-spy (``pip install py-spy``) during the games,
as collapsed stacks of the threads that hold the interpreter lock (``--gil``), one line per
stack with its count of samples (``--format raw``); the sampling costs the server CPU of its
own, so the figures of such a run are too high.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import uvloop  # noqa: E402
from loadtest import SERVER_ENV, Site, Stats, Table, one_server, raise_file_limit  # noqa: E402
from procfs import cpu_seconds, run_seconds, task_seconds, thread_seconds  # noqa: E402

from games import registry  # noqa: E402

BENCH_ENV = {**SERVER_ENV, "GAME_RATE": "1000000/min"}  # the same players' games, one by one
SETTLE = 0.15  # seconds the server may go on working after the last answer of a step
MOVES_PER_SECOND = 50  # a game socket's flood guard (games.protocol.MOVES_PER_SECOND)
STEPS = ("set-up", "sockets open", "end", "sockets close")


class Meter:
    """CPU seconds of the server process and, on PostgreSQL, of its database's backends."""

    def __init__(self, pid: int, database_url: str):
        self.pid = pid
        self.database = None
        if database_url.startswith("postgres"):
            import psycopg

            self.database = psycopg.connect(database_url, autocommit=True)
            self.name = self.database.info.dbname

    def backends(self) -> list[int]:
        if self.database is None:
            return []
        rows = self.database.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [self.name],
        ).fetchall()
        return [pid for (pid,) in rows]

    def read(self) -> Reading:
        backends = {pid: run_seconds(pid) for pid in self.backends()}
        return Reading(task_seconds(self.pid), thread_seconds(self.pid), backends)


@dataclass
class Reading:
    server: dict[int, float]  # its threads, by id
    loop: float  # the server's main thread: its event loop
    backends: dict[int, float]  # by pid

    def since(self, before: Reading) -> tuple[float, float, float, int]:
        """CPU seconds of the server, of its event loop and of its backends since ``before``
        (a thread or backend that ended meanwhile is missed; one that began counts whole),
        and the backends that began."""
        return (
            _grown(self.server, before.server),
            self.loop - before.loop,
            _grown(self.backends, before.backends),
            len(self.backends.keys() - before.backends.keys()),
        )


def _grown(now: dict[int, float], before: dict[int, float]) -> float:
    """CPU seconds spent since ``before`` by what runs ``now`` (threads or processes)."""
    return sum(spent - before.get(key, 0.0) for key, spent in now.items())


@dataclass(frozen=True)
class Idle:
    """The server's CPU seconds per second with nothing to do: all of it, its event loop's."""

    server: float
    loop: float

    def over(self, seconds: float) -> tuple[float, float]:
        return self.server * seconds, self.loop * seconds


NOTHING = (0.0, 0.0)  # no idle CPU to take off


class Tally:
    """CPU seconds and counts per step; the rounds of moves (``play``) kept as they came."""

    def __init__(self):
        self.server: dict[str, float] = {}
        self.loop: dict[str, float] = {}
        self.database: dict[str, float] = {}
        self.count: dict[str, int] = {}
        self.connections: dict[str, int] = {}  # database connections opened
        # Per round: CPU (server, event loop, database), connections opened, moves, ends.
        self.rounds: list[tuple[float, float, float, int, int, int]] = []
        # The server's CPU seconds from the first measured game to the last: thread by
        # thread (as the steps), and by the process's clock ticks (threads that ended too).
        self.span = (0.0, 0.0)

    def add(
        self,
        step: str,
        before: Reading,
        after: Reading,
        idle: tuple[float, float] = NOTHING,
        count: int = 1,
    ) -> None:
        """``count`` steps, metered together."""
        server, loop, database, connections = after.since(before)
        self.server[step] = self.server.get(step, 0.0) + server - idle[0]
        self.loop[step] = self.loop.get(step, 0.0) + loop - idle[1]
        self.database[step] = self.database.get(step, 0.0) + database
        self.count[step] = self.count.get(step, 0) + count
        self.connections[step] = self.connections.get(step, 0) + connections

    def round(
        self, before: Reading, after: Reading, idle: tuple[float, float], moves: int, ends: int
    ) -> None:
        """A round of ``moves`` ordinary moves and ``ends`` moves that ended their game."""
        server, loop, database, connections = after.since(before)
        self.rounds.append((server - idle[0], loop - idle[1], database, connections, moves, ends))

    def per(self, step: str) -> tuple[float, float, float, float]:
        """Per step: the server's CPU milliseconds, its event loop's, the database's, the
        connections opened."""
        if step in ("move", "end"):
            return self.per_move_or_end(step)
        count = self.count.get(step, 0) or 1
        return (
            self.server.get(step, 0) / count * 1000,
            self.loop.get(step, 0) / count * 1000,
            self.database.get(step, 0) / count * 1000,
            self.connections.get(step, 0) / count,
        )

    def per_move_or_end(self, step: str) -> tuple[float, float, float, float]:
        """An ordinary move: the rounds without an end, per move. An end: the rounds with
        ends, less their ordinary moves at that cost, per end."""
        plain = [r for r in self.rounds if not r[5]]
        moves = sum(r[4] for r in plain) or 1
        move = [sum(r[part] for r in plain) / moves for part in range(4)]
        if step == "move":
            return (move[0] * 1000, move[1] * 1000, move[2] * 1000, move[3])
        ending = [r for r in self.rounds if r[5]]
        ends = sum(r[5] for r in ending) or 1
        beyond = [sum(r[part] - r[4] * move[part] for r in ending) / ends for part in range(4)]
        return (beyond[0] * 1000, beyond[1] * 1000, beyond[2] * 1000, beyond[3])


async def settle(meter: Meter, idle_rate: Idle) -> tuple[Reading, tuple[float, float]]:
    """Wait ``SETTLE`` seconds; the reading then, and the idle CPU to take off."""
    await asyncio.sleep(SETTLE)
    return meter.read(), idle_rate.over(SETTLE)


async def within_flood_guard(sent: deque[float]) -> None:
    """Wait until a socket may send another move: the server refuses more than
    ``MOVES_PER_SECOND`` in any second, and one game at a time a player can be that quick."""
    if len(sent) >= MOVES_PER_SECOND:
        wait = sent.popleft() + 1.0 - time.monotonic()
        if wait > -0.05:  # (the server counts from a move's arrival, a little later)
            await asyncio.sleep(wait + 0.05)
    sent.append(time.monotonic())


async def move_once(table: Table, sent: dict[int, deque[float]]) -> bool:
    """One random legal move of ``table``'s game, until every player has its ``STATE``;
    whether it ended the game."""
    while True:
        seq = max(p.state["seq"] for p in table.players)
        await asyncio.gather(*(table.caught_up(p, seq) for p in table.players))
        player = table.mover()
        if player is not None:
            break
        if table.players[0].state["status"] == "FINISHED":
            raise RuntimeError("the game is over already")
        await asyncio.sleep(0.01)  # a STATE is on its way
    move = table.random_move(player)
    ref, answer = table.expect_answer(player)
    await within_flood_guard(sent.setdefault(id(player), deque()))
    await player.socket.send(json.dumps({**move, "ref": ref, "expect_seq": seq}))
    reply = await asyncio.wait_for(answer, 10)
    if reply["type"] != "ACK":
        raise RuntimeError(f"move refused: {reply}")
    await asyncio.gather(*(table.caught_up(p, reply["seq"]) for p in table.players))
    return table.players[0].state["status"] == "FINISHED"


async def play(tables: list[Table], meter: Meter, tally: Tally, idle_rate: Idle) -> None:
    """Every table's game played to its end in rounds: each table whose game goes on makes
    one move, all at once, and the round is metered. A round in which no game ended counts
    as that many ordinary moves; one in which games ended (after ``SETTLE``) as its ordinary
    moves, at what an ordinary move costs, and its ends."""
    sent: dict[int, deque[float]] = {}
    playing = list(tables)
    while playing:
        before = meter.read()
        ended = await asyncio.gather(*(move_once(table, sent) for table in playing))
        ends = sum(ended)
        after, idle = await settle(meter, idle_rate) if ends else (meter.read(), NOTHING)
        tally.round(before, after, idle, len(playing) - ends, ends)
        playing = [table for table, over in zip(playing, ended, strict=True) if not over]


async def close_sockets(
    tables: list[Table], meter: Meter, tally: Tally, idle_rate: Idle
) -> Reading:
    """The players' sockets closed and metered; the reading after."""
    before = meter.read()
    await asyncio.gather(*(table.leave() for table in tables))
    after, idle = await settle(meter, idle_rate)
    tally.add("sockets close", before, after, idle, len(tables))
    return after


async def watch(site: Site, game_id: int, guest) -> Callable[[], Awaitable[None]]:
    """An onlooker's socket on the game, read to its end, once its first frame is in; the
    function that closes it."""
    socket = await site.socket(f"/ws/games/{game_id}/", guest.token)
    await socket.recv()

    async def drain() -> None:
        with contextlib.suppress(Exception):
            async for _ in socket:
                pass

    reader = asyncio.create_task(drain())

    async def stop() -> None:
        await socket.close()
        await reader

    return stop


async def idle_cpu(meter: Meter, seconds: float = 2.0) -> Idle:
    """The server's CPU seconds per second with nothing to do, all and its event loop's."""
    before = meter.read()
    await asyncio.sleep(seconds)
    server, loop, _, _ = meter.read().since(before)
    return Idle(server / seconds, loop / seconds)


async def run(site: Site, meter: Meter, args) -> Tally:
    tables = []
    for number in range(args.tables):
        players = list(await asyncio.gather(*(site.guest() for _ in range(args.players))))
        rng = random.Random(args.seed + number)
        tables.append(Table(site, players, rng, Stats(), 0.0, args.kind))
    # A first game warms the server up (its pools, its caches); it is not counted.
    rematch = args.successor == "rematch"
    await asyncio.gather(*(table.seat() for table in tables))
    await play(tables, meter, Tally(), Idle(0.0, 0.0))
    if not rematch:  # else the first game's sockets stay open for its "Play again"
        await asyncio.gather(*(table.leave() for table in tables))
    await asyncio.sleep(1)
    idle_rate = await idle_cpu(meter)
    print(f"idle server: {idle_rate.server * 1000:.2f} ms of CPU a second", flush=True)
    tally = Tally()
    start = task_seconds(meter.pid), cpu_seconds(meter.pid)
    onlookers = {
        id(table): await asyncio.gather(*(site.guest() for _ in range(args.onlookers)))
        for table in tables
    }
    cycles = max(1, args.games // args.tables)
    for cycle in range(1, cycles + 1):
        before = meter.read()
        if rematch:
            games = await asyncio.gather(*(table.play_again() for table in tables))
            after, idle = await settle(meter, idle_rate)
        else:
            games = await asyncio.gather(*(table.new_game() for table in tables))
            after, idle = meter.read(), NOTHING
        tally.add("set-up", before, after, idle, len(tables))
        if rematch:  # the finished games' sockets close, then the new ones' open
            after = await close_sockets(tables, meter, tally, idle_rate)
        await asyncio.gather(
            *(
                table.open(player, game_id)
                for table, game_id in zip(tables, games, strict=True)
                for player in table.players
            )
        )
        opened = meter.read()
        tally.add("sockets open", after, opened, NOTHING, len(tables))
        watching = await asyncio.gather(
            *(
                watch(site, game_id, guest)
                for table, game_id in zip(tables, games, strict=True)
                for guest in onlookers[id(table)]
            )
        )
        if watching:
            await asyncio.sleep(SETTLE)  # (not metered: play reads the meter anew)
        await play(tables, meter, tally, idle_rate)
        if not rematch:
            await close_sockets(tables, meter, tally, idle_rate)
        if watching:
            await asyncio.gather(*(stop() for stop in watching))
            await asyncio.sleep(SETTLE)
        if cycle * len(tables) % 10 < len(tables):
            print(f"  {cycle * len(tables)} games", flush=True)
    threads, ticks = task_seconds(meter.pid), cpu_seconds(meter.pid)
    tally.span = (_grown(threads, start[0]), ticks - start[1])
    if rematch:
        await asyncio.gather(*(table.leave() for table in tables))  # (not metered)
    return tally


def report(tally: Tally, args, database: bool) -> None:
    games = tally.count.get("set-up", 0)
    moves = sum(r[4] for r in tally.rounds)
    print(
        f"{games} games of {args.kind} with {args.players} players, {args.tables} at a time;"
        f" {moves / max(1, games):.1f} ordinary moves a game"
    )
    unit = "server (its event loop)" + (" / its database backends" if database else "")

    def figures(server: float, loop: float, backend: float, connections: float) -> str:
        own = f"{server:6.2f} ms ({loop:5.2f})"
        if not database:
            return own
        return f"{own} / {backend:5.2f} ms, {connections:4.2f} connections opened"

    print(f"CPU per step ({unit}):")
    move = tally.per("move")
    print(f"  {'ordinary move':<16} {figures(*move)}")
    total = [0.0, 0.0, 0.0, 0.0]
    for step in STEPS:
        each = tally.per(step)
        total = [a + b for a, b in zip(total, each, strict=True)]
        print(f"  {step:<16} {figures(*each)}")
    print(f"  {'turnover':<16} {figures(*total)}")
    print("    (end + set-up + sockets open + sockets close)")
    beyond = [a - b for a, b in zip(total, move, strict=True)]
    print(f"  {'beyond a move':<16} {figures(*beyond)}")
    print("    (the turnover less one ordinary move)")
    ended = [a + b for a, b in zip(tally.per("end"), tally.per("set-up"), strict=True)]
    print(f"  {'end + set-up':<16} {figures(*ended)}")
    moves = ended[0] / move[0] if move[0] > 0 else float("nan")
    print(f"    (a game's end and its successor's set-up: {moves:.1f} ordinary moves' worth)")
    threads, ticks = tally.span
    print(
        f"the server's CPU from the first measured game to the last: {threads:.2f} s thread by"
        f" thread, {ticks:.2f} s by the process's clock ticks (threads that ended included)"
    )


async def main_async(args) -> None:
    with contextlib.ExitStack() as stack:
        site, server, url = await one_server(stack, BENCH_ENV, "turnover")
        layer = "Redis" if os.environ.get("REDIS_URL") else "in-memory"
        database = "PostgreSQL" if url.startswith("postgres") else "SQLite"
        print(f"one server process, {database}, {layer} channel layer", flush=True)
        meter = Meter(server.pid, url)
        if args.py_spy:
            spy = subprocess.Popen(
                [
                    *("py-spy", "record", "--pid", str(server.pid), "--format", "raw"),
                    *("--rate", "500", "--gil", "--output", args.py_spy),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            stack.callback(spy.wait)
            stack.callback(spy.send_signal, signal.SIGINT)  # py-spy writes its file then
            time.sleep(1)  # py-spy attaches
        tally = await run(site, meter, args)
        report(tally, args, meter.database is not None)


def main() -> None:
    raise_file_limit()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30, help="games measured")
    parser.add_argument("--kind", choices=list(registry.KINDS), default=registry.DEFAULT_KIND)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument(
        "--tables",
        type=int,
        default=1,
        help="games played at the same time, in rounds of one move each (see the docs)",
    )
    parser.add_argument(
        "--successor",
        choices=("rest", "rematch"),
        default="rest",
        help="the next game: created, joined and started over REST, or by every REMATCH",
    )
    parser.add_argument(
        "--onlookers", type=int, default=0, help="sockets watching each game (REST set-up only)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--py-spy", help="record the server with py-spy to this file")
    args = parser.parse_args()
    kind = registry.get(args.kind)
    if args.successor == "rematch" and kind.solo:
        parser.error("--successor rematch: a solo game starts again at once; use rest")
    if args.onlookers and args.successor == "rematch":
        parser.error("--onlookers: with --successor rest")
    if not 0 <= args.onlookers <= 1000:
        parser.error("--onlookers: from 0 to 1000")
    if not 1 <= args.tables <= args.games:
        parser.error("--tables: from 1 to --games")
    if not kind.min_players <= args.players <= kind.max_players:
        parser.error(f"--players: {args.kind} seats {kind.min_players} to {kind.max_players}")
    uvloop.run(main_async(args))


if __name__ == "__main__":
    main()
