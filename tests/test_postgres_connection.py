"""PostgreSQL connections read timestamps with psycopg's C loader (games.postgres),
and get exactly the datetimes Django's own loader gives."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.db.backends.postgresql.psycopg_any import register_tzloader
from psycopg.pq import Format

from games.models import Game
from games.postgres import TIMESTAMPTZ, UtcTimestampLoader

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL connection"),
]

SAMPLES = [
    "2026-11-25 18:23:51.242681+01",
    "2026-03-29 01:59:59.999999+00",  # Zurich's clocks go forward an hour later
    "1999-12-31 23:00:00-05",
    "2000-02-29 12:00:00+14",
    "0001-01-01 00:00:00+00",
]


def read(cursor) -> list[datetime.datetime]:
    cursor.execute(
        "SELECT value::timestamptz FROM unnest(%s::text[]) WITH ORDINALITY AS s(value, n)"
        " ORDER BY n",
        [SAMPLES],
    )
    return [value for (value,) in cursor.fetchall()]


def test_timestamps_are_read_by_the_fast_loader_as_django_reads_them(people):
    connection.ensure_connection()
    assert connection.connection.adapters.get_loader(TIMESTAMPTZ, Format.TEXT) is UtcTimestampLoader
    with connection.cursor() as cursor:
        fast = read(cursor)
    with connection.cursor() as cursor:
        register_tzloader(datetime.UTC, cursor)  # Django's own loader, on this cursor only
        assert cursor.cursor.adapters.get_loader(TIMESTAMPTZ, Format.TEXT) is not (
            UtcTimestampLoader
        )
        django = read(cursor)
    assert fast == django
    assert all(value.tzinfo is datetime.UTC for value in fast)
    assert fast[0] == datetime.datetime(2026, 11, 25, 17, 23, 51, 242681, tzinfo=datetime.UTC)
    # And through the ORM: a game's creation time comes back as it was stored.
    game = Game.objects.create(name="Rhein", max_players=2, creator=people[0], seed=1)
    assert Game.objects.get(pk=game.pk).created == game.created
