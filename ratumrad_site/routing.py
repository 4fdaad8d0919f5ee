"""Websocket URL patterns: the lobby and one socket per game (protocol in docs/protocol.md)."""

from django.urls import path

from games.consumers import GameConsumer
from lobby.consumers import LobbyConsumer

websocket_urlpatterns = [
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),
]
