"""The lobby socket (``/ws/lobby/``): the game list, who is online, joining, lobby chat.

Parsing, errors and chat are shared with the game socket (``games.protocol``). The lobby
group receives ``lobby.games`` whenever the list changes (``games.broadcast``); each socket
then sends ``GAMES`` with the status and kind filters of its last ``REQUEST_GAMES``. It also
receives ``lobby.players`` when a lobby socket opening or closing changes who is connected; a
socket that has asked for ``CONNECTED_PLAYERS`` once then sends a fresh list. ``CREATE_GAME``
takes the fields of ``POST /api/games/`` and answers ``GAME_CREATED``.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model

from games import broadcast, queries, registry, selectors
from games.errors import problems
from games.models import Connection, Game
from games.protocol import ProtocolConsumer, Refused
from games.serializers import GameCreateSerializer
from games.services import lifecycle

GAMES_LISTED = 100  # the newest games; older ones are in the REST list
HISTORY_LINES = 50  # lobby chat lines sent for REQUEST_HISTORY


def games_list(status: str | None, kind: str | None, user_id: int) -> list[dict]:
    """The newest games ``user_id`` may see listed (private games only where they sit)."""
    return queries.lobby_games(user_id=user_id, status=status, kind=kind, limit=GAMES_LISTED)


def game_create(user, message: dict) -> dict:
    """``CREATE_GAME``: the same fields and checks as ``POST /api/games/``."""
    fields = {key: value for key, value in message.items() if key not in ("type", "ref")}
    serializer = GameCreateSerializer(data=fields)
    if not serializer.is_valid():
        found = "; ".join(problems(serializer.errors))  # DRF's words, in the active language
        raise Refused("bad_field", found)
    game = lifecycle.game_create(user=user, **serializer.validated_data)
    return selectors.game_summary(game)


def connected_players() -> list[dict]:
    users = (
        get_user_model()
        .objects.filter(pk__in=Connection.objects.live().values("user_id"))
        .order_by("username", "id")
    )
    return [{"id": user.pk, "name": user.get_username()} for user in users]


def chat_history() -> list[dict]:
    """The last lobby chat lines, oldest first, as ``CHAT`` messages."""
    return [broadcast.chat_line(line) for line in selectors.chat_history(None, HISTORY_LINES)]


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

    async def open(self) -> None:
        self.status_filter: str | None = None
        self.kind_filter: str | None = None
        self.follows_players = False
        self.recorded = False
        await self.join_group(broadcast.LOBBY_GROUP)
        arrived = await database_sync_to_async(self.record_connection)(None)
        self.recorded = True
        self.start_heartbeat()
        await self.accept()
        if arrived:
            await self.tell_players_changed()

    async def leave(self) -> None:
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
        self.status_filter, self.kind_filter = status, kind
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
        await self.send_games()

    async def layer_resumed(self, message: dict) -> None:
        # Redis is back: the lobby's updates published meanwhile by other processes are lost.
        await self.send_games()
        if self.follows_players:
            await self.send_players()

    async def lobby_players(self, message: dict) -> None:
        if self.follows_players and message.get("sender") != self.channel_name:
            await self.send_players()

    async def send_players(self) -> None:
        players = await database_sync_to_async(connected_players)()
        await self.send_json({"type": "CONNECTED_PLAYERS", "players": players})

    async def send_games(self) -> None:
        games = await database_sync_to_async(games_list)(
            self.status_filter, self.kind_filter, self.user.pk
        )
        message = {"type": "GAMES", "status": self.status_filter, "games": games}
        if self.kind_filter:
            message["kind"] = self.kind_filter
        await self.send_json(message)
