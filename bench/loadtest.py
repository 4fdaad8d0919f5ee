"""Load benchmark: concurrent games of computer players over real websockets.

    .venv/bin/python bench/loadtest.py [--kind ratumrad] [--games 200] [--players 2]
                                       [--seconds 30] [--processes 2] [--sockets 2000]
                                       [--url URL]
                                       [--rate MOVES_PER_SECOND]
                                       [--flood-sockets 50] [--flood-seconds 10]
                                       [--samples FILE]
                                       [--watchers N] [--lobby-changes PER_SECOND]
                                       [--turnover]

Without ``--url`` it starts ``--processes`` daphne processes sharing one port
(``ratumrad_site.cluster``) on a throwaway database: PostgreSQL when ``DATABASE_URL`` names
one, else SQLite; the Redis channel layer when ``REDIS_URL`` is set (needed for more than
one process). With ``--url`` it drives a server that runs already (its guest rate limit must
allow ``games x players`` new guests).

``--kind`` picks the game (``rage`` seats 4 by default, ``road300`` is solo: one player,
created started). Each game's players are clients of their own: one socket each, choosing a
random legal move from their own STATE, read with orjson on uvloop's event loop (so the
clients stay cheap, as the servers do), and sending it with ``expect_seq``. A finished game
is followed by a new one of the same players. By default each game moves as soon as its last
move is through: the most the servers can do, with every game always waiting in their queue.
With ``--rate`` the games together offer that many moves per second, each game on a fixed
beat: the round trip at a load the servers can carry. In the same run a few sockets send
``PING`` and time the ``PONG``: the floor of a round trip through the same servers.

Every game is set up and every socket open before the clock starts, and the players of the
last games leave once every table has stopped. The games all begin then, and at one pace they
all end within a few seconds of each other, and again a game's length later. ``--turnover``
spreads their ends over the run, as on a site where games begin at random times: before the
clock each game is played on at once by a random number of moves, from none to the mean
length of a game (``game_length``: games played here with the kind's engine as the tables
play), not counted; a game that ends meanwhile is followed by the next. It also prints the
servers' CPU per game turnover under the run's load (a game's end, the next game's set-up,
its players' sockets): each second's CPU fitted by least squares to the moves and the game
ends of that second and the ends of the second before, with its standard error.

The servers' output goes to a temporary file, or to the file ``LOADTEST_LOG`` names.
``--samples FILE`` writes every move's time: when it ended, its round trip, its type, its
table, its number in its game and whether it ended the game, to see when the slow ones came.

With ``--watchers N`` (0 too) the lobby changes during the run: ``--lobby-changes`` times a
second a guest creates a public game and leaves it again (two changes of the public list),
and N lobby sockets, opened before the clock starts over as many guests as they need (ten
sockets each), in a process of their own (as a site's watchers are on machines of their own;
its CPU is counted as the load generator's), and spread over the server processes as the
kernel hands the connections out,
watch it as the lobby page does: each asked for the games and their changes and for who is
online. They count the lists and changes (``GAMES``, ``GAMES_CHANGED``) and the
``CONNECTED_PLAYERS`` they get, and time each created game from its commit to the first
message that lists it on each socket (from the game's ``created``, taken in the
transaction that creates it: the latency is not less than that; the servers' clock is this
machine's, so with ``--url`` only for a server on the same machine).

Printed: moves applied per second; the move round trip (send → the ACK and every player's
STATE of the new seq) at p50/p95/p99, and the part until the mover's ACK; the same for the
echo; their ratios; the messages the players got per move; the CPU time per move of each
part of the system (servers, PostgreSQL, Redis, this load generator: all share the machine's
cores) and the rate those cores allow at that cost. Then an echo flood (``--flood-sockets``
sockets sending PING after PONG with no pause): round trips per second and CPU per round
trip, the ceiling of the message path alone. Last, on a process of its own, the memory per
open socket for ``--sockets`` idle lobby sockets. With ``--watchers``, before the echo flood:
the lobby changes made, the updates the watchers got, and the lobby update latency at
p50/p99.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import bisect
import contextlib
import datetime
import gc
import itertools
import json
import math
import os
import random
import resource
import secrets
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402
import uvloop  # noqa: E402
from procfs import cpu_seconds, pids_named, rss_kib, with_descendants  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from games import registry  # noqa: E402
from ratumrad_site import cluster  # noqa: E402
from tests.real_server import http_json, server_database  # noqa: E402

DEFAULT_PLAYERS = {"ratumrad": 2, "rage": 4}  # per kind; else the kind's least
SERVER_ENV = {
    "DJANGO_DEBUG": "0",  # DEBUG keeps every SQL query in memory
    "DJANGO_SECRET_KEY": "loadtest-" + secrets.token_hex(16),
    "DJANGO_SECURE": "0",
    "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
    "GUEST_RATE": "1000000/min",
    "SOCKETS_PER_ADDRESS": "0",  # every simulated player connects from 127.0.0.1
    "SHARED_SOCKET_RATES": "0",
    # The echo flood measures the message path's ceiling.
    "SOCKET_FRAMES_PER_SECOND": "0",
    "ADDRESS_FRAMES_PER_SECOND": "0",
    "BOT_DELAY_SECONDS": "0",
    "DATABASE_CONN_MAX_AGE": "60",
    "PYTHONUNBUFFERED": "1",
    # Groups such as "lobby" of their own: other runs may share the Redis.
    "REDIS_PREFIX": "ratumrad-bench-" + secrets.token_hex(4),
}
ECHO_SOCKETS = 8
ECHO_PAUSE = 0.05  # seconds between an echo socket's pings
CONNECT_TIMEOUT = 60
RESYNC_AFTER = 10.0  # seconds a client waits for a STATE before it asks with SYNC
ANSWER_TIMEOUT = 10.0  # seconds a client waits for the ACK or ERROR of its move
WATCHERS_PER_GUEST = 10  # lobby sockets per guest (below SOCKETS_PER_USER)
LOBBY_GUESTS = 20  # the guests who take turns to create the public games


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class CpuMeter:
    """CPU seconds spent during a phase by each part of the system on this machine: the
    server processes (with the processes they started), PostgreSQL, Redis and this load
    generator."""

    def __init__(self, server_pids: list[int], helper_pids: list[int] = ()):
        self.parts = {
            "servers": lambda: with_descendants(server_pids),  # with Road to 300's bot
            "PostgreSQL": lambda: pids_named("postgres"),
            "Redis": lambda: pids_named("redis-server"),
            "load generator": lambda: [os.getpid(), *helper_pids],  # and its watchers
        }
        self.start = self.read()

    def read(self) -> dict[str, dict[int, float]]:
        parts = self.parts.items()
        return {part: {pid: cpu_seconds(pid) for pid in pids()} for part, pids in parts}

    def spent(self) -> dict[str, float]:
        """CPU seconds per part since the meter was made. A process that ended meanwhile is
        missed: the servers keep their database connections, so their backends stay."""
        now = self.read()
        return {
            part: sum(now[part][pid] - self.start[part].get(pid, 0.0) for pid in now[part])
            for part in now
        }


# ---------------------------------------------------------------------------- clients


@dataclass
class Player:
    id: int
    token: str
    socket: ClientConnection | None = None
    state: dict | None = None
    pending: dict[str, asyncio.Future] = field(default_factory=dict)  # ref -> ACK or ERROR
    seen: asyncio.Event = field(default_factory=asyncio.Event)  # a new STATE arrived
    reader: asyncio.Task | None = None


class Site:
    def __init__(self, base_url: str):
        self.base_url = base_url.rstrip("/")
        self.ws_base = "ws" + self.base_url[len("http") :]

    async def call(self, method: str, path: str, body=None, token=None):
        status, answer = await asyncio.to_thread(
            http_json, method, self.base_url + path, body, token
        )
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {answer}")
        return answer

    async def guest(self) -> Player:
        answer = await self.call(
            "POST", "/api/auth/guest/", {"name": "load " + secrets.token_hex(5)}
        )
        return Player(answer["user"]["id"], answer["token"])

    async def socket(self, path: str, token: str) -> ClientConnection:
        return await connect(
            self.ws_base + path,
            additional_headers={"Authorization": f"Token {token}"},
            open_timeout=CONNECT_TIMEOUT,
            max_size=2**22,
            proxy=None,
            ping_interval=None,
        )


class Table:
    """One game after another between the same players; records every move's round trip."""

    def __init__(
        self,
        site: Site,
        players: list[Player],
        rng: random.Random,
        stats: Stats,
        interval: float = 0.0,
        kind: str = "ratumrad",
    ):
        self.site, self.players, self.rng, self.stats = site, players, rng, stats
        self.kind = kind
        self.refs = 0
        self.interval = interval  # seconds from one move of this table to its next (0: at once)
        self.next_move = 0.0
        self.number = 0  # the table's, in the samples
        self.played = 0  # moves of the game being played

    async def new_game(self) -> int:
        creator = self.players[0]
        body = {"name": "load", "kind": self.kind, "private": True}
        if registry.get(self.kind).solo:  # seated and started as it is created
            game = await self.site.call("POST", "/api/games/", body, creator.token)
            return game["id"]
        body.update(max_players=len(self.players), turn_seconds=0)
        game = await self.site.call("POST", "/api/games/", body, creator.token)
        for player in self.players[1:]:
            await self.site.call("POST", f"/api/games/{game['id']}/join/", {}, player.token)
        await self.site.call("POST", f"/api/games/{game['id']}/start/", {}, creator.token)
        return game["id"]

    async def play_again(self) -> int:
        """The next game as the end screen's "Play again" makes it: every player's ``REMATCH``
        on the finished game's socket, one after the other. The new game's id, once every
        player's ``STATE`` names it (its sockets are not open yet)."""
        for player in self.players:
            ref, answer = self.expect_answer(player)
            await player.socket.send(json.dumps({"type": "REMATCH", "accept": True, "ref": ref}))
            reply = await asyncio.wait_for(answer, 10)
            if reply["type"] != "ACK":
                raise RuntimeError(f"REMATCH refused: {reply}")
        while True:
            named = {(p.state.get("rematch") or {}).get("game") for p in self.players}
            if len(named) == 1 and None not in named:
                return named.pop()
            await asyncio.sleep(0.005)  # a STATE is on its way

    async def seat(self) -> int:
        """A new game with every player's socket open and its first STATE in."""
        game_id = await self.new_game()
        self.played = 0
        await asyncio.gather(*(self.open(player, game_id) for player in self.players))
        return game_id

    async def run(self, game_id: int, until: float) -> None:
        """Play until ``until``, a new game whenever one ends. The last game's sockets stay
        open (:meth:`leave`): hundreds of players leaving at the same moment would slow the
        last moves of the tables that are still playing."""
        while True:
            await self.play(game_id, until)
            if time.monotonic() >= until:
                return
            await self.leave()
            game_id = await self.seat()

    async def leave(self) -> None:
        await asyncio.gather(*(self.close(player) for player in self.players))

    async def open(self, player: Player, game_id: int) -> None:
        player.socket = await self.site.socket(f"/ws/games/{game_id}/", player.token)
        player.state = None
        player.seen = asyncio.Event()
        player.reader = asyncio.create_task(self.read(player))
        while player.state is None:
            await player.seen.wait()
            player.seen.clear()

    async def close(self, player: Player) -> None:
        player.reader.cancel()
        with contextlib.suppress(Exception):
            await player.socket.close()

    async def read(self, player: Player) -> None:
        async for raw in player.socket:
            self.stats.frames += 1
            message = orjson.loads(raw)
            kind = message["type"]
            if kind == "STATE":
                if player.state is None or message["seq"] >= player.state["seq"]:
                    player.state = message["state"]
                    player.seen.set()
            elif kind in ("ACK", "ERROR"):
                future = player.pending.pop(message.get("ref"), None)
                if future is not None and not future.done():
                    future.set_result(message)

    def random_move(self, player: Player) -> dict:
        """A random one of ``player``'s legal moves other than ``VOTE_END``."""
        return self.rng.choice([m for m in player.state["legal"] if m["type"] != "VOTE_END"])

    def expect_answer(self, player: Player) -> tuple[str, asyncio.Future]:
        """A new ``ref`` for ``player``'s next message, and the future of its answer."""
        self.refs += 1
        ref = f"r{self.refs}"
        answer = player.pending[ref] = asyncio.get_running_loop().create_future()
        return ref, answer

    def mover(self) -> Player | None:
        state = self.players[0].state
        if state["status"] == "FINISHED":
            return None
        movers = [p for p in self.players if any(m["type"] != "VOTE_END" for m in p.state["legal"])]
        return self.rng.choice(movers) if movers else None

    async def advance(self, game_id: int, moves: int) -> int:
        """Before the clock (``--turnover``): ``moves`` moves at once, not recorded, over as
        many games as they take; the game then being played."""
        recording, interval = self.stats, self.interval
        self.stats, self.interval = Stats(), 0.0
        try:
            while True:
                if self.players[0].state["status"] == "FINISHED":
                    await self.leave()
                    game_id = await self.seat()
                if len(self.stats.moves) >= moves:
                    break
                await self.play(game_id, math.inf, moves)
        finally:
            self.stats, self.interval = recording, interval
        return game_id

    async def play(self, game_id: int, until: float, moves: float = math.inf) -> None:
        """Play until ``until``, the game's end, or ``moves`` moves in the stats."""
        while time.monotonic() < until and len(self.stats.moves) < moves:
            seq = max(p.state["seq"] for p in self.players)
            await asyncio.gather(*(self.caught_up(p, seq) for p in self.players))
            player = self.mover()
            if player is None:
                if self.players[0].state["status"] == "FINISHED":
                    self.stats.games += 1
                    self.stats.ends.append(time.monotonic())
                    return
                await asyncio.sleep(0.01)  # a STATE is on its way
                continue
            if self.interval:
                await self.pace()
            move = self.random_move(player)
            ref, answer = self.expect_answer(player)
            started = time.perf_counter()
            await player.socket.send(json.dumps({**move, "ref": ref, "expect_seq": seq}))
            try:
                reply = await asyncio.wait_for(answer, ANSWER_TIMEOUT)
            except TimeoutError:
                player.pending.pop(ref, None)
                self.stats.refused["no answer"] = self.stats.refused.get("no answer", 0) + 1
                continue
            self.stats.acks.append(time.perf_counter() - started)
            if reply["type"] != "ACK":
                self.stats.refused[reply.get("code")] = (
                    self.stats.refused.get(reply.get("code"), 0) + 1
                )
                continue
            await asyncio.gather(*(self.caught_up(p, reply["seq"]) for p in self.players))
            self.stats.moves.append(time.perf_counter() - started)
            self.played += 1
            ended = self.players[0].state["status"] == "FINISHED"
            self.stats.timeline.append(
                (time.monotonic(), move["type"], self.number, self.played, ended)
            )

    async def pace(self) -> None:
        """Wait for this table's next slot: ``--rate`` moves per second over all tables."""
        now = time.monotonic()
        if not self.next_move:  # the tables start spread over one interval
            self.next_move = now + self.rng.random() * self.interval
        await asyncio.sleep(max(0.0, self.next_move - now))
        self.next_move = max(self.next_move + self.interval, time.monotonic())

    async def caught_up(self, player: Player, seq: int) -> None:
        """Wait for the STATE of ``seq``; a client that waits too long asks (SYNC), as the
        protocol says a client does when it notices a gap."""
        while player.state["seq"] < seq:
            player.seen.clear()
            try:
                await asyncio.wait_for(player.seen.wait(), RESYNC_AFTER)
            except TimeoutError:
                self.stats.resyncs += 1
                await player.socket.send(json.dumps({"type": "SYNC"}))


@dataclass
class Stats:
    moves: list[float] = field(default_factory=list)  # round trips of applied moves
    # each one's end, type, table, number in its game, whether it ended the game
    timeline: list[tuple[float, str, int, int, bool]] = field(default_factory=list)
    echoes: list[float] = field(default_factory=list)
    acks: list[float] = field(default_factory=list)  # send → the mover's ACK (or ERROR)
    refused: dict[str, int] = field(default_factory=dict)
    games: int = 0
    ends: list[float] = field(default_factory=list)  # when each game ended (monotonic)
    server_cpu: list[tuple[float, float]] = field(default_factory=list)  # (when, CPU seconds)
    resyncs: int = 0  # STATEs a client asked for after waiting RESYNC_AFTER
    frames: int = 0  # messages the players received
    cpu: dict[str, float] = field(default_factory=dict)  # seconds per part of the system
    flood: tuple[int, float, dict[str, float]] | None = None  # echoes, seconds, cpu per part
    lobby: Lobby | None = None  # with --watchers


@dataclass
class Lobby:
    """What the lobby watchers saw during the run (``--watchers``)."""

    watchers: int
    counting: bool = False  # only while the clock runs
    created: int = 0  # public games created meanwhile
    left: int = 0  # and left again (each a change of the public list)
    received: int = 0  # every message the watchers got, the clock running or not
    games_messages: int = 0  # GAMES the watchers got
    players_messages: int = 0  # CONNECTED_PLAYERS the watchers got
    latencies: list[float] = field(default_factory=list)  # commit → GAMES, seconds
    first: dict[int, float] = field(default_factory=dict)  # game id → its first socket's
    commits: dict[int, float] = field(default_factory=dict)  # game id → created (epoch s)

    def counted(self) -> dict:
        """What the watchers saw, for ``take`` in another process (as JSON)."""
        names = ("received", "games_messages", "players_messages", "latencies")
        return {name: getattr(self, name) for name in names} | {"first": list(self.first.items())}

    def take(self, counted: dict) -> None:
        """What another process's watchers saw (``counted``)."""
        for name, value in counted.items():
            setattr(self, name, dict(value) if name == "first" else value)

    def created_at(self, game: dict) -> float:
        """When ``game`` (a lobby entry) was created, parsed once for all sockets."""
        known = self.commits.get(game["id"])
        if known is None:
            known = datetime.datetime.fromisoformat(game["created"]).timestamp()
            self.commits[game["id"]] = known
        return known


async def echo(site: Site, token: str, until: float, stats: Stats) -> None:
    socket = await site.socket("/ws/lobby/", token)
    try:
        count = 0
        while time.monotonic() < until:
            count += 1
            started = time.perf_counter()
            await socket.send(json.dumps({"type": "PING", "ref": f"e{count}"}))
            while True:
                message = orjson.loads(await socket.recv())
                if message.get("type") == "PONG" and message.get("ref") == f"e{count}":
                    break
            stats.echoes.append(time.perf_counter() - started)
            await asyncio.sleep(ECHO_PAUSE)
    finally:
        await socket.close()


async def flood(site: Site, token: str, until: float, counter: list[int]) -> None:
    """PING after PONG with no pause: the most round trips one socket gets through."""
    socket = await site.socket("/ws/lobby/", token)
    try:
        while time.monotonic() < until:
            await socket.send('{"type": "PING"}')
            while orjson.loads(await socket.recv()).get("type") != "PONG":
                pass
            counter[0] += 1
    finally:
        await socket.close()


class Watcher(asyncio.Protocol):
    """A lobby socket that watches as the lobby page does: the games and who is online.

    Read without a websocket library (a server's frames are plain, unmasked and whole): the
    watchers' process reads thousands of sockets one after another after every change, and
    the last one's latency is the time it takes to read all the others. With the library
    the watchers' process spent three times the CPU, and the lobby update p99 was 460-780
    ms instead of 110-260 ms."""

    def __init__(self, lobby: Lobby, request: bytes):
        self.lobby, self.request = lobby, request
        self.listed: set[int] = set()
        self.open = asyncio.get_running_loop().create_future()  # the handshake's answer
        self.ready = asyncio.Event()  # the first GAMES is in
        self.players = asyncio.Event()  # a CONNECTED_PLAYERS is in
        self.buffer = bytearray()
        self.upgraded = False
        self.transport: asyncio.Transport | None = None

    @classmethod
    async def connect(cls, site: Site, token: str, lobby: Lobby) -> Watcher:
        host, port = site.base_url.removeprefix("http://").split(":")
        key = base64.b64encode(secrets.token_bytes(16)).decode()
        request = (
            f"GET /ws/lobby/ HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Authorization: Token {token}\r\n\r\n"
        ).encode()
        loop = asyncio.get_running_loop()
        _, watcher = await loop.create_connection(lambda: cls(lobby, request), host, int(port))
        await asyncio.wait_for(watcher.open, CONNECT_TIMEOUT)
        return watcher

    def connection_made(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.open.done():
            self.open.set_exception(ConnectionError("the lobby socket closed"))

    def send(self, text: str) -> None:
        self.write_frame(0x1, text.encode())

    def write_frame(self, opcode: int, payload: bytes) -> None:
        """A whole client frame (masked, as a client's must be) of a short payload."""
        assert len(payload) < 126
        mask = secrets.token_bytes(4)
        masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
        self.transport.write(bytes((0x80 | opcode, 0x80 | len(payload))) + mask + masked)

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        if not self.upgraded:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buffer.startswith(b"HTTP/1.1 101"):
                self.open.set_exception(ConnectionError(bytes(buffer[:end]).decode()))
                self.transport.close()
                return
            del buffer[: end + 4]
            self.upgraded = True
            self.open.set_result(None)
        while len(buffer) >= 2:
            length, at = buffer[1] & 0x7F, 2
            if length == 126:
                length, at = int.from_bytes(buffer[2:4]), 4
            elif length == 127:
                length, at = int.from_bytes(buffer[2:10]), 10
            if len(buffer) < at + length:
                return
            opcode, payload = buffer[0] & 0x0F, bytes(buffer[at : at + length])
            del buffer[: at + length]
            if opcode == 1:
                self.message(payload)
            elif opcode == 0x9:  # ping: the pong carries its payload back
                self.write_frame(0xA, payload)

    def message(self, raw: bytes) -> None:
        arrived = time.time()
        lobby = self.lobby
        lobby.received += 1
        message = orjson.loads(raw)
        kind = message.get("type")
        if kind == "CONNECTED_PLAYERS":
            lobby.players_messages += lobby.counting
            self.players.set()
        elif kind in ("GAMES", "GAMES_CHANGED"):
            lobby.games_messages += lobby.counting
            for game in message["games"]:
                if game["id"] not in self.listed:
                    self.listed.add(game["id"])
                    if lobby.counting:
                        latency = arrived - lobby.created_at(game)
                        lobby.latencies.append(latency)
                        lobby.first.setdefault(game["id"], latency)
            self.ready.set()

    async def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def watch_lobby(site: Site, lobby: Lobby, out=sys.stdout) -> list[Watcher]:
    """``lobby.watchers`` lobby sockets, each with the games and players asked for.

    The players are asked for once every socket is open: each guest's arrival pushes the
    list to every socket that follows it, and thousands of sockets following while the
    others open make their handshakes wait past daphne's limit."""
    guests = []
    needed = -(-lobby.watchers // WATCHERS_PER_GUEST)
    for start in range(0, needed, 50):
        guests += await asyncio.gather(*(site.guest() for _ in range(min(50, needed - start))))

    async def watcher(number: int) -> Watcher:
        watching = await Watcher.connect(site, guests[number // WATCHERS_PER_GUEST].token, lobby)
        watching.send('{"type": "REQUEST_GAMES", "changes": true}')
        await watching.ready.wait()
        return watching

    async def follow(watching: Watcher) -> None:
        watching.send('{"type": "REQUEST_ALL_CONNECTED_PLAYERS"}')
        await watching.players.wait()

    watchers = []
    for start in range(0, lobby.watchers, 25):
        batch = range(start, min(lobby.watchers, start + 25))
        watchers += await asyncio.gather(*(watcher(number) for number in batch))
        if start % 500 == 0 and start:
            print(f"  {start} open", file=out, flush=True)
    for start in range(0, lobby.watchers, 100):
        await asyncio.gather(*(follow(watching) for watching in watchers[start : start + 100]))
    return watchers


class WatcherProcess:
    """The watchers in a process of their own, as a site's watchers are on machines of their
    own: thousands of lobby sockets reading each change would otherwise hold up this
    process's players, and the move round trips would show it. It is told on its standard
    input to open them (``--watch-lobby``), to count from now (``count``) and to stop
    (``stop``: it answers with what its watchers saw, as JSON, and closes them)."""

    def __init__(self, process: asyncio.subprocess.Process):
        self.process = process

    @classmethod
    async def start(cls, site: Site, watchers: int) -> WatcherProcess:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--watch-lobby",
            str(watchers),
            "--url",
            site.base_url,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=2**26,  # its last line has every latency
        )
        watching = cls(process)
        await watching.answer()  # "ready": every socket open, and the lobby settled
        return watching

    async def answer(self) -> str:
        line = await self.process.stdout.readline()
        if not line:
            raise RuntimeError("the watchers' process ended")
        return line.decode()

    async def tell(self, command: str) -> str:
        self.process.stdin.write(command.encode() + b"\n")
        await self.process.stdin.drain()
        return await self.answer()

    async def close(self) -> None:
        if self.process.returncode is None:
            self.process.stdin.close()  # the process closes its sockets and ends
            try:
                await asyncio.wait_for(self.process.wait(), 30)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()


async def watch_only(url: str, count: int) -> None:
    """``--watch-lobby N``: the process of ``WatcherProcess``."""
    site = Site(url)
    lobby = Lobby(count)
    watchers = await watch_lobby(site, lobby, sys.stderr)
    await settled(lobby)
    loop = asyncio.get_running_loop()
    print("ready", flush=True)
    try:
        while command := (await loop.run_in_executor(None, sys.stdin.readline)).strip():
            if command == "count":
                lobby.counting = True
                print("counting", flush=True)
            elif command == "stop":
                lobby.counting = False
                print(orjson.dumps(lobby.counted()).decode(), flush=True)
    finally:
        await asyncio.gather(*(watcher.close() for watcher in watchers))


async def settled(lobby: Lobby, quiet: float = 1.0, most: float = 60.0) -> None:
    """Wait until the watchers have had no message for ``quiet`` seconds: the pushes of who
    is online that the players' and watchers' sockets opening caused are in."""
    deadline = time.monotonic() + most
    seen = -1
    while lobby.received != seen and time.monotonic() < deadline:
        seen = lobby.received
        await asyncio.sleep(quiet)


async def change_lobby(site: Site, guests: list[Player], per_second: float, until: float, lobby):
    """Public games created and left again, ``per_second`` of each, by the guests in turn."""
    number = 0
    next_change = time.monotonic()
    while time.monotonic() < until:
        await asyncio.sleep(max(0.0, next_change - time.monotonic()))
        next_change += 1 / per_second
        guest = guests[number % len(guests)]
        number += 1
        body = {"name": "lobby", "max_players": 2}
        game = await site.call("POST", "/api/games/", body, guest.token)
        lobby.created += 1
        await site.call("POST", f"/api/games/{game['id']}/leave/", {}, guest.token)
        lobby.left += 1


# ---------------------------------------------------------------------------- phases


async def load(site: Site, args, server_pids: list[int]) -> tuple[Stats, float]:
    rng = random.Random(args.seed)
    print(f"setting up {args.games} games of {args.players} players ...", flush=True)
    people = []
    for start in range(0, args.games * args.players, 50):
        batch = min(50, args.games * args.players - start)
        people += await asyncio.gather(*(site.guest() for _ in range(batch)))
    stats = Stats()
    tables = [
        Table(
            site,
            people[i * args.players : (i + 1) * args.players],
            random.Random(rng.random()),
            stats,
            args.games / args.rate if args.rate else 0.0,
            args.kind,
        )
        for i in range(args.games)
    ]
    for number, table in enumerate(tables):
        table.number = number
    prober = await site.guest()
    # Every game is set up and every socket open before the clock starts: the figures are
    # for play, not for a crowd of players arriving at once.
    games = []
    for start in range(0, len(tables), 25):
        games += await asyncio.gather(*(table.seat() for table in tables[start : start + 25]))
    if args.turnover:
        games = await spread_ends(tables, games, args, rng)
    watching: WatcherProcess | None = None
    if args.watchers is not None:
        stats.lobby = Lobby(args.watchers)
        print(f"opening {args.watchers} lobby sockets ...", flush=True)
        watching = await WatcherProcess.start(site, args.watchers)
        changers = await asyncio.gather(*(site.guest() for _ in range(LOBBY_GUESTS)))
    print(f"{len(games)} games running; measuring for {args.seconds:.0f} s ...", flush=True)
    # What the setup left is kept out of this process's collections: a full one (30 ms) in
    # the first second would count as the servers' time.
    gc.collect()
    gc.freeze()
    meter = CpuMeter(server_pids, [watching.process.pid] if watching else [])
    stats.frames = 0  # the STATEs and PRESENCEs of the setup are not the moves'
    began = time.monotonic()
    until = began + args.seconds
    if watching is not None:
        await watching.tell("count")
    tasks = [
        asyncio.create_task(table.run(game_id, until))
        for table, game_id in zip(tables, games, strict=True)
    ]
    tasks += [
        asyncio.create_task(echo(site, prober.token, until, stats)) for _ in range(ECHO_SOCKETS)
    ]
    if args.turnover and server_pids:
        tasks.append(asyncio.create_task(sample_cpu(server_pids, until, stats)))
    if stats.lobby is not None and args.lobby_changes > 0:
        changing = change_lobby(site, changers, args.lobby_changes, until, stats.lobby)
        tasks.append(asyncio.create_task(changing))
    try:
        await asyncio.gather(*tasks)
        seconds = time.monotonic() - began
        stats.cpu = meter.spent()
        if watching is not None:
            await asyncio.sleep(1)  # the last change's updates are still counted
            stats.lobby.take(orjson.loads(await watching.tell("stop")))
    finally:
        if watching is not None:
            await watching.close()
        await asyncio.gather(*(table.leave() for table in tables))
    if args.samples:
        with open(args.samples, "w") as out:
            for (ended, kind, table, number, last), round_trip in zip(
                stats.timeline, stats.moves, strict=True
            ):
                out.write(
                    f"{ended - began:.3f} {round_trip * 1000:.2f} {kind} {table} {number}"
                    f" {int(last)}\n"
                )
    if args.flood_sockets:
        stats.flood = await echo_flood(site, args, server_pids)
    return stats, seconds


def game_length(kind: str, players: int, rng: random.Random, games: int = 20) -> float:
    """The mean number of moves of ``games`` games of ``kind`` played here with its engine as
    the tables play (a random one of the players who have a move other than ``VOTE_END``
    makes a random one of those moves)."""
    engine = registry.get(kind).engine
    options = engine.check_options({})
    seats = list(range(1, players + 1))
    total = 0
    for _ in range(games):
        state = engine.new_game(rng.randrange(2**62), seats, options)
        while not engine.is_over(state):
            legal = {
                seat: [m for m in engine.legal_moves(state, seat) if m["type"] != "VOTE_END"]
                for seat in seats
            }
            movers = [seat for seat in seats if legal[seat]]
            if not movers:
                break
            mover = rng.choice(movers)
            engine.apply(state, mover, rng.choice(legal[mover]))
            total += 1
    return total / games


async def spread_ends(tables: list[Table], games: list[int], args, rng) -> list[int]:
    """``--turnover``: every game is advanced by a random number of moves, up to a game's
    mean length, as if the games had begun at random times: their ends spread over the run
    as on a site, instead of all coming within a few seconds of each other."""
    length = game_length(args.kind, args.players, random.Random(rng.random()))
    moves = [int(rng.random() * length) for _ in tables]
    print(f"advancing the games by {sum(moves)} moves (a game: {length:.0f}) ...", flush=True)
    advancing = zip(tables, games, moves, strict=True)
    return list(await asyncio.gather(*(table.advance(game, n) for table, game, n in advancing)))


async def echo_flood(site: Site, args, server_pids: list[int]) -> tuple[int, float, dict]:
    """Echo round trips flat out on ``--flood-sockets`` sockets: the message path's ceiling."""
    owner = await site.guest()
    print(f"echo flood: {args.flood_sockets} sockets for {args.flood_seconds:.0f} s ...")
    counter = [0]
    meter = CpuMeter(server_pids)
    began = time.monotonic()
    until = began + args.flood_seconds
    await asyncio.gather(
        *(flood(site, owner.token, until, counter) for _ in range(args.flood_sockets))
    )
    return counter[0], time.monotonic() - began, meter.spent()


async def idle_sockets(site: Site, count: int, pid: int) -> float:
    """KiB of server memory per idle lobby socket (RSS growth of process ``pid``)."""
    owner = await site.guest()
    await asyncio.sleep(1)
    before = rss_kib(pid)
    sockets = []
    for start in range(0, count, 100):
        sockets += await asyncio.gather(
            *(site.socket("/ws/lobby/", owner.token) for _ in range(min(100, count - start)))
        )
    await asyncio.sleep(2)
    after = rss_kib(pid)
    await asyncio.gather(*(socket.close() for socket in sockets))
    return (after - before) / count


def report(stats: Stats, seconds: float, args, per_socket: float | None) -> None:
    moves = stats.moves
    echoes = stats.echoes
    offered = f"; {args.rate:.0f} moves/s offered" if args.rate else ""
    print(
        f"servers: {args.processes} processes; {args.games} games of {args.kind}"
        f" with {args.players} player{'s' if args.players > 1 else ''}" + offered
    )
    print(f"moves applied: {len(moves)} in {seconds:.1f} s = {len(moves) / seconds:.0f} moves/s")
    print(
        f"games finished: {stats.games}; refused: {stats.refused or 'none'};"
        f" resyncs: {stats.resyncs}"
    )
    rows = (("move round trip", moves), ("of it the ACK", stats.acks), ("echo round trip", echoes))
    for name, values in rows:
        print(
            f"{name}: p50 {percentile(values, 0.5) * 1000:.1f} ms, "
            f"p95 {percentile(values, 0.95) * 1000:.1f} ms, "
            f"p99 {percentile(values, 0.99) * 1000:.1f} ms ({len(values)} samples)"
        )
    if moves and echoes:
        print(
            f"ratio move/echo: p50 {percentile(moves, 0.5) / percentile(echoes, 0.5):.1f}x, "
            f"p99 {percentile(moves, 0.99) / percentile(echoes, 0.99):.1f}x"
        )
        print(f"mean move round trip {statistics.mean(moves) * 1000:.1f} ms")
    print(f"open game sockets during the run: {args.games * args.players + ECHO_SOCKETS}")
    if moves:
        print(f"messages to the players per move: {stats.frames / len(moves):.1f}")
        report_cpu("CPU per move", stats.cpu, len(moves), seconds)
    if stats.lobby is not None:
        report_lobby(stats.lobby)
    if len(stats.server_cpu) > 10:
        report_turnover(stats)
    if stats.flood:
        echoes, flood_seconds, cpu = stats.flood
        print(
            f"echo flood: {echoes / flood_seconds:.0f} round trips/s"
            f" on {args.flood_sockets} sockets"
        )
        report_cpu("CPU per echo", cpu, echoes, flood_seconds)
    if per_socket is not None:
        print(f"idle sockets: {args.sockets} on one process, {per_socket:.1f} KiB each")


async def sample_cpu(server_pids: list[int], until: float, stats: Stats) -> None:
    """The servers' CPU seconds so far, once a second (``--turnover``)."""
    while True:
        pids = with_descendants(server_pids)
        stats.server_cpu.append((time.monotonic(), sum(cpu_seconds(pid) for pid in pids)))
        if time.monotonic() >= until:
            return
        await asyncio.sleep(max(0.0, min(1.0, until - time.monotonic())))


def report_turnover(stats: Stats) -> None:
    """The servers' CPU per game turnover (its end, the next game's set-up, its players'
    sockets) under the run's load: least squares over the run's seconds of each second's
    CPU against the moves that ended in it, the games that ended in it and those that ended
    in the second before (a turnover may reach into the next second)."""
    rows, ys = [], []
    moves = sorted(moved[0] for moved in stats.timeline)
    for (start, before), (end, after) in itertools.pairwise(stats.server_cpu):
        width = end - start
        previous = sum(start - width < t <= start for t in stats.ends)
        ended = sum(start < t <= end for t in stats.ends)
        moved = bisect.bisect_right(moves, end) - bisect.bisect_right(moves, start)
        rows.append([1.0, moved, ended, previous])
        ys.append(after - before)
    fit = least_squares(rows, ys)
    if fit is None:
        print("server CPU per game turnover: not enough games ended in the run to tell")
        return
    (_, per_move, now, later), covariance = fit
    spread = math.sqrt(max(0.0, covariance[2][2] + covariance[3][3] + 2 * covariance[2][3]))
    print(
        f"server CPU per game turnover (end, set-up, sockets; fitted over {len(rows)} seconds"
        f" with {len(stats.ends)} ends): {(now + later) * 1000:.1f} ± {spread * 1000:.1f} ms;"
        f" per move {per_move * 1000:.2f} ms"
    )


def least_squares(rows: list[list[float]], ys: list[float]):
    """Ordinary least squares: the coefficients and their covariance, or None if the rows do
    not tell them apart."""
    size = len(rows[0])
    if len(rows) <= size:
        return None
    normal = [[sum(r[i] * r[j] for r in rows) for j in range(size)] for i in range(size)]
    inverse = invert(normal)
    if inverse is None:
        return None
    moments = [sum(r[i] * y for r, y in zip(rows, ys, strict=True)) for i in range(size)]
    coefficients = [sum(inverse[i][j] * moments[j] for j in range(size)) for i in range(size)]
    residuals = [
        y - sum(c * x for c, x in zip(coefficients, r, strict=True))
        for r, y in zip(rows, ys, strict=True)
    ]
    variance = sum(e * e for e in residuals) / (len(rows) - size)
    return coefficients, [[variance * value for value in row] for row in inverse]


def invert(matrix: list[list[float]]) -> list[list[float]] | None:
    """The inverse by Gauss-Jordan elimination, or None if the matrix is singular."""
    size = len(matrix)
    work = [[*row, *(float(i == j) for j in range(size))] for i, row in enumerate(matrix)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(work[r][column]))
        if abs(work[pivot][column]) < 1e-12:
            return None
        work[column], work[pivot] = work[pivot], work[column]
        lead = work[column][column]
        work[column] = [value / lead for value in work[column]]
        for other in range(size):
            if other != column:
                factor, row = work[other][column], work[column]
                work[other] = [a - factor * b for a, b in zip(work[other], row, strict=True)]
    return [row[size:] for row in work]


def report_lobby(lobby: Lobby) -> None:
    changes = lobby.created + lobby.left
    print(
        f"lobby: {lobby.watchers} watching sockets; {changes} public changes"
        f" ({lobby.created} games created, {lobby.left} left)"
    )
    if lobby.watchers:
        per_change = lobby.games_messages / lobby.watchers / changes if changes else 0.0
        print(
            f"lobby updates: {lobby.games_messages} GAMES or GAMES_CHANGED"
            f" ({per_change:.2f} per socket and change),"
            f" {lobby.players_messages} CONNECTED_PLAYERS"
        )
        values = lobby.latencies
        print(
            f"lobby update latency (commit -> the socket): p50 {percentile(values, 0.5) * 1000:.1f}"
            f" ms, p99 {percentile(values, 0.99) * 1000:.1f} ms ({len(values)} samples)"
        )
        # The servers' part: the watchers' process reads one socket after another, and the
        # last of thousands waits for it to have read all the others.
        first = list(lobby.first.values())
        print(
            f"  to the first socket read: p50 {percentile(first, 0.5) * 1000:.1f} ms,"
            f" p99 {percentile(first, 0.99) * 1000:.1f} ms ({len(first)} games)"
        )


def report_cpu(title: str, cpu: dict[str, float], count: int, seconds: float) -> None:
    """CPU milliseconds per unit of work, per part; and the busy share of the machine."""
    if not count:
        return
    parts = ", ".join(f"{part} {spent / count * 1000:.2f}" for part, spent in cpu.items())
    total = sum(cpu.values())
    cores = os.cpu_count() or 1
    print(
        f"{title} (ms): {parts}; all {total / count * 1000:.2f}"
        f" -> {cores} cores allow at most {cores * count / total:.0f}/s"
        f" (busy {total / seconds / cores:.0%} of {cores} cores)"
    )


async def main_async(args) -> None:
    if args.url:
        site = Site(args.url)
        stats, seconds = await load(site, args, [])
        report(stats, seconds, args, None)
        return
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(server_database())
        logs = stack.enter_context(tempfile.TemporaryDirectory(prefix="ratumrad-load-"))
        env = {**SERVER_ENV, "DATABASE_URL": url}
        sock = cluster.listen("127.0.0.1", 0)
        log = stack.enter_context(
            open(os.environ.get("LOADTEST_LOG") or Path(logs) / "servers.log", "wb")
        )
        processes = [cluster.start(sock, env, log) for _ in range(args.processes)]
        stack.callback(cluster.stop, processes)
        site = Site(f"http://127.0.0.1:{sock.getsockname()[1]}")
        await wait_ready(site)
        stats, seconds = await load(site, args, [process.pid for process in processes])
        per_socket = None
        if args.sockets:
            # A process of its own, so that all the idle sockets land on it.
            lone = cluster.listen("127.0.0.1", 0)
            single = cluster.start(lone, env, log)
            stack.callback(cluster.stop, [single])
            lone_site = Site(f"http://127.0.0.1:{lone.getsockname()[1]}")
            await wait_ready(lone_site)
            per_socket = await idle_sockets(lone_site, args.sockets, single.pid)
        report(stats, seconds, args, per_socket)


async def one_server(stack: contextlib.ExitStack, env: dict[str, str], name: str):
    """One server process (``ratumrad_site.cluster``) on a throwaway database, its log in a
    temporary directory, stopped when ``stack`` closes; once it answers: its site, its
    process and the database's URL. For the benchmarks of one server."""
    url = stack.enter_context(server_database())
    logs = stack.enter_context(tempfile.TemporaryDirectory(prefix=f"ratumrad-{name}-"))
    log = stack.enter_context((Path(logs) / "server.log").open("wb"))
    sock = cluster.listen("127.0.0.1", 0)
    server = cluster.start(sock, {**env, "DATABASE_URL": url}, log)
    stack.callback(cluster.stop, [server])
    site = Site(f"http://127.0.0.1:{sock.getsockname()[1]}")
    await wait_ready(site)
    return site, server, url


async def wait_ready(site: Site) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            status, _ = await asyncio.to_thread(http_json, "GET", site.base_url + "/healthz")
            if status == 200:
                return
        await asyncio.sleep(0.3)
    raise RuntimeError("the servers did not come up")


def raise_file_limit() -> None:
    """Thousands of sockets need more file descriptors than the usual soft limit of 1024."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main() -> None:
    raise_file_limit()  # the servers started here inherit it
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--kind", choices=list(registry.KINDS), default=registry.DEFAULT_KIND)
    parser.add_argument(
        "--players", type=int, help="per game, in the kind's range (default: ratumrad 2, rage 4)"
    )
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument(
        "--rate",
        type=float,
        default=0,
        help="moves per second offered over all games (0: each game moves as soon as it can)",
    )
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--sockets", type=int, default=2000, help="idle sockets (0: skip)")
    parser.add_argument(
        "--flood-sockets", type=int, default=50, help="sockets of the echo flood (0: skip)"
    )
    parser.add_argument("--flood-seconds", type=float, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--watchers",
        type=int,
        help="lobby sockets open during the run while public games are created and left"
        " (0: the changes without watchers; default: neither)",
    )
    parser.add_argument(
        "--lobby-changes",
        type=float,
        default=1.0,
        help="with --watchers: public games created (and left again) per second",
    )
    parser.add_argument(
        "--turnover",
        action="store_true",
        help="advance each game by a random share of a game before the clock starts, so that"
        " the games end at random times during the run",
    )
    parser.add_argument("--url", help="drive a running server instead of starting one")
    parser.add_argument("--watch-lobby", type=int, help=argparse.SUPPRESS)  # WatcherProcess
    parser.add_argument(
        "--samples",
        help="write each applied move to this file: when it ended (seconds on the clock),"
        " its round trip in ms, its type",
    )
    args = parser.parse_args()
    if args.watch_lobby is not None:
        uvloop.run(watch_only(args.url, args.watch_lobby))
        return
    kind = registry.get(args.kind)
    least, most = kind.min_players, kind.max_players
    if args.players is None:
        args.players = DEFAULT_PLAYERS.get(args.kind, least)
    if not least <= args.players <= most:
        parser.error(f"--players: {args.kind} seats {least} to {most}")
    if not args.url and args.processes > 1 and not os.environ.get("REDIS_URL"):
        parser.error("several processes need REDIS_URL (and DATABASE_URL for PostgreSQL)")
    uvloop.run(main_async(args))


if __name__ == "__main__":
    main()
