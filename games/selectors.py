"""Reads: what a client may see of games. Every view of a game state goes through here."""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable, Sequence

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from games import registry, rows
from games.models import ChatMessage, Connection, Event, Game, Rematch, Seat

# What a list of games leaves unread: a game's state (kilobytes of JSON each), which no
# summary shows.
NOT_SUMMARIZED = ("state",)


def game_summary(game: Game, seat_count: int | None = None) -> dict:
    """A lobby list item (protocol: ``GET /api/games/``). ``seat_count``: else the game's
    ``seat_count`` if a query annotated it or a service that knew it set it, else counted."""
    if seat_count is None:
        seat_count = getattr(game, "seat_count", None)
    if seat_count is None:
        seat_count = game.seats.count()
    return {
        "id": game.pk,
        "name": game.name,
        "kind": game.kind,
        "options": game.options,
        "status": game.status,
        "players": seat_count,
        "max_players": game.max_players,
        "pace": game.pace,
        "turn_seconds": game.turn_seconds,
        "created": game.created.isoformat(),
        "finished": game.finished.isoformat() if game.finished else None,
    }


def day_name(kind: str, options: object) -> dict | None:
    """The parts of the name shown for a game of a day (``GameKind.day_name``) in the active
    language: ``before``, ``day`` (``YYYY-MM-DD``), ``date`` and ``after``; None for a game
    shown by its own name."""
    day = options.get("day") if isinstance(options, dict) else None
    found = registry.KINDS.get(kind)
    template = str(found.day_name) if found is not None and isinstance(day, str) else None
    if not template:
        return None
    try:
        date = datetime.date.fromisoformat(day)
    except ValueError:
        return None
    before, _, after = template.partition("%(day)s")
    return {"before": before, "day": day, "date": date, "after": after}


def _seat_columns() -> tuple[str, str]:
    """A seat's select list with its username and presence (``live.seen >= %s``, the one
    parameter), and the join of its account; only table and column names are formatted in."""
    user_meta = get_user_model()._meta
    username = user_meta.get_field(get_user_model().USERNAME_FIELD).column
    select = f"""{rows.columns(Seat, "seat")}, account.{username}, EXISTS (
            SELECT 1 FROM {Connection._meta.db_table} live
            WHERE live.game_id = seat.game_id AND live.user_id = seat.user_id
              AND live.seen >= %s
        )"""
    join = f"{user_meta.db_table} account ON account.{user_meta.pk.column} = seat.user_id"
    return select, join


def _with_presence(row: Sequence) -> Seat:
    """A seat from the columns of ``_seat_columns``."""
    count = len(Seat._meta.concrete_fields)
    seat = rows.build(Seat, row[:count])
    seat.username = row[count]
    seat.connected = bool(row[count + 1])  # SQLite answers 0 or 1
    return seat


SEAT_ORDER = "seat.turn_order, seat.joined, seat.id"
JOINING_ORDER = "seat.joined, seat.id"


def seats_in_joining_order(game_id: int) -> list[Seat]:
    """``seats_with_presence`` in the order their players joined (the deal's order): the join
    and the deal read them under their game's lock, and the deal's broadcast reads them no
    more."""
    params = [timezone.now() - settings.PRESENCE_TTL, game_id]
    rows_found = rows.fetch_rows(_presence_sql(JOINING_ORDER), params)
    return [_with_presence(row) for row in rows_found]


def seats_with_presence(game_id: int) -> list[Seat]:
    """A game's seats, each with ``username`` and ``connected`` (a live socket on this game).

    Raw SQL: every move reads this, and Django takes longer to compile the same query (a
    join and an EXISTS) than the database takes to answer it.
    """
    params = [timezone.now() - settings.PRESENCE_TTL, game_id]
    return [_with_presence(row) for row in rows.fetch_rows(_presence_sql(SEAT_ORDER), params)]


@functools.cache  # the statement's text is the same for every game: built once
def _presence_sql(order: str) -> str:
    select, account = _seat_columns()
    return f"""SELECT {select} FROM {Seat._meta.db_table} seat JOIN {account}
        WHERE seat.game_id = %s ORDER BY {order}"""


def seats_with_offer(game_id: int) -> tuple[list[Seat], Rematch | None]:
    """``seats_with_presence`` and the game's offer to play again (None: there is none yet),
    in one statement. The offer is read as committed, not locked: it is written only by
    whoever holds its game's lock (``games.services.rematch``), as its caller does."""
    params = [timezone.now() - settings.PRESENCE_TTL, game_id]
    found = rows.fetch_rows(_seats_offer_sql(), params)
    count = len(Seat._meta.concrete_fields) + 2  # a seat's columns, its username and presence
    offer = None
    if found and found[0][count] is not None:
        offer = rows.build(Rematch, found[0][count:])
    return [_with_presence(row[:count]) for row in found], offer


@functools.cache
def _seats_offer_sql() -> str:
    select, account = _seat_columns()
    offer = Rematch._meta
    return f"""SELECT {select}, {rows.columns(Rematch, "offer")}
        FROM {Seat._meta.db_table} seat JOIN {account}
        LEFT JOIN {offer.db_table} offer ON offer.{offer.pk.column} = seat.game_id
        WHERE seat.game_id = %s ORDER BY {SEAT_ORDER}"""


def versioned_game_with_seats(game_id: int) -> tuple[Game | None, list[Seat]]:
    """A game read without a lock, with its row's version for a guarded write (PostgreSQL),
    and its seats as ``seats_with_presence`` reads them: one statement, one consistent read.

    The game's columns come again in each seat's row (a game has at most eight seats).
    """
    return versioned_from_rows(rows.fetch_rows(*versioned_query(game_id)))


def versioned_query(game_id: int) -> tuple[str, list]:
    """The statement of ``versioned_game_with_seats`` and its parameters."""
    return _game_seats_sql(True), [timezone.now() - settings.PRESENCE_TTL, game_id]


def versioned_from_rows(found: list[tuple]) -> tuple[Game | None, list[Seat]]:
    """The game and seats of ``versioned_game_with_seats`` from its statement's rows."""
    return _from_rows(found, True)


def versioned_game_seats_offer(game_id: int) -> tuple[Game | None, list[Seat], Rematch | None]:
    """``versioned_game_with_seats`` and the game's offer to play again (None: none yet), in
    one statement: a guarded answer of "Play again" (``games.services.rematch``)."""
    params = [timezone.now() - settings.PRESENCE_TTL, game_id]
    found = rows.fetch_rows(_game_seats_sql(True, offer=True), params)
    count = len(Rematch._meta.concrete_fields)  # the offer's columns come last in each row
    game, seats = versioned_from_rows([row[:-count] for row in found])
    offer = None
    if found and found[0][-count] is not None:
        offer = rows.build(Rematch, found[0][-count:])
    return game, seats, offer


def game_with_seats(game_id: int) -> tuple[Game | None, list[Seat]]:
    """A game and its seats as ``seats_with_presence`` reads them (what its views show), in
    one statement: ``versioned_game_with_seats`` without the version, on any database."""
    params = [timezone.now() - settings.PRESENCE_TTL, game_id]
    return _from_rows(rows.fetch_rows(_game_seats_sql(False), params), False)


def _from_rows(found: list[tuple], versioned: bool) -> tuple[Game | None, list[Seat]]:
    if not found:
        return None, []
    count = len(Game._meta.concrete_fields)
    game = rows.build(Game, found[0][:count])
    if versioned:
        game._row_version = found[0][count]
        count += 1
    # A game without seats comes as one row whose seat columns are NULL.
    seats = [_with_presence(row[count:]) for row in found if row[count] is not None]
    return game, seats


@functools.cache
def _game_seats_sql(versioned: bool, offer: bool = False) -> str:
    select, account = _seat_columns()
    meta, offer_meta = Game._meta, Rematch._meta
    version = f", game.{rows.VERSION}" if versioned else ""
    offer_columns, offer_join = "", ""
    if offer:  # its columns last in every row
        offer_columns = f", {rows.columns(Rematch, 'offer')}"
        offer_join = f"""LEFT JOIN {offer_meta.db_table} offer
            ON offer.{offer_meta.pk.column} = game.{meta.pk.column}"""
    return f"""SELECT {rows.columns(Game, "game")}{version}, {select}{offer_columns}
        FROM {meta.db_table} game
        LEFT JOIN {Seat._meta.db_table} seat ON seat.game_id = game.{meta.pk.column}
        LEFT JOIN {account} {offer_join}
        WHERE game.{meta.pk.column} = %s ORDER BY {SEAT_ORDER}"""


def player_details(game: Game, seats: list[Seat] | None = None) -> dict[int, dict]:
    """Names, bot flags and presence of the seated players, by user id.

    ``seats`` with their users, if the caller has them already (presence is read again
    unless they come from ``seats_with_presence``).
    """
    if seats is None or not all(hasattr(seat, "connected") for seat in seats):
        seats = seats_with_presence(game.pk)
    return {
        seat.user_id: {
            "name": seat.username,
            "is_bot": seat.is_bot,
            "autopilot": seat.autopilot,
            "left": seat.left,
            "connected": seat.connected,
        }
        for seat in seats
    }


def timer_fields(game: Game) -> dict:
    deadline = game.turn_deadline
    return {
        "private": game.private,
        "turn_seconds": game.turn_seconds,
        "pace": game.pace,
        "turn_deadline": deadline.isoformat() if deadline and game.is_playing else None,
    }


def decorate(view: dict, game: Game, details: dict[int, dict]) -> dict:
    """Add what the engine does not know: the game's id and name, player names, presence,
    the turn timer."""
    view["game_id"] = game.pk
    view["kind"] = game.kind
    view["options"] = game.options
    view["name"] = game.name
    view.update(timer_fields(game))
    view["status"] = game.status  # ABORTED is the site's, not the engine's
    view["seq"] = game.seq  # so is the move that aborted it
    if game.status == Game.Status.ABORTED:
        view["current_player"], view["turn"], view["legal"] = None, None, []
    for row in view["players"]:
        row.update(details.get(row["id"], {}))
    for row in view.get("results") or []:
        row["name"] = details.get(row["player"], {}).get("name", "")
    return view


def waiting_view(game: Game, details: dict[int, dict], user_id: int | None) -> dict:
    """A game that has not been dealt yet: its seats, and an empty table."""
    kind = registry.get(game.kind)
    glue = kind.glue
    return {
        "game_id": game.pk,
        "kind": game.kind,
        "options": game.options,
        "name": game.name,
        "status": game.status,
        "seq": game.seq,
        "max_players": game.max_players,
        "min_players": kind.min_players,
        "creator": game.creator_id,
        "current_player": None,
        **glue.waiting_table(game),
        "players": [{"id": uid, **glue.waiting_player(), **info} for uid, info in details.items()],
        "legal": [],
        **timer_fields(game),
        **({"you": {"player_id": user_id}} if user_id in details else {}),
    }


def engine_state(game: Game):
    """The engine state of ``game`` (None before the deal)."""
    return None if game.state is None else registry.get(game.kind).engine.from_dict(game.state)


def viewer_id(user: AbstractBaseUser | None) -> int | None:
    return user.pk if user is not None and user.is_authenticated else None


# What other apps add to a finished game's views (rankings: each results row's rating change,
# a seat's new achievements), so that ``games`` needs to know nothing of them. A hook,
# registered in its app's ``AppConfig.ready``, is ``hook(game) -> add``: it reads what it
# needs for the game once, and ``add(view, seated)`` adds it to one view (``seated``: the
# viewer's user id if they have a seat, else None).
FinishedAdd = Callable[[dict, "int | None"], None]
FINISHED_VIEW_HOOKS: list[Callable[[Game], FinishedAdd]] = []


UNREAD = object()  # ``finished_extras``: the offer to play again is to be read


def finished_extras(game: Game, offer: Rematch | object | None = UNREAD) -> FinishedAdd | None:
    """What the hooks add to every view of ``game`` (None unless it is finished): read once,
    for all the views of one broadcast. ``offer``: the game's offer to play again, if the
    caller knows it as committed (None: there is none), else it is read."""
    if game.status != Game.Status.FINISHED:
        return None
    adds = [_rematch_adder(game, offer), *(hook(game) for hook in FINISHED_VIEW_HOOKS)]

    def add(view: dict, seated: int | None) -> None:
        for one in adds:
            one(view, seated)

    return add


@functools.cache
def _rematch_sql() -> str:
    meta = Rematch._meta
    return f"""SELECT {rows.columns(Rematch, "offer")} FROM {meta.db_table} offer
        WHERE offer.{meta.pk.column} = %s"""


def rematch_view(game: Game, rematch: Rematch | None, players: list[dict]) -> dict:
    """A finished game's offer of the same game again (docs/protocol.md): who is asked (each
    person still seated), who accepted or declined, the new game once dealt; or, for a game
    that counts one attempt, the leaderboard to see instead."""
    leaderboard = registry.get(game.kind).glue.rematch_leaderboard(game)
    answers = rematch.answers if rematch is not None else {}
    return {
        "offered": leaderboard is None,
        "leaderboard": leaderboard,
        "asked": [row["id"] for row in players if not row.get("is_bot") and not row.get("left")],
        "accepted": sorted(int(user) for user, answer in answers.items() if answer is True),
        "declined": sorted(int(user) for user, answer in answers.items() if answer is False),
        "game": rematch.new_game_id if rematch is not None else None,
    }


def rematch_state(game: Game) -> dict:
    """:func:`rematch_view` of a finished game, read now."""
    seats = game.seats.values("user_id", "is_bot", "left").order_by("joined", "id")
    players = [{"id": seat["user_id"], **seat} for seat in seats]
    return rematch_view(game, Rematch.objects.filter(game_id=game.pk).first(), players)


def _rematch_adder(game: Game, offer: Rematch | object | None) -> FinishedAdd:
    if offer is UNREAD:
        found = rows.fetch(Rematch, _rematch_sql(), [game.pk])
        offer = found[0] if found else None
    rematch = offer

    def add(view: dict, seated: int | None) -> None:
        view["rematch"] = rematch_view(game, rematch, view["players"])

    return add


def game_view(
    game: Game,
    user_id: int | None,
    state=None,
    details: dict[int, dict] | None = None,
    extras: FinishedAdd | None = None,
) -> dict:
    """What user ``user_id`` may see of ``game`` (R9): their seat's view, or the public one.

    ``extras``: ``finished_extras(game)``, if the caller has read it already.
    """
    details = player_details(game) if details is None else details
    if game.state is None:
        return waiting_view(game, details, user_id)
    state = state or engine_state(game)
    seated = user_id if user_id in details else None
    view = decorate(registry.get(game.kind).engine.view(state, seated), game, details)
    extras = extras or finished_extras(game)
    if extras is not None:
        extras(view, seated)
    return view


def game_log(game: Game) -> dict:
    """A finished game's seed, players and moves: enough to replay it exactly (R2.5). A
    sealed game's seed is null until it is no longer sealed (T5.2: the day is over)."""
    state = game.state or {}
    sealed = registry.get(game.kind).glue.sealed(game)
    return {
        "game_id": game.pk,
        "kind": game.kind,
        "options": game.options,
        "board": game.board,
        "seed": None if sealed else game.seed,
        "players": [seat.user_id for seat in game.seats.order_by("joined", "id")],
        "moves": [
            {"seq": move.seq, "player": move.user_id, "move": move.payload}
            for move in game.moves.order_by("seq")
        ],
        "results": state.get("results"),
    }


HISTORY_EVENTS = 200  # feed entries a client gets on REQUEST_HISTORY, the newest ones
HISTORY_CHAT = 50  # chat lines likewise


def event_history(
    game_id: int, limit: int = HISTORY_EVENTS, after_seq: int | None = None
) -> list[tuple[int, dict]]:
    """The newest ``limit`` feed events of a game (those of moves after ``after_seq``) as
    ``(seq, event)``, oldest first."""
    events = Event.objects.filter(game_id=game_id)
    if after_seq is not None:
        events = events.filter(seq__gt=after_seq)
    events = events.order_by("-seq", "-id")[:limit]
    return [(event.seq, event.data) for event in reversed(events)]


def chat_history(game_id: int | None, limit: int = HISTORY_CHAT) -> list[ChatMessage]:
    """The newest ``limit`` chat lines of a game (or of the lobby for None), oldest first."""
    lines = ChatMessage.objects.filter(game_id=game_id).select_related("user")
    return list(reversed(lines.order_by("-created", "-id")[:limit]))
