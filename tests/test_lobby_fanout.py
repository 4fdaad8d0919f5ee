"""Lobby fan-out: a change of the lobby costs the database the same whether one lobby socket
watches or fifty, and every socket still gets exactly its own list (private games listed only
to their players)."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db.backends.utils import CursorWrapper

from games import presence
from games.services.admin import game_end_now
from games.services.lifecycle import game_create, game_join, game_start
from games.services.seats import game_leave
from lobby import hub
from lobby.hub import hub_of
from lobby.lists import GAMES_LISTED, games_list
from tests.ws_helpers import (
    Socket,
    close_all,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    token_of,
    waiting_game,
)

pytestmark = pytest.mark.django_db(transaction=True)

WATCHERS = 50


@contextlib.contextmanager
def every_statement(monkeypatch):
    """The SQL statements run meanwhile, on any thread and connection (the consumers read in
    the database thread, the test's changes run in it too)."""
    statements: list[str] = []
    original = CursorWrapper._execute_with_wrappers

    def counted(self, sql, params, many, executor):
        statements.append(sql)
        return original(self, sql, params, many, executor)

    with monkeypatch.context() as patched:
        patched.setattr(CursorWrapper, "_execute_with_wrappers", counted)
        yield statements


async def watching(people, count: int, **request) -> list[Socket]:
    """``count`` lobby sockets of ``people`` in turn, each with its first list in."""
    sockets = []
    for number in range(count):
        socket = await Socket.lobby(people[number % len(people)])
        await socket.send({"type": "REQUEST_GAMES", **request})
        await socket.expect("GAMES")
        sockets.append(socket)
    return sockets


def ids(message: dict) -> list[int]:
    return [game["id"] for game in message["games"]]


async def statements_of_a_public_game_created(people, monkeypatch, sockets) -> list[str]:
    """What creating a public game costs the database until every socket has it listed."""
    with every_statement(monkeypatch) as statements:
        game_id = await waiting_game(people[0], name="Offen")
        for socket in sockets:
            assert game_id in ids(await socket.expect("GAMES"))
    return list(statements)


async def test_a_public_change_costs_the_same_queries_with_1_and_with_50_lobby_sockets(
    people, monkeypatch
):
    one = await watching(people[1:], 1)
    alone = await statements_of_a_public_game_created(people, monkeypatch, one)
    await close_all(*one)
    many = await watching(people[1:], WATCHERS)
    crowd = await statements_of_a_public_game_created(people, monkeypatch, many)
    await close_all(*many)
    assert len(crowd) == len(alone), "\n".join([*crowd, "---", *alone])
    # The list is read once: the sockets did read it (not only the change's own statements).
    assert sum(f"LIMIT {GAMES_LISTED}" in sql.upper() for sql in alone) == 1, alone


async def test_sockets_with_different_filters_share_one_read_per_filter(people, monkeypatch):
    one = await watching(people[1:], 1)
    alone = await statements_of_a_public_game_created(people, monkeypatch, one)
    await close_all(*one)
    everything = await watching(people[1:], WATCHERS // 2)
    waiting = await watching(people[1:], WATCHERS // 2, status="WAITING")
    crowd = await statements_of_a_public_game_created(people, monkeypatch, everything + waiting)
    await close_all(*everything, *waiting)
    assert len(crowd) == len(alone) + 1  # the second filter's list


async def statements_of_a_change_sent_as_its_entry(people, monkeypatch, sockets) -> list[str]:
    """What creating a public game costs the database until every socket that asked for
    changes has its entry."""
    with every_statement(monkeypatch) as statements:
        game_id = await waiting_game(people[0], name="Offen")
        for socket in sockets:
            assert ids(await socket.expect("GAMES_CHANGED")) == [game_id]
    return list(statements)


async def test_a_change_sent_as_its_entry_is_read_once_with_1_and_with_50_sockets(
    people, monkeypatch
):
    one = await watching(people[1:], 1, changes=True)
    alone = await statements_of_a_change_sent_as_its_entry(people, monkeypatch, one)
    await close_all(*one)
    many = await watching(people[1:], WATCHERS // 2, changes=True)
    many += await watching(people[1:], WATCHERS // 2, changes=True, status="WAITING")
    crowd = await statements_of_a_change_sent_as_its_entry(people, monkeypatch, many)
    await close_all(*many)
    assert len(crowd) == len(alone), "\n".join([*crowd, "---", *alone])
    # One read of the entry, for both filters; no list is read.
    assert not any(f"LIMIT {GAMES_LISTED}" in sql.upper() for sql in alone), alone


async def statements_of_someone_arriving(newcomer, monkeypatch, sockets) -> list[str]:
    """What a new user's lobby socket costs the database until every follower has them.
    The rows of dead servers' sockets, deleted at most once a beat per process whatever
    the sockets, are kept out of the count: not due (as if deleted just now)."""
    monkeypatch.setattr(presence, "_stale_dropped", time.monotonic())
    with every_statement(monkeypatch) as statements:
        arrived = await Socket.lobby(newcomer)
        for socket in sockets:
            players = (await socket.expect("CONNECTED_PLAYERS"))["players"]
            assert newcomer.pk in [player["id"] for player in players]
    await arrived.close()
    for socket in sockets:  # who left: pushed too
        await socket.expect("CONNECTED_PLAYERS")
    return list(statements)


async def test_who_is_online_costs_the_same_queries_with_1_and_with_50_followers(
    people, monkeypatch
):
    sockets = await watching(people[:4], WATCHERS)
    for socket in sockets:
        await socket.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
        await socket.expect("CONNECTED_PLAYERS")
    newcomer = people[4]
    await token_of(newcomer)  # made once, before either count
    crowd = await statements_of_someone_arriving(newcomer, monkeypatch, sockets)
    await close_all(*sockets[1:])
    await sockets[0].drain(0.3)  # bob, charlie and dora left
    alone = await statements_of_someone_arriving(newcomer, monkeypatch, sockets[:1])
    await sockets[0].close()
    assert len(crowd) == len(alone), "\n".join([*crowd, "---", *alone])


@database_sync_to_async
def listed_now(user, status: str | None = None, kind: str | None = None) -> list[dict]:
    """The list as one socket read it on its own: the standard the shared reads must meet."""
    return games_list(status, kind, user.pk)


async def test_every_socket_gets_its_own_list_after_create_join_start_finish_and_leave(people):
    alice, bob, carla, dora, emil = people
    # Each socket with the filters it asked for, and the user it belongs to.
    filters = {
        "alice": (alice, {}),
        "alice waiting": (alice, {"status": "WAITING"}),
        "bob": (bob, {}),
        "carla": (carla, {}),
        "dora finished": (dora, {"status": "FINISHED"}),
        "emil rage": (emil, {"kind": "rage"}),
    }
    sockets = {}
    for name, (user, request) in filters.items():
        sockets[name] = socket = await Socket.lobby(user)
        await socket.send({"type": "REQUEST_GAMES", **request})
        await socket.expect("GAMES")

    async def all_listed_right(told: set[str]) -> None:
        """The sockets in ``told`` got a fresh list and the others none; every socket's last
        list is the one its user may see now."""
        for name, socket in sockets.items():
            user, request = filters[name]
            if name in told:
                pushed = await socket.expect("GAMES")
                assert pushed["games"] == await listed_now(user, **request), name
                assert pushed["status"] == request.get("status")
                assert pushed.get("kind") == request.get("kind")
            else:
                assert await socket.is_quiet(0.05), name
        for name, socket in sockets.items():
            user, request = filters[name]
            last = [message for message in socket.received if message["type"] == "GAMES"][-1]
            assert last["games"] == await listed_now(user, **request), name

    everyone = set(sockets)
    alices = {"alice", "alice waiting"}
    public = await waiting_game(alice, max_players=2, name="Offen")
    await all_listed_right(everyone)
    secret = await database_sync_to_async(game_create)(
        user=alice, name="Geheim", max_players=3, private=True
    )
    await all_listed_right(alices)
    await database_sync_to_async(game_join)(game_id=secret.pk, user=bob)
    await all_listed_right(alices | {"bob"})
    await database_sync_to_async(game_join)(game_id=public, user=bob)
    await all_listed_right(everyone)
    await database_sync_to_async(game_start)(game_id=public, user=alice)
    await all_listed_right(everyone)
    await database_sync_to_async(game_end_now)(game_id=public)
    await all_listed_right(everyone)
    assert ids(sockets["dora finished"].received[-1]) == [public]
    await database_sync_to_async(game_leave)(game_id=secret.pk, user=bob)
    await all_listed_right(alices | {"bob"})
    second = await waiting_game(carla, max_players=2, name="Zweites")
    await all_listed_right(everyone)
    await database_sync_to_async(game_leave)(game_id=second, user=carla)
    await all_listed_right(everyone)

    # The private game was in alice's lists, merged with the public ones, newest first...
    assert ids(sockets["alice"].received[-1]) == [game["id"] for game in await listed_now(alice)]
    assert secret.pk in ids(sockets["alice"].received[-1])
    # ... and never in a list of anyone else but bob while he sat in it.
    for name in ("carla", "dora finished", "emil rage"):
        listed = [ids(message) for message in sockets[name].received if "games" in message]
        assert listed and all(secret.pk not in games for games in listed), name
    assert secret.pk not in ids(sockets["bob"].received[-1])
    await close_all(*sockets.values())


async def test_a_private_game_never_reaches_a_socket_that_did_not_sit_in_it(people):
    """A public change goes out to every socket at once (one read shared): the private game of
    alice and bob, added to their own lists only, is not in it."""
    alice, bob, carla = people[:3]
    [a], [b], [c] = [await watching([person], 1) for person in (alice, bob, carla)]
    secret = await database_sync_to_async(game_create)(
        user=alice, name="Geheim", max_players=2, private=True
    )
    await a.expect("GAMES")
    await database_sync_to_async(game_join)(game_id=secret.pk, user=bob)
    await a.expect("GAMES")
    await b.expect("GAMES")
    public = await waiting_game(carla, max_players=2, name="Offen")
    assert ids(await a.expect("GAMES")) == [public, secret.pk]
    assert ids(await b.expect("GAMES")) == [public, secret.pk]
    assert ids(await c.expect("GAMES")) == [public]
    for message in c.received:
        assert "Geheim" not in str(message)
    await close_all(a, b, c)


async def test_a_private_game_s_change_wakes_only_its_players_sockets(people, monkeypatch):
    """Every lobby socket used to get a private game's change in its inbox, wake and see it
    was not one of the players: 50 watching sockets, 50 wake-ups per change."""
    from lobby.consumers import LobbyConsumer

    woken: list[str] = []
    handled = LobbyConsumer.lobby_games

    async def counted(self, message):
        woken.append(self.user.username)
        await handled(self, message)

    monkeypatch.setattr(LobbyConsumer, "lobby_games", counted)
    alice, bob, carla = people[:3]
    others = await watching([carla], 20)
    [a] = await watching([alice], 1)
    secret = await database_sync_to_async(game_create)(
        user=alice, name="Geheim", max_players=2, private=True
    )
    assert secret.pk in ids(await a.expect("GAMES"))
    await database_sync_to_async(game_join)(game_id=secret.pk, user=bob)
    await a.expect("GAMES")
    for socket in others:
        assert await socket.is_quiet(0.01)
    assert woken == [alice.username, alice.username]
    await close_all(a, *others)


async def settled(hub, quiet: float = 0.3) -> None:
    """Wait until the hub has heard of no change for ``quiet`` seconds."""
    while True:
        versions = dict(hub.versions)
        await asyncio.sleep(quiet)
        if hub.versions == versions:
            return


async def test_sockets_asking_for_the_same_lists_at_once_share_one_read_of_each(
    people, monkeypatch
):
    """Many sockets opening at once (a restart, a crowd) ask for the games, who is online
    and the chat's last lines: each list is read once for all of them."""
    from lobby import consumers

    reads = {"games": 0, "players": 0, "history": 0}

    def counted(name, read):
        def reading(*args):
            reads[name] += 1
            return read(*args)

        return reading

    sockets = [await Socket.lobby(people[number % len(people)]) for number in range(WATCHERS)]
    await settled(hub_of(get_channel_layer()))  # the arrivals are heard: nothing changes now
    monkeypatch.setattr(hub, "READ_SECONDS", 60.0)  # however slow the machine
    monkeypatch.setattr(consumers, "public_list", counted("games", consumers.public_list))
    monkeypatch.setattr(consumers, "players_frame", counted("players", consumers.players_frame))
    monkeypatch.setattr(consumers, "chat_history", counted("history", consumers.chat_history))
    for socket in sockets:
        for kind in ("REQUEST_GAMES", "REQUEST_ALL_CONNECTED_PLAYERS", "REQUEST_HISTORY"):
            await socket.send({"type": kind})
    for socket in sockets:
        assert len((await socket.expect("GAMES"))["games"]) == 0
        assert len((await socket.expect("CONNECTED_PLAYERS"))["players"]) == len(people)
        assert (await socket.expect("HISTORY"))["chat"] == []
    assert reads == {"games": 1, "players": 1, "history": 1}
    await close_all(*sockets)


async def test_a_games_changes_in_quick_succession_reach_each_socket_as_a_few_frames(people):
    """Joining and leaving one game over and over had cost every lobby socket a frame (and the
    server a write to each) per change. The first change goes out at once; those within
    ``COALESCE_SECONDS`` of it go as one frame at the end of that time, showing the game as it
    is then; later changes go out at once again."""
    sockets = await watching(people[3:], 3, changes=True)
    game_id = await waiting_game(people[0])
    for socket in sockets:  # the creation: at once
        assert (await socket.expect("GAMES_CHANGED"))["games"][0]["players"] == 1
    began = time.monotonic()
    for _ in range(10):  # twenty changes within a few tenths of a second
        await database_sync_to_async(game_join)(game_id=game_id, user=people[1])
        await database_sync_to_async(game_leave)(game_id=game_id, user=people[1])
    await database_sync_to_async(game_join)(game_id=game_id, user=people[2])
    took = time.monotonic() - began
    await asyncio.sleep(hub.COALESCE_SECONDS + 0.2)
    windows = int(took / hub.COALESCE_SECONDS) + 2  # the changes' time, in windows
    for socket in sockets:
        frames = [m for m in await socket.drain() if m["type"] == "GAMES_CHANGED"]
        assert 1 <= len(frames) <= windows < 21, (len(frames), took)
        last = frames[-1]["games"][0]
        assert (last["id"], last["players"]) == (game_id, 2)  # the game as it is now
    # A change well after the last one sent goes out at once.
    await database_sync_to_async(game_leave)(game_id=game_id, user=people[2])
    for socket in sockets:
        changed = await socket.expect("GAMES_CHANGED", timeout=hub.COALESCE_SECONDS / 2)
        assert changed["games"][0]["players"] == 1
    await close_all(*sockets)


async def test_changes_of_many_public_games_in_quick_succession_reach_each_socket_together(
    people, monkeypatch
):
    """A busy site's lobby: public games created and dealt one after another had cost every
    lobby socket a frame and the server a read per change. The first change goes out at once;
    those of any public game within ``COALESCE_SECONDS`` of it go as one frame at the end of
    that time, with one read of all their entries, each game shown as it is then (and in
    ``removed`` where a socket's filter no longer lists it)."""
    everything = await watching(people[3:], 2, changes=True)
    waiting = await watching(people[3:], 1, changes=True, status="WAITING")
    sockets = everything + waiting
    first = await waiting_game(people[0], name="Erstes")
    for socket in sockets:  # alone: at once
        assert ids(await socket.expect("GAMES_CHANGED", timeout=hub.COALESCE_SECONDS / 2)) == [
            first
        ]
    began = time.monotonic()
    with every_statement(monkeypatch) as statements:
        created = [await waiting_game(people[n % 3], max_players=2) for n in range(10)]
        await database_sync_to_async(game_join)(game_id=created[0], user=people[1])
        await database_sync_to_async(game_start)(game_id=created[0], user=people[0])
        took = time.monotonic() - began
        await asyncio.sleep(hub.COALESCE_SECONDS + 0.2)
    windows = int(took / hub.COALESCE_SECONDS) + 2  # the changes' time, in windows
    # The entries' read (``lobby.lists.game_entries``): the games with their seats counted
    entry_reads = [
        sql for sql in statements if "FROM games_seat seat WHERE" in " ".join(sql.split())
    ]
    assert 1 <= len(entry_reads) <= windows < len(created), (entry_reads, took)
    for socket in sockets:
        frames = [m for m in await socket.drain() if m["type"] == "GAMES_CHANGED"]
        assert 1 <= len(frames) <= windows < len(created), (len(frames), took)
        shown: dict[int, dict] = {}
        removed: set[int] = set()
        for frame in frames:  # as a client keeps its list (docs/protocol.md, 3.4)
            for entry in frame["games"]:
                shown[entry["id"]] = entry
                removed.discard(entry["id"])
            for game_id in frame["removed"]:
                shown.pop(game_id, None)
                removed.add(game_id)
        if socket in waiting:  # the dealt game has left the WAITING list
            assert set(shown) == set(created[1:]) and created[0] in removed
        else:
            assert set(shown) == set(created)
            assert shown[created[0]]["status"] == "PREPARATION"
            assert shown[created[0]]["players"] == 2
        assert {entry["status"] for key, entry in shown.items() if key != created[0]} == {"WAITING"}
    await close_all(*sockets)
