"""Row reads and writes for the move path, without Django's query compiler.

Every move reads and writes the same few rows (the game, its seats, the log entries), and
building those statements through the ORM costs several times what the database takes to
run them (``bench/move_bench.py``). These helpers write the SQL from the models' own
metadata. Writes let every field prepare its value (``pre_save`` for ``auto_now``,
``get_db_prep_save``), so a row comes out exactly as ``Model.save()`` or ``bulk_create()``
would write it; reads pass every column through the field's converters and
``Model.from_db``, as a queryset does. Not sent: the save signals, which nothing in the
project listens to for these models.

Inside ``batch()`` the writes wait and go to the database together when it ends: on
PostgreSQL as one statement (data-modifying ``WITH`` parts), elsewhere one after the other.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model

M = TypeVar("M", bound=Model)


def _db():
    # The proxy ``django.db.connection`` looks the connection up again on every attribute.
    return connections[DEFAULT_DB_ALIAS]


_pending = threading.local()  # .writes: the batch's (sql, params), or None outside one


@contextlib.contextmanager
def batch() -> Iterator[None]:
    """The writes inside wait and are sent together at the end (if nothing raised)."""
    if getattr(_pending, "writes", None) is not None:
        yield  # inside a batch already: it sends these too
        return
    _pending.writes = writes = []
    try:
        yield
    finally:
        _pending.writes = None
    _execute_all(writes)


def _write(sql: str, params: list) -> None:
    writes = getattr(_pending, "writes", None)
    if writes is not None:
        writes.append((sql, params))
        return
    with _db().cursor() as cursor:
        cursor.execute(sql, params)


def _execute_all(writes: list[tuple[str, list]]) -> None:
    db = _db()
    if not writes:
        return
    with db.cursor() as cursor:
        if db.vendor != "postgresql" or len(writes) == 1:
            for sql, params in writes:
                cursor.execute(sql, params)
            return
        # One statement, one round trip: PostgreSQL runs every data-modifying WITH part
        # exactly once, whether the main statement reads it or not. No two parts touch the
        # same row (a move's log rows, its game, its seats).
        *parts, (last, last_params) = writes
        parts_sql = ", ".join(f"w{index} AS ({sql})" for index, (sql, _) in enumerate(parts))
        params = [param for _, part_params in parts for param in part_params]
        cursor.execute(f"WITH {parts_sql} {last}", [*params, *last_params])


@functools.cache
def _update_sql(model: type[Model], fields: tuple[str, ...], vendor: str) -> tuple[str, list]:
    meta, quote = model._meta, _db().ops.quote_name
    columns = [meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in columns)
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s"
    return sql, columns


def update(instance: Model, fields: Sequence[str]) -> None:
    """``instance.save(update_fields=fields)`` for a row that exists."""
    db = _db()
    sql, columns = _update_sql(type(instance), tuple(fields), db.vendor)
    values = [field.get_db_prep_save(field.pre_save(instance, False), db) for field in columns]
    _write(sql, [*values, instance.pk])


@functools.cache
def _insert_sql(model: type[Model], count: int, vendor: str) -> tuple[str, list]:
    meta, quote = model._meta, _db().ops.quote_name
    columns = [field for field in meta.concrete_fields if not field.primary_key]
    row = "(" + ", ".join(["%s"] * len(columns)) + ")"
    names = ", ".join(quote(field.column) for field in columns)
    sql = f"INSERT INTO {quote(meta.db_table)} ({names}) VALUES " + ", ".join([row] * count)
    return sql, columns


def insert(instances: Sequence[Model]) -> None:
    """``bulk_create(instances)`` for new rows of one model whose ids are not needed."""
    if not instances:
        return
    db = _db()
    sql, columns = _insert_sql(type(instances[0]), len(instances), db.vendor)
    params = [
        field.get_db_prep_save(field.pre_save(instance, True), db)
        for instance in instances
        for field in columns
    ]
    _write(sql, params)


def update_where(model: type[Model], values: dict[str, Any], where: dict[str, Any]) -> None:
    """``model.objects.filter(**where).update(**values)``, with column names (``game_id``):
    ``where`` holds a value a column equals, or under ``<name>__in`` a list it is in."""
    db = _db()
    meta, quote = model._meta, db.ops.quote_name
    assignments, params = [], []
    for name, value in values.items():
        field = meta.get_field(name)
        assignments.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_save(value, db))
    condition, condition_params = _where(model, where)
    sql = f"UPDATE {quote(meta.db_table)} SET {', '.join(assignments)} WHERE {condition}"
    _write(sql, [*params, *condition_params])


def delete_where(model: type[Model], where: dict[str, Any]) -> None:
    """``model.objects.filter(**where).delete()`` (as ``update_where``) for rows that nothing
    refers to and no signal watches."""
    condition, params = _where(model, where)
    _write(f"DELETE FROM {_db().ops.quote_name(model._meta.db_table)} WHERE {condition}", params)


def _where(model: type[Model], where: dict[str, Any]) -> tuple[str, list]:
    db = _db()
    parts, params = [], []
    for key, value in where.items():
        name, _, lookup = key.partition("__")
        field = model._meta.get_field(name)
        column = db.ops.quote_name(field.column)
        if lookup == "in":
            values = [field.get_db_prep_value(item, db) for item in value]
            parts.append(f"{column} IN ({', '.join(['%s'] * len(values))})")
            params += values
        elif not lookup:
            parts.append(f"{column} = %s")
            params.append(field.get_db_prep_value(value, db))
        else:
            raise ValueError(f"unknown lookup {key!r}")
    return " AND ".join(parts), params


@functools.cache
def columns(model: type[Model], alias: str) -> str:
    """The select list of ``model``'s row, for ``fetch``: ``alias.column, ...``."""
    quote = _db().ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


def fetch(model: type[M], sql: str, params: Sequence[Any], extra: Sequence[str] = ()) -> list[M]:
    """Instances of ``model`` from ``sql``, whose columns are ``columns(model, ...)`` and then
    one for each name in ``extra`` (set as that attribute, unconverted)."""
    db = _db()
    names, converters = _converters(model, db.vendor)
    count = len(names)
    found = []
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        for row in cursor.fetchall():
            values = list(row[:count])
            for index, convert in converters:
                values[index] = convert(values[index], db)
            instance = model.from_db(db.alias, names, values)
            for name, value in zip(extra, row[count:], strict=True):
                setattr(instance, name, value)
            found.append(instance)
    return found


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


Converter = Callable[[Any, Any], Any]  # (database value, connection) -> Python value


@functools.cache
def _converters(model: type[Model], vendor: str) -> tuple[list[str], list[tuple[int, Converter]]]:
    """The row's attribute names, and each column's converters from database value to Python
    value (by column index), as the query compiler applies them."""
    db = _db()
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
