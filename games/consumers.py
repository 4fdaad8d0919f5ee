"""The game socket (``/ws/games/<id>/``).

It parses frames, calls a service or a selector and formats the answer; the rules live in the
engine, state changes in ``games.services`` and ``games.moves``. What every socket shares
(parsing, limits, ``ERROR``, the socket's language) is ``games.protocol``. The protocol is in
docs/protocol.md.

Every client frame gets at most one direct answer (``ACK``, ``ERROR``, ``STATE`` for ``SYNC``,
...).

What a game socket receives from the channel layer (``games.broadcast``):

* ``game.update`` (game group): one ``EVENT`` per event, with a sentence for the activity
  feed in the socket's language, then the ``STATE`` frame that was computed for this
  socket's seat (or for spectators) after the commit: only that one of the message's frames.
* ``presence.changed`` (game group, sent by the consumers themselves when a seated player's
  socket opens or closes): ``PRESENCE`` and then a fresh ``STATE``.
* ``chat.line`` (game group): ``CHAT``.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass
from datetime import timedelta

from channels.db import database_sync_to_async
from django.utils import timezone

from games import bots, broadcast, errors, feed_frames, presence, registry, selectors, wire
from games.models import Game, Seat
from games.moves import on_loop, paths
from games.protocol import CLOSE_FORBIDDEN, CLOSE_NOT_FOUND, ProtocolConsumer, Refused
from games.services.rematch import rematch_answer
from games.services.seats import game_leave, seat_take_back

# A change this old whose update a socket has not had was lost on the way (see on_beat).
MESSAGE_GRACE = timedelta(seconds=2)
OPEN_AND_CLOSE = ("websocket.connect", "websocket.disconnect")


@dataclass(frozen=True)
class Opened:
    """A game socket that may open: its game's kind, whether its user has a seat, its first
    view, whether its user came to this game and to the site, and when it was read."""

    kind: registry.GameKind
    seated: bool
    view: dict
    came: bool
    arrived: bool
    at: float


class GameRead:
    """A game as read once for every socket of it in this process that handles the same
    change: each seat's view is built from it, the onlookers' one view once."""

    SHARED_SECONDS = 1.0  # how long sockets that handle the change later still share it
    _reads: dict[tuple, asyncio.Future] = {}  # by event loop, game and change

    def __init__(self, game: Game, seats: list[Seat]) -> None:
        self.game = game
        self.state = selectors.engine_state(game)
        self.details = selectors.player_details(game, seats)
        self.extras = selectors.finished_extras(game)
        self.public: tuple[dict, str] | None = None

    @classmethod
    def read(cls, game_id: int) -> GameRead | None:
        game, seats = selectors.game_with_seats(game_id)
        return None if game is None else cls(game, seats)

    @classmethod
    async def shared(cls, game_id: int, change: tuple) -> GameRead | None:
        """The game read once per change and process (the first socket to ask reads it)."""
        loop = asyncio.get_running_loop()
        key = (id(loop), game_id, *change)
        found = cls._reads.get(key)
        if found is None or found.get_loop() is not loop:
            found = cls._reads[key] = asyncio.ensure_future(
                database_sync_to_async(cls.read)(game_id)
            )
            found.add_done_callback(
                lambda _: loop.call_later(cls.SHARED_SECONDS, cls._forget, key, found)
            )
        # One socket closing while it waits does not cancel the others' read.
        return await asyncio.shield(found)

    @classmethod
    def _forget(cls, key: tuple, read: asyncio.Future) -> None:
        if cls._reads.get(key) is read:
            del cls._reads[key]

    def view(self, user_id: int) -> tuple[dict, str | None]:
        """``user_id``'s view (their seat's, or the onlookers'), and its frame if made."""
        if user_id in self.details:
            return selectors.game_view(
                self.game, user_id, self.state, self.details, self.extras
            ), None
        if self.public is None:
            view = selectors.game_view(self.game, None, self.state, self.details, self.extras)
            self.public = view, wire.state_frame(view)
        return self.public


class GameConsumer(ProtocolConsumer):
    """``/ws/games/<id>/``: seated players get their own view, anyone else the public one."""

    # The game's moves (its kind's MOVE_TYPES) are added when the socket opens.
    reads = frozenset({"SYNC", "REQUEST_HISTORY"})
    writes = frozenset({"TAKE_SEAT_BACK", "LEAVE_GAME", "REMATCH"})
    handlers = {
        "SYNC": "on_sync",
        "CHAT": "on_chat",
        "REQUEST_HISTORY": "on_history",
        "TAKE_SEAT_BACK": "on_take_seat_back",
        "LEAVE_GAME": "on_leave_game",
        "REMATCH": "on_rematch",
    }

    async def open(self) -> None:
        self.game_id = self.scope["url_route"]["kwargs"]["game_id"]
        self.seated = False
        self.recorded = False
        self.sent_seq = -1
        self.sent_status = None
        self.fed_seq = 0  # the feed entries (EVENTs) this socket has had go up to here
        self.caught_up_seq = -1  # the feed entries up to here came with a catch-up
        self.names: dict[int, str] = {}
        await self.accept()
        # Joined before the read: every change committed after it reaches this socket. Its
        # group's messages wait while this opens (``turn``); a refused socket drops them.
        await self.join_group(broadcast.game_group(self.game_id))
        opened = await database_sync_to_async(self._enter)()
        if not isinstance(opened, Opened):
            if opened == "sealed":
                await self.send_error(
                    "sealed",
                    "today's daily challenge games are shown to their own player only until"
                    " the day is over",
                )
                await self.close(CLOSE_FORBIDDEN)
            else:
                await self.send_error("not_found", "there is no game {game}", game=self.game_id)
                await self.close(CLOSE_NOT_FOUND)
            return
        self.kind, self.seated = opened.kind, opened.seated
        if self.seated and paths.reads_ahead():
            on_loop.open_soon()
        moves = {move_type: "on_move" for move_type in self.kind.engine.MOVE_TYPES}
        self.handlers = {**moves, **type(self).handlers}
        self.joined_at = opened.at
        self.recorded = True
        self.start_heartbeat()
        if self.seated and opened.came:  # (another socket of theirs on this game told it already)
            await self.tell_presence(True)
        if opened.arrived:
            await self.tell_players_changed()
        await self.send_state(opened.view)
        self.fed_seq = opened.view["seq"]  # older entries come with REQUEST_HISTORY

    async def handle(self, message: dict) -> None:
        # A socket that was refused handles nothing more before it closes: neither what its
        # game's group sends nor what its client sent meanwhile.
        if getattr(self, "recorded", False) or message["type"] in OPEN_AND_CLOSE:
            await super().handle(message)

    async def leave(self) -> None:
        if not getattr(self, "recorded", False):
            return
        await self.depart(self.departed)

    async def departed(self) -> None:
        """This closed socket's row forgotten; a change of presence told (``depart``)."""
        still_connected, departed = await database_sync_to_async(self._exit)()
        if self.seated and not still_connected:
            await self.tell_presence(False)
        if departed:
            await self.tell_players_changed()

    # database work, run in a worker thread

    def _enter(self) -> Opened | str:
        """The socket recorded and its first view; "not_found" or "sealed" (shown to its
        players only, and the user has no seat) when it may not open."""
        at = time.time()  # before the read: a change of presence after it is news to this view
        game, seats = selectors.game_with_seats(self.game_id)
        if game is None:
            return "not_found"
        kind = registry.get(game.kind)
        seat = next((seat for seat in seats if seat.user_id == self.user.pk), None)
        if kind.glue.sealed(game) and seat is None:
            return "sealed"
        came, arrived = self.record_connection(self.game_id)
        if seat is not None:
            seat.connected = True  # as recorded now (the read came just before)
            if seat.autopilot and not seat.left:
                # Back at the table (a reload, a new device): the person plays again.
                seat_take_back(game_id=self.game_id, user=self.user)
                game, seats = self._read()
        details = selectors.player_details(game, seats)
        view = selectors.game_view(game, self.user.pk, details=details)
        return Opened(kind, seat is not None, view, came, arrived, at)

    def _exit(self) -> tuple[bool, bool]:
        """Whether the user still has a socket on this game, and whether they left the site."""
        here, anywhere = presence.forget(self.channel_name, self.user.pk, self.game_id)
        return here, not anywhere

    def _read(self) -> tuple[Game, list[Seat]]:
        """The game and its seats with their presence, in one statement."""
        game, seats = selectors.game_with_seats(self.game_id)
        if game is None:
            raise errors.NotFound("there is no game {game}", game=self.game_id)
        return game, seats

    def _view(self) -> dict:
        game, seats = self._read()
        details = selectors.player_details(game, seats)
        return selectors.game_view(game, self.user.pk, details=details)

    # client messages

    async def on_move(self, message: dict, ref: str | None) -> None:
        expect_seq = message.get("expect_seq")
        if expect_seq is not None and (
            isinstance(expect_seq, bool) or not isinstance(expect_seq, int)
        ):
            raise Refused("bad_field", "'expect_seq' must be a whole number")
        self.check_move_rate()
        result = await paths.apply_move(
            game_id=self.game_id, user=self.user, move=message, expect_seq=expect_seq
        )
        # The update itself reaches every client (this one too) through its group.
        await self.send_json({"type": "ACK", "ref": ref, "seq": result.seq})

    async def on_sync(self, message: dict, ref: str | None) -> None:
        # A bot turn lost to a crashed server is taken up here (at once if none is due).
        await database_sync_to_async(bots.kick)(self.game_id)
        await self.send_state(await database_sync_to_async(self._view)())

    async def on_chat(self, message: dict, ref: str | None) -> None:
        await self.post_chat(message, self.game_id)

    async def on_take_seat_back(self, message: dict, ref: str | None) -> None:
        seq = await database_sync_to_async(seat_take_back)(game_id=self.game_id, user=self.user)
        await self.send_json({"type": "ACK", "ref": ref, "seq": seq})

    async def on_leave_game(self, message: dict, ref: str | None) -> None:
        game = await database_sync_to_async(game_leave)(game_id=self.game_id, user=self.user)
        await self.send_json({"type": "ACK", "ref": ref, "seq": game.seq})

    async def on_rematch(self, message: dict, ref: str | None) -> None:
        rematch = await database_sync_to_async(rematch_answer)(
            game_id=self.game_id, user=self.user, accept=message.get("accept", True)
        )
        # Every socket of the game (this one too) gets its STATE with the offer as it stands.
        await self.send_json({"type": "ACK", "ref": ref, "seq": rematch.game.seq})

    async def on_history(self, message: dict, ref: str | None) -> None:
        events, chat = await database_sync_to_async(self._history)()
        entries = self.feed_entries([event for _, event in events])
        await self.send_json(
            {
                "type": "HISTORY",
                "events": [
                    {"seq": seq, "event": entry}
                    for (seq, _), entry in zip(events, entries, strict=True)
                ],
                "chat": chat,
            }
        )

    def _history(self) -> tuple[list[tuple[int, dict]], list[dict]]:
        # Names of everyone seated now: some may have joined after this socket's last STATE.
        seats = Seat.objects.filter(game_id=self.game_id).select_related("user")
        self.names.update({seat.user_id: seat.user.get_username() for seat in seats})
        chat = [broadcast.chat_line(line) for line in selectors.chat_history(self.game_id)]
        return selectors.event_history(self.game_id), chat

    # channel-layer messages

    async def game_update(self, message: dict) -> None:
        players = dict(message["players"])  # user id -> name
        # A spectator may have taken a seat meanwhile, or a player given theirs back before
        # the deal: the frame is chosen by the seats of this update.
        self.seated = self.user.pk in players
        self.names.update(players)
        if message["seq"] > self.caught_up_seq:  # else a catch-up has sent these already
            # Made once in this process for every socket with this language and these names.
            frames = feed_frames.event_frames(
                self.kind, self.language, self.names, message["seq"], message["events"]
            )
            for frame in frames:
                await self.send_frame(frame)
            self.fed_seq = max(self.fed_seq, message["seq"])
        # A STATE fetched for a presence change may already be newer than this update.
        if message["seq"] < self.sent_seq:
            return
        frame = message["frames"].get(str(self.user.pk)) if self.seated else message["public"]
        if frame is None:  # a computer player's own socket: its seat has no frame
            await self.send_state(await database_sync_to_async(self._view)())
            return
        self.sent_seq, self.sent_status = message["seq"], message["status"]
        await self.send(text_data=frame)
        if self.user.pk in message.get("movers", ()) and paths.reads_ahead():
            on_loop.prefetch(self.game_id, message["seq"])

    beats_on = True

    async def on_beat(self) -> None:
        """Send what this socket missed: changes whose update never came (lost in the channel
        layer, as when Redis restarts) are noticed within a beat, with their feed entries."""
        await self.catch_up(MESSAGE_GRACE)

    async def layer_resumed(self, message: dict) -> None:
        """Redis is back: the updates of other processes published meanwhile are lost, and
        any update still on its way comes after this (its process published it after Redis
        had this process's subscriptions again), so catch up at once, without the grace."""
        await self.catch_up(timedelta(0))

    async def catch_up(self, grace: timedelta) -> None:
        missed = await database_sync_to_async(self._missed)(grace)
        if missed is None:
            return
        events, view = missed
        entries = self.feed_entries([event for _, event in events])
        for (seq, _), entry in zip(events, entries, strict=True):
            await self.send_json({"type": "EVENT", "seq": seq, "event": entry})
            self.caught_up_seq = self.fed_seq = max(self.fed_seq, seq)
        news = (view["seq"], view["status"]) != (self.sent_seq, self.sent_status)
        if news and view["seq"] >= self.sent_seq:
            await self.send_state(view)

    def _missed(self, grace: timedelta) -> tuple[list[tuple[int, dict]], dict] | None:
        settled = timezone.now() - grace
        games = Game.objects.filter(pk=self.game_id, updated__lt=settled)
        latest = games.values_list("seq", "status").first()
        if latest is None:
            return None
        # A SYNC may have brought the state already, but not the feed entries.
        if latest[0] <= self.fed_seq and latest == (self.sent_seq, self.sent_status):
            return None
        game = Game.objects.filter(pk=self.game_id).first()
        if game is None:
            return None
        events = selectors.event_history(self.game_id, after_seq=self.fed_seq)
        return events, selectors.game_view(game, self.user.pk)

    async def presence_changed(self, message: dict) -> None:
        if paths.reads_ahead():  # the read ahead knew the presence before this change
            on_loop.forget(self.game_id)
        if message.get("sender") == self.channel_name:
            return
        if message.get("at", math.inf) < self.joined_at:
            # Older than this socket (Redis pub/sub hands a group's messages to the members
            # it has when they arrive): the STATE this socket opened with knew it already.
            return
        await self.send_json(
            {"type": "PRESENCE", "player": message["player"], "connected": message["connected"]}
        )
        # Every socket of the game hears the change: this process reads the game once for
        # all of its own (a table with fifty onlookers, one read), each builds its view.
        change = (message["player"], message["connected"], message.get("at"), message["sender"])
        read = await GameRead.shared(self.game_id, change)
        if read is None:
            return
        view, frame = read.view(self.user.pk)
        if view["seq"] >= self.sent_seq:
            await self.send_state(view, frame)

    # helpers

    async def tell_presence(self, connected: bool) -> None:
        await self.channel_layer.group_send(
            broadcast.game_group(self.game_id),
            {
                "type": "presence.changed",
                "player": self.user.pk,
                "connected": connected,
                "sender": self.channel_name,
                "at": time.time(),
            },
        )

    async def send_state(self, view: dict, frame: str | None = None) -> None:
        """``view``'s ``STATE`` (``frame``: its text, if made already)."""
        self.sent_seq, self.sent_status = view["seq"], view["status"]
        self.names.update({row["id"]: row.get("name", "") for row in view["players"]})
        await self.send(text_data=frame or wire.state_frame(view))

    def feed_entries(self, events: list[dict]) -> list[dict]:
        """The feed's entries of ``events``, in the socket's language (switched to once)."""
        return feed_frames.entries(self.kind, self.language, self.names, events)
