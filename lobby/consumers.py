"""The lobby socket (``/ws/lobby/``): the game list, who is online, joining, lobby chat.

Parsing, errors and chat are shared with the game socket (``games.protocol``). The lobby
sockets of a server process hear the lobby group through its hub (``lobby.hub``): a change of
the list (``lobby.games``, ``games.broadcast``), who is connected (``lobby.players``), a chat
line. A socket sends ``GAMES`` with the status and kind filters of its last
``REQUEST_GAMES``; one that asked with ``"changes": true`` gets the whole list once and then,
for a change of a public game, only that game's entry (``GAMES_CHANGED``), made once per
process and filter by the hub. A socket that has asked for ``CONNECTED_PLAYERS`` once gets a
fresh list whenever someone comes or goes. ``CREATE_GAME`` takes the fields of
``POST /api/games/`` and answers ``GAME_CREATED``.

A change costs the database the same however many lobby sockets watch: each message names
its change (``change``), and what is read about it is read once per process: by the hub, or,
for the sockets that send whole lists, through ``SharedReads`` (the public games for each
filter in use, each list encoded once). A socket's own private games (only those it sits in
are listed to it) are kept by the socket and read again only when a change names its user.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Hashable

from channels.db import database_sync_to_async

from games import registry, selectors
from games.errors import problems
from games.models import Game
from games.protocol import ProtocolConsumer, Refused
from games.serializers import GameCreateSerializer
from games.services import lifecycle
from lobby.hub import hub_of
from lobby.lists import (
    chat_history,
    games_message,
    merged,
    players_frame,
    private_games,
    public_list,
)


class SharedReads:
    """Reads that the lobby sockets of this process share.

    The first socket to ask for a key starts the read (in the database thread); the others
    that ask for the same key wait for the same result. A key names a change (a message's
    ``change``) and what is read about it, so a result is never older than the change it
    answers. The newest ``size`` keys are kept: a socket that comes to an older change late
    reads again. A read that failed is forgotten, and every socket waiting for it gets the
    error, as if it had read itself.
    """

    def __init__(self, size: int = 64):
        self.size = size
        self.reads: OrderedDict[Hashable, asyncio.Future] = OrderedDict()

    async def get(self, key: Hashable, read: Callable, *args: object):
        found = self.reads.get(key)
        if found is None or found.get_loop() is not asyncio.get_running_loop():
            found = asyncio.ensure_future(database_sync_to_async(read)(*args))
            found.add_done_callback(lambda done: self._settled(key, done))
            self.reads[key] = found
            while len(self.reads) > self.size:
                self.reads.popitem(last=False)
        # One socket closing while it waits does not cancel the others' read.
        return await asyncio.shield(found)

    def _settled(self, key: Hashable, done: asyncio.Future) -> None:
        # ``exception()`` retrieves the error: no stray log when every waiter has gone.
        failed = done.cancelled() or done.exception() is not None
        if failed and self.reads.get(key) is done:
            del self.reads[key]


shared = SharedReads()


def game_create(user, message: dict) -> dict:
    """``CREATE_GAME``: the same fields and checks as ``POST /api/games/``."""
    fields = {key: value for key, value in message.items() if key not in ("type", "ref")}
    serializer = GameCreateSerializer(data=fields)
    if not serializer.is_valid():
        found = "; ".join(problems(serializer.errors))  # DRF's words, in the active language
        raise Refused("bad_field", found)
    game = lifecycle.game_create(user=user, **serializer.validated_data)
    return selectors.game_summary(game)


def _game_id(value) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdecimal():
        return int(value.strip())
    raise Refused("bad_field", "'game_id' must be a game's number")


class LobbyConsumer(ProtocolConsumer):
    handlers = {
        "REQUEST_GAMES": "on_request_games",
        "REQUEST_ALL_CONNECTED_PLAYERS": "on_request_players",
        "WANT_TO_JOIN_GAME": "on_join",
        "CREATE_GAME": "on_create",
        "CHAT": "on_chat",
        "REQUEST_HISTORY": "on_request_history",
    }

    def more_sources(self) -> list:
        self.inbox: asyncio.Queue[dict] = asyncio.Queue()  # from the hub (``lobby.hub``)
        return [self.inbox.get]

    async def open(self) -> None:
        self.status_filter: str | None = None
        self.kind_filter: str | None = None
        self.follows_players = False
        self.mine: list[dict] | None = None  # the private games listed to this socket's user
        self.changes = False  # GAMES_CHANGED instead of GAMES after the first list
        self.recorded = False
        self.hub = hub_of(self.channel_layer)
        await self.hub.join(self)
        arrived = await database_sync_to_async(self.record_connection)(None)
        self.recorded = True
        self.start_heartbeat()
        await self.accept()
        if arrived:
            await self.tell_players_changed()

    async def leave(self) -> None:
        if getattr(self, "hub", None) is not None:
            await self.hub.leave(self)
        if getattr(self, "recorded", False):
            departed = await database_sync_to_async(self.forget_connection)()
            if departed:
                await self.tell_players_changed()

    async def on_request_games(self, message: dict, ref: str | None) -> None:
        status = message.get("status")
        if status is not None and status not in Game.Status.values:
            raise Refused(
                "bad_field",
                "'status' must be one of {values}",
                values=", ".join(Game.Status.values),
            )
        kind = message.get("kind")
        if kind is not None and kind not in registry.KINDS:
            raise Refused(
                "bad_field", "'kind' must be one of {values}", values=", ".join(registry.KINDS)
            )
        changes = message.get("changes", False)
        if not isinstance(changes, bool):
            raise Refused("bad_field", "'changes' must be true or false")
        self.status_filter, self.kind_filter = status, kind
        self.changes = changes
        await self.send_games()

    async def on_request_players(self, message: dict, ref: str | None) -> None:
        self.follows_players = True
        await self.send_players()

    async def on_request_history(self, message: dict, ref: str | None) -> None:
        chat = await database_sync_to_async(chat_history)()
        await self.send_json({"type": "HISTORY", "chat": chat})

    async def on_join(self, message: dict, ref: str | None) -> None:
        game_id = _game_id(message.get("game_id"))
        await database_sync_to_async(lifecycle.game_join)(game_id=game_id, user=self.user)
        await self.send_json({"type": "JOINED_GAME", "game_id": message["game_id"], "ref": ref})

    async def on_create(self, message: dict, ref: str | None) -> None:
        game = await database_sync_to_async(game_create)(self.user, message)
        await self.send_json({"type": "GAME_CREATED", "game": game, "ref": ref})

    async def on_chat(self, message: dict, ref: str | None) -> None:
        await self.post_chat(message, None)

    async def lobby_games(self, message: dict) -> None:
        users = message.get("users")
        if users is not None and self.user.pk not in users:
            return  # a private game this user does not sit in: it is not in their list
        if users is not None:
            self.mine = None  # one of this user's private games changed: read them again
        change = message.get("change")
        if change is None:  # a message without a name: this socket reads on its own
            await self.send_games()
            return
        games, frame = await shared.get(
            ("games", change, self.status_filter, self.kind_filter),
            public_list,
            self.status_filter,
            self.kind_filter,
        )
        await self.send_listed(games, frame)

    async def layer_resumed(self, message: dict) -> None:
        # Redis is back: the lobby's updates published meanwhile by other processes are lost.
        await self.send_games()
        if self.follows_players:
            await self.send_players()

    async def lobby_frame(self, message: dict) -> None:
        """A frame the hub made for this socket while it was busy."""
        await self.send(text_data=message["frame"])

    async def lobby_players(self, message: dict) -> None:
        if not self.follows_players or message.get("sender") == self.channel_name:
            return
        change = message.get("change")
        if change is None:
            await self.send_players()
            return
        await self.send(text_data=await shared.get(("players", change), players_frame))

    async def send_players(self) -> None:
        await self.send(text_data=await database_sync_to_async(players_frame)())

    async def send_games(self) -> None:
        """``GAMES`` read afresh, this socket's own private games too."""
        self.mine = None
        games, frame = await database_sync_to_async(public_list)(
            self.status_filter, self.kind_filter
        )
        await self.send_listed(games, frame)

    async def send_listed(self, public: list[dict], frame: str) -> None:
        """``GAMES``: the public games as read for this socket's filters (``frame``: their
        message as encoded for everyone), with this user's private games added."""
        if self.mine is None:
            self.mine = await database_sync_to_async(private_games)(
                self.status_filter, self.kind_filter, self.user.pk
            )
        if not self.mine:
            await self.send(text_data=frame)
            return
        games = merged(public, self.mine)
        await self.send_json(games_message(self.status_filter, self.kind_filter, games))
