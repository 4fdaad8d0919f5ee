"""The lobby group's one member in each server process: ``LobbyHub``.

The lobby sockets of a process do not join the lobby group themselves. Its hub does, once,
and hands each message on to them: a change of the list, who is online, a chat line. What is
the same for many sockets is read and encoded once per message and process, and then written
to each socket that wants it: the entries of the public games that changed (``GAMES_CHANGED``,
to the sockets that asked for changes; the changes of a busy moment together, at most a few
frames a second), the connected players, a chat line. A socket that needs
a message of its own (its whole list with its private games, a private game's change) gets
the message in its inbox and handles it in turn, as before (``lobby.consumers``).

The reads are shared too (``LobbyHub.read``): the lists a socket asks for (the games for its
filters, who is online, the chat's last lines) are read once for all the sockets that ask
between two changes of what they list, and for at most ``READ_SECONDS``. Thousands of
sockets opening at once, after a restart, cost a read per list, not one per socket.

A socket handles one message at a time (``ProtocolConsumer.turn``): a frame for a socket that
is busy waits in its inbox behind the message it handles, so what it sends keeps its order.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Protocol

from channels.db import database_sync_to_async

from games import broadcast, wire
from games.fanout import Frame
from lobby.lists import changes_frame, game_entries, players_frame

logger = logging.getLogger(__name__)

FRAME = "lobby.frame"  # an inbox message: a frame made for this socket, to send as it is
READ_SECONDS = 1.0  # the longest a read is shared (what changes unannounced shows by then)
# Public games' changes within this long of the last ones sent go out as one (``public_change``)
COALESCE_SECONDS = 0.25
# What a read lists; a message about one makes the next read of it a new one.
GAMES, PLAYERS, HISTORY = "games", "players", "history"
TOPIC_OF = {"lobby.games": GAMES, "lobby.players": PLAYERS, "chat.line": HISTORY}


class LobbySocket(Protocol):
    """What the hub needs of a lobby socket (``lobby.consumers.LobbyConsumer``)."""

    channel_name: str
    user: object  # its user (``pk``)
    changes: bool  # asked for GAMES_CHANGED
    status_filter: str | None
    kind_filter: str | None
    follows_players: bool
    turn: asyncio.Lock  # held while the socket handles a message
    inbox: asyncio.Queue  # messages it handles in turn

    async def send(self, text_data: str | None = None) -> None: ...


class LobbyHub:
    """The lobby sockets of one channel layer and event loop, and the group's messages."""

    def __init__(self, layer) -> None:
        self.layer = layer
        self.sockets: dict[str, LobbySocket] = {}  # by channel name, in the order they came
        self.listener: asyncio.Task | None = None
        self.channel: asyncio.Future[str] | None = None  # the listener's, once it has one
        self.versions = dict.fromkeys((GAMES, PLAYERS, HISTORY), 0)
        self.reads: dict[tuple, tuple[int, float, asyncio.Future]] = {}
        self.sent_at: float | None = None  # when public games' changes last went out
        # Public games whose changes wait for their time, with the last message of each
        self.due: dict[int, dict] = {}
        self.sending: set[asyncio.Task] = set()  # those changes being sent

    def changed(self, *topics: str) -> None:
        """What ``topics`` list changed: the next read of each is a new one."""
        for topic in topics or self.versions:
            self.versions[topic] += 1

    async def read(self, topic: str, key: tuple, read, *args):
        """``read(*args)`` in the database thread, shared by every socket that asks for the
        same ``key`` until ``topic`` changes (or ``READ_SECONDS`` pass). A read that failed
        is forgotten; its askers get the error as if each had read."""
        loop = asyncio.get_running_loop()
        version, found = self.versions[topic], self.reads.get((topic, *key))
        if found is None or found[0] != version or loop.time() - found[1] > READ_SECONDS:
            future = asyncio.ensure_future(database_sync_to_async(read)(*args))
            found = self.reads[(topic, *key)] = (version, loop.time(), future)
            future.add_done_callback(lambda done: self._settled((topic, *key), done))
        # One socket closing while it waits does not cancel the others' read.
        return await asyncio.shield(found[2])

    def _settled(self, key: tuple, done: asyncio.Future) -> None:
        # ``exception()`` retrieves the error: no stray log when every waiter has gone.
        failed = done.cancelled() or done.exception() is not None
        if failed and (found := self.reads.get(key)) is not None and found[2] is done:
            del self.reads[key]

    async def join(self, socket: LobbySocket) -> None:
        self.sockets[socket.channel_name] = socket
        if self.listener is None:
            # Set before the first await: sockets opening together share one listener.
            self.channel = asyncio.get_running_loop().create_future()
            self.listener = asyncio.create_task(self.listen(self.channel))
        channel = await asyncio.shield(self.channel)
        # Again for every socket: memberships of channels' in-memory layer expire (a day).
        await self.layer.group_add(broadcast.LOBBY_GROUP, channel)

    async def leave(self, socket: LobbySocket) -> None:
        if self.sockets.pop(socket.channel_name, None) is None or self.sockets:
            return
        listener, channel = self.listener, self.channel
        self.listener = self.channel = None  # a socket that comes meanwhile starts anew
        if listener is not None:
            listener.cancel()
        # (A socket joining meanwhile is in ``sockets`` already: the listener was not named
        # and stopped while anyone waited for its channel.)
        settled = channel is not None and channel.done() and not channel.cancelled()
        if settled and channel.exception() is None:
            await self.layer.group_discard(broadcast.LOBBY_GROUP, channel.result())

    async def listen(self, named: asyncio.Future[str]) -> None:
        try:
            channel = await self.layer.new_channel()
        except Exception as error:  # the sockets waiting hear it; the next one tries again
            named.set_exception(error)
            if self.channel is named:
                self.listener = self.channel = None
            raise
        named.set_result(channel)
        while True:
            message = await self.layer.receive(channel)
            try:
                await self.hand_on(message)
            except Exception:
                logger.exception("lobby: handing on %s failed", message.get("type"))

    async def hand_on(self, message: dict) -> None:
        kind = message.get("type")
        if kind == "layer.resumed":
            self.changed()  # what was published meanwhile is lost: read everything anew
            return  # every socket hears it on its own channel
        if kind in TOPIC_OF:
            self.changed(TOPIC_OF[kind])
        if kind == "lobby.games" and message.get("users") is None and "game" in message:
            await self.public_change(message)
        elif kind == "lobby.players" and message.get("change") is not None:
            await self.players_changed(message)
        elif kind == "chat.line":
            await self.to_all(Frame(wire.dumps({**message, "type": "CHAT"})))
        elif kind == "lobby.games" and message.get("users") is not None:
            # A private game's change: only its players' sockets list it, and only they wake.
            users = set(message["users"])
            for socket in tuple(self.sockets.values()):
                if socket.user.pk in users:
                    socket.inbox.put_nowait(message)
        else:
            for socket in tuple(self.sockets.values()):
                socket.inbox.put_nowait(message)

    async def to_all(self, frame: Frame) -> None:
        for socket in tuple(self.sockets.values()):
            if not push(socket, frame):
                await send_through(socket, frame)

    async def public_change(self, message: dict) -> None:
        """A public game changed. Its change goes out at once, unless public games' changes
        went out less than ``COALESCE_SECONDS`` ago: then the changes that come meanwhile, of
        any public game, go out as one frame at the end of that time, each game read as it is
        then. A busy site's creations, seats and ends (or one game joined and left over and
        over) cost every lobby socket at most a few frames a second, however many changes."""
        if self.due:
            self.due[message["game"]] = message  # it goes out with the changes due
            return
        loop = asyncio.get_running_loop()
        if self.sent_at is not None and (wait := self.sent_at + COALESCE_SECONDS - loop.time()) > 0:
            self.due[message["game"]] = message
            loop.call_later(wait, self._send_due)
            return
        await self.send_changes({message["game"]: message})

    def _send_due(self) -> None:
        due, self.due = self.due, {}
        task = asyncio.get_running_loop().create_task(self.send_changes(due))
        self.sending.add(task)  # the loop keeps only weak references to its tasks
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task) -> None:
        self.sending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("lobby: games' changes failed", exc_info=task.exception())

    async def send_changes(self, messages: dict[int, dict]) -> None:
        """Public games' changes (their messages by game id): their entries to the sockets
        that asked for changes, read once and encoded once for each filter; the last message
        to the others, which read their whole list again."""
        self.sent_at = asyncio.get_running_loop().time()
        sockets = tuple(self.sockets.values())
        entries: dict[int, dict | None] = {}
        if any(socket.changes for socket in sockets):
            ids = tuple(messages)
            entries = await self.read(GAMES, ("entries", *ids), game_entries, ids)
        last = next(reversed(messages.values()))
        frames: dict[tuple, Frame] = {}
        for socket in sockets:
            if not socket.changes:
                socket.inbox.put_nowait(last)
                continue
            key = (socket.status_filter, socket.kind_filter)
            frame = frames.get(key)
            if frame is None:
                frame = frames[key] = Frame(changes_frame(entries, *key))
            if not push(socket, frame):
                await send_through(socket, frame)

    async def players_changed(self, message: dict) -> None:
        """Who is online changed: the list read and encoded once, for every socket that
        follows it but the one whose arrival or departure it is."""
        followers = [
            socket
            for socket in tuple(self.sockets.values())
            if socket.follows_players and socket.channel_name != message.get("sender")
        ]
        if followers:
            frame = Frame(await self.read(PLAYERS, (), players_frame))
            for socket in followers:
                if not push(socket, frame):
                    await send_through(socket, frame)


def push(socket: LobbySocket, frame: Frame) -> bool:
    """Send ``frame`` now, or, while the socket handles a message, after it: True; False
    when it must go through the socket's own ``send`` (``send_through``). Synchronous: a
    change written to thousands of sockets makes no coroutine for each."""
    if socket.turn.locked() or not socket.inbox.empty():
        socket.inbox.put_nowait({"type": FRAME, "frame": frame.text})
        return True
    try:
        return frame.write(socket)
    except Exception:  # one socket's failure does not keep the frame from the others
        logger.exception("lobby: a frame to %s failed", socket.channel_name)
        return True


async def send_through(socket: LobbySocket, frame: Frame) -> None:
    """``frame`` through the socket's own ``send``, as its one message handled now."""
    try:
        async with socket.turn:  # taken at once: it is free (no task switch)
            await socket.send(text_data=frame.text)
    except Exception:
        logger.exception("lobby: a frame to %s failed", socket.channel_name)


_hubs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def hub_of(layer) -> LobbyHub:
    """The hub of ``layer`` on the running event loop (a test has a loop and a layer of its
    own; a server process has one of each)."""
    loop = asyncio.get_running_loop()
    by_loop = _hubs.setdefault(layer, weakref.WeakKeyDictionary())
    found = by_loop.get(loop)
    if found is None:
        found = by_loop[loop] = LobbyHub(layer)
    return found
