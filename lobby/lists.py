"""The lobby's lists as its socket sends them: the games (whole, or one game's entry as it
changed) and who is online, read from the database and encoded for the wire. Shared by the
lobby socket (``lobby.consumers``), its hub (``lobby.hub``) and the lobby page
(``lobby.views``)."""

from __future__ import annotations

import datetime
import functools
from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, QuerySet

from games import broadcast, queries, rows, selectors, wire
from games.models import Connection, Game, Seat

GAMES_LISTED = 100  # the newest games; older ones are in the REST list
HISTORY_LINES = 50  # lobby chat lines sent for REQUEST_HISTORY
ENTRIES_READ = 500  # games' entries read in one statement at most


def games_list(status: str | None, kind: str | None, user_id: int) -> list[dict]:
    """The newest games ``user_id`` may see listed (private games only where they sit)."""
    return queries.lobby_games(user_id=user_id, status=status, kind=kind, limit=GAMES_LISTED)


def _newest(games: QuerySet[Game], status: str | None, kind: str | None) -> list[dict]:
    """Summaries of the newest ``GAMES_LISTED`` of ``games``, in one query."""
    games = games.defer(*selectors.NOT_SUMMARIZED).annotate(seat_count=Count("seats"))
    games = games.order_by("-created", "-id")
    if status:
        games = games.filter(status=status)
    if kind:
        games = games.filter(kind=kind)
    return [selectors.game_summary(game, game.seat_count) for game in games[:GAMES_LISTED]]


def public_games(status: str | None, kind: str | None) -> list[dict]:
    """The newest public games: the part of the list that is the same for everyone."""
    return _newest(Game.objects.filter(private=False), status, kind)


def private_games(status: str | None, kind: str | None, user_id: int) -> list[dict]:
    """The newest private games ``user_id`` sits in: the part of the list that is theirs."""
    mine = Seat.objects.filter(user_id=user_id).values("game_id")
    return _newest(Game.objects.filter(private=True, pk__in=mine), status, kind)


def game_entry(game_id: int) -> dict | None:
    """The list item of public game ``game_id``, or None when there is none."""
    return game_entries([game_id])[game_id]


def game_entries(game_ids: Sequence[int]) -> dict[int, dict | None]:
    """The list items of the public games ``game_ids``, in their order, None for a game that
    is not (or no longer) a public one. Every server process reads them for the public games
    whose changes it sends to its lobby sockets at one time (``lobby.hub``): one raw
    statement, which the query compiler took longer to build than the database to run."""
    found: dict[int, dict | None] = dict.fromkeys(game_ids)
    count, ids = len(Game._meta.concrete_fields), list(found)
    for start in range(0, len(ids), ENTRIES_READ):  # (SQLite takes at most 999 parameters)
        part = ids[start : start + ENTRIES_READ]
        for row in rows.fetch_rows(_entries_sql(len(part)), [*part, False]):
            found[row[0]] = selectors.game_summary(rows.build(Game, row[1 : count + 1]), row[-1])
    return found


@functools.lru_cache(maxsize=64)
def _entries_sql(count: int) -> str:
    """``count`` games' ids and rows without what no summary shows (NULL in its place),
    each with its seat count."""
    game, quote = Game._meta, connection.ops.quote_name
    select = ", ".join(
        "NULL" if field.name in selectors.NOT_SUMMARIZED else f"game.{quote(field.column)}"
        for field in game.concrete_fields
    )
    seat = Seat._meta
    return f"""SELECT game.{game.pk.column}, {select}, (
            SELECT COUNT(*) FROM {seat.db_table} seat
            WHERE seat.{seat.get_field("game").column} = game.{game.pk.column}
        )
        FROM {game.db_table} game
        WHERE game.{game.pk.column} IN ({", ".join(["%s"] * count)})
        AND game.{game.get_field("private").column} = %s"""


def changes_frame(entries: dict[int, dict | None], status: str | None, kind: str | None) -> str:
    """``GAMES_CHANGED`` of the games ``entries`` (by id, None for one that is not a public
    game any more) for a list filtered by ``status`` and ``kind``: the entries that the list
    shows, and the ids of the others in ``removed``."""
    games, removed = [], []
    for game_id, entry in entries.items():
        shown = (
            entry is not None
            and status in (None, entry["status"])
            and kind in (None, entry["kind"])
        )
        if shown:
            games.append(entry)
        else:
            removed.append(game_id)
    message: dict = {"type": "GAMES_CHANGED", "status": status, "games": games, "removed": removed}
    if kind:
        message["kind"] = kind
    return wire.dumps(message)


def games_message(status: str | None, kind: str | None, games: list[dict]) -> dict:
    message = {"type": "GAMES", "status": status, "games": games}
    if kind:
        message["kind"] = kind
    return message


def public_list(status: str | None, kind: str | None) -> tuple[list[dict], str]:
    """The public games and, for the sockets that have no private game to add, their
    ``GAMES`` frame, encoded once."""
    games = public_games(status, kind)
    return games, wire.dumps(games_message(status, kind, games))


def merged(public: list[dict], private: list[dict]) -> list[dict]:
    """The newest ``GAMES_LISTED`` of both parts (they have no game in common), newest first
    as the database orders them: by ``created``, then by id."""

    def newest_first(game: dict) -> tuple[datetime.datetime, int]:
        return datetime.datetime.fromisoformat(game["created"]), game["id"]

    return sorted(public + private, key=newest_first, reverse=True)[:GAMES_LISTED]


def connected_players() -> list[dict]:
    users = (
        get_user_model()
        .objects.filter(pk__in=Connection.objects.live().values("user_id"))
        .order_by("username", "id")
    )
    return [{"id": user.pk, "name": user.get_username()} for user in users]


def players_frame() -> str:
    """``CONNECTED_PLAYERS``, encoded once for every socket that follows the players."""
    return wire.dumps({"type": "CONNECTED_PLAYERS", "players": connected_players()})


def chat_history() -> list[dict]:
    """The last lobby chat lines, oldest first, as ``CHAT`` messages."""
    return [broadcast.chat_line(line) for line in selectors.chat_history(None, HISTORY_LINES)]
