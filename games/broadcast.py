"""Messages to connected clients, sent only after the database has committed a change.

Groups: one per game (``game-<id>``: every socket of the game, seated or watching) and one
for the lobby. A change of a game is one message to its group, whatever the number of
seats: it carries every seat's ``STATE`` frame and the public one, each encoded once, and
each socket sends its client only the frame for its own seat (or the public one). The
message stays inside the servers (in Redis between them).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import uuid
from collections.abc import Iterable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games import channel_layer, registry, selectors, serverloop, wire
from games.models import ChatMessage, Game, Rematch, Seat

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"

# Names of lobby changes: this process's own part, then a count (see ``change_id``).
_PROCESS = uuid.uuid4().hex[:12]
_changes = itertools.count(1)


def game_group(game_id: int) -> str:
    return f"game-{game_id}"


def _send(group: str, message: dict) -> None:
    _send_all([(group, message)])


def _send_all(messages: list[tuple[str, dict]]) -> None:
    """Send to several groups, in this order.

    On an event loop they leave at once: with the site's Redis layer this process's sockets
    have them when this returns (``group_send_soon``), with others in a task of their own. In
    a server, a worker thread (a move, a REST request) hands the messages to the event loop
    and goes on: waiting for the channel layer there (``async_to_sync``) cost a thread hop
    each way and held the thread for Redis's round trip. Messages of one process leave in the
    order they were handed over. Elsewhere they are sent before this returns.
    """
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    if _on_a_loop():  # a move made on the event loop (games.moves.on_loop)
        _start_sending(layer, messages)
        return
    loop = serverloop.get()
    if loop is None:
        async_to_sync(_send_now)(layer, messages)
    else:
        loop.call_soon_threadsafe(_start_sending, layer, messages)


def _on_a_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def _send_now(layer, messages: list[tuple[str, dict]]) -> None:
    for group, message in messages:
        await layer.group_send(group, message)


_sending: set[asyncio.Task] = set()  # the loop keeps only weak references to its tasks


def _start_sending(layer, messages: list[tuple[str, dict]]) -> None:
    send_soon = getattr(layer, "group_send_soon", None)  # games.channel_layer's
    if send_soon is None:
        task = asyncio.get_running_loop().create_task(_send_now(layer, messages))
        _sending.add(task)
        task.add_done_callback(_sent)
        return
    # This process's sockets have the messages before this returns, not a task later (a
    # move's update reached them after its ACK had gone); Redis's copies go in the next batch.
    try:
        for group, message in messages:
            send_soon(group, message).add_done_callback(_sent)
    except Exception:
        logger.exception("a broadcast failed")


def _sent(sending: asyncio.Future) -> None:
    _sending.discard(sending)
    if sending.cancelled() or sending.exception() is None:
        return
    error = sending.exception()
    if isinstance(error, channel_layer.UNREACHABLE):
        # Redis is away: this process's sockets have the update; the others catch up when
        # it is back (``layer.resumed``). One line, not a traceback per move.
        logger.warning("a broadcast reached only this process's sockets: %s", error)
        return
    # As before a failed send: the clients notice the gap in seq and ask for the state.
    logger.error("a broadcast failed", exc_info=error)


def game_changed(
    game: Game,
    state: object | None,
    events: list[dict],
    seats: list[Seat] | None = None,
    offer: Rematch | object | None = selectors.UNREAD,
) -> None:
    """Tell every client of the game: the new events and a fresh view, each their own.

    ``game``, ``state``, ``seats`` (with their users; read again when not given) and a
    finished game's ``offer`` to play again (None: none; read when not given) are as
    committed by the change being announced. Computer players have no sockets: no frame.
    """
    details = selectors.player_details(game, seats)
    extras = selectors.finished_extras(game, offer)  # read once for every view
    if state is None:
        state = selectors.engine_state(game)  # likewise (None before the deal)
    frames = {
        str(user_id): wire.state_frame(selectors.game_view(game, user_id, state, details, extras))
        for user_id, detail in details.items()
        if not detail["is_bot"]
    }
    public = selectors.game_view(game, None, state, details, extras)
    kind = registry.get(game.kind)
    movers = kind.engine.to_move(state) if state is not None and game.is_playing else []
    _send(
        game_group(game.pk),
        {
            "type": "game.update",
            "seq": game.seq,
            "events": events,
            "status": public["status"],
            "players": [[row["id"], row.get("name", "")] for row in public["players"]],
            "frames": frames,  # by the seated user's id, as a string
            "public": wire.state_frame(public),
            # Who is to move now: their servers read the game ahead (games.moves.on_loop).
            "movers": [user_id for user_id in movers if str(user_id) in frames],
        },
    )


def change_id() -> str:
    """A name for one change of the lobby (its games, or who is online), unique over the
    site's processes. The lobby sockets of a process that hear of the same change read what
    changed once for all of them (``lobby.consumers``)."""
    return f"{_PROCESS}-{next(_changes)}"


def lobby_changed(users: Iterable[int] | None = None, game: int | None = None) -> None:
    """The entry of game ``game`` in the lobby's list changed: with ``users`` (a private
    game's entry), only their lobby sockets read the list again; without, every lobby socket
    does, or sends the one entry that changed (``GAMES_CHANGED``). Either way what a change
    needs is read once per server process (``change``)."""
    message: dict = {"type": "lobby.games", "change": change_id()}
    if game is not None:
        message["game"] = game
    if users is not None:
        message["users"] = list(users)
    _send(LOBBY_GROUP, message)


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


def user_group(user_id: int) -> str:
    """Every socket of one person, on any page (the nav's count of games waiting for them)."""
    return f"user-{user_id}"


def turns_changed(game_id: int, your_move: dict[int, bool]) -> None:
    """Whether game ``game_id`` waits for each of these people's move now: their sockets
    send ``MY_TURNS`` (every page's "My games" count follows)."""
    _send_all(
        [
            (user_group(user_id), {"type": "my.turns", "game": game_id, "your_move": mine})
            for user_id, mine in your_move.items()
        ]
    )
