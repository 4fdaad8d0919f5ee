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

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.db import connection
from django.db.models import Model

M = TypeVar("M", bound=Model)


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def update(instance: Model, fields: Sequence[str]) -> None:
    """``instance.save(update_fields=fields)`` for a row that exists."""
    meta = instance._meta
    columns = [meta.get_field(name) for name in fields]
    values = [
        field.get_db_prep_save(field.pre_save(instance, False), connection) for field in columns
    ]
    assignments = ", ".join(f"{_quote(field.column)} = %s" for field in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_quote(meta.db_table)} SET {assignments} WHERE {_quote(meta.pk.column)} = %s",
            [*values, instance.pk],
        )


def insert(instances: Sequence[Model]) -> None:
    """``bulk_create(instances)`` for new rows of one model whose ids are not needed."""
    if not instances:
        return
    meta = instances[0]._meta
    columns = [field for field in meta.concrete_fields if not field.primary_key]
    params = [
        field.get_db_prep_save(field.pre_save(instance, True), connection)
        for instance in instances
        for field in columns
    ]
    row = "(" + ", ".join(["%s"] * len(columns)) + ")"
    names = ", ".join(_quote(field.column) for field in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_quote(meta.db_table)} ({names}) VALUES "
            + ", ".join([row] * len(instances)),
            params,
        )


def columns(model: type[Model], alias: str) -> str:
    """The select list of ``model``'s row, for ``fetch``: ``alias.column, ...``."""
    return ", ".join(f"{alias}.{_quote(field.column)}" for field in model._meta.concrete_fields)


def fetch(model: type[M], sql: str, params: Sequence[Any], extra: Sequence[str] = ()) -> list[M]:
    """Instances of ``model`` from ``sql``, whose columns are ``columns(model, ...)`` and then
    one for each name in ``extra`` (set as that attribute, unconverted)."""
    fields = model._meta.concrete_fields
    converters = _converters(model)
    names = [field.attname for field in fields]
    count = len(fields)
    found = []
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for row in cursor.fetchall():
            values = list(row[:count])
            for index, convert in converters:
                values[index] = convert(values[index])
            instance = model.from_db(connection.alias, names, values)
            for name, value in zip(extra, row[count:], strict=True):
                setattr(instance, name, value)
            found.append(instance)
    return found


def lock(model: type[M], pk: Any) -> M | None:
    """``model.objects.select_for_update().get(pk=pk)``, or None if there is no such row."""
    meta = model._meta
    sql = (
        f"SELECT {columns(model, 'row')} FROM {_quote(meta.db_table)} row"
        f" WHERE row.{_quote(meta.pk.column)} = %s"
    )
    if connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    found = fetch(model, sql, [pk])
    return found[0] if found else None


_CONVERTERS: dict[tuple[type[Model], str], list[tuple[int, Callable[[Any], Any]]]] = {}


def _converters(model: type[Model]) -> list[tuple[int, Callable[[Any], Any]]]:
    """Each column's converters from database value to Python value (by column index), as
    the query compiler applies them."""
    key = (model, connection.vendor)
    if key not in _CONVERTERS:
        found = []
        for index, field in enumerate(model._meta.concrete_fields):
            column = field.get_col(model._meta.db_table)
            steps = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
            if steps:
                found.append((index, _chain(steps, column)))
        _CONVERTERS[key] = found
    return _CONVERTERS[key]


def _chain(steps: list, column) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        for step in steps:
            value = step(value, column, connection)
        return value

    return convert
