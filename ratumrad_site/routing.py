"""Websocket URL patterns: the lobby and one socket per game (protocol in docs/protocol.md),
and every other path answered as a missing game's is."""

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import path, re_path
from django.utils import translation

from games import errors, wire
from games.consumers import GameConsumer
from games.protocol import CLOSE_NOT_FOUND
from games.scope import socket_language
from lobby.consumers import LobbyConsumer

PATH_SHOWN = 100  # characters of an unknown path repeated in its error


class NoSocket(AsyncWebsocketConsumer):
    """A path that is no socket: accepted, ``ERROR`` ``not_found``, closed with 4004 (Channels'
    router raised for it, and daphne answered the handshake with HTTP 500)."""

    async def connect(self) -> None:
        await self.accept()
        error = errors.NotFound(
            "there is no socket at {path}", path=self.scope["path"][:PATH_SHOWN]
        )
        with translation.override(socket_language(self.scope)):
            message = error.message
        frame = {"type": "ERROR", "code": error.code, "message": message, "ref": None}
        await self.send(text_data=wire.dumps(frame))
        await self.close(code=CLOSE_NOT_FOUND)


websocket_urlpatterns = [
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),
    re_path(r"", NoSocket.as_asgi()),
]
