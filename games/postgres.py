"""PostgreSQL connections: timestamps parsed by psycopg's C loader.

Django reads ``timestamptz`` with a Python subclass of psycopg's loader (so that it can set
the time zone), about 6 µs a value against 0.7 µs for psycopg's own loader, which is in C
and cannot be subclassed. A move reads about ten timestamps. With the session in UTC, as
Django sets it when ``USE_TZ`` is on, the C loader's datetimes are the ones Django's would
give: ``fast_timestamps`` registers a loader that Django takes for its own (it has the
``timezone`` Django checks) and hands the parsing to the C one.
"""

from __future__ import annotations

import datetime

from django.db.backends.postgresql.psycopg_any import BaseTzLoader
from psycopg import adapters, postgres
from psycopg.pq import Format

TIMESTAMPTZ = postgres.types["timestamptz"].oid
_PSYCOPG_LOADER = adapters.get_loader(TIMESTAMPTZ, Format.TEXT)  # in C where psycopg has it


class UtcTimestampLoader(BaseTzLoader):
    timezone = datetime.UTC

    def __init__(self, oid, context=None):
        super().__init__(oid, context)
        self._load = _PSYCOPG_LOADER(oid, context).load

    def load(self, data):
        return self._load(data)  # aware, in the session's time zone: UTC


def fast_timestamps(sender, connection, **kwargs) -> None:
    """``connection_created``: the fast loader, where the session's time zone is UTC."""
    if connection.vendor != "postgresql" or connection.timezone != datetime.UTC:
        return
    raw = connection.connection
    if raw.info.parameter_status("TimeZone") == "UTC":
        raw.adapters.register_loader(TIMESTAMPTZ, UtcTimestampLoader)
