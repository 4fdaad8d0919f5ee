"""The lobby socket (``/ws/lobby/``): the game list, who is online, joining, lobby chat.

Parsing, errors and chat are shared with the game socket (``games.consumers``). The lobby
group receives ``lobby.games`` whenever the list changes (``games.broadcast``); each socket
then sends ``GAMES`` with the status filter of its last ``REQUEST_GAMES``.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.db.models import Count

from games import broadcast, selectors, services
from games.consumers import ProtocolConsumer, Refused
from games.models import Connection, Game

GAMES_LISTED = 100  # the newest games; older ones are in the REST list


def games_list(status: str | None) -> list[dict]:
    games = Game.objects.annotate(seat_count=Count("seats")).order_by("-created", "-id")
    if status is not None:
        games = games.filter(status=status)
    return [selectors.game_summary(game, game.seat_count) for game in games[:GAMES_LISTED]]


def connected_players() -> list[dict]:
    users = (
        get_user_model()
        .objects.filter(pk__in=Connection.objects.live().values("user_id"))
        .order_by("username", "id")
    )
    return [{"id": user.pk, "name": user.get_username()} for user in users]


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
        "CHAT": "on_chat",
    }

    async def open(self) -> None:
        self.status_filter: str | None = None
        self.recorded = False
        await self.join_group(broadcast.LOBBY_GROUP)
        await database_sync_to_async(Connection.objects.create)(
            channel_name=self.channel_name, user=self.user, game=None
        )
        self.recorded = True
        self.start_heartbeat()
        await self.accept()

    async def leave(self) -> None:
        if getattr(self, "recorded", False):
            await database_sync_to_async(
                Connection.objects.filter(channel_name=self.channel_name).delete
            )()

    async def on_request_games(self, message: dict, ref: str | None) -> None:
        status = message.get("status")
        if status is not None and status not in Game.Status.values:
            raise Refused("bad_field", f"'status' must be one of {', '.join(Game.Status.values)}")
        self.status_filter = status
        await self.send_games()

    async def on_request_players(self, message: dict, ref: str | None) -> None:
        players = await database_sync_to_async(connected_players)()
        await self.send_json({"type": "CONNECTED_PLAYERS", "players": players})

    async def on_join(self, message: dict, ref: str | None) -> None:
        game_id = _game_id(message.get("game_id"))
        await database_sync_to_async(services.game_join)(game_id=game_id, user=self.user)
        await self.send_json({"type": "JOINED_GAME", "game_id": message["game_id"], "ref": ref})

    async def on_chat(self, message: dict, ref: str | None) -> None:
        await self.post_chat(message, None)

    async def lobby_games(self, message: dict) -> None:
        await self.send_games()

    async def send_games(self) -> None:
        games = await database_sync_to_async(games_list)(self.status_filter)
        await self.send_json({"type": "GAMES", "status": self.status_filter, "games": games})
