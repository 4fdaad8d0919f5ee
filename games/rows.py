"""Rows read without Django's query compiler: the select list of a model's row, its values
turned into an instance exactly as a queryset would (every column through the field's
converters, then ``Model.from_db``), and a row read under a lock.

Every move reads the same few rows (the game, its seats), and building those reads through
the ORM costs several times what the database takes to run them (``bench/move_bench.py``).
The selectors read with these too; the move's writes are ``games.moves.sql``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model

M = TypeVar("M", bound=Model)


def _db():
    # The proxy ``django.db.connection`` looks the connection up again on every attribute.
    return connections[DEFAULT_DB_ALIAS]


@functools.cache
def facts():
    """A connection object of the default database that is never opened: its vendor,
    operations and converters, for code that runs on the event loop. There Django keeps a
    connection object per asyncio task (``connections`` is task-local), and every socket's
    task that asked built one of its own (5 KiB with its operations and features)."""
    return connections.create_connection(DEFAULT_DB_ALIAS)


@functools.cache
def columns(model: type[Model], alias: str) -> str:
    """The select list of ``model``'s row, for ``fetch``: ``alias.column, ...``."""
    quote = _db().ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


def fetch(model: type[M], sql: str, params: Sequence[Any], extra: Sequence[str] = ()) -> list[M]:
    """Instances of ``model`` from ``sql``, whose columns are ``columns(model, ...)`` and then
    one for each name in ``extra`` (set as that attribute, unconverted)."""
    count = len(model._meta.concrete_fields)
    found = []
    for row in fetch_rows(sql, params):
        instance = build(model, row[:count])
        for name, value in zip(extra, row[count:], strict=True):
            setattr(instance, name, value)
        found.append(instance)
    return found


def fetch_rows(sql: str, params: Sequence[Any]) -> list[tuple]:
    """The rows ``sql`` returns, as the driver gives them (``build`` makes instances)."""
    with _db().cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def build(model: type[M], values: Sequence[Any]) -> M:
    """An instance of ``model`` from the values of ``columns(model, ...)``, as a queryset
    makes it."""
    db = facts()
    names, converters = _converters(model, db.vendor)
    values = list(values)
    for index, convert in converters:
        values[index] = convert(values[index], db)
    return model.from_db(db.alias, names, values)


@functools.cache
def _lock_sql(model: type[Model], vendor: str) -> str:
    meta, db = model._meta, _db()
    sql = (
        f"SELECT {columns(model, 'row')} FROM {db.ops.quote_name(meta.db_table)} row"
        f" WHERE row.{db.ops.quote_name(meta.pk.column)} = %s"
    )
    return sql + (" FOR UPDATE" if db.features.has_select_for_update else "")


def lock(model: type[M], pk: Any) -> M | None:
    """``model.objects.select_for_update().get(pk=pk)``, or None if there is no such row."""
    found = fetch(model, _lock_sql(model, _db().vendor), [pk])
    return found[0] if found else None


VERSION = "xmin::text"  # a row's version on PostgreSQL (a guarded write's): ``alias.VERSION``


@functools.cache
def _version_sql(model: type[Model]) -> str:
    meta, quote = model._meta, _db().ops.quote_name
    return (
        f"SELECT row.{VERSION} FROM {quote(meta.db_table)} row"
        f" WHERE row.{quote(meta.pk.column)} = %s FOR UPDATE"
    )


def lock_version(model: type[Model], pk: Any) -> str | None:
    """The version of ``model``'s row ``pk`` (PostgreSQL), locked until the transaction ends;
    None if there is no such row."""
    found = fetch_rows(_version_sql(model), [pk])
    return found[0][0] if found else None


Converter = Callable[[Any, Any], Any]  # (database value, connection) -> Python value


@functools.cache
def _converters(model: type[Model], vendor: str) -> tuple[list[str], list[tuple[int, Converter]]]:
    """The row's attribute names, and each column's converters from database value to Python
    value (by column index), as the query compiler applies them."""
    db = facts()
    found = []
    for index, field in enumerate(model._meta.concrete_fields):
        column = field.get_col(model._meta.db_table)
        steps = db.ops.get_db_converters(column) + field.get_db_converters(db)
        if steps:
            found.append((index, _chain(steps, column)))
    return [field.attname for field in model._meta.concrete_fields], found


def _chain(steps: list, column) -> Converter:
    def convert(value: Any, db) -> Any:
        for step in steps:
            value = step(value, column, db)
        return value

    return convert
