"""The lobby socket: the game list (asked for and pushed), who is online, joining a game,
lobby chat, and the same refusals as the game socket."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games import broadcast, selectors
from games.models import ChatMessage, Connection, Game, Seat
from games.services.chat import chat_post
from games.services.lifecycle import game_create, game_join, game_start
from games.services.seats import game_leave
from tests.ws_helpers import (
    Socket,
    close_all,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    started_game,
    waiting_game,
)

pytestmark = pytest.mark.django_db(transaction=True)


def channels_of(user) -> list[str]:
    return list(Connection.objects.filter(user=user).values_list("channel_name", flat=True))


@database_sync_to_async
def seats_of(game_id: int) -> list[str]:
    return list(
        Seat.objects.filter(game_id=game_id).order_by("id").values_list("user__username", flat=True)
    )


async def test_the_game_list_shows_the_newest_games_first_with_the_rest_fields(people):
    first = await waiting_game(people[0], name="Erste")
    second = await started_game(people[1:], 2, name="Zweite")
    lobby = await Socket.lobby(people[2])
    await lobby.send({"type": "REQUEST_GAMES"})
    games = (await lobby.expect("GAMES"))["games"]
    assert [g["id"] for g in games] == [second, first]
    game = await database_sync_to_async(Game.objects.get)(pk=second)
    expected = await database_sync_to_async(selectors.game_summary)(game)
    assert games[0] == expected
    assert set(games[0]) == {
        *("id", "name", "kind", "options", "status", "players", "max_players", "created"),
        *("finished", "pace", "turn_seconds"),
    }
    assert games[0]["players"] == 2 and games[0]["status"] == "PREPARATION"
    await lobby.close()


async def test_the_game_list_can_be_filtered_by_status(people):
    waiting = await waiting_game(people[0])
    await started_game(people[1:], 2)
    lobby = await Socket.lobby(people[2])
    await lobby.send({"type": "REQUEST_GAMES", "status": "WAITING"})
    message = await lobby.expect("GAMES")
    assert message["status"] == "WAITING"
    assert [g["id"] for g in message["games"]] == [waiting]
    await lobby.send({"type": "REQUEST_GAMES", "status": "LOST", "ref": "s"})
    error = await lobby.expect("ERROR")
    assert (error["code"], error["ref"]) == ("bad_field", "s")
    await lobby.close()


async def test_the_lobby_gets_the_list_again_whenever_it_changes(people):
    alice, bob = people[:2]
    lobby = await Socket.lobby(bob)
    await lobby.send({"type": "REQUEST_GAMES", "status": "WAITING"})
    assert (await lobby.expect("GAMES"))["games"] == []
    game_id = await waiting_game(alice, max_players=2)
    pushed = await lobby.expect("GAMES")
    assert [(g["id"], g["players"]) for g in pushed["games"]] == [(game_id, 1)]
    await database_sync_to_async(game_join)(game_id=game_id, user=bob)
    assert [g["players"] for g in (await lobby.expect("GAMES"))["games"]] == [2]
    await database_sync_to_async(game_start)(game_id=game_id, user=alice)
    assert (await lobby.expect("GAMES"))["games"] == []  # no longer WAITING
    await lobby.close()


async def test_when_redis_is_back_the_lobby_gets_the_list_and_players_it_may_have_missed(
    people, monkeypatch
):
    """Lobby updates published during a Redis outage are lost: when the channel layer hears
    Redis again (``layer.resumed``) each lobby socket sends its games and, if it follows
    them, the connected players."""
    alice, bob = people[:2]
    lobby = await Socket.lobby(bob)
    await lobby.send({"type": "REQUEST_GAMES", "status": "WAITING"})
    assert (await lobby.expect("GAMES"))["games"] == []
    await lobby.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    await lobby.expect("CONNECTED_PLAYERS")
    with monkeypatch.context() as lost:
        lost.setattr(broadcast, "_send_all", lambda messages: None)
        game_id = await waiting_game(alice, max_players=2)
    assert await lobby.is_quiet()
    # As the layer tells it: to every channel of the process (the lobby's hub ignores it).
    layer = get_channel_layer()
    await layer.group_send(broadcast.LOBBY_GROUP, {"type": "layer.resumed"})
    for channel in await database_sync_to_async(channels_of)(bob):
        await layer.send(channel, {"type": "layer.resumed"})
    assert [game["id"] for game in (await lobby.expect("GAMES"))["games"]] == [game_id]
    assert [p["name"] for p in (await lobby.expect("CONNECTED_PLAYERS"))["players"]] == ["bob"]
    await lobby.close()


async def test_connected_players_are_everyone_with_an_open_socket_each_once(people):
    alice, bob, charlie = people[:3]
    game_id = await started_game(people, 2)
    lobby = await Socket.lobby(alice)
    second = await Socket.lobby(alice)
    in_game = await Socket.game(game_id, bob)
    watching = await Socket.game(game_id, charlie)
    await lobby.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    players = (await lobby.expect("CONNECTED_PLAYERS"))["players"]
    assert players == [
        {"id": alice.pk, "name": "alice"},
        {"id": bob.pk, "name": "bob"},
        {"id": charlie.pk, "name": "charlie"},
    ]
    await close_all(in_game, watching, second)
    await lobby.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    # Pushes about bob and charlie leaving may come first; the list ends with alice alone.
    players = None
    while players != [{"id": alice.pk, "name": "alice"}]:
        players = (await lobby.expect("CONNECTED_PLAYERS"))["players"]
        assert {p["id"] for p in players} <= {alice.pk, bob.pk, charlie.pk}
    await lobby.close()
    assert await database_sync_to_async(Connection.objects.count)() == 0


async def test_a_lobby_socket_is_a_connection_without_a_game(people):
    lobby = await Socket.lobby(people[0])
    rows = await database_sync_to_async(lambda: list(Connection.objects.values("user", "game")))()
    assert rows == [{"user": people[0].pk, "game": None}]
    await lobby.close()


@pytest.mark.parametrize("as_sent", ["number", "string"])
async def test_wanting_to_join_a_game_takes_a_seat(people, as_sent):
    alice, bob = people[:2]
    game_id = await waiting_game(alice)
    game_ref = game_id if as_sent == "number" else str(game_id)
    lobby = await Socket.lobby(bob)
    await lobby.send({"type": "WANT_TO_JOIN_GAME", "game_id": game_ref, "ref": "j"})
    joined = await lobby.until("JOINED_GAME")
    assert joined[-1] == {"type": "JOINED_GAME", "game_id": game_ref, "ref": "j"}
    assert await seats_of(game_id) == ["alice", "bob"]
    await lobby.close()


@pytest.mark.parametrize(
    ("situation", "code"),
    [
        ("full", "full"),
        ("started", "started"),
        ("already_seated", "already_seated"),
        ("missing", "not_found"),
        ("not_a_number", "bad_field"),
    ],
)
async def test_joining_is_refused_with_the_services_reason(people, situation, code):
    alice, bob, charlie = people[:3]
    joiner = charlie
    if situation == "full":
        game_id = await waiting_game(alice, max_players=2)
        await database_sync_to_async(game_join)(game_id=game_id, user=bob)
    elif situation == "started":
        game_id = await started_game(people, 2)
    elif situation == "already_seated":
        game_id, joiner = await waiting_game(alice), alice
    else:
        game_id = await waiting_game(alice)
    target = {"missing": 999999, "not_a_number": "zwei"}.get(situation, game_id)
    seats = await seats_of(game_id)
    lobby = await Socket.lobby(joiner)
    await lobby.send({"type": "WANT_TO_JOIN_GAME", "game_id": target, "ref": "j"})
    error = await lobby.expect("ERROR")
    assert (error["code"], error["ref"]) == (code, "j")
    assert await seats_of(game_id) == seats
    await lobby.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    await lobby.expect("CONNECTED_PLAYERS")  # still open
    await lobby.close()


async def test_lobby_chat_reaches_the_lobby_only_and_is_stored_without_a_game(people):
    alice, bob, charlie = people[:3]
    game_id = await started_game(people, 2)
    a = await Socket.lobby(alice)
    b = await Socket.lobby(bob)
    in_game = await Socket.game(game_id, charlie)
    await a.send({"type": "CHAT", "text": "Wer spielt mit?"})
    for socket in (a, b):
        line = await socket.expect("CHAT")
        assert (line["player"], line["name"], line["text"]) == (
            alice.pk,
            "alice",
            "Wer spielt mit?",
        )
        assert line["at"]
    assert await in_game.is_quiet()
    rows = await database_sync_to_async(lambda: list(ChatMessage.objects.values("game", "text")))()
    assert rows == [{"game": None, "text": "Wer spielt mit?"}]
    await close_all(a, b, in_game)


async def test_lobby_chat_is_rate_limited_like_game_chat(people):
    lobby = await Socket.lobby(people[0])
    for n in range(5):
        await lobby.send({"type": "CHAT", "text": f"{n}"})
        await lobby.expect("CHAT")
    await lobby.send({"type": "CHAT", "text": "more"})
    assert (await lobby.expect("ERROR"))["code"] == "rate_limited"
    await lobby.close()


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{{{", "bad_json"),
        ("[]", "bad_json"),
        ('{"type": "BUILD_ROAD", "road": 1}', "unknown_type"),
        ('{"type": "REQUEST_GAMES", "ref": ["x"]}', "bad_field"),
        ('{"type": "CHAT", "text": "' + "x" * 9000 + '"}', "too_large"),
    ],
)
async def test_the_lobby_refuses_bad_messages_and_stays_open(people, frame, code):
    lobby = await Socket.lobby(people[0])
    await lobby.send(frame)
    error = await lobby.expect("ERROR")
    assert error["code"] == code and error["ref"] is None
    await lobby.send({"type": "REQUEST_GAMES"})
    await lobby.expect("GAMES")
    await lobby.close()


# ---------------------------------------------------------------------------- additions


@database_sync_to_async
def lobby_lines(user, count: int) -> list[str]:
    texts = [f"Zeile {n}" for n in range(count)]
    for text in texts:
        ChatMessage.objects.create(user=user, text=text)
    return texts


async def test_history_sends_the_last_50_lobby_chat_lines_oldest_first(people):
    alice, bob = people[:2]
    texts = await lobby_lines(alice, 55)
    game_id = await started_game(people, 2)
    await database_sync_to_async(chat_post)(user=bob, text="im Spiel", game_id=game_id)
    lobby = await Socket.lobby(bob)
    await lobby.send({"type": "REQUEST_HISTORY"})
    history = await lobby.expect("HISTORY")
    assert set(history) == {"type", "chat"}
    assert [line["text"] for line in history["chat"]] == texts[-50:]
    line = history["chat"][-1]
    assert set(line) == {"type", "player", "name", "text", "at"}
    assert (line["type"], line["player"], line["name"]) == ("CHAT", alice.pk, "alice")
    await lobby.close()


async def test_a_history_line_looks_like_the_chat_line_that_was_sent_live(people):
    alice = people[0]
    lobby = await Socket.lobby(alice)
    await lobby.send({"type": "CHAT", "text": "Wer spielt mit?"})
    live = await lobby.expect("CHAT")
    await lobby.send({"type": "REQUEST_HISTORY"})
    assert (await lobby.expect("HISTORY"))["chat"] == [live]
    await lobby.close()


async def test_an_empty_lobby_chat_has_an_empty_history(people):
    lobby = await Socket.lobby(people[0])
    await lobby.send({"type": "REQUEST_HISTORY"})
    assert await lobby.expect("HISTORY") == {"type": "HISTORY", "chat": []}
    await lobby.close()


async def test_who_is_connected_is_pushed_when_someone_enters_or_leaves_the_lobby(people):
    alice, bob = people[:2]
    lobby = await Socket.lobby(alice)
    await lobby.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    assert [p["name"] for p in (await lobby.expect("CONNECTED_PLAYERS"))["players"]] == ["alice"]
    arriving = await Socket.lobby(bob)
    pushed = await lobby.expect("CONNECTED_PLAYERS")
    assert pushed["players"] == [{"id": alice.pk, "name": "alice"}, {"id": bob.pk, "name": "bob"}]
    await arriving.close()
    assert [p["name"] for p in (await lobby.expect("CONNECTED_PLAYERS"))["players"]] == ["alice"]
    assert await lobby.is_quiet()
    await lobby.close()


async def test_game_sockets_count_for_presence_but_another_socket_pushes_nothing(people):
    alice, bob = people[:2]
    game_id = await started_game(people, 2)
    lobby = await Socket.lobby(alice)
    await lobby.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    await lobby.expect("CONNECTED_PLAYERS")
    in_game = await Socket.game(game_id, bob)  # bob arrives on the site: a push
    pushed = await lobby.expect("CONNECTED_PLAYERS")
    assert [p["name"] for p in pushed["players"]] == ["alice", "bob"]
    second_tab = await Socket.lobby(bob)
    own_second_tab = await Socket.lobby(alice)
    await close_all(second_tab, own_second_tab)
    assert await lobby.is_quiet(0.3)
    await in_game.close()  # bob's last socket: he is gone
    pushed = await lobby.expect("CONNECTED_PLAYERS")
    assert [p["name"] for p in pushed["players"]] == ["alice"]
    await lobby.close()


async def test_only_sockets_that_asked_for_the_players_get_them_pushed(people):
    alice, bob = people[:2]
    quiet = await Socket.lobby(alice)
    asking = await Socket.lobby(bob)
    await asking.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    await asking.expect("CONNECTED_PLAYERS")
    charlie_socket = await Socket.lobby(people[2])
    assert [p["name"] for p in (await asking.expect("CONNECTED_PLAYERS"))["players"]] == [
        "alice",
        "bob",
        "charlie",
    ]
    assert await quiet.is_quiet(0.3)
    await close_all(quiet, asking, charlie_socket)


async def test_a_socket_gets_no_push_of_its_own_arrival_however_late_it_comes(people):
    lobby = await Socket.lobby(people[0])
    await lobby.send({"type": "REQUEST_ALL_CONNECTED_PLAYERS"})
    await lobby.expect("CONNECTED_PLAYERS")
    own = await database_sync_to_async(
        Connection.objects.values_list("channel_name", flat=True).get
    )()
    layer = get_channel_layer()
    await layer.group_send(broadcast.LOBBY_GROUP, {"type": "lobby.players", "sender": own})
    assert await lobby.is_quiet(0.3)
    await layer.group_send(broadcast.LOBBY_GROUP, {"type": "lobby.players", "sender": "other"})
    await lobby.expect("CONNECTED_PLAYERS")
    await lobby.close()


async def test_a_private_game_is_listed_only_on_the_sockets_of_its_players(people):
    alice, bob, carla = people[:3]
    a = await Socket.lobby(alice)
    b = await Socket.lobby(bob)
    c = await Socket.lobby(carla)
    for socket in (a, b, c):
        await socket.send({"type": "REQUEST_GAMES"})
        assert (await socket.expect("GAMES"))["games"] == []
    game = await database_sync_to_async(game_create)(
        user=alice, name="Geheim", max_players=3, private=True
    )
    assert [g["id"] for g in (await a.expect("GAMES"))["games"]] == [game.pk]
    # The others' lists did not change: their sockets do not read them again.
    assert await b.is_quiet(0.3) and await c.is_quiet(0.1)

    await database_sync_to_async(game_join)(game_id=game.pk, user=bob)  # by the link
    assert [g["players"] for g in (await a.expect("GAMES"))["games"]] == [2]
    assert [g["id"] for g in (await b.expect("GAMES"))["games"]] == [game.pk]
    await database_sync_to_async(game_leave)(game_id=game.pk, user=bob)
    assert [g["players"] for g in (await a.expect("GAMES"))["games"]] == [1]
    assert (await b.expect("GAMES"))["games"] == []  # the seat is gone, and so is the game
    assert await c.is_quiet(0.3)
    await close_all(a, b, c)


# ------------------------------------------------------------ the list as changes (deltas)


def entries(message: dict) -> list[tuple[int, str, int]]:
    return [(game["id"], game["status"], game["players"]) for game in message["games"]]


async def test_a_socket_that_asked_for_changes_gets_each_public_games_entry_alone(people):
    """``"changes": true``: the whole list once, then per change of a public game only its
    entry; a game that leaves the filtered list comes as ``removed``."""
    alice, bob = people[:2]
    older = await waiting_game(alice, name="Alt")
    lobby = await Socket.lobby(bob)
    await lobby.send({"type": "REQUEST_GAMES", "status": "WAITING", "changes": True})
    assert [game["id"] for game in (await lobby.expect("GAMES"))["games"]] == [older]
    game_id = await waiting_game(alice, name="Neu", max_players=2)
    created = await lobby.expect("GAMES_CHANGED")
    assert created["status"] == "WAITING" and created["removed"] == []
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert created["games"] == [await database_sync_to_async(selectors.game_summary)(game)]
    await database_sync_to_async(game_join)(game_id=game_id, user=bob)
    assert entries(await lobby.expect("GAMES_CHANGED")) == [(game_id, "WAITING", 2)]
    await database_sync_to_async(game_start)(game_id=game_id, user=alice)
    started = await lobby.expect("GAMES_CHANGED")
    assert (started["games"], started["removed"]) == ([], [game_id])  # no longer WAITING
    await lobby.close()


async def test_without_a_filter_the_changes_carry_every_status_and_a_kind_filter_holds(people):
    alice, bob = people[:2]
    everything = await Socket.lobby(bob)
    await everything.send({"type": "REQUEST_GAMES", "changes": True})
    await everything.expect("GAMES")
    solo = await Socket.lobby(people[2])
    await solo.send({"type": "REQUEST_GAMES", "kind": "road300", "changes": True})
    await solo.expect("GAMES")
    game_id = await waiting_game(alice, max_players=2)
    assert entries(await everything.expect("GAMES_CHANGED")) == [(game_id, "WAITING", 1)]
    await database_sync_to_async(game_join)(game_id=game_id, user=bob)
    assert entries(await everything.expect("GAMES_CHANGED")) == [(game_id, "WAITING", 2)]
    await database_sync_to_async(game_start)(game_id=game_id, user=alice)
    assert entries(await everything.expect("GAMES_CHANGED")) == [(game_id, "PREPARATION", 2)]
    for _ in range(3):  # a game of another kind: never in this list
        change = await solo.expect("GAMES_CHANGED")
        assert (change["kind"], change["games"], change["removed"]) == ("road300", [], [game_id])
    await close_all(everything, solo)


async def test_private_games_reach_a_changes_socket_as_its_whole_list(people):
    """A private game's change reaches its players only, as the whole ``GAMES`` (their
    own part of the list is theirs), also when they asked for changes."""
    alice, bob = people[:2]
    a = await Socket.lobby(alice)
    b = await Socket.lobby(bob)
    for socket in (a, b):
        await socket.send({"type": "REQUEST_GAMES", "changes": True})
        assert (await socket.expect("GAMES"))["games"] == []
    game = await database_sync_to_async(game_create)(
        user=alice, name="Geheim", max_players=3, private=True
    )
    assert [g["id"] for g in (await a.expect("GAMES"))["games"]] == [game.pk]
    assert await b.is_quiet(0.3)
    await close_all(a, b)


async def test_a_socket_that_did_not_ask_for_changes_still_gets_the_whole_list(people):
    alice, bob = people[:2]
    lobby = await Socket.lobby(bob)
    await lobby.send({"type": "REQUEST_GAMES", "changes": True})
    await lobby.expect("GAMES")
    await lobby.send({"type": "REQUEST_GAMES", "changes": False})  # asked again, without
    await lobby.expect("GAMES")
    game_id = await waiting_game(alice)
    assert [game["id"] for game in (await lobby.expect("GAMES"))["games"]] == [game_id]
    await lobby.close()


@pytest.mark.parametrize("changes", ["yes", 1, None, {"nested": [True]}])
async def test_changes_must_be_true_or_false(people, changes):
    lobby = await Socket.lobby(people[0])
    await lobby.send({"type": "REQUEST_GAMES", "changes": changes, "ref": "c"})
    error = await lobby.expect("ERROR")
    assert (error["code"], error["ref"]) == ("bad_field", "c")
    await lobby.close()


async def test_sockets_opening_together_hear_each_change_once(people):
    """They share the process's one listener of the lobby group, however their openings
    interleave (on Redis, the listener's channel takes a round trip to subscribe)."""
    sockets = await asyncio.gather(*(Socket.lobby(people[n % len(people)]) for n in range(8)))
    for socket in sockets:
        await socket.send({"type": "REQUEST_GAMES", "changes": True})
        await socket.expect("GAMES")
    game_id = await waiting_game(people[0])
    for socket in sockets:
        assert [g["id"] for g in (await socket.expect("GAMES_CHANGED"))["games"]] == [game_id]
    for socket in sockets:
        assert await socket.is_quiet(0.3 if socket is sockets[0] else 0.02)
    await close_all(*sockets)
