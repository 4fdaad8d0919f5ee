"""The process's one beat (``games.presence``): what the open sockets cost between their
messages is one statement a tick for all the sockets that are due, however many there are,
and each socket's beats stay a ``PRESENCE_BEAT`` apart."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.db import connection

from games import presence
from games.models import Connection, Game
from games.presence import Beats, beats
from tests.test_lobby_fanout import every_statement
from tests.ws_helpers import (
    Socket,
    close_all,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    started_game,
    token_of,
)

pytestmark = pytest.mark.django_db(transaction=True)

FAR = 3600.0  # seconds ahead: every socket is due


def connection_updates(statements: list[str]) -> list[str]:
    return [sql for sql in statements if sql.upper().startswith('UPDATE "GAMES_CONNECTION"')]


async def beat_everyone(monkeypatch) -> tuple[list[str], int]:
    """A beat of every socket now; the statements and the rows refreshed."""
    before = await database_sync_to_async(Connection.objects.count)()
    with every_statement(monkeypatch) as statements:
        await beats().tick(time.monotonic() + FAR)
    return connection_updates(statements), before


@pytest.mark.parametrize("count", [1, 20])
async def test_one_statement_refreshes_the_rows_of_every_due_socket(people, monkeypatch, count):
    sockets = [await Socket.lobby(people[number % len(people)]) for number in range(count)]
    old = await database_sync_to_async(lambda: max(row.seen for row in Connection.objects.all()))()
    updates, rows = await beat_everyone(monkeypatch)
    assert rows == count
    assert len(updates) == 1, updates
    fresh = await database_sync_to_async(lambda: [row.seen for row in Connection.objects.all()])()
    assert len(fresh) == count and all(seen > old for seen in fresh)
    await close_all(*sockets)


async def test_a_closed_socket_is_beaten_no_more(people, monkeypatch):
    socket = await Socket.lobby(people[0])
    await socket.close()
    updates, _ = await beat_everyone(monkeypatch)
    assert updates == []


class StandIn:
    """A socket as the beat sees it: a channel, no slots, nothing of its own to do."""

    beats_on = False
    slots = None

    def __init__(self, channel_name: str):
        self.channel_name = channel_name


async def test_each_socket_beats_a_beat_after_its_last_and_only_when_due(settings):
    settings.PRESENCE_BEAT = timedelta(seconds=30)
    beating = Beats()
    early, late = StandIn("early"), StandIn("late")
    beating.due = {early: 100.0, late: 115.0}
    await beating.tick(100.0)
    assert beating.due == {early: 130.0, late: 115.0}
    await beating.tick(120.0)
    assert beating.due == {early: 130.0, late: 150.0}
    await beating.tick(125.0)  # neither is due
    assert beating.due == {early: 130.0, late: 150.0}


ONLOOKERS = 20


async def onlookers(people, game_id: int, count: int) -> list[Socket]:
    """``count`` sockets on game ``game_id``: its seated alice's, then charlie's, dora's and
    emil's in turn (onlookers), each with what it was sent as it opened read."""
    sockets = [await Socket.game(game_id, people[0])]
    while len(sockets) < count:
        sockets.append(await Socket.game(game_id, people[2 + len(sockets) % 3]))
    for socket in sockets:
        await socket.drain()
    return sockets


async def statements_of_bob_arriving(monkeypatch, people, game_id, sockets) -> list[str]:
    """What bob's socket opening costs the database until every other socket has the
    change: ``PRESENCE``, then a ``STATE`` that shows him connected."""
    # The once-a-beat deletion of dead servers' rows (``presence.drop_stale``) is not due in
    # either measurement: it comes with the clock, whatever the sockets.
    monkeypatch.setattr(presence, "_stale_dropped", time.monotonic())
    with every_statement(monkeypatch) as statements:
        bob = await Socket.game(game_id, people[1])
        for socket in sockets:
            told = await socket.expect("PRESENCE")
            assert (told["player"], told["connected"]) == (people[1].pk, True)
            players = (await socket.expect("STATE"))["state"]["players"]
            assert [row["connected"] for row in players if row["id"] == people[1].pk] == [True]
    await bob.close()
    return list(statements)


async def test_a_players_arrival_costs_the_same_statements_with_1_and_with_20_sockets_on_the_game(
    people, monkeypatch
):
    # Each socket used to read the game again for its STATE: now each process reads it once.
    await token_of(people[1])  # (made at its first use otherwise)
    first = await started_game(people, 2, name="Birsig")
    one = await onlookers(people, first, 1)
    alone = await statements_of_bob_arriving(monkeypatch, people, first, one)
    second = await started_game(people, 2, name="Wiese")
    many = await onlookers(people, second, ONLOOKERS)
    crowd = await statements_of_bob_arriving(monkeypatch, people, second, many)
    await close_all(*one, *many)
    assert len(crowd) == len(alone), "\n".join([*crowd, "---", *alone])


def test_recording_a_socket_says_whether_its_person_arrived_at_the_game_and_on_the_site(people):
    alice, bob = people[:2]
    game = Game.objects.create(name="Rhein", max_players=2, creator=alice, seed=1)
    other = Game.objects.create(name="Birs", max_players=2, creator=alice, seed=2)
    # (came to this game, came to the site) as each socket opens
    assert presence.record("a-1", alice, game.pk) == (True, True)
    assert presence.record("a-2", alice, game.pk) == (False, False)
    assert presence.record("a-3", alice, other.pk) == (True, False)
    assert presence.record("a-4", alice, None) == (True, False)
    assert presence.record("b-1", bob, game.pk) == (True, True)
    assert Connection.objects.filter(user=alice).count() == 4


def test_forgetting_a_socket_says_what_its_person_still_has_open(people):
    alice, bob = people[:2]
    game = Game.objects.create(name="Rhein", max_players=2, creator=alice, seed=1)
    presence.record("a-1", alice, game.pk)
    presence.record("a-2", alice, game.pk)
    presence.record("a-3", alice, None)
    presence.record("b-1", bob, game.pk)
    # (still on this game, still on the site) once each socket is forgotten
    assert presence.forget("a-1", alice.pk, game.pk) == (True, True)
    assert presence.forget("a-2", alice.pk, game.pk) == (False, True)
    assert presence.forget("a-3", alice.pk, None) == (False, False)
    assert presence.forget("a-3", alice.pk, None) == (False, False)  # twice: nothing more
    assert list(Connection.objects.values_list("channel_name", flat=True)) == ["b-1"]


def test_a_socket_is_recorded_and_forgotten_in_one_statement_each_on_postgresql(
    people, monkeypatch
):
    alice = people[0]
    game = Game.objects.create(name="Rhein", max_players=2, creator=alice, seed=1)
    monkeypatch.setattr(presence, "_stale_dropped", time.monotonic())  # not due
    # Elsewhere the write and the read go one after the other.
    each = 1 if connection.vendor == "postgresql" else 2
    with every_statement(monkeypatch) as opening:
        assert presence.record("a-1", alice, game.pk) == (True, True)
    with every_statement(monkeypatch) as closing:
        assert presence.forget("a-1", alice.pk, game.pk) == (False, False)
    assert (len(opening), len(closing)) == (each, each), [*opening, *closing]
