"""Refused messages on the game socket: an ERROR with the protocol's code, nothing changed,
the socket still open; and who may open a socket at all (login, origin)."""

import logging
from dataclasses import dataclass

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model

from games import protocol
from games.models import Connection
from games.moves import play
from games.services.admin import game_end_now
from tests.ws_helpers import (
    ORIGIN,
    Socket,
    close_all,
    current_person,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    running_game,
    session_cookie_of,
    snapshot,
    started_game,
    token_of,
    waiting_game,
)

pytestmark = pytest.mark.django_db(transaction=True)


async def refused(socket: Socket, frame, code: str, ref=None) -> dict:
    """Send ``frame``, expect ERROR ``code`` echoing ``ref``; the socket still answers SYNC."""
    await socket.send(frame)
    error = await socket.expect("ERROR")
    assert error["code"] == code, error
    assert error["ref"] == ref and error["message"]
    assert set(error) == {"type", "code", "message", "ref"}
    assert socket.is_open
    await socket.sync()
    assert await socket.is_quiet(0.05)
    return error


@dataclass
class Table:
    game_id: int
    mover: Socket  # the player on turn
    other: Socket  # the other player
    watcher: Socket  # a spectator
    before: tuple  # the game as every refused message must leave it


@pytest.fixture
async def table(people):
    """A running 2-player game with three sockets; afterwards the game must be unchanged."""
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    other = next(p for p in people[:2] if p != mover)
    sockets = [
        await Socket.game(game_id, mover),
        await Socket.game(game_id, other),
        await Socket.game(game_id, people[2]),
    ]
    await sockets[0].until("STATE")  # the other player's arrival (PRESENCE, STATE)
    # With Redis pub/sub an arrival may also reach a socket that opened just after it.
    for socket in sockets:
        await socket.drain()
    table = Table(game_id, *sockets, before=await snapshot(game_id))
    yield table
    assert await snapshot(game_id) == table.before, "a refused message changed the game"
    await close_all(*sockets)


@pytest.mark.parametrize("frame", ["not json", "{'type': 'SYNC'}", "[1, 2]", '"SYNC"', "null"])
async def test_bad_json_is_refused(table, frame):
    await refused(table.mover, frame, "bad_json")


async def test_a_binary_frame_is_refused_as_bad_json(table):
    await table.mover.comm.send_to(bytes_data=b'{"type": "SYNC"}')
    assert (await table.mover.expect("ERROR"))["code"] == "bad_json"
    await table.mover.sync()


async def test_an_unknown_type_is_refused(table):
    error = await refused(table.mover, {"type": "REQUEST_GAMES", "ref": "r1"}, "unknown_type", "r1")
    assert "REQUEST_GAMES" in error["message"]


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "SYNC", "ref": 7},
        {"ref": "no type"},
        {"type": 5},
        {"type": "TAKE_WHEEL", "source": "deck", "expect_seq": "2"},
        {"type": "TAKE_WHEEL", "source": "deck", "expect_seq": True},
        {"type": "TAKE_WHEEL", "source": "pocket"},
        {"type": "TAKE_WHEEL", "source": "face_up", "slot": "1"},
        {"type": "BUILD_ROAD", "road": 9999, "color": "red"},
        {"type": "KEEP_DESTINATION_CARDS", "keep": "all"},
        {"type": "VOTE_END", "end": "yes"},
        {"type": "CHAT", "text": 42},
        {"type": "CHAT", "text": "   "},
    ],
)
async def test_wrong_field_types_are_refused_as_bad_field(table, frame):
    ref = frame.get("ref") if isinstance(frame.get("ref"), str) else None
    await refused(table.mover, frame, "bad_field", ref)


async def test_a_frame_over_8_kib_is_refused_before_parsing(table):
    frame = '{"type": "CHAT", "text": "' + "x" * protocol.MAX_FRAME_BYTES + '"}'
    await refused(table.mover, frame, "too_large")
    # Counted in bytes: 3000 "ä" are 6000 bytes and pass; 5000 are 10000 bytes and do not.
    await refused(table.mover, '{"type": "NOPE", "text": "' + "ä" * 3000 + '"}', "unknown_type")
    await refused(table.mover, '{"type": "CHAT", "text": "' + "ä" * 5000 + '"}', "too_large")


async def test_a_chat_line_over_500_characters_is_refused_as_too_large(table):
    await refused(table.mover, {"type": "CHAT", "text": "x" * 501, "ref": "c"}, "too_large", "c")


async def test_a_move_out_of_turn_is_refused(table):
    error = await refused(
        table.other, {"type": "TAKE_WHEEL", "source": "deck", "ref": "t"}, "not_your_turn", "t"
    )
    assert error["message"].startswith("R4.1")


async def test_an_illegal_move_is_refused_naming_the_rule(table):
    error = await refused(
        table.mover, {"type": "KEEP_DESTINATION_CARDS", "keep": [1]}, "illegal_move"
    )
    assert error["message"].startswith("R7.1: ")


async def test_an_illegal_move_in_the_preparation_phase_names_rule_R2_4(people):
    game_id = await started_game(people, 2)
    socket = await Socket.game(game_id, people[0])
    before = await snapshot(game_id)
    error = await refused(socket, {"type": "TAKE_WHEEL", "source": "deck"}, "illegal_move")
    assert error["message"].startswith("R2.4: ")
    assert await snapshot(game_id) == before
    await socket.close()


async def test_a_move_with_an_old_expect_seq_is_refused_as_stale(table):
    seq = table.mover.received[0]["seq"]
    move = {"type": "TAKE_WHEEL", "source": "deck", "expect_seq": seq - 1, "ref": "old"}
    error = await refused(table.mover, move, "stale", "old")
    assert str(seq) in error["message"]


async def test_a_spectator_cannot_move(table):
    await refused(table.watcher, {"type": "VOTE_END", "end": True}, "not_seated")


async def test_a_move_in_a_game_that_has_not_started_is_refused(people):
    game_id = await waiting_game(people[0], max_players=2)
    socket = await Socket.game(game_id, people[0])
    await refused(socket, {"type": "DRAW_DESTINATION_CARDS"}, "not_started")
    await socket.close()


async def test_a_move_after_the_game_is_over_is_refused(people):
    game_id = await running_game(people, 2)
    await database_sync_to_async(game_end_now)(game_id=game_id)
    socket = await Socket.game(game_id, people[0])
    assert socket.received[0]["state"]["results"]
    before = await snapshot(game_id)
    await refused(socket, {"type": "VOTE_END", "end": True}, "game_over")
    assert await snapshot(game_id) == before
    await socket.close()


async def test_more_than_five_chat_lines_in_ten_seconds_are_rate_limited(table):
    for n in range(protocol.CHAT_LINES):
        await table.mover.send({"type": "CHAT", "text": f"line {n}"})
        await table.mover.expect("CHAT")
    table.before = await snapshot(table.game_id)  # five lines were fine
    last = {"type": "CHAT", "text": "one too many", "ref": "c6"}
    await refused(table.mover, last, "rate_limited", "c6")
    lines = [m for m in await table.other.drain() if m["type"] == "CHAT"]
    assert [m["text"] for m in lines] == [f"line {n}" for n in range(protocol.CHAT_LINES)]


async def test_a_flood_of_moves_is_rate_limited(table, monkeypatch):
    assert protocol.MOVES_PER_SECOND == 50
    monkeypatch.setattr(protocol, "MOVES_PER_SECOND", 5)  # the same guard, quicker to reach
    for _ in range(8):
        await table.mover.send({"type": "VOTE_END", "end": False})  # R8.2: no vote to take back
    codes = [(await table.mover.expect("ERROR"))["code"] for _ in range(8)]
    assert codes == ["illegal_move"] * 5 + ["rate_limited"] * 3
    await table.mover.sync()


async def test_a_flood_of_requests_for_states_and_histories_is_rate_limited(
    table, people, monkeypatch
):
    """Each SYNC makes the server read the game and send a whole STATE (about 3 ms of its
    CPU); one socket sent 117 a second. PING and moves are not counted with them."""
    assert protocol.READS_PER_SECOND == 10
    monkeypatch.setattr(protocol, "READS_PER_SECOND", 3)  # the same guard, quicker to reach
    for kind in ("SYNC", "REQUEST_HISTORY", "SYNC", "PING", "REQUEST_HISTORY"):
        await table.mover.send({"type": kind, "ref": kind})
    answers = [await table.mover.recv() for _ in range(5)]
    assert [answer["type"] for answer in answers] == ["STATE", "HISTORY", "STATE", "PONG", "ERROR"]
    assert (answers[-1]["code"], answers[-1]["ref"]) == ("rate_limited", "REQUEST_HISTORY")
    assert "3" in answers[-1]["message"]
    lobby = await Socket.lobby(people[3])
    for _ in range(4):
        await lobby.send({"type": "REQUEST_GAMES", "ref": "g"})
    kinds = [(await lobby.recv())["type"] for _ in range(4)]
    assert kinds.count("GAMES") == 3 and kinds[-1] == "ERROR"
    await lobby.close()


async def test_a_flood_of_requests_for_a_seat_or_a_game_is_rate_limited(table, people, monkeypatch):
    """Each join, leave, take-back or play-again is a transaction, refused or not: at most
    WRITES_PER_SECOND of them a second on a socket, whatever their type."""
    assert protocol.WRITES_PER_SECOND == 10
    monkeypatch.setattr(protocol, "WRITES_PER_SECOND", 3)  # the same guard, quicker to reach
    for kind in ("TAKE_SEAT_BACK", "REMATCH", "SYNC", "TAKE_SEAT_BACK", "LEAVE_GAME"):
        await table.watcher.send({"type": kind, "ref": kind})
    answers = [await table.watcher.recv() for _ in range(5)]
    assert all(a["type"] == "ERROR" and a["code"] != "rate_limited" for a in answers[:2])
    assert [(a["type"], a.get("code")) for a in answers][2:] == [
        ("STATE", None),
        ("ERROR", "not_seated"),
        ("ERROR", "rate_limited"),
    ]
    assert (
        answers[-1]["message"]
        == "höchstens 3 Anfragen nach einem Platz oder einem Spiel pro Sekunde"
    )
    lobby = await Socket.lobby(people[3])
    for _ in range(4):
        await lobby.send({"type": "WANT_TO_JOIN_GAME", "game_id": 987654, "ref": "j"})
    codes = [(await lobby.recv()).get("code") for _ in range(4)]
    assert codes == ["not_found"] * 3 + ["rate_limited"]
    await lobby.close()


async def test_a_crash_in_a_handler_is_logged_and_answered_with_server_error(
    table, monkeypatch, caplog
):

    def broken(**kwargs):
        raise RuntimeError("the database caught fire")

    monkeypatch.setattr(play, "move_apply", broken)
    with caplog.at_level(logging.ERROR, logger="games.protocol"):
        await refused(
            table.mover, {"type": "DRAW_DESTINATION_CARDS", "ref": "x"}, "server_error", "x"
        )
    assert "the database caught fire" in caplog.text
    assert "caught fire" not in table.mover.received[-2]["message"]


async def test_a_game_that_does_not_exist_is_not_found_and_closed_with_4004(people):
    socket = await Socket.open("/ws/games/987654/", people[0])
    error = await socket.expect("ERROR")
    assert error["code"] == "not_found"
    await socket.expect_close(4004)
    await socket.close()


# ---------------------------------------------------------------------------- who may connect


@pytest.mark.parametrize("path", ["/ws/games/{game_id}/", "/ws/lobby/"])
async def test_a_browser_without_a_login_is_not_authenticated_and_closed_with_4001(people, path):
    game_id = await started_game(people, 2)
    socket = await Socket.open(path.format(game_id=game_id), None, origin=ORIGIN)
    error = await socket.expect("ERROR")
    assert error["code"] == "not_authenticated" and error["ref"] is None
    await socket.expect_close(4001)
    await socket.close()


async def test_an_unknown_token_is_not_authenticated_even_with_a_session(people):
    game_id = await started_game(people, 2)
    socket = Socket(
        f"/ws/games/{game_id}/",
        [(b"authorization", b"Token not-a-real-key"), (b"origin", ORIGIN.encode())],
    )
    assert (await socket.comm.connect())[0]
    assert (await socket.expect("ERROR"))["code"] == "not_authenticated"
    await socket.expect_close(4001)
    await socket.close()


async def test_the_token_of_an_inactive_user_is_not_authenticated(people):
    game_id = await started_game(people, 2)
    token = await token_of(people[1])
    await database_sync_to_async(get_user_model().objects.filter(pk=people[1].pk).update)(
        is_active=False
    )
    socket = Socket(f"/ws/games/{game_id}/", [(b"authorization", f"Token {token}".encode())])
    assert (await socket.comm.connect())[0]
    assert (await socket.expect("ERROR"))["code"] == "not_authenticated"
    await socket.expect_close(4001)
    await socket.close()


async def test_a_token_without_origin_is_how_scripts_connect(people):
    game_id = await started_game(people, 2)
    socket = await Socket.game(game_id, people[1], auth="token", origin=None)
    assert socket.received[0]["state"]["you"]["player_id"] == people[1].pk
    await socket.close()


@pytest.mark.parametrize(
    ("auth", "origin"),
    [
        ("session", "https://evil.example"),
        ("token", "https://evil.example"),
        ("session", "http://localhost.evil.example"),
        ("session", None),  # a session alone needs a browser's Origin
        (None, None),
    ],
)
async def test_a_connection_from_a_foreign_origin_or_without_any_is_refused(people, auth, origin):
    game_id = await started_game(people, 2)
    headers = []
    if auth == "token":
        headers.append((b"authorization", f"Token {await token_of(people[0])}".encode()))
    if auth == "session":
        headers.append((b"cookie", (await session_cookie_of(people[0])).encode()))
    if origin:
        headers.append((b"origin", origin.encode()))
    socket = Socket(f"/ws/games/{game_id}/", headers)
    assert await socket.comm.connect() == (False, 1000)
    assert await database_sync_to_async(Connection.objects.count)() == 0


@pytest.mark.parametrize("where", ["lobby", "game"])
async def test_ping_is_answered_with_pong_and_its_ref_on_both_sockets(people, where):
    alice = people[0]
    if where == "lobby":
        socket = await Socket.lobby(alice)
    else:
        socket = await Socket.game(await waiting_game(alice), alice)
    await socket.send({"type": "PING", "ref": "p1"})
    assert await socket.expect("PONG") == {"type": "PONG", "ref": "p1"}
    await socket.close()


@pytest.mark.parametrize("path", ["/ws/nothing/", "/ws/games/abc/", "/ws/lobby/extra/", "/ws/"])
async def test_a_path_that_is_no_socket_is_not_found_and_closed_with_4004(people, path):
    """Channels' router raised for it, and daphne answered the handshake with HTTP 500."""
    socket = await Socket.open(path, people[0], language="en")
    error = await socket.expect("ERROR")
    assert error == {
        "type": "ERROR",
        "code": "not_found",
        "message": f"there is no socket at {path}",
        "ref": None,
    }
    await socket.expect_close(protocol.CLOSE_NOT_FOUND)
