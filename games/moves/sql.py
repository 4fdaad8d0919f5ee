"""The move's SQL layer: row reads and writes without Django's query compiler.

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

A guarded write is a batch for a row read without a lock, with its version (``VERSION``):
``collected()`` catches its writes, and ``guarded_statement`` makes them one statement that
first locks the row and writes only if the row is still the version read (its ``xmin``, which
every update of the row changes); else nothing is written and ``Changed`` is raised. The
statement commits on its own (autocommit), so an optimistic change is two round trips, the
read and the write, instead of five (``BEGIN``, lock, read, write, ``COMMIT``).

Everything a move calls writes through here, never through the ORM (``games.kinds``' first
write rule): only these writes can wait for a batch, or be caught for a guarded statement.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models import Model

from games.moves.placeholders import numbered_cursor


def _db():
    # The proxy ``django.db.connection`` looks the connection up again on every attribute.
    return connections[DEFAULT_DB_ALIAS]


class Changed(Exception):
    """A guarded batch found its row changed since it was read: it wrote nothing."""


_pending = threading.local()
# .writes: the batch's writes, or None outside one; .callbacks: what ``on_commit`` was given
# inside a guarded batch, or None.


@dataclass(frozen=True)
class _Write:
    sql: str
    params: list
    guarded_sql: str  # the same write, made only if the ``guard`` part found its row
    row: tuple | None = None  # an update's (model, pk)
    fields: tuple[str, ...] = ()  # and its fields
    # An insert's RETURNING clause, and what is given the rows it made once it is sent (the
    # last write of a batch only: a batch is one statement, whose rows are its last part's).
    returning: str = ""
    then: Callable[[list[tuple]], Any] | None = None


GUARD = "EXISTS (SELECT 1 FROM guard)"  # true once the guard part found its row


def _conditional(sql: str, params: list, row: tuple | None = None, fields=()) -> _Write:
    """An UPDATE or DELETE whose guarded form only adds the guard to its WHERE."""
    return _Write(sql, params, f"{sql} AND {GUARD}", row, tuple(fields))


def can_guard() -> bool:
    """Whether this database can make guarded writes (PostgreSQL)."""
    return _db().vendor == "postgresql"


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


@dataclass
class Collected:
    """What ``collected()`` caught: the writes, and the callbacks with whether each may block
    (read the database)."""

    writes: list[_Write]
    callbacks: list[tuple[Callable[[], Any], bool]]


@contextlib.contextmanager
def collected() -> Iterator[Collected]:
    """Catch the writes and ``on_commit`` callbacks made inside, to send and run elsewhere
    (``guarded_statement``). Not inside a batch."""
    if getattr(_pending, "writes", None) is not None:
        raise RuntimeError("a guarded batch cannot be inside another batch")
    found = Collected([], [])
    _pending.writes, _pending.callbacks = found.writes, found.callbacks
    try:
        yield found
    finally:
        _pending.writes = _pending.callbacks = None


def collecting() -> bool:
    """Whether this thread is inside ``collected()``: a move is collecting its statements, and
    any write sent meanwhile (an ORM write) would escape its guarded statement."""
    return getattr(_pending, "callbacks", None) is not None


def on_commit(func: Callable[[], Any], blocking: bool = False) -> None:
    """``transaction.on_commit(func, robust=True)``; inside ``collected()``, once the guarded
    write is made (``games.moves.play.run_after_write``; never, if it is not). Outside a
    transaction it runs at once.

    ``blocking``: ``func`` reads the database, so a move made on the event loop runs it in the
    sockets' database thread (``games.moves.on_loop``)."""
    callbacks = getattr(_pending, "callbacks", None)
    if callbacks is not None:
        callbacks.append((func, blocking))
        return
    transaction.on_commit(func, robust=True)


def _write(write: _Write) -> None:
    writes = getattr(_pending, "writes", None)
    if writes is not None:
        if write.then is not None and collecting():
            raise RuntimeError("a guarded batch returns no rows")
        writes.append(write)
        return
    _send_now(write)


def _send_now(write: _Write) -> None:
    with _cursor() as cursor:
        _send(cursor, write.sql, write.params, write)


def _send(cursor, sql: str, params: list, last: _Write) -> None:
    """Execute ``sql``, whose last part is ``last``: with its RETURNING clause, if any, and
    its rows to its ``then``."""
    cursor.execute(f"{sql}{last.returning}", params)
    if last.then is not None:
        last.then(cursor.fetchall())


def _cursor():
    """A cursor for these statements: on PostgreSQL one that sends them with numbered
    placeholders (``numbered``), as a batch of a move's writes is longer than psycopg keeps
    its own conversion for."""
    return numbered_cursor() if _db().vendor == "postgresql" else _db().cursor()


def _execute_all(writes: list[_Write]) -> None:
    db = _db()
    if not writes:
        return
    *parts, last = writes
    if any(write.then is not None for write in parts):
        raise RuntimeError("only a batch's last write may return rows")
    with _cursor() as cursor:
        if db.vendor != "postgresql" or len(writes) == 1:
            for write in writes:
                _send(cursor, write.sql, write.params, write)
            return
        # One statement, one round trip: PostgreSQL runs every data-modifying WITH part
        # exactly once, whether the main statement reads it or not. No two parts touch the
        # same row (a move's log rows, its game, its seats).
        parts_sql = ", ".join(f"w{index} AS ({write.sql})" for index, write in enumerate(parts))
        params = [param for write in parts for param in write.params]
        _send(cursor, f"WITH {parts_sql} {last.sql}", [*params, *last.params], last)


@dataclass(frozen=True)
class GuardedStatement:
    """A guarded batch as one statement (``%s`` placeholders): it answers one row, whose one
    column is 0 if the guarded row had changed and nothing was written."""

    sql: str
    params: list
    label: str  # the guarded row, for ``Changed``


def guarded_statement(instance: Model, writes: list[_Write]) -> GuardedStatement:
    """The statement that makes ``writes`` only if ``instance``'s row is still the version
    it was read at (``_row_version``)."""
    # The guard part locks the row first (every write part waits for it: they all ask
    # for its answer) and finds it only if no other change was committed since it was read.
    # A change that commits while the guard waits for its lock is seen too: after the
    # wait, PostgreSQL checks the row's newest version against the condition again.
    model = type(instance)
    parts = [
        _guard_sql(model),
        *(f"w{index} AS ({write.guarded_sql})" for index, write in enumerate(writes)),
    ]
    params = [instance.pk, instance._row_version]
    params += [param for write in writes for param in write.params]
    sql = f"WITH {', '.join(parts)} SELECT count(*) FROM guard"
    return GuardedStatement(sql, params, f"{model._meta.label} {instance.pk}")


def check_guarded(statement: GuardedStatement, found: int) -> None:
    """``Changed`` if the statement's answer says it wrote nothing."""
    if not found:
        raise Changed(f"{statement.label} changed since it was read")


def execute_guarded(statement: GuardedStatement) -> None:
    """Send ``statement`` (from this thread's connection); ``Changed`` if it wrote nothing."""
    with numbered_cursor() as cursor:
        cursor.execute(statement.sql, statement.params)
        (found,) = cursor.fetchone()
    check_guarded(statement, found)


@functools.cache
def _guard_sql(model: type[Model]) -> str:
    meta, quote = model._meta, _db().ops.quote_name
    return (
        f"guard AS (SELECT 1 FROM {quote(meta.db_table)} WHERE {quote(meta.pk.column)} = %s"
        " AND xmin = %s::xid FOR UPDATE)"
    )


@functools.cache
def _update_sql(model: type[Model], fields: tuple[str, ...], vendor: str) -> tuple[str, list]:
    meta, quote = model._meta, _db().ops.quote_name
    columns = [meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in columns)
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s"
    return sql, columns


def update(instance: Model, fields: Sequence[str]) -> None:
    """``instance.save(update_fields=fields)`` for a row that exists."""
    db, row, fields = _db(), (type(instance), instance.pk), tuple(fields)
    writes = getattr(_pending, "writes", None) or []
    earlier = next((index for index, write in enumerate(writes) if write.row == row), None)
    if earlier is not None:
        # One statement must not update a row twice (PostgreSQL would make only one of the
        # two): the row's earlier update in this batch takes these fields too.
        fields = (
            *writes[earlier].fields,
            *(name for name in fields if name not in writes[earlier].fields),
        )
    sql, columns = _update_sql(type(instance), fields, db.vendor)
    values = [field.get_db_prep_save(field.pre_save(instance, False), db) for field in columns]
    write = _conditional(sql, [*values, instance.pk], row, fields)
    if earlier is None:
        _write(write)
    else:
        writes[earlier] = write


@functools.cache
def _insert_sql(model: type[Model], count: int, vendor: str) -> tuple[str, str, list]:
    """The statement, its guarded form (PostgreSQL), and the columns it fills."""
    db = _db()
    meta, quote = model._meta, db.ops.quote_name
    # Every column but an id the database numbers (a key that is another row's, as an offer
    # to play a game again has its game's, is written).
    columns = [field for field in meta.concrete_fields if field is not meta.auto_field]
    row = "(" + ", ".join(["%s"] * len(columns)) + ")"
    names = ", ".join(quote(field.column) for field in columns)
    start = f"INSERT INTO {quote(meta.db_table)} ({names})"
    # The guarded form takes its rows from a VALUES list, whose parameters no longer get
    # their types from the table's columns: they are cast.
    guarded = f"{start} SELECT * FROM {_typed_values(columns, count, db)} AS new WHERE {GUARD}"
    return f"{start} VALUES " + ", ".join([row] * count), guarded, columns


def _typed_values(columns: list, count: int, db) -> str:
    """A VALUES list of ``count`` rows of ``columns``, each parameter cast to its column's type
    (it gets none from the table there)."""
    typed = "(" + ", ".join(f"CAST(%s AS {field.cast_db_type(db)})" for field in columns) + ")"
    return f"(VALUES {', '.join([typed] * count)})"


def insert(
    instances: Sequence[Model],
    ignore_conflicts: bool = False,
    now: bool = False,
    returning: Sequence[str] = (),
    then: Callable[[list[tuple]], Any] | None = None,
) -> None:
    """``bulk_create(instances, ignore_conflicts=...)`` for new rows of one model whose ids
    are not needed: with ``ignore_conflicts`` a row that would break a unique constraint is
    left out (``ON CONFLICT DO NOTHING``, which SQLite knows too). ``now``: sent at once,
    also inside a batch (not a guarded one), for a read that follows and needs the rows.
    ``returning``: fields of the rows it made, given to ``then`` as a list of tuples once
    it is sent (in a batch, as its last write)."""
    if not instances:
        return
    db = _db()
    model = type(instances[0])
    sql, guarded_sql, columns = _insert_sql(model, len(instances), db.vendor)
    if ignore_conflicts:
        sql, guarded_sql = f"{sql} ON CONFLICT DO NOTHING", f"{guarded_sql} ON CONFLICT DO NOTHING"
    names = [db.ops.quote_name(model._meta.get_field(name).column) for name in returning]
    clause = f" RETURNING {', '.join(names)}" if names else ""
    params = _insert_params(instances, columns, db)
    write = _Write(sql, params, guarded_sql, returning=clause, then=then)
    if not now:
        _write(write)
    elif collecting():
        raise RuntimeError("a guarded batch cannot send a write ahead of itself")
    else:
        _send_now(write)


def _insert_params(instances: Sequence[Model], columns: list, db) -> list:
    """The values of new rows, each field's as it prepares it (``auto_now_add`` included)."""
    return [
        field.get_db_prep_save(field.pre_save(instance, True), db)
        for instance in instances
        for field in columns
    ]


def create(instances: Sequence[Model]) -> None:
    """``bulk_create(instances)`` for new rows of one model, in one statement: each instance
    gets its id, as it would from ``Model.objects.create``. Not inside a batch: the ids are
    needed at once."""
    if not instances:
        return
    if getattr(_pending, "writes", None) is not None:
        raise RuntimeError("rows whose ids are needed cannot wait for a batch")
    db = _db()
    model = type(instances[0])
    sql, _, columns = _insert_sql(model, len(instances), db.vendor)
    params = _insert_params(instances, columns, db)
    # The rows come back in the order of the VALUES list (as Django's bulk_create relies on
    # for PostgreSQL and SQLite alike).
    with _cursor() as cursor:
        cursor.execute(f"{sql} RETURNING {db.ops.quote_name(model._meta.pk.column)}", params)
        ids = [row[0] for row in cursor.fetchall()]
    for instance, pk in zip(instances, ids, strict=True):
        _stored(instance, pk, db)


def _stored(instance: Model, pk: int, db) -> None:
    instance.pk = pk
    instance._state.adding, instance._state.db = False, db.alias


def create_with(parent: Model, children: Sequence[Model], link: str) -> None:
    """``create([parent])``, then ``create(children)`` with each child's ``link`` (a foreign
    key) set to ``parent``. On PostgreSQL one statement: the children's rows take the
    parent's new id from the part that inserts it. Not inside a batch (as ``create``)."""
    db = _db()
    if db.vendor != "postgresql" or not children:
        create([parent])
        for child in children:
            setattr(child, link, parent)
        create(children)
        return
    if getattr(_pending, "writes", None) is not None:
        raise RuntimeError("rows whose ids are needed cannot wait for a batch")
    quote, parent_meta = db.ops.quote_name, type(parent)._meta
    parent_sql, _, parent_columns = _insert_sql(type(parent), 1, db.vendor)
    meta = type(children[0])._meta
    key = meta.get_field(link)
    columns = [field for field in meta.concrete_fields if field not in (meta.auto_field, key)]
    names = (key, *columns)
    sql = (
        f"WITH parent AS ({parent_sql} RETURNING {quote(parent_meta.pk.column)})"
        f" INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in names)})"
        f" SELECT parent.{quote(parent_meta.pk.column)}, new.* FROM parent,"
        f" {_typed_values(columns, len(children), db)} AS new"
        f" RETURNING {quote(key.column)}, {quote(meta.pk.column)}"
    )
    params = [*_insert_params([parent], parent_columns, db), *_insert_params(children, columns, db)]
    # The rows come back in the order of the VALUES list, as for ``create`` (and as Django's
    # bulk_create relies on for its INSERT ... SELECT on PostgreSQL).
    with _cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    _stored(parent, found[0][0], db)
    for child, (_, pk) in zip(children, found, strict=True):
        setattr(child, link, parent)
        _stored(child, pk, db)


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
    _write(_conditional(sql, [*params, *condition_params]))


def read_last(sql: str, params: list, then: Callable[[list[tuple]], Any]) -> None:
    """A read as a batch's last part: ``then`` is given its rows once the batch is sent. On
    PostgreSQL it is the batch's one statement, whose snapshot it reads: it does not see the
    writes before it. Elsewhere it comes after them. Outside a batch it is sent at once."""
    _write(_Write(sql, params, sql, then=then))


def delete_where(model: type[Model], where: dict[str, Any]) -> None:
    """``model.objects.filter(**where).delete()`` (as ``update_where``) for rows that nothing
    refers to and no signal watches."""
    condition, params = _where(model, where)
    sql = f"DELETE FROM {_db().ops.quote_name(model._meta.db_table)} WHERE {condition}"
    _write(_conditional(sql, params))


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
