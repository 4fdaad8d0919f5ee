"""A websocket's frames are read no faster than the site takes them (``ratumrad_site.ws_inflow``):
at its own pace and its address's, and not while a few of its frames wait to be handled.
Nothing is dropped: every frame is answered, in order."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from urllib.parse import urlsplit

import psycopg
import pytest
from websockets.asyncio.client import ClientConnection

from ratumrad_site import ws_inflow
from tests.real_server import Server, server_database
from tests.test_real_server import guest, lobby_socket

TIMEOUT = 20  # seconds for a whole test's sockets to be answered


# ---------------------------------------------------------------------------- the buckets


@pytest.fixture
def clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(ws_inflow.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(ws_inflow, "addresses", {})
    return now


def test_a_socket_has_a_second_s_worth_at_once_and_then_its_rate(clock):
    inflow = ws_inflow.Inflow(4)
    for _ in range(4):
        assert inflow.wait(0) == 0
        inflow.took()
    assert inflow.wait(0) == pytest.approx(0.25)  # the next in a quarter of a second
    clock[0] += 0.25
    assert inflow.wait(0) == 0
    inflow.took()
    clock[0] += 60  # saved up: never more than a second's worth
    for _ in range(4):
        assert inflow.wait(0) == 0
        inflow.took()
    assert inflow.wait(0) > 0


def test_a_socket_with_frames_waiting_waits_whatever_its_rate(clock):
    assert ws_inflow.Inflow(0).wait(ws_inflow.FRAMES_WAITING - 1) == 0  # 0: no rate
    assert ws_inflow.Inflow(0).wait(ws_inflow.FRAMES_WAITING) == ws_inflow.POLL_SECONDS
    assert ws_inflow.Inflow(50).wait(ws_inflow.FRAMES_WAITING) == ws_inflow.POLL_SECONDS


def test_the_sockets_of_one_address_share_its_bucket_until_the_last_closes(clock):
    first = ws_inflow.Inflow(100, "10.0.0.1", 3)
    second = ws_inflow.Inflow(100, "10.0.0.1", 3)
    elsewhere = ws_inflow.Inflow(100, "10.0.0.2", 3)
    for inflow in (first, second, first):
        assert inflow.wait(0) == 0
        inflow.took()
    # Both wait, as long as it takes the address's bucket to let one frame in per socket.
    assert first.wait(0) == second.wait(0) == pytest.approx(2 / 3)
    assert elsewhere.wait(0) == 0
    first.closed()
    assert ws_inflow.addresses["10.0.0.1"].sockets == 1
    second.closed()
    elsewhere.closed()
    assert ws_inflow.addresses == {}
    assert ws_inflow.Inflow(100, "", 3).buckets[1:] == []  # no address: its own bucket only


# ---------------------------------------------------------------------------- a real server


async def pongs(connection: ClientConnection, count: int, times: list[float]) -> list[str]:
    refs = []
    async with asyncio.timeout(TIMEOUT):
        while len(refs) < count:
            message = json.loads(await connection.recv())
            if message["type"] == "PONG":
                refs.append(message["ref"])
                times.append(time.monotonic())
    return refs


def server_rss(server: Server) -> int:
    """The server's resident memory in bytes (Linux)."""
    return server.status("VmRSS") * 1024


@pytest.fixture(scope="module")
def database_url():
    with server_database() as url:
        yield url


async def test_a_flood_is_read_at_the_socket_s_pace_and_every_frame_is_answered_in_order(
    database_url, tmp_path
):
    """300 PINGs at once, 100 a second let in: the first hundred at once, then the others,
    never more than the socket's bucket holds; another socket's PING meanwhile at once."""
    env = {"SOCKET_FRAMES_PER_SECOND": "100"}
    with Server(database_url, tmp_path, env=env) as server:
        flooder, other = await guest(server, "Flut"), await guest(server, "Ruhe")
        flood, calm = await lobby_socket(server, flooder), await lobby_socket(server, other)
        try:
            sent = time.monotonic()
            for n in range(300):
                await flood.send(json.dumps({"type": "PING", "ref": str(n)}))
            flood_times: list[float] = []
            answered = asyncio.create_task(pongs(flood, 300, flood_times))
            await asyncio.sleep(0.3)
            calm_times: list[float] = []
            await calm.send('{"type": "PING", "ref": "calm"}')
            assert await pongs(calm, 1, calm_times) == ["calm"]
            assert await answered == [str(n) for n in range(300)]
            assert calm_times[0] < flood_times[-1]  # not behind the flood
            for n, at in enumerate(flood_times, start=1):  # at most the bucket's frames
                assert n <= 100 + 100 * (at - sent) + 1, (n, at - sent)
        finally:
            await flood.close()
            await calm.close()


@contextlib.contextmanager
def users_locked(database_url: str):
    """A transaction that writes to the users' table until it ends: a chat line (which
    locks its user's row) waits for it, on PostgreSQL and on SQLite."""
    if urlsplit(database_url).scheme.startswith("postgres"):
        with psycopg.connect(database_url) as db:
            db.execute("SELECT id FROM auth_user FOR UPDATE")
            yield
            db.rollback()
    else:
        db = sqlite3.connect(urlsplit(database_url).path, isolation_level=None, timeout=20)
        try:
            db.execute("BEGIN IMMEDIATE")
            yield
            db.execute("ROLLBACK")
        finally:
            db.close()


async def test_the_frames_of_a_socket_whose_message_waits_stay_few(database_url, tmp_path):
    """While a chat line waits for the database, its socket's next frames are not read: a
    client that goes on sending fills its own buffers, not the server's memory (before:
    every frame read and queued). Once the line is in, every frame is answered in order."""
    env = {"SOCKET_FRAMES_PER_SECOND": "0"}  # no rate: only the frames waiting count
    with Server(database_url, tmp_path, env=env) as server:
        flooder = await guest(server, "Flut")
        flood = await lobby_socket(server, flooder)
        padding = "x" * 4000
        sent = 0
        try:
            before = server_rss(server)
            with users_locked(server.database_url):
                await flood.send('{"type": "CHAT", "text": "Hoi", "ref": "chat"}')
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(2):
                        while True:
                            frame = {"type": "PING", "ref": str(sent), "pad": padding}
                            await flood.send(json.dumps(frame))
                            sent += 1
                grown = server_rss(server) - before
            assert sent > 100  # the client's and the kernel's buffers took that many
            assert grown < 16 * 2**20, f"{grown / 2**20:.1f} MiB for {sent} frames"
            assert await pongs(flood, sent, []) == [str(n) for n in range(sent)]
        finally:
            flood.transport.abort()
