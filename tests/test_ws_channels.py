"""The sockets' base and Channels: ``ProtocolConsumer`` runs its own read loop and dispatch
instead of Channels' (``games.protocol``). These tests pin what that rests on, so that an
upgrade of Channels that changes it fails here first."""

import asyncio
import hashlib
import inspect
import sys
import threading

import pytest
from asgiref.testing import ApplicationCommunicator
from channels import db as channels_db
from channels.consumer import AsyncConsumer
from channels.exceptions import StopConsumer
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from channels.utils import await_many_dispatch
from django.db.backends import utils as db_utils

from games.moves import paths
from games.protocol import ProtocolConsumer
from games.ratumrad import engine
from tests import ws_helpers
from tests.ws_helpers import (
    Socket,
    close_all,
    current_person,
    engine_state_of,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    running_game,
)

pytestmark = pytest.mark.django_db(transaction=True)

# What ProtocolConsumer.__call__ and .handle were derived from (channels 4.3.2). When one of
# these changes, read the new code, carry what changed over to games/protocol.py (or drop the
# replacement if Channels no longer costs a task per message and a thread hop per handler),
# and then write the new digest here.
DERIVED_FROM = {
    "AsyncConsumer.__call__": (
        AsyncConsumer.__call__,
        "e52238720872dbc3f854519bc971aa7eb41553e63c8729081549ce42465ee419",
    ),
    "AsyncConsumer.dispatch": (
        AsyncConsumer.dispatch,
        "39f34e7d4fb0f6552de4ade665b943fe78137379702af6b58c79a14c49a75520",
    ),
    "channels.utils.await_many_dispatch": (
        await_many_dispatch,
        "30ef889498560da3d72e6a695d2c17cf4a22b4948f2af6d53394343f4aace51d",
    ),
}


@pytest.mark.parametrize("name", DERIVED_FROM)
def test_the_channels_code_the_socket_base_replaces_is_the_code_it_was_derived_from(name):
    function, digest = DERIVED_FROM[name]
    source = inspect.getsource(function)
    assert hashlib.sha256(source.encode()).hexdigest() == digest, (
        f"Channels changed {name}; compare games/protocol.py with it:\n{source}"
    )


def test_channels_dispatch_still_closes_old_connections_before_every_handler():
    # What ProtocolConsumer.handle leaves out, and test_every_query_of_a_socket_... makes good.
    assert "await aclose_old_connections()" in inspect.getsource(AsyncConsumer.dispatch)
    assert "await aclose_old_connections()" not in inspect.getsource(ProtocolConsumer)


# ---------------------------------------------------------------------- the read loop


class Recorder(ProtocolConsumer):
    """Handlers that take a few turns of the event loop each and note when they run."""

    def __init__(self, notes: list):
        super().__init__()
        self.notes = notes

    async def note_x(self, message: dict) -> None:
        self.notes.append(("start", message["n"]))
        for _ in range(3):
            await asyncio.sleep(0)
        self.notes.append(("end", message["n"]))

    async def websocket_stop(self, message: dict) -> None:
        # A message of the other source arrives while the consumer stops: it is not handled.
        await self.channel_layer.send(self.channel_name, {"type": "note.x", "n": 999})
        for _ in range(20):
            await asyncio.sleep(0)
        raise StopConsumer

    async def websocket_crash(self, message: dict) -> None:
        raise RuntimeError("the handler broke")


async def run_recorder(last: dict) -> tuple[list, asyncio.Task]:
    """A Recorder fed five socket messages and five layer messages, then ``last``."""
    notes: list = []
    frames: asyncio.Queue = asyncio.Queue()
    consumer = Recorder(notes)
    sent: list = []

    async def send(message):
        sent.append(message)

    task = asyncio.create_task(consumer({"type": "websocket"}, frames.get, send))
    while not hasattr(consumer, "channel_name"):
        await asyncio.sleep(0)
    layer = get_channel_layer()
    for n in range(5):
        await frames.put({"type": "note.x", "n": n})
        await layer.send(consumer.channel_name, {"type": "note.x", "n": 100 + n})
    while len([note for note in notes if note[0] == "end"]) < 10:
        await asyncio.sleep(0)
    await frames.put(last)
    return notes, task


async def test_a_socket_handles_its_messages_one_at_a_time_each_source_in_order():
    notes, task = await run_recorder({"type": "websocket.stop"})
    assert await asyncio.wait_for(task, 10) is None  # StopConsumer ends it cleanly
    assert notes[0::2] == [("start", n) for _, n in notes[1::2]]  # no two at once
    handled = [n for kind, n in notes if kind == "end"]
    assert [n for n in handled if n < 100] == [0, 1, 2, 3, 4]
    assert [n for n in handled if n >= 100] == [100, 101, 102, 103, 104]


async def test_nothing_is_handled_after_the_message_that_stopped_the_socket():
    notes, task = await run_recorder({"type": "websocket.stop"})
    await asyncio.wait_for(task, 10)
    assert ("start", 999) not in notes
    assert len(notes) == 20


async def test_a_crash_handling_a_socket_event_ends_the_socket_with_the_error_as_in_channels():
    notes, task = await run_recorder({"type": "websocket.crash"})
    with pytest.raises(RuntimeError, match="the handler broke"):
        await asyncio.wait_for(task, 10)
    assert len(notes) == 20  # the ten before it, each started and ended


# ---------------------------------------------------------------------- old connections


class CleaningCommunicator(WebsocketCommunicator):
    """Channels' test client without its patch: it turns Channels' clean-up of old
    connections into a no-op while it sends or waits for a frame."""

    async def send_input(self, message):
        return await ApplicationCommunicator.send_input(self, message)

    async def receive_output(self, timeout=1):
        return await ApplicationCommunicator.receive_output(self, timeout)


@pytest.fixture
def clean_ups(monkeypatch):
    """Per thread, in order: each ``close_old_connections`` of Channels' database calls and of
    the move's worker threads ("close"), and each query on a Django connection ("query")."""
    monkeypatch.setattr(ws_helpers, "WebsocketCommunicator", CleaningCommunicator)
    events: dict[int, list[str]] = {}

    def note(what: str) -> None:
        events.setdefault(threading.get_ident(), []).append(what)

    def counted(close):
        def close_old_connections(**kwargs):
            # Around a call (Channels' DatabaseSyncToAsync, the move's worker threads), or
            # once on its own (Channels' aclose_old_connections, as a socket closes).
            caller = sys._getframe(1).f_code.co_name
            note("close" if caller in ("thread_handler", "_with_connection") else "close once")
            close(**kwargs)

        return close_old_connections

    monkeypatch.setattr(
        channels_db, "close_old_connections", counted(channels_db.close_old_connections)
    )
    monkeypatch.setattr(paths, "close_old_connections", counted(paths.close_old_connections))
    for name in ("execute", "executemany"):
        run = getattr(db_utils.CursorWrapper, name)

        def noted(self, *args, _run=run, **kwargs):
            note("query")
            return _run(self, *args, **kwargs)

        monkeypatch.setattr(db_utils.CursorWrapper, name, noted)
    return events


def unguarded(events: dict[int, list[str]]) -> list[str]:
    """Queries not between a clean-up before and one after them in their thread: the clean-ups
    come in pairs around each call, so a query needs an odd number of them before it."""
    found = []
    for thread, notes in events.items():
        closes = 0
        for index, what in enumerate(notes):
            if what == "close":
                closes += 1
            elif what == "query" and closes % 2 == 0:
                found.append(f"thread {thread}: query {index} after {closes} clean-ups")
        if closes % 2:
            found.append(f"thread {thread}: a call still open")
    return found


async def test_every_query_of_a_socket_runs_between_two_clean_ups_of_old_connections(
    people, clean_ups
):
    """What Channels' ``aclose_old_connections`` before every handler is for (a connection
    that broke or outlived CONN_MAX_AGE is not used) holds without it: every query of the
    game and lobby sockets, from opening to closing, runs in a call that cleans up before and
    after it."""
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    other = next(person for person in people[:2] if person != mover)
    clean_ups.clear()
    sockets = [await Socket.game(game_id, mover), await Socket.game(game_id, other)]
    lobby = await Socket.lobby(people[2])
    playing = sockets[0]
    await playing.send({"type": "SYNC"})
    await playing.until("STATE")
    state = await engine_state_of(game_id)
    move = engine.legal_moves(state, mover.pk)[0]
    await playing.send({**move, "ref": "m1"})
    await playing.until("ACK", ref="m1")
    await playing.send({"type": "CHAT", "text": "hallo"})
    await playing.until("CHAT")
    await playing.send({"type": "REQUEST_HISTORY"})
    await playing.until("HISTORY")
    await lobby.send({"type": "REQUEST_GAMES"})
    await lobby.until("GAMES")
    await lobby.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    await lobby.until("CONNECTED_PLAYERS")
    await close_all(*sockets, lobby)
    queries = sum(notes.count("query") for notes in clean_ups.values())
    assert queries > 20  # the recorder saw the sockets' work
    print({t: "".join("c" if e == "close" else "q" for e in n) for t, n in clean_ups.items()})
    assert unguarded(clean_ups) == []


def test_a_query_outside_a_cleaned_up_call_is_found():
    assert unguarded({1: ["close", "query", "close", "query"]}) == [
        "thread 1: query 3 after 2 clean-ups"
    ]
    assert unguarded({1: ["close", "query", "close", "close once", "query"]}) == [
        "thread 1: query 4 after 2 clean-ups"
    ]
    assert unguarded({1: ["close", "query", "query", "close"], 2: ["close", "query"]}) == [
        "thread 2: a call still open"
    ]
