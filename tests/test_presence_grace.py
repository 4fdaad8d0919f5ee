"""The grace before a closed socket's departure is told (``PRESENCE_GRACE``): a person who goes
from one page to the next (a reload, a finished game to the new one, the lobby to a table) is
neither gone nor back for the game's other players and the lobby; one who does not come back is
told gone once the grace is over."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async

from games import presence
from games.models import Connection
from tests.ws_helpers import (
    Socket,
    close_all,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    started_game,
)

pytestmark = pytest.mark.django_db(transaction=True)

GRACE = 0.4


@pytest.fixture(autouse=True)
def grace(settings):
    settings.PRESENCE_GRACE = timedelta(seconds=GRACE)


def connected(state, user) -> bool:
    return next(row["connected"] for row in state["players"] if row["id"] == user.pk)


async def gone_after_grace() -> None:
    await asyncio.sleep(GRACE + 0.2)


async def at_the_table(people) -> tuple[int, Socket, Socket]:
    """A game of alice and bob, a socket of each on it; bob's arrival read by alice's."""
    game_id = await started_game(people, 2)
    a = await Socket.game(game_id, people[0])
    b = await Socket.game(game_id, people[1])
    await a.until("STATE")
    return game_id, a, b


async def test_a_reload_within_the_grace_is_no_change_of_presence(people):
    bob = people[1]
    game_id, a, b = await at_the_table(people)
    a.received.clear()
    await b.close()
    b = await Socket.game(game_id, bob)  # the page again
    assert connected(b.received[0]["state"], bob) is True
    await gone_after_grace()
    assert await a.is_quiet()  # neither gone nor back: no PRESENCE, no STATE
    await close_all(a, b)


async def test_a_departure_is_told_once_the_grace_is_over(people):
    bob = people[1]
    _, a, b = await at_the_table(people)
    await b.close()
    assert await a.is_quiet(GRACE / 2)  # still counted present
    assert await a.expect("PRESENCE") == {"type": "PRESENCE", "player": bob.pk, "connected": False}
    assert connected((await a.expect("STATE"))["state"], bob) is False
    # The row is gone, not only expired.
    rows = await database_sync_to_async(Connection.objects.filter(user=bob).count)()
    assert rows == 0
    await a.close()


async def test_a_second_socket_of_someone_present_tells_nothing(people):
    bob = people[1]
    game_id, a, b = await at_the_table(people)
    second = await Socket.game(game_id, bob)  # another tab
    assert await a.is_quiet(0.3)
    await second.close()
    await gone_after_grace()
    assert await a.is_quiet()  # bob's first tab is still open
    await close_all(a, b)


async def test_going_from_the_lobby_to_a_table_is_no_change_for_the_lobby(people):
    alice, bob = people[:2]
    game_id = await started_game(people, 2)
    watcher = await Socket.lobby(alice)
    await watcher.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    await watcher.expect("CONNECTED_PLAYERS")
    bobs_lobby = await Socket.lobby(bob)
    assert [p["name"] for p in (await watcher.expect("CONNECTED_PLAYERS"))["players"]] == [
        "alice",
        "bob",
    ]
    await bobs_lobby.close()
    table = await Socket.game(game_id, bob)  # the next page, within the grace
    await gone_after_grace()
    assert await watcher.is_quiet()
    await table.close()  # and then he leaves the site
    assert await watcher.is_quiet(GRACE / 2)
    pushed = await watcher.expect("CONNECTED_PLAYERS")
    assert [p["name"] for p in pushed["players"]] == ["alice"]
    await watcher.close()


async def test_the_list_of_who_is_online_keeps_someone_during_the_grace_only(people):
    alice, bob = people[:2]
    watcher = await Socket.lobby(alice)
    bobs = await Socket.lobby(bob)
    await bobs.close()
    await watcher.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    names = [p["name"] for p in (await watcher.expect("CONNECTED_PLAYERS"))["players"]]
    assert names == ["alice", "bob"]
    await gone_after_grace()
    await watcher.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    names = [p["name"] for p in (await watcher.until("CONNECTED_PLAYERS"))[-1]["players"]]
    assert names == ["alice"]
    await watcher.close()


def test_a_lingering_row_counts_for_its_grace_and_no_longer(people):
    alice = people[0]
    presence.record("socket-1", alice, None)
    presence.linger("socket-1", 60)
    assert presence.live_sockets(alice.pk, None) == (False, True)
    presence.linger("socket-1", -1)  # its grace over
    assert presence.live_sockets(alice.pk, None) == (False, False)
