"""Row reads and writes for the move path, without Django's query compiler.

Every move reads and writes the same few rows (the game, its seats, the log entries), and
building those statements through the ORM costs several times what the database takes to
run them (``bench/move_bench.py``). These helpers write the SQL from the models' own
metadata. Writes let every field prepare its value (``pre_save`` for ``auto_now``,
``get_db_prep_save``), so a row comes out exactly as ``Model.save()`` or ``bulk_create()``
would write it; reads pass every column through the field's converters and
``Model.from_db``, as a queryset does. Not sent: the save signals, which nothing in the
project listens to for these models.
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
    with db.cursor() as cursor:
        cursor.execute(sql, [*values, instance.pk])


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
    with db.cursor() as cursor:
        cursor.execute(sql, params)


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
