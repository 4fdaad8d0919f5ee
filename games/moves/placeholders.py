"""Statements sent with PostgreSQL's own numbered placeholders (``$1``, ``$2`` ...) instead of
``%s``: ``numbered`` converts a statement's text once, and ``numbered_cursor`` is a Django
cursor that sends every statement so (``games.moves.sql``, ``games.moves.on_loop``)."""

from __future__ import annotations

import functools

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections


class NumberedCursor(psycopg.RawCursor):
    """Sends ``%s`` placeholders as PostgreSQL's own, ``$1``, ``$2`` ..., numbered once per
    statement text (``numbered``). Django's query log above it reads the ``%s`` form."""

    def execute(self, query, params=None, **kwargs):
        return super().execute(numbered(query), params, **kwargs)


def numbered_cursor():
    """A Django cursor (its error wrapping, its query log) over a ``NumberedCursor``."""
    db = connections[DEFAULT_DB_ALIAS]
    db.ensure_connection()
    db.validate_thread_sharing()
    raw = NumberedCursor(db.connection)
    return db.make_debug_cursor(raw) if db.queries_logged else db.make_cursor(raw)


@functools.lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """``sql`` (whose only ``%`` are its ``%s`` placeholders) with ``$1``, ``$2`` ... instead.

    psycopg turns ``%s`` into those itself, but keeps the result only for statements of at
    most 4 kB and 50 parameters: a move's write statement is longer, and was parsed again
    for every move (a tenth of a move's time in its worker thread).
    """
    pieces = sql.split("%s")
    numbered = (f"{piece}${index}" for index, piece in enumerate(pieces[:-1], start=1))
    return "".join(numbered) + pieces[-1]
