"""The lobby socket (``/ws/lobby/``): the game list, who is online, joining, lobby chat.

Parsing, errors and chat are shared with the game socket (``games.protocol``). The lobby
sockets of a server process hear the lobby group through its hub (``lobby.hub``): a change of
the list (``lobby.games``, ``games.broadcast``), who is connected (``lobby.players``), a chat
line. A socket sends ``GAMES`` with the status and kind filters of its last
``REQUEST_GAMES``; one that asked with ``"changes": true`` gets the whole list once and then,
for changes of public games, only those games' entries (``GAMES_CHANGED``), made once per
process and filter by the hub. A socket that has asked for ``CONNECTED_PLAYERS`` once gets a
fresh list whenever someone comes or goes. ``CREATE_GAME`` takes the fields of
``POST /api/games/`` and answers ``GAME_CREATED``.

A change costs the database the same however many lobby sockets watch: the hub reads what
it needs once per change and process, and the lists that sockets ask for or read again are
shared reads of the hub (``LobbyHub.read``), each list encoded once. A socket's own private
games (only those it sits in are listed to it) are kept by the socket and read again only when
a change names its user.
"""

from __future__ import annotations

import asyncio

from channels.db import database_sync_to_async

from games import registry, selectors
from games.errors import problems
from games.models import Game
from games.protocol import ProtocolConsumer, Refused
from games.serializers import GameCreateSerializer
from games.services import lifecycle
from lobby.hub import GAMES, HISTORY, PLAYERS, hub_of
from lobby.lists import (
    chat_history,
    games_message,
    merged,
    players_frame,
    private_games,
    public_list,
)


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
    reads = frozenset({"REQUEST_GAMES", "REQUEST_ALL_CONNECTED_PLAYERS", "REQUEST_HISTORY"})
    writes = frozenset({"WANT_TO_JOIN_GAME", "CREATE_GAME"})
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
        arrived = (await database_sync_to_async(self.record_connection)(None))[1]
        self.recorded = True
        self.hub.changed(PLAYERS)  # a list asked for from now on has this socket in it
        self.start_heartbeat()
        await self.accept()
        if arrived:
            await self.tell_players_changed()

    async def leave(self) -> None:
        if getattr(self, "hub", None) is not None:
            await self.hub.leave(self)
        if getattr(self, "recorded", False):
            await self.depart(self.departed)

    async def departed(self) -> None:
        """This closed socket's row forgotten; the change told (``depart``)."""
        departed = await database_sync_to_async(self.forget_connection)()
        self.hub.changed(PLAYERS)
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
        chat = await self.hub.read(HISTORY, (), chat_history)
        await self.send_json({"type": "HISTORY", "chat": chat})

    async def on_join(self, message: dict, ref: str | None) -> None:
        game_id = _game_id(message.get("game_id"))
        await database_sync_to_async(lifecycle.game_join)(game_id=game_id, user=self.user)
        self.hub.changed(GAMES)
        await self.send_json({"type": "JOINED_GAME", "game_id": message["game_id"], "ref": ref})

    async def on_create(self, message: dict, ref: str | None) -> None:
        game = await database_sync_to_async(game_create)(self.user, message)
        self.hub.changed(GAMES)
        await self.send_json({"type": "GAME_CREATED", "game": game, "ref": ref})

    async def on_chat(self, message: dict, ref: str | None) -> None:
        await self.post_chat(message, None)
        self.hub.changed(HISTORY)

    async def lobby_games(self, message: dict) -> None:
        users = message.get("users")
        if users is not None and self.user.pk not in users:
            return  # a private game this user does not sit in: it is not in their list
        if users is not None:
            self.mine = None  # one of this user's private games changed: read them again
        await self.send_listed(*await self.public_list())

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
        await self.send_players()

    async def send_players(self) -> None:
        await self.send(text_data=await self.hub.read(PLAYERS, (), players_frame))

    async def public_list(self) -> tuple[list[dict], str]:
        """The public games for this socket's filters, and their ``GAMES`` frame."""
        key = (self.status_filter, self.kind_filter)
        return await self.hub.read(GAMES, key, public_list, *key)

    async def send_games(self) -> None:
        """``GAMES``, this socket's own private games read afresh."""
        self.mine = None
        await self.send_listed(*await self.public_list())

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
