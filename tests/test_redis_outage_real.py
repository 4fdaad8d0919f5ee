"""A Redis outage under two real server processes: the site stays up while Redis is down,
and everything flows again within seconds once it is back.

Runs only with PostgreSQL and Redis (``DATABASE_URL``, ``REDIS_URL``), as the site runs in
production; the servers use a redis-server of the test's own, which it kills and starts
again. The heartbeat stays at its 30 s, so that what arrives within seconds of Redis's
return did not come with a beat."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import secrets
import shutil
import time
from datetime import datetime

import pytest

from games.broadcast import game_group
from tests.real_server import PrivateRedis, Server, _is_postgres, server_database
from tests.test_real_server import GameSocket, Table, guest, started_game

pytestmark = pytest.mark.skipif(
    not (
        os.environ.get("REDIS_URL", "").strip() and _is_postgres(os.environ.get("DATABASE_URL", ""))
    ),
    reason="the PostgreSQL + Redis run only",
)

TEST_TIMEOUT = 120  # seconds for the whole test; 20-40 on a busy machine
# The last move waits for the strong bot's score (T4.3), worked out in a process of the
# server's own that may still be starting on a busy machine.
ROAD300_MOVE_TIMEOUT = 40
DEPARTURE_TIMEOUT = 10  # seconds for a closed socket's departure to be told
RETURN_SECONDS = 5  # after Redis is back, lost updates and new moves arrive within this
# Lines of a server's log that show a failure the outage must not cause once Redis is back.
FAILURES_AFTER_RETURN = (
    "opening failed",
    "server_error",
    "heard only in this process",
    "reached only this process's sockets",
    "Traceback",
)


@pytest.fixture
def database_url():
    with server_database() as url:
        yield url


@pytest.fixture
def server_log():
    servers: list[Server] = []
    yield servers
    for server in servers:
        print(f"--- daphne on port {server.port} ---\n{server.log()[-6000:]}")


def logged_since(server: Server, moment: datetime) -> str:
    """The lines of the server's log from ``moment`` on (the lines of its own logging carry
    the time; those of daphne's access log go with the line before them)."""
    lines = []
    keep = False
    for line in server.log().splitlines():
        with contextlib.suppress(ValueError):
            keep = datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f") >= moment
        if keep:
            lines.append(line)
    return "\n".join(lines)


async def play_road300_to_its_end(server: Server, player) -> dict:
    """A Road to 300 game, created and played to its end over its socket (T4.3: its
    results hold the strong bot's score); returned once its socket has closed and the
    server has told the player's departure (with Redis away, to its own sockets only)."""
    body = {"kind": "road300", "name": "Solo in the outage"}
    status, game = await asyncio.to_thread(server.post, "/api/games/", body, player.token)
    assert status == 201, game
    socket = await GameSocket.open(server, player, game["id"])
    try:
        for turn in range(400):
            state = socket.latest()
            if state["status"] == "FINISHED":
                return state
            ref = f"road{turn}"
            await socket.send({**state["legal"][0], "ref": ref, "expect_seq": state["seq"]})
            answer = await socket.recv(ROAD300_MOVE_TIMEOUT)
            while answer.get("ref") != ref:
                answer = await socket.recv(ROAD300_MOVE_TIMEOUT)
            assert answer["type"] == "ACK", answer
            await socket.until("STATE", seq=answer["seq"])
        raise AssertionError("the Road to 300 game did not end")
    finally:
        await socket.close()
        # Told while Redis is away, not as it comes back: a send still on its way then may
        # fail after the return, and what follows the return is this test's question.
        told = f"{game_group(game['id'])} heard only in this process"
        deadline = time.monotonic() + DEPARTURE_TIMEOUT
        while told not in server.log():
            assert time.monotonic() < deadline, f"no departure told: {server.log()[-2000:]}"
            await asyncio.sleep(0.05)


async def test_the_site_plays_on_while_redis_is_down_and_catches_up_when_it_is_back(
    database_url, tmp_path, server_log
):
    # Not skipped in the run it belongs to: that run's Redis comes with its server program.
    assert shutil.which("redis-server"), "the outage test starts a redis-server of its own"
    rng = random.Random(secrets.randbits(64))
    broker = PrivateRedis(tmp_path)
    broker.start()
    sockets: list[GameSocket] = []
    table = None
    try:
        async with asyncio.timeout(TEST_TIMEOUT):
            env = {"REDIS_URL": broker.url, "REDIS_PREFIX": f"outage-{secrets.token_hex(4)}"}
            first = Server(database_url, tmp_path, env=env)
            second = Server(database_url, tmp_path, env=env)
            server_log.extend([first, second])
            with first, second:
                # Lea plays on the first process, Noah on the second.
                lea, noah = await guest(first, "Lea"), await guest(second, "Noah")
                game_id = await started_game(first, [lea, noah], "Redis outage")
                table = Table(game_id, [lea, noah], rng)
                await table.connect(first, elsewhere={noah.id: second})
                await table.play(4)  # across the two processes, through Redis
                servers = {lea.id: first, noah.id: second}

                broker.kill()

                # Readiness says Redis is down; liveness stays ok (a restart would not help).
                for server in (first, second):
                    status, ready = await asyncio.to_thread(server.get, "/readyz")
                    assert status == 503, ready
                    assert (ready["database"], ready["redis"]) == ("ok", "error"), ready
                    status, alive = await asyncio.to_thread(server.get, "/healthz")
                    assert status == 200 and alive["status"] == "ok", alive
                # People sign in (the rate limit counts in each process meanwhile) and open
                # new sockets.
                alice, charlie = await guest(first, "Alice"), await guest(second, "Charlie")
                watching = await GameSocket.open(second, charlie, game_id)
                sockets.append(watching)
                assert watching.latest()["seq"] == table.seq
                # Play goes on: the mover's move is acknowledged, and the sockets of the
                # mover's own process have it at once.
                mover = table.mover()
                other = next(player for player in table.players if player != mover)

                def movers_turn() -> bool:  # from the mover's own socket: the other's is behind
                    legal = table.sockets[mover].latest()["legal"]
                    return any(move["type"] != "VOTE_END" for move in legal)

                moved_during = 0
                while movers_turn() and moved_during < 3:
                    ref = f"outage{moved_during}"
                    move = table.random_move(mover)
                    await table.sockets[mover].send({**move, "ref": ref, "expect_seq": table.seq})
                    answer = await table.sockets[mover].answer(ref)
                    assert answer == {"type": "ACK", "ref": ref, "seq": table.seq + 1}, answer
                    table.seq += 1
                    table.acks += 1
                    moved_during += 1
                    await table.sockets[mover].state_at(table.seq)
                    if servers[mover] is second:
                        await watching.state_at(table.seq)
                # A Road to 300 game finishes, with its strong bot's score (T4.3).
                finished = await play_road300_to_its_end(first, alice)
                assert finished["results"][0]["bot_score"] > 0, finished["results"]

                broker.start()
                back, returned_at = time.monotonic(), datetime.now()

                # The first handshake after the return: a new socket opens and stays open.
                again = await GameSocket.open(servers[other], table.players[other], game_id)
                sockets.append(again)
                # What the other process's sockets missed arrives within seconds (not on
                # the 30 s beat), feed entries included.
                async with asyncio.timeout(RETURN_SECONDS):
                    await table.sockets[other].state_at(table.seq)
                    if servers[mover] is first:
                        await watching.state_at(table.seq)
                caught_up = [
                    m["event"]["kind"]
                    for m in table.sockets[other].received
                    if m["type"] == "EVENT" and m["seq"] > table.seq - moved_during
                ]
                assert len(caught_up) >= moved_during, caught_up
                # A move on one process right after the return reaches the other's players
                # through Redis (the first broadcast after the return), within seconds.
                async with asyncio.timeout(RETURN_SECONDS):
                    await table.step()
                    await watching.state_at(table.seq)
                    await again.state_at(table.seq)
                assert time.monotonic() - back < 2 * RETURN_SECONDS

                # Redis is ready again, and nothing failed since its return.
                for server in (first, second):
                    status, ready = await asyncio.to_thread(server.get, "/readyz")
                    assert status == 200 and ready["redis"] == "ok", ready
                    since = logged_since(server, returned_at)
                    for failure in FAILURES_AFTER_RETURN:
                        assert failure not in since, since

                # A quick restart, with nothing sent meanwhile: each process's pooled
                # connections are stale. The first handshake and the first broadcast on
                # each process go out all the same (their connection opened again).
                broker.kill()
                broker.start()
                restarted_at = datetime.now()
                for player in table.players.values():
                    sockets.append(await GameSocket.open(servers[player.id], player, game_id))
                async with asyncio.timeout(RETURN_SECONDS):
                    await table.play(2)
                for server in (first, second):
                    since = logged_since(server, restarted_at)
                    for failure in FAILURES_AFTER_RETURN:
                        assert failure not in since, since

                # No acknowledged move is lost: the stored game is exactly the moves
                # acknowledged, before, during and after the outage.
                await table.vote_end()
                log = await table.check_log(first)
                assert len(log["moves"]) == table.acks == table.seq
    finally:
        await asyncio.gather(*(socket.close() for socket in sockets))
        if table is not None:
            await table.close()
        broker.kill()
