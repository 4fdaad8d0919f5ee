"""Who is connected where: a ``Connection`` row per open socket (``games.models``), read by
the game views (a seat's ``connected``) and the lobby's list of players online.

A socket records its row when it opens and forgets it when it closes; its beat keeps it live
(``ProtocolConsumer.beat``). Rows of sockets whose server died stop counting after
``PRESENCE_TTL`` (``live``) and are deleted when a socket opens, at most once every
``PRESENCE_BEAT`` per process.
"""

from __future__ import annotations

import functools
import math
import time

from django.conf import settings
from django.db import connection
from django.utils import timezone

from games import rows
from games.models import Connection
from games.moves import sql

_stale_dropped = -math.inf  # time.monotonic() when this process last deleted stale rows


def record(channel_name: str, user, game_id: int | None) -> bool:
    """Record a socket of ``user`` (on game ``game_id``, or elsewhere: None); True if the
    user had no other live socket on the site."""
    drop_stale()
    was_connected = live_sockets(user.pk, None)[1]
    # Written without the ORM's compiler, as a move's rows are (nothing refers to the row,
    # no signal watches it).
    sql.insert([Connection(channel_name=channel_name, user=user, game_id=game_id)])
    return not was_connected


def forget(channel_name: str, user_id: int, game_id: int | None) -> tuple[bool, bool]:
    """Forget a socket of user ``user_id``: as ``live_sockets`` says after that."""
    sql.delete_where(Connection, {"channel_name": channel_name})
    return live_sockets(user_id, game_id)


def drop_stale() -> None:
    """Delete the rows of sockets whose server died, unless this process did lately."""
    global _stale_dropped
    now = time.monotonic()
    if now - _stale_dropped < settings.PRESENCE_BEAT.total_seconds():
        return
    _stale_dropped = now
    Connection.objects.stale().delete()


def live_sockets(user_id: int, game_id: int | None) -> tuple[bool, bool]:
    """Whether user ``user_id`` has a live socket on game ``game_id`` (False for None), and
    whether they have one anywhere on the site: one statement."""
    since = timezone.now() - settings.PRESENCE_TTL
    params = [user_id, since, game_id, user_id, since]
    [(here, anywhere)] = rows.fetch_rows(_live_sockets_sql(), params)
    return bool(here), bool(anywhere)  # SQLite answers 0 or 1


@functools.cache
def _live_sockets_sql() -> str:
    meta, quote = Connection._meta, connection.ops.quote_name
    column = {name: quote(meta.get_field(name).column) for name in ("user", "game", "seen")}
    live = (
        f"SELECT 1 FROM {quote(meta.db_table)} live WHERE live.{column['user']} = %s"
        f" AND live.{column['seen']} >= %s"
    )
    return f"SELECT EXISTS ({live} AND live.{column['game']} = %s), EXISTS ({live})"
