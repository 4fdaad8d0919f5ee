"""Row writes for the move path, without Django's query compiler.

Every move writes the same few rows (the game, a seat, the log entries), and building those
statements through the ORM costs several times what the database takes to run them
(``bench/move_bench.py``). These helpers write the SQL from the models' own metadata and let
every field prepare its value (``pre_save`` for ``auto_now``, ``get_db_prep_save``), so a
row comes out exactly as ``Model.save()`` or ``bulk_create()`` would write it. Not sent: the
save signals, which nothing in the project listens to for these models.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection
from django.db.models import Model


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
