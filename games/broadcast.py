"""Messages to connected clients, sent only after the database has committed a change.

Groups: one per seat (``game-<id>-seat-<user>``, private views), one for everyone else
watching (``game-<id>-public``), one for everybody connected to the game (``game-<id>``:
chat and presence) and one for the lobby. A hand never goes into a shared group.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games import selectors
from games.models import ChatMessage, Game

LOBBY_GROUP = "lobby"


def seat_group(game_id: int, user_id: int) -> str:
    return f"game-{game_id}-seat-{user_id}"


def public_group(game_id: int) -> str:
    return f"game-{game_id}-public"


def game_group(game_id: int) -> str:
    return f"game-{game_id}"


def _send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)


def game_changed(game_id: int, seq: int, events: list[dict]) -> None:
    """Tell every client of the game: the new events and a fresh view, each their own."""
    game = Game.objects.get(pk=game_id)
    details = selectors.player_details(game)
    state = selectors.engine_state(game)
    for user_id in details:
        view = selectors.game_view(game, user_id, state, details)
        _send(seat_group(game_id, user_id), _update(seq, events, view))
    _send(
        public_group(game_id), _update(seq, events, selectors.game_view(game, None, state, details))
    )


def _update(seq: int, events: list[dict], view: dict) -> dict:
    return {"type": "game.update", "seq": seq, "events": events, "state": view}


def lobby_changed() -> None:
    _send(LOBBY_GROUP, {"type": "lobby.games"})


def chat_posted(message: ChatMessage) -> None:
    line = {
        "type": "chat.line",
        "player": message.user_id,
        "name": message.user.get_username(),
        "text": message.text,
        "at": message.created.isoformat(),
    }
    _send(game_group(message.game_id) if message.game_id else LOBBY_GROUP, line)
