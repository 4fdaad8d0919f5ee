"""Messages to connected clients, sent only after the database has committed a change.

Groups: one per seat (``game-<id>-seat-<user>``, private views), one for everyone else
watching (``game-<id>-public``), one for everybody connected to the game (``game-<id>``:
chat and presence) and one for the lobby. A hand never goes into a shared group.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games import selectors, wire
from games.models import ChatMessage, Game, Seat

LOBBY_GROUP = "lobby"


def seat_group(game_id: int, user_id: int) -> str:
    return f"game-{game_id}-seat-{user_id}"


def public_group(game_id: int) -> str:
    return f"game-{game_id}-public"


def game_group(game_id: int) -> str:
    return f"game-{game_id}"


def _send(group: str, message: dict) -> None:
    _send_all([(group, message)])


def _send_all(messages: list[tuple[str, dict]]) -> None:
    """Send to several groups in one trip to the event loop (``async_to_sync`` is not free)."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return

    async def send() -> None:
        for group, message in messages:
            await layer.group_send(group, message)

    async_to_sync(send)()


def game_changed(
    game: Game,
    state: object | None,
    events: list[dict],
    seats: list[Seat] | None = None,
) -> None:
    """Tell every client of the game: the new events and a fresh view, each their own.

    ``game``, ``state`` and ``seats`` (with their users; read again when not given) are as
    committed by the change being announced.
    """
    details = selectors.player_details(game, seats)
    extras = selectors.finished_extras(game)  # read once for every view
    seq = game.seq
    messages = [
        (
            seat_group(game.pk, user_id),
            _update(seq, events, selectors.game_view(game, user_id, state, details, extras)),
        )
        for user_id in details
    ]
    view = selectors.game_view(game, None, state, details, extras)
    messages.append((public_group(game.pk), _update(seq, events, view)))
    _send_all(messages)


def _update(seq: int, events: list[dict], view: dict) -> dict:
    """A group's ``game.update``: the events, and the ``STATE`` frame of the group's view,
    encoded once for all its sockets (``frame``), with what the consumers keep of it."""
    return {
        "type": "game.update",
        "seq": seq,
        "events": events,
        "status": view["status"],
        "players": [[row["id"], row.get("name", "")] for row in view["players"]],
        "frame": wire.state_frame(view),
    }


def lobby_changed() -> None:
    _send(LOBBY_GROUP, {"type": "lobby.games"})


def chat_line(message: ChatMessage) -> dict:
    """A chat line as the protocol's ``CHAT`` message."""
    return {
        "type": "CHAT",
        "player": message.user_id,
        "name": message.user.get_username(),
        "text": message.text,
        "at": message.created.isoformat(),
    }


def chat_posted(message: ChatMessage) -> None:
    line = {**chat_line(message), "type": "chat.line"}
    _send(game_group(message.game_id) if message.game_id else LOBBY_GROUP, line)
