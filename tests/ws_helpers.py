"""Websocket clients for the tests: real ASGI application, token or session login, a log of
everything received (for the leak checks), and games set up through the services."""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import os
import secrets

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client
from rest_framework.authtoken.models import Token

from games.models import ChatMessage, Game, Move, Seat
from games.moves import play
from games.moves.base import load_state
from games.ratumrad import engine
from games.services.lifecycle import game_create, game_join, game_start
from ratumrad_site.asgi import application

ORIGIN = "http://localhost:8000"
TIMEOUT = 10
PERSONAS = ("alice", "bob", "charlie", "dora", "emil")
_layer_numbers = itertools.count()


@pytest.fixture(autouse=True)
async def isolated_sockets(settings):
    """Import into every websocket test module (autouse there).

    Each test gets its own channel layer: layers keep locks and connection pools bound to
    the event loop they were first used in, and every test has its own loop. On Redis the
    layer also gets its own key prefix, so leftovers and a parallel run cannot mix in.
    Afterwards the database connection of the consumers' worker thread is closed, so that
    PostgreSQL can drop the test database at the end.
    """
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    if "hosts" in layers["default"].get("CONFIG", {}):  # a Redis layer
        # With a random part: Redis's pub/sub channels are shared by all its databases, and
        # test processes elsewhere (other containers, where process ids repeat) use it too.
        prefix = f"ratumrad-test-{os.getpid()}-{next(_layer_numbers)}-{secrets.token_hex(4)}"
        layers["default"].setdefault("CONFIG", {})["prefix"] = prefix
    settings.CHANNEL_LAYERS = layers  # channels drops its cached layers on setting_changed
    yield
    layer = channel_layers.backends.get("default")
    if layer is not None and hasattr(layer, "close_pools"):
        await layer.wait_received()
        await layer.close_pools()
    await sync_to_async(connections.close_all)()


@database_sync_to_async
def make_people(*names: str) -> list:
    users = get_user_model().objects
    return [users.create_user(name) for name in names or PERSONAS]


@database_sync_to_async
def token_of(user) -> str:
    return Token.objects.get_or_create(user=user)[0].key


@database_sync_to_async
def session_cookie_of(user) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


@database_sync_to_async
def started_game(people: list, count: int, name: str = "Rheinufer") -> int:
    """A game of ``count`` of ``people`` (the first created it), dealt: preparation phase."""
    game = game_create(user=people[0], name=name, max_players=count)
    for person in people[1:count]:
        game_join(game_id=game.pk, user=person)
    game_start(game_id=game.pk, user=people[0])
    return game.pk


@database_sync_to_async
def prepare_everyone(game_id: int) -> None:
    """Everyone keeps all three short cards: the game is running, the start player is on."""
    game = Game.objects.get(pk=game_id)
    for seat in game.seats.select_related("user"):
        state = load_state(Game.objects.get(pk=game_id))
        keep = engine.legal_moves(state, seat.user_id)[0]
        play.move_apply(game_id=game_id, user=seat.user, move=keep)


async def running_game(people: list, count: int) -> int:
    game_id = await started_game(people, count)
    await prepare_everyone(game_id)
    return game_id


@database_sync_to_async
def current_player(game_id: int) -> int:
    state = load_state(Game.objects.get(pk=game_id))
    return state.players[state.current].id


async def current_person(people: list, game_id: int):
    """The persona whose turn it is in ``game_id``."""
    user_id = await current_player(game_id)
    return next(person for person in people if person.pk == user_id)


def sql_rows(sql: str, params: list | None = None) -> list[tuple]:
    with connections["default"].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def db_table(model) -> str:
    return model._meta.db_table


@database_sync_to_async
def snapshot(game_id: int) -> tuple:
    """Everything a refused message must leave alone.

    Plain SQL, JSON as the stored text: the fuzzers take thousands of these, and the ORM's
    four queries cost more than the frames they check.
    """
    (game,) = sql_rows(
        f"""SELECT seq, status, CAST(state AS TEXT),
                (SELECT COUNT(*) FROM {db_table(ChatMessage)}),
                (SELECT COUNT(*) FROM {db_table(Seat)} WHERE game_id = %s)
            FROM {db_table(Game)} WHERE id = %s""",
        [game_id, game_id],
    )
    moves = sql_rows(
        f"SELECT seq, CAST(payload AS TEXT) FROM {db_table(Move)} WHERE game_id = %s ORDER BY seq",
        [game_id],
    )
    seq, status, state, chat_lines, seats = game
    return (seq, status, state, moves, chat_lines, seats)


@database_sync_to_async
def waiting_game(creator, max_players: int = 3, name: str = "Kleinbasel") -> int:
    return game_create(user=creator, name=name, max_players=max_players).pk


@database_sync_to_async
def apply_move(game_id: int, user, move: dict) -> None:
    play.move_apply(game_id=game_id, user=user, move=move)


@database_sync_to_async
def stored_game(game_id: int) -> Game:
    return Game.objects.get(pk=game_id)


@database_sync_to_async
def engine_state_of(game_id: int) -> engine.GameState:
    return load_state(Game.objects.get(pk=game_id))


class Socket:
    """One websocket client; ``received`` keeps every message in order.

    ``MY_TURNS`` (the nav's count, sent to every socket of a person whenever a game starts or
    stops waiting for their move) comes between the messages a test reads: ``recv`` sets it
    aside in ``my_turns`` (it is in ``received`` too) and ``next_my_turns`` reads it."""

    def __init__(self, path: str, headers: list[tuple[bytes, bytes]]):
        self.path = path
        self.comm = WebsocketCommunicator(application, path, headers=headers)
        self.received: list[dict] = []
        self.my_turns: list[dict] = []
        self._held: list[dict] = []  # read past while looking for MY_TURNS
        self.user_id: int | None = None

    @classmethod
    async def open(
        cls,
        path: str,
        user=None,
        *,
        auth: str = "token",
        origin: str | None = ORIGIN,
        language: str | None = None,
        cookies: str = "",
        expect: str | None = "accept",
    ) -> Socket:
        """Connect ``user`` by token (no Origin by default) or by session (with Origin)."""
        headers = []
        cookie_parts = [cookies] if cookies else []
        if user is not None and auth == "token":
            headers.append((b"authorization", f"Token {await token_of(user)}".encode()))
            if origin == ORIGIN:
                origin = None  # scripts and bots send no Origin
        elif user is not None and auth == "session":
            cookie_parts.append(await session_cookie_of(user))
        if origin is not None:
            headers.append((b"origin", origin.encode()))
        if cookie_parts:
            headers.append((b"cookie", "; ".join(cookie_parts).encode()))
        if language:
            headers.append((b"accept-language", language.encode()))
        socket = cls(path, headers)
        socket.user_id = None if user is None else user.pk
        connected, _ = await socket.comm.connect(timeout=TIMEOUT)
        if expect == "accept":
            assert connected, f"{path} refused the connection"
        elif expect == "deny":
            assert not connected, f"{path} accepted the connection"
        return socket

    @classmethod
    async def game(cls, game_id: int, user=None, **options) -> Socket:
        """A game socket, after its first STATE."""
        socket = await cls.open(f"/ws/games/{game_id}/", user, **options)
        await socket.expect("STATE")
        return socket

    @classmethod
    async def lobby(cls, user=None, **options) -> Socket:
        return await cls.open("/ws/lobby/", user, **options)

    async def send(self, message: dict | str) -> None:
        if isinstance(message, str):
            await self.comm.send_to(text_data=message)
        else:
            await self.comm.send_json_to(message)

    async def recv(self, timeout: float = TIMEOUT) -> dict:
        if self._held:
            return self._held.pop(0)
        while True:
            message = await self.comm.receive_json_from(timeout=timeout)
            self.received.append(message)
            if message.get("type") != "MY_TURNS":
                return message
            self.my_turns.append(message)

    async def next_my_turns(self, timeout: float = TIMEOUT) -> dict:
        """The oldest ``MY_TURNS`` not read yet (the other messages meanwhile are kept)."""
        while not self.my_turns:
            message = await self.comm.receive_json_from(timeout=timeout)
            self.received.append(message)
            if message.get("type") == "MY_TURNS":
                self.my_turns.append(message)
            else:
                self._held.append(message)
        return self.my_turns.pop(0)

    async def expect(self, kind: str, timeout: float = TIMEOUT) -> dict:
        message = await self.recv(timeout)
        assert message["type"] == kind, f"expected {kind}, got {message}"
        return message

    async def until(self, kind: str, timeout: float = TIMEOUT, **fields) -> list[dict]:
        """Messages up to and including the first ``kind`` whose fields match."""
        seen = []
        while True:
            message = await self.recv(timeout)
            seen.append(message)
            if message["type"] == kind and all(message.get(k) == v for k, v in fields.items()):
                return seen

    async def state_at(self, seq: int) -> dict:
        """Read on to the STATE of ``seq``; returns its ``state``."""
        return (await self.until("STATE", seq=seq))[-1]["state"]

    async def sync(self) -> dict:
        await self.send({"type": "SYNC"})
        return (await self.expect("STATE"))["state"]

    async def is_quiet(self, timeout: float = 0.1) -> bool:
        """Nothing but ``MY_TURNS`` arrives within ``timeout``."""
        if self._held:
            return False
        while not await self.comm.receive_nothing(timeout):
            message = await self.comm.receive_json_from(timeout=TIMEOUT)
            self.received.append(message)
            if message.get("type") != "MY_TURNS":
                self._held.append(message)
                return False
            self.my_turns.append(message)
        return True

    async def drain(self, timeout: float = 0.1) -> list[dict]:
        seen = []
        while not await self.is_quiet(timeout):
            seen.append(await self.recv())
        return seen

    async def expect_close(self, code: int) -> None:
        while True:
            output = await self.comm.receive_output(TIMEOUT)
            text = output.get("text", "") if output.get("type") == "websocket.send" else ""
            if '"MY_TURNS"' not in text:
                break
            self.received.append(json.loads(text))
        assert output == {"type": "websocket.close", "code": code}, output

    @property
    def is_open(self) -> bool:
        return not self.comm.future.done()

    async def close(self) -> None:
        if self.is_open:
            await self.comm.disconnect(timeout=TIMEOUT)


async def close_all(*sockets: Socket) -> None:
    await asyncio.gather(*(socket.close() for socket in sockets))


def dumps(message: dict) -> str:
    return json.dumps(message, sort_keys=True)
