"""The site as it really runs: daphne in a subprocess, clients over real TCP sockets.

Guests log in over HTTP (``POST /api/auth/guest/``) and play over websockets the way a bot
does: ``Authorization: Token <key>`` and no ``Origin``. The server has a database of its own
(``tests.real_server``), not pytest-django's test database, and runs with the test process's
``REDIS_URL``: on PostgreSQL + Redis these tests cross process boundaries for real.

Moves are random legal ones, from the ``legal`` list of the mover's own latest STATE. The
server deals from its own random seed, so each run plays different games; a failing test
shows the end of its servers' logs.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import secrets
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass

import psycopg
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from games.moves import on_loop
from games.ratumrad import engine
from tests.real_server import PrivateRedis, Server, server_database
from tests.test_ws_whole_games import check_no_leak

TIMEOUT = 10  # seconds for any one message
TEST_TIMEOUT = 50  # seconds for a whole test (they take a few)
PLAYING = ("RUNNING", "FINAL_ROUND")
MAX_GAME_MOVES = 600  # random two-player games end after 80 to 120 moves


@pytest.fixture(scope="module")
def database_url():
    """One migrated server database for this module; each test brings its own guests."""
    with server_database() as url:
        yield url


@pytest.fixture
def server_log():
    """Servers register here; pytest shows the end of their logs when a test fails."""
    servers: list[Server] = []
    yield servers
    for server in servers:
        print(f"--- daphne on port {server.port} ---\n{server.log()[-4000:]}")


@contextlib.contextmanager
def running(database_url: str, tmp_path, server_log: list[Server]):
    server = Server(database_url, tmp_path)
    server_log.append(server)
    with server:
        yield server


# ---------------------------------------------------------------------------- clients


@dataclass(frozen=True)
class Guest:
    id: int
    name: str
    token: str


async def guest(server: Server, name: str) -> Guest:
    name = f"{name}-{secrets.token_hex(3)}"  # names are unique; other runs may share the db
    status, body = await asyncio.to_thread(server.post, "/api/auth/guest/", {"name": name})
    assert status == 201, body
    assert body["user"]["name"] == name
    return Guest(body["user"]["id"], name, body["token"])


async def started_game(server: Server, players: list[Guest], name: str) -> int:
    """A game of ``players`` (the first creates and starts it): the preparation phase."""
    creator = players[0]
    body = {"name": name, "max_players": len(players)}
    status, game = await asyncio.to_thread(server.post, "/api/games/", body, creator.token)
    assert status == 201, game
    for player in players[1:]:
        path = f"/api/games/{game['id']}/join/"
        status, joined = await asyncio.to_thread(server.post, path, {}, player.token)
        assert status == 200, joined
    path = f"/api/games/{game['id']}/start/"
    status, started = await asyncio.to_thread(server.post, path, {}, creator.token)
    assert status == 200 and started["status"] == "PREPARATION", started
    return game["id"]


class GameSocket:
    """One real websocket on ``/ws/games/<id>/``; ``received`` keeps every message in order."""

    def __init__(self, connection: ClientConnection, viewer: int):
        self.connection = connection
        self.viewer = viewer
        self.received: list[dict] = []

    @classmethod
    async def open(cls, server: Server, player: Guest, game_id: int) -> GameSocket:
        """Connect like a bot (token, no Origin) and read up to the first STATE."""
        connection = await connect(
            server.ws_url(f"/ws/games/{game_id}/"),
            additional_headers={"Authorization": f"Token {player.token}"},
            open_timeout=TIMEOUT,
            close_timeout=2,
            max_size=2**22,
            proxy=None,  # straight to 127.0.0.1, whatever proxy the environment names
        )
        socket = cls(connection, player.id)
        await socket.until("STATE")
        return socket

    async def send(self, message: dict) -> None:
        await self.connection.send(json.dumps(message))

    async def recv(self, timeout: float = TIMEOUT) -> dict:
        """The next message but ``MY_TURNS`` (the nav's count: kept in ``received`` only)."""
        while True:
            async with asyncio.timeout(timeout):
                raw = await self.connection.recv()
            message = json.loads(raw)
            self.received.append(message)
            if message.get("type") != "MY_TURNS":
                return message

    async def until(self, kind: str, **fields) -> list[dict]:
        """Read up to and including the next ``kind`` whose fields match."""
        seen = []
        while True:
            message = await self.recv()
            seen.append(message)
            if message["type"] == kind and all(message.get(k) == v for k, v in fields.items()):
                return seen

    async def answer(self, ref: str) -> dict:
        """Read up to the ACK or ERROR that answers ``ref``."""
        while True:
            message = await self.recv()
            if message["type"] in ("ACK", "ERROR") and message.get("ref") == ref:
                return message

    def latest(self) -> dict:
        return next(m for m in reversed(self.received) if m["type"] == "STATE")["state"]

    async def state_at(self, seq: int) -> dict:
        """Read on until the update to ``seq`` is in: its EVENTs and a STATE of ``seq``.

        A STATE of ``seq`` may come before its EVENTs: a presence change (another socket of
        the game opening or closing) is answered with a fresh STATE read from the database.
        """
        while not (
            self.latest()["seq"] == seq
            and any(m["type"] == "EVENT" and m["seq"] == seq for m in self.received)
        ):
            message = await self.recv()
            assert message.get("seq", seq) <= seq, (seq, message)
        return self.latest()

    async def quiet(self, seconds: float) -> bool:
        try:
            await self.recv(seconds)
        except TimeoutError:
            return True
        return False

    async def close(self) -> None:
        with contextlib.suppress(ConnectionClosed, OSError, TimeoutError):
            await self.connection.close()


# ---------------------------------------------------------------------------- a table


def without_presence(state: dict) -> dict:
    """A STATE's ``state`` without the ``connected`` flags (presence is not game state)."""
    state = json.loads(json.dumps(state))
    for row in state["players"]:
        row.pop("connected", None)
    return state


def own_secrets(state: dict) -> dict:
    you = state["you"]
    return {
        "hand": you["hand"],
        "destinations": {card["id"] for card in you["destinations"]},
        "pending": {card["id"] for card in you["pending_destinations"]},
    }


class Table:
    """Players at one game, one socket each. Every move goes out with a ``ref`` and the
    ``expect_seq`` of the table, and every socket is read up to the STATE it led to."""

    refs = itertools.count()

    def __init__(self, game_id: int, players: list[Guest], rng: random.Random, check_leaks=False):
        self.game_id = game_id
        self.players = {player.id: player for player in players}
        self.rng = rng
        self.check_leaks = check_leaks
        self.sockets: dict[int, GameSocket] = {}
        self.seq = 0
        self.acks = 0  # moves applied through this table
        self.secrets: dict[int, dict] = {}  # seq -> each player's own hand and cards then
        self.checked: dict[int, int] = {}  # messages leak-checked per socket

    async def connect(self, server: Server, elsewhere: dict[int, Server] | None = None) -> None:
        """(Re)open one socket per player, on ``server`` or the one ``elsewhere`` names for
        them; all at the same seq."""
        for player in self.players.values():
            host = (elsewhere or {}).get(player.id, server)
            self.sockets[player.id] = await GameSocket.open(host, player, self.game_id)
            self.checked[player.id] = 0
        seqs = {socket.latest()["seq"] for socket in self.sockets.values()}
        assert len(seqs) == 1, seqs
        self.seq = seqs.pop()
        self.note_secrets()

    async def leave(self, player: int) -> None:
        await self.sockets.pop(player).close()

    async def close(self) -> None:
        await asyncio.gather(*(socket.close() for socket in self.sockets.values()))

    def latest(self, player: int | None = None) -> dict:
        socket = self.sockets[player] if player is not None else next(iter(self.sockets.values()))
        return socket.latest()

    def mover(self) -> int | None:
        """Who moves the game on now: a player still choosing short cards, or the current one."""
        state = self.latest()
        if state["status"] == "PREPARATION":
            waiting = [row["id"] for row in state["players"] if not row["prepared"]]
            return self.rng.choice(waiting)
        if state["status"] in PLAYING:
            return state["current_player"]
        return None

    def random_move(self, player: int) -> dict:
        legal = [m for m in self.latest(player)["legal"] if m["type"] != "VOTE_END"]
        assert legal, self.latest(player)
        return self.rng.choice(legal)

    async def send(self, player: int, move: dict) -> dict:
        """Apply ``move``: exactly one ACK with the next seq; returns the mover's new state."""
        ref = f"m{next(self.refs)}"
        socket = self.sockets[player]
        while True:
            await socket.send({**move, "ref": ref, "expect_seq": self.seq})
            answer = await socket.answer(ref)
            if answer.get("code") != "rate_limited":
                break
            await asyncio.sleep(0.2)  # a polite bot backs off (20 moves per second and socket)
        assert answer == {"type": "ACK", "ref": ref, "seq": self.seq + 1}, (answer, move)
        self.seq += 1
        self.acks += 1
        for each in self.sockets.values():
            await each.state_at(self.seq)
        self.note_secrets()
        return self.latest(player)

    async def step(self) -> bool:
        """One random legal move; False once the game is over."""
        player = self.mover()
        if player is None:
            return False
        await self.send(player, self.random_move(player))
        return True

    async def play(self, moves: int) -> None:
        for _ in range(moves):
            assert await self.step(), "the game ended early"

    async def play_to_end(self) -> None:
        for _ in range(MAX_GAME_MOVES):
            if not await self.step():
                return
        raise AssertionError(f"game {self.game_id} did not end in {MAX_GAME_MOVES} moves")

    async def vote_end(self) -> None:
        """R8.2: everyone votes to end the game."""
        for player in self.players:
            await self.send(player, {"type": "VOTE_END", "end": True})
        assert self.latest()["status"] == "FINISHED"

    async def reach(self, turn: str, move: dict, who: int | None = None) -> int:
        """Play on until ``who`` (anyone) may start a turn with ``move`` and it leaves the
        turn at ``turn``; returns that player."""
        for _ in range(80):
            state = self.latest()
            player = state["current_player"]
            if (
                state["status"] in PLAYING
                and state["turn"] is None
                and who in (None, player)
                and move in self.latest(player)["legal"]
            ):
                if (await self.send(player, move))["turn"] == turn:
                    return player
            else:
                assert await self.step(), "the game ended early"
        raise AssertionError(f"game {self.game_id} never got to {turn}")

    def note_secrets(self) -> None:
        """What each seat holds at this seq (from its own STATE); then check every message
        received so far for anyone else's hand or destination cards (R9)."""
        if not self.check_leaks:
            return
        self.secrets[self.seq] = {
            player: own_secrets(socket.latest()) for player, socket in self.sockets.items()
        }
        for viewer, socket in self.sockets.items():
            for message in socket.received[self.checked[viewer] :]:
                check_no_leak(message, viewer, self.secrets[message.get("seq", self.seq)])
            self.checked[viewer] = len(socket.received)

    async def check_log(self, server: Server) -> dict:
        """The log replays (R2.5) to the results every player sees, and has every move."""
        token = next(iter(self.players.values())).token
        path = f"/api/games/{self.game_id}/log/"
        status, log = await asyncio.to_thread(server.get, path, token)
        assert status == 200, log
        assert set(log["players"]) == set(self.players)
        moves = [(row["player"], row["move"]) for row in log["moves"]]
        replayed = engine.replay(log["seed"], log["players"], moves)
        assert replayed.results and log["results"] == replayed.results
        assert replayed.seq == self.seq
        for player in self.sockets:
            state = self.latest(player)
            assert state["status"] == "FINISHED" and state["legal"] == []
            # The log's rows are the view's without the site's additions: names, ratings.
            shown = [
                {k: v for k, v in row.items() if k not in ("name", "rating_change")}
                for row in state["results"]
            ]
            assert shown == replayed.results
        assert [row["seq"] for row in log["moves"]] == list(
            range(self.seq - len(moves) + 1, self.seq + 1)
        )
        assert len(moves) == self.acks, "a move was lost or applied twice"
        return log


async def close_tables(tables) -> None:
    await asyncio.gather(*(table.close() for table in tables))


# ---------------------------------------------------------------------------- tests


async def test_a_restarted_server_resumes_every_game_exactly(database_url, tmp_path, server_log):
    """Three games, one mid-draw (one card taken, the drawer gone), one mid destination
    choice (the chooser gone), one half prepared; SIGKILL; a new server on the same database:
    everyone's STATE is as it was, and the games play on to ends the logs replay."""
    rng = random.Random(secrets.randbits(64))
    kinds = ("mid-draw", "mid-destinations", "preparation")
    tables: dict[str, Table] = {}
    async with asyncio.timeout(TEST_TIMEOUT):
        with running(database_url, tmp_path, server_log) as first:
            try:
                lea, noah = await guest(first, "Lea"), await guest(first, "Noah")
                for kind in kinds:
                    game_id = await started_game(first, [lea, noah], kind)
                    tables[kind] = Table(game_id, [lea, noah], rng)
                    await tables[kind].connect(first)

                draw = tables["mid-draw"]
                await draw.play(8)
                drawer = await draw.reach("second_card", {"type": "TAKE_WHEEL", "source": "deck"})
                assert draw.latest()["current_player"] == drawer

                choose = tables["mid-destinations"]
                await choose.play(8)
                other = lea.id if drawer == noah.id else noah.id
                chooser = await choose.reach(
                    "choose_destinations", {"type": "DRAW_DESTINATION_CARDS"}, who=other
                )
                assert choose.latest(chooser)["you"]["pending_destinations"]

                prepare = tables["preparation"]
                await prepare.send(lea.id, prepare.random_move(lea.id))
                assert prepare.latest()["status"] == "PREPARATION"

                recorded = {
                    kind: {player: table.latest(player) for player in table.sockets}
                    for kind, table in tables.items()
                }
                await draw.leave(drawer)
                await choose.leave(chooser)
                first.kill()
                assert first.process.returncode == -9
            finally:
                await close_tables(tables.values())

        with running(database_url, tmp_path, server_log) as second:
            try:
                for kind, table in tables.items():
                    await table.connect(second)
                    for player, state in recorded[kind].items():
                        assert without_presence(table.latest(player)) == without_presence(state), (
                            kind,
                            player,
                        )
                assert draw.latest()["turn"] == "second_card"
                assert draw.latest()["current_player"] == drawer
                assert choose.latest()["turn"] == "choose_destinations"

                await draw.play_to_end()
                await choose.play(10)
                await choose.vote_end()
                await prepare.play(10)
                await prepare.vote_end()
                for table in tables.values():
                    await table.check_log(second)
            finally:
                await close_tables(tables.values())


RACE_SOCKETS = 20  # of each player
RACE_COPIES = 50  # sent on each of the mover's sockets: the most one socket may send a second
RACE_ROUNDS = 1


async def answers(socket: GameSocket, refs: set[str]) -> list[dict]:
    """Read on until the ACK or ERROR of every one of ``refs`` is in."""
    found = []
    while len(found) < len(refs):
        message = await socket.recv()
        if message["type"] in ("ACK", "ERROR") and message.get("ref") in refs:
            found.append(message)
    return found


async def test_the_same_move_sent_1000_times_at_once_on_20_real_sockets_is_applied_once(
    database_url, tmp_path, server_log
):
    """Each round the mover sends one move, with the same ``expect_seq``, 50 times on each
    of their 20 sockets at once: one ACK and 999 ``stale``, one move in the log."""
    rng = random.Random(secrets.randbits(64))
    async with asyncio.timeout(TEST_TIMEOUT * 2):
        with running(database_url, tmp_path, server_log) as server:
            lea, noah = await guest(server, "Lea"), await guest(server, "Noah")
            game_id = await started_game(server, [lea, noah], "race")
            table = Table(game_id, [lea, noah], rng)
            sockets: dict[int, list[GameSocket]] = {}
            try:
                for player in (lea, noah):
                    sockets[player.id] = [
                        await GameSocket.open(server, player, game_id) for _ in range(RACE_SOCKETS)
                    ]
                    table.sockets[player.id] = sockets[player.id][0]
                every = [*sockets[lea.id], *sockets[noah.id]]
                applied = []
                for round_ in range(RACE_ROUNDS):
                    await asyncio.sleep(1)  # the moves of a round fill each socket's limit
                    mover = table.mover()
                    move = table.random_move(mover)
                    frames = {
                        socket: {f"race{round_}-{n}-{copy}" for copy in range(RACE_COPIES)}
                        for n, socket in enumerate(sockets[mover])
                    }
                    frame = {**move, "expect_seq": table.seq}
                    await asyncio.gather(
                        *(
                            socket.send({**frame, "ref": ref})
                            for socket, refs in frames.items()
                            for ref in refs
                        )
                    )
                    replies = [
                        reply
                        for found in await asyncio.gather(
                            *(answers(socket, refs) for socket, refs in frames.items())
                        )
                        for reply in found
                    ]
                    assert len(replies) == RACE_SOCKETS * RACE_COPIES == 1000
                    acks = [reply for reply in replies if reply["type"] == "ACK"]
                    assert len(acks) == 1 and acks[0]["seq"] == table.seq + 1, acks
                    codes = {reply["code"] for reply in replies if reply["type"] != "ACK"}
                    assert codes == {"stale"}, codes
                    table.seq += 1
                    table.acks += 1
                    applied.append({"seq": table.seq, "player": mover, "move": move})
                    for socket in every:
                        await socket.state_at(table.seq)
                # Nothing more was applied than the ACKs said.
                await asyncio.gather(*(socket.quiet(0.2) for socket in every))
                assert {socket.latest()["seq"] for socket in every} == {table.seq}
                await table.vote_end()
                log = await table.check_log(server)
                assert log["moves"][:RACE_ROUNDS] == applied
            finally:
                await asyncio.gather(*(socket.close() for socket in sockets.get(lea.id, [])))
                await asyncio.gather(*(socket.close() for socket in sockets.get(noah.id, [])))


async def test_a_whole_game_between_two_real_clients(database_url, tmp_path, server_log):
    """A two-player game to its natural end; no message shows a player anyone else's hand
    or destination cards (R9); the results are the replay of the log (R2.5)."""
    rng = random.Random(secrets.randbits(64))
    async with asyncio.timeout(TEST_TIMEOUT):
        with running(database_url, tmp_path, server_log) as server:
            table = None
            try:
                lea, noah = await guest(server, "Lea"), await guest(server, "Noah")
                game_id = await started_game(server, [lea, noah], "whole game")
                table = Table(game_id, [lea, noah], rng, check_leaks=True)
                await table.connect(server)
                await table.play_to_end()
                assert table.latest()["end_reason"] in ("final_round", "all_passed")
                for socket in table.sockets.values():
                    assert await socket.quiet(0.1)
                table.note_secrets()
                await table.check_log(server)
                names = {row["name"] for row in table.latest()["results"]}
                assert names == {lea.name, noah.name}
                if database_url.startswith("postgres"):
                    # The moves went from the server's event loop, through its own pool.
                    assert await asyncio.to_thread(moves_pool_connections, database_url) >= 1
            finally:
                if table is not None:
                    await table.close()


def moves_pool_connections(database_url: str) -> int:
    with psycopg.connect(database_url) as conn:
        [(count,)] = conn.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s",
            [on_loop.APPLICATION_NAME],
        ).fetchall()
    return count


def run_sql(database_url: str, sql: str, params: tuple) -> None:
    """One statement on the servers' database, behind their back."""
    if database_url.startswith("sqlite:///"):
        with contextlib.closing(sqlite3.connect(database_url[len("sqlite:///") :])) as db, db:
            db.execute(sql.replace("%s", "?"), params)
    else:
        with psycopg.connect(database_url, autocommit=True) as db:
            db.execute(sql, params)


async def lobby_socket(server: Server, player: Guest) -> ClientConnection:
    return await connect(
        server.ws_url("/ws/lobby/"),
        additional_headers={"Authorization": f"Token {player.token}"},
        open_timeout=TIMEOUT,
        close_timeout=2,
        max_size=2**22,
        proxy=None,
    )


async def next_of(connection: ClientConnection, kind: str) -> dict:
    while True:
        async with asyncio.timeout(TIMEOUT):
            message = json.loads(await connection.recv())
        if message["type"] == kind:
            return message


async def test_lobby_sockets_read_the_frames_written_once_for_all_of_them(
    database_url, tmp_path, server_log
):
    """The lobby's hub writes one frame's bytes to every socket (``games.fanout``): real
    clients read each change's entry, who is online and a chat line, short and long."""
    async with asyncio.timeout(TEST_TIMEOUT):
        with running(database_url, tmp_path, server_log) as server:
            watchers = [await guest(server, "Zuschauer") for _ in range(3)]
            sockets = [await lobby_socket(server, watcher) for watcher in watchers]
            try:
                for socket in sockets:
                    await socket.send('{"type": "REQUEST_GAMES", "changes": true}')
                    await next_of(socket, "GAMES")
                    await socket.send('{"type": "REQUEST_ALL_CONNECTED_PLAYERS"}')
                    await next_of(socket, "CONNECTED_PLAYERS")
                creator = await guest(server, "Gastgeberin")
                name = "Rheinufer " + "ä" * 40  # an entry over 125 bytes: the longer header
                body = {"name": name, "max_players": 2}
                status, game = await asyncio.to_thread(
                    server.post, "/api/games/", body, creator.token
                )
                assert status == 201, game
                for socket in sockets:
                    changed = await next_of(socket, "GAMES_CHANGED")
                    assert [(g["id"], g["name"]) for g in changed["games"]] == [(game["id"], name)]
                speaker = await lobby_socket(server, creator)
                for socket in sockets:  # the creator came online
                    players = (await next_of(socket, "CONNECTED_PLAYERS"))["players"]
                    assert creator.id in [player["id"] for player in players]
                for text in ("Hoi", "x" * 500):
                    await speaker.send(json.dumps({"type": "CHAT", "text": text}))
                    for socket in sockets:
                        assert (await next_of(socket, "CHAT"))["text"] == text
                await speaker.close()
            finally:
                for socket in sockets:
                    await socket.close()


async def test_a_socket_the_server_fails_to_open_is_closed_with_code_1011(
    database_url, tmp_path, server_log
):
    """docs/protocol.md: accepted, then ERROR server_error, then closed with 1011 (Internal
    Error), as the client sees it over a real connection. Here the game is of a kind this
    server does not know (as after going back to an older version)."""
    async with asyncio.timeout(TEST_TIMEOUT):
        with running(database_url, tmp_path, server_log) as server:
            lea = await guest(server, "Lea")
            body = {"name": "unknown kind", "max_players": 2}
            status, game = await asyncio.to_thread(server.post, "/api/games/", body, lea.token)
            assert status == 201, game
            sql = "UPDATE games_game SET kind = %s WHERE id = %s"
            await asyncio.to_thread(run_sql, server.database_url, sql, ("chess", game["id"]))
            async with connect(
                server.ws_url(f"/ws/games/{game['id']}/"),
                additional_headers={"Authorization": f"Token {lea.token}"},
                open_timeout=TIMEOUT,
                proxy=None,
            ) as connection:
                first = json.loads(await asyncio.wait_for(connection.recv(), TIMEOUT))
                assert first["type"] == "ERROR" and first["code"] == "server_error", first
                with pytest.raises(ConnectionClosed):
                    await asyncio.wait_for(connection.recv(), TIMEOUT)
                assert connection.close_code == 1011
            # Closed as the consumer asked, not by daphne after the consumer crashed on
            # autobahn's refusal of the code (which skipped its clean-up).
            assert "invalid close code" not in server.log()


async def test_a_player_who_walks_away_is_replaced_by_the_servers_own_sweeper(
    database_url, tmp_path, server_log
):
    """The turn timer runs in the server process itself: nobody has to send anything for
    the computer to take over a seat whose time ran out and play the game to its end."""
    env = {"TURN_SWEEP_SECONDS": "0.5", "BOT_DELAY_SECONDS": "0"}
    async with asyncio.timeout(TEST_TIMEOUT):
        server = Server(database_url, tmp_path, env=env)
        server_log.append(server)
        with server:
            lea = await guest(server, "Lea")
            body = {"name": "walked away", "max_players": 2, "bots": 1, "turn_seconds": 10}
            status, game = await asyncio.to_thread(server.post, "/api/games/", body, lea.token)
            assert status == 201, game
            path = f"/api/games/{game['id']}/start/"
            status, _ = await asyncio.to_thread(server.post, path, {}, lea.token)
            assert status == 200
            socket = await GameSocket.open(server, lea, game["id"])
            try:
                deadline = socket.latest()["turn_deadline"]
                assert deadline is not None and socket.latest()["turn_seconds"] == 10
                # Lea never chooses her cards: 10 s later the sweeper hands her seat over.
                first = await socket.recv(timeout=30)  # the deadline is 10 s away
                assert first["type"] == "EVENT", first
                assert first["event"]["kind"] == "autopilot_on"
                assert first["event"]["player"] == lea.id
                # The computer plays both seats to the end, faster than a socket's channel
                # keeps messages (in-memory layer: 100): ask for the state as a client would.
                while socket.latest()["status"] != "FINISHED":
                    if await socket.quiet(0.5):
                        await socket.send({"type": "SYNC"})
                me = next(r for r in socket.latest()["players"] if r["id"] == lea.id)
                assert me["autopilot"] is True
                assert {row["player"] for row in socket.latest()["results"]} == {
                    lea.id,
                    *(r["id"] for r in socket.latest()["players"] if r["is_bot"]),
                }
            finally:
                await socket.close()


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL", "").strip(),
    reason="several server processes share their channel layer only through Redis",
)
async def test_players_on_two_server_processes_see_every_move_in_order(
    database_url, tmp_path, server_log
):
    """Lea's socket is on one process, Noah's on another, a computer player moves in
    between (driven by whichever process committed last, after a delay): both see every
    change, in order, and the log replays exactly."""
    rng = random.Random(secrets.randbits(64))
    env = {"BOT_DELAY_SECONDS": "0.02"}
    async with asyncio.timeout(TEST_TIMEOUT * 2):
        first = Server(database_url, tmp_path, env=env)
        second = Server(database_url, tmp_path, env=env)
        server_log.extend([first, second])
        with first, second:
            lea, noah = await guest(first, "Lea"), await guest(second, "Noah")
            body = {"name": "two processes", "max_players": 3, "bots": 1, "turn_seconds": 0}
            status, game = await asyncio.to_thread(first.post, "/api/games/", body, lea.token)
            assert status == 201, game
            path = f"/api/games/{game['id']}/join/"
            status, _ = await asyncio.to_thread(second.post, path, {}, noah.token)
            assert status == 200
            path = f"/api/games/{game['id']}/start/"
            status, _ = await asyncio.to_thread(first.post, path, {}, lea.token)
            assert status == 200
            sockets = {
                lea.id: await GameSocket.open(first, lea, game["id"]),
                noah.id: await GameSocket.open(second, noah, game["id"]),
            }
            try:
                for _ in range(MAX_GAME_MOVES):
                    # The person to move, once the computer player is done: every socket
                    # has caught up with the database.
                    await asyncio.sleep(0.05)
                    status, view = await asyncio.to_thread(
                        first.get, f"/api/games/{game['id']}/", lea.token
                    )
                    if view["status"] == "FINISHED":
                        break
                    mover = None
                    for person in (lea, noah):
                        own = await own_legal(first, person, view)
                        if any(m["type"] != "VOTE_END" for m in own):
                            mover = person
                            break
                    if mover is None:
                        continue  # the computer player's turn
                    socket = sockets[mover.id]
                    while socket.latest()["seq"] < view["seq"]:
                        await socket.recv()
                    legal = [m for m in socket.latest()["legal"] if m["type"] != "VOTE_END"]
                    if not legal or socket.latest()["seq"] != view["seq"]:
                        continue
                    ref = f"r{view['seq']}"
                    move = rng.choice(legal)
                    await socket.send({**move, "ref": ref, "expect_seq": view["seq"]})
                    answer = await socket.answer(ref)
                    assert answer["type"] == "ACK" or answer["code"] == "stale", answer
                else:
                    raise AssertionError("the game did not end")
                final = view["seq"]
                for socket in sockets.values():
                    while socket.latest()["seq"] < final:
                        await socket.recv()
                    seqs = [m["seq"] for m in socket.received if m["type"] == "EVENT"]
                    assert seqs == sorted(seqs)
                    # every change reached both processes' sockets: no seq is missing
                    assert set(range(1, final + 1)) <= {
                        m["seq"] for m in socket.received if m["type"] in ("EVENT", "STATE")
                    }
                    assert socket.latest()["status"] == "FINISHED"
                status, log = await asyncio.to_thread(
                    first.get, f"/api/games/{game['id']}/log/", lea.token
                )
                moves = [(row["player"], row["move"]) for row in log["moves"]]
                replayed = engine.replay(log["seed"], log["players"], moves)
                assert replayed.seq == final and replayed.results == log["results"]
            finally:
                await asyncio.gather(*(socket.close() for socket in sockets.values()))


async def own_legal(server: Server, player: Guest, view: dict) -> list[dict]:
    """The moves ``player`` may make now (their own view, fetched like any client would)."""
    if view["status"] == "PREPARATION":
        row = next(r for r in view["players"] if r["id"] == player.id)
        if row["prepared"]:
            return []
    elif view.get("current_player") != player.id:
        return []
    status, own = await asyncio.to_thread(
        server.get, f"/api/games/{view['game_id']}/", player.token
    )
    assert status == 200, own
    return own["legal"] if own["seq"] == view["seq"] else []


async def test_a_computer_player_waits_its_delay_and_its_move_arrives_at_once(
    database_url, tmp_path, server_log
):
    """BOT_DELAY on a real server, with whichever channel layer this run uses: the bot moves
    no sooner than the delay after the person, and the person's socket hears of it at once."""
    delay = 0.5
    async with asyncio.timeout(TEST_TIMEOUT):
        server = Server(database_url, tmp_path, env={"BOT_DELAY_SECONDS": str(delay)})
        server_log.append(server)
        with server:
            lea = await guest(server, "Lea")
            body = {"name": "delayed", "max_players": 2, "bots": 1, "turn_seconds": 0}
            status, game = await asyncio.to_thread(server.post, "/api/games/", body, lea.token)
            assert status == 201, game
            status, _ = await asyncio.to_thread(
                server.post, f"/api/games/{game['id']}/start/", {}, lea.token
            )
            assert status == 200
            socket = await GameSocket.open(server, lea, game["id"])
            try:
                for turn in range(6):  # Lea's moves, each answered by the bot
                    state = socket.latest()
                    if state["status"] == "PREPARATION":
                        bot_row = next(r for r in state["players"] if r["is_bot"])
                        if not bot_row["prepared"]:
                            await socket.until("STATE")  # the bot prepares after its delay
                            continue
                    legal = [m for m in state["legal"] if m["type"] != "VOTE_END"]
                    move = next((m for m in legal if m["type"] == "TAKE_WHEEL"), legal[0])
                    ref = f"d{turn}"
                    # Before the send: the ACK may reach this client after the delay has begun.
                    sent = time.monotonic()
                    await socket.send({**move, "ref": ref, "expect_seq": state["seq"]})
                    answer = await socket.answer(ref)
                    assert answer["type"] == "ACK", answer
                    await socket.state_at(answer["seq"])
                    if socket.latest()["current_player"] == lea.id:
                        continue  # her second card, or still her turn
                    # The bot's turn: its first move arrives after the delay, and promptly.
                    await socket.until("STATE", seq=answer["seq"] + 1)
                    waited = time.monotonic() - sent
                    assert delay * 0.9 <= waited < delay + 3, waited
                    while socket.latest()["current_player"] != lea.id:
                        await socket.recv()
            finally:
                await socket.close()


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL", "").strip(),
    reason="the processes share their rate limits through Redis",
)
async def test_two_processes_count_the_same_rate_limit(database_url, tmp_path, server_log):
    env = {"GUEST_RATE": "3/min", "REDIS_PREFIX": f"ratumrad-limit-{secrets.token_hex(4)}"}
    async with asyncio.timeout(TEST_TIMEOUT):
        first = Server(database_url, tmp_path, env=env)
        second = Server(database_url, tmp_path, env=env)
        server_log.extend([first, second])
        with first, second:
            answers = []
            for server in (first, first, second, second):
                body = {"name": f"limit-{secrets.token_hex(3)}"}
                status, _ = await asyncio.to_thread(server.post, "/api/auth/guest/", body)
                answers.append(status)
            assert answers == [201, 201, 201, 429]


# ---------------------------------------------------------------------------- Redis restarts


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
async def test_a_redis_restart_loses_no_move_and_clients_resync_by_seq(
    database_url, tmp_path, server_log
):
    """Two processes share a Redis that is killed mid-game and started again, empty. A
    move made meanwhile stands and is acknowledged; its mover gets its STATE all the same
    (from its own process, without Redis), and the other player's socket, on the other
    process, catches up by itself within a beat, feed entries included. Once Redis is back
    the processes hear each other again on their own, no move is lost or applied twice, and
    the game plays on to its end."""
    rng = random.Random(secrets.randbits(64))
    broker = PrivateRedis(tmp_path)
    broker.start()
    try:
        async with asyncio.timeout(TEST_TIMEOUT * 2):
            env = {"REDIS_URL": broker.url, "PRESENCE_BEAT_SECONDS": "0.5"}
            first = Server(database_url, tmp_path, env=env)
            second = Server(database_url, tmp_path, env=env)
            server_log.extend([first, second])
            with first, second:
                lea, noah = await guest(first, "Lea"), await guest(second, "Noah")
                game_id = await started_game(first, [lea, noah], "Redis restart")
                table = Table(game_id, [lea, noah], rng, check_leaks=True)
                await table.connect(first, elsewhere={noah.id: second})
                await table.play(6)  # across the two processes, through Redis

                broker.kill()
                mover = table.mover()
                other = next(player for player in table.players if player != mover)
                ref = "during the outage"
                await table.sockets[mover].send(
                    {**table.random_move(mover), "ref": ref, "expect_seq": table.seq}
                )
                answer = await table.sockets[mover].answer(ref)
                assert answer == {"type": "ACK", "ref": ref, "seq": table.seq + 1}, answer
                table.seq += 1
                table.acks += 1
                # At once: a socket's catch-up on its beat waits MESSAGE_GRACE (2 s).
                async with asyncio.timeout(1):
                    await table.sockets[mover].until("STATE", seq=table.seq)
                # The other socket's own server notices the change it was not told about.
                await table.sockets[other].state_at(table.seq)
                table.note_secrets()

                broker.start()
                await table.play_to_end()
                log = await table.check_log(first)
                assert len(log["moves"]) == table.seq
                for socket in table.sockets.values():
                    seqs = [m["seq"] for m in socket.received if m["type"] == "EVENT"]
                    assert seqs == sorted(seqs), "feed entries out of order"
                    assert set(seqs) == set(range(1, table.seq + 1)), "a feed entry is missing"
    finally:
        broker.kill()


def printed(program: str) -> str:
    """What a Python program, run in a fresh interpreter, prints (stripped)."""
    found = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    return found.stdout.strip()


def test_the_server_runs_daphne_on_uvloops_event_loop():
    # daphne makes its loop when daphne.server is imported; ratumrad_site.serve (which the
    # cluster, these tests' servers and docs/deploy.md use) sets uvloop's policy first.
    found = printed(
        "import ratumrad_site.serve, daphne.server; print(type(daphne.server.twisted_loop))"
    )
    assert found == "<class 'uvloop.Loop'>"


def test_the_server_s_connections_send_at_once():
    # ratumrad_site.serve installs ratumrad_site.eager_write before daphne starts.
    program = (
        "import ratumrad_site.serve as serve\n"
        "from daphne.cli import CommandLineInterface\n"
        "CommandLineInterface.entrypoint = staticmethod(lambda: None)\n"
        "serve.main()\n"
        "from twisted.internet import tcp\n"
        "from ratumrad_site import eager_write\n"
        "print(tcp.Connection.write is eager_write._write_now)\n"
    )
    assert printed(program) == "True"


def test_the_server_formats_autobahn_s_debug_lines_only_when_they_are_logged():
    # ratumrad_site.serve installs ratumrad_site.ws_debug before daphne starts.
    program = (
        "import ratumrad_site.serve as serve\n"
        "from daphne.cli import CommandLineInterface\n"
        "CommandLineInterface.entrypoint = staticmethod(lambda: None)\n"
        "serve.main()\n"
        "from autobahn.websocket import protocol\n"
        "from ratumrad_site import ws_debug\n"
        "print(protocol.pformat is ws_debug.Deferred)\n"
    )
    assert printed(program) == "True"


def test_the_redis_client_parses_with_hiredis():
    # The channel layer's client reads every broadcast; hiredis parses it in C.
    from redis.utils import HIREDIS_AVAILABLE

    assert HIREDIS_AVAILABLE


def test_the_server_loads_every_game_and_freezes_its_heap_before_it_serves():
    # ratumrad_site.serve's server sets what it loaded aside from the garbage collector
    # (gc.freeze) before daphne's own run starts serving.
    program = (
        "import gc, sys\n"
        "import ratumrad_site.serve as serve\n"
        "from daphne.server import Server\n"
        "from games import registry\n"
        "def served(self):\n"
        "    loaded = all('engine' in vars(kind) for kind in registry.KINDS.values())\n"
        "    print(gc.get_freeze_count(), loaded)\n"
        "Server.run = served\n"
        "sys.argv = ['daphne', 'ratumrad_site.asgi:application']\n"
        "serve.main()\n"
    )
    frozen, loaded = printed(program).split()
    assert int(frozen) > 50_000  # Django, daphne and the games
    assert loaded == "True"
