"""The paths of a move (``games.moves``) for the socket tests, and the first write rule.

``move_path`` runs a test once on every path the configured database has: on SQLite only
``locked``; on PostgreSQL also ``thread`` (guarded writes in a worker thread) and
``event_loop`` (guarded writes on the event loop's own connections). It counts which of the
move path's functions ran and fails the test at teardown unless the chosen path made moves
and no other did: a parametrization that no longer reaches its path fails. Afterwards it closes
the worker threads' connections and the event loop's pool: they would outlive the test, and
PostgreSQL refuses to drop a test database that is still in use.

The first write rule (``games.kinds``): while a move collects its statements
(``sql.collecting()``), an INSERT, UPDATE or DELETE sent through a Django connection is an ORM
write that would escape the guarded statement. ``refuse_orm_writes_in_moves`` refuses it on
every connection the test process opens (tests/conftest.py installs it), and
``OrmWriteInMove`` records every refusal, so a write that a caller swallowed still fails its
test (``refused_writes`` in tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections import Counter

import pytest
from django.db import connection, connections

from games.moves import on_loop, paths, play, sql

LOCKED, THREAD, EVENT_LOOP = "locked", "thread", "event_loop"


def available_paths() -> tuple[str, ...]:
    """The paths a move can take on the configured database."""
    if connection.vendor == "postgresql":
        return (LOCKED, THREAD, EVENT_LOOP)
    return (LOCKED,)  # SQLite: one writer, every move under the lock


class PathSeen:
    """What the move path did during a test: calls of its functions, by where they ran."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.worker_connections: dict[int, object] = {}  # thread id -> its connection
        self.moves_fail = False  # a test whose guarded moves are meant to fail
        self._lock = threading.Lock()

    def saw(self, name: str) -> None:
        with self._lock:
            self.calls[name] += 1

    def check(self, path: str) -> None:
        """The moves took ``path`` and no other: fails a misconfigured parametrization.

        locked: moves under the lock, no guarded try anywhere, nothing off the shared thread;
        thread: guarded writes made in a worker thread, none on the event loop; event_loop:
        guarded writes made on the event loop, no guarded try in a worker thread (only the
        moves it gives up on go there, under the lock). With ``moves_fail`` a guarded try
        counts for a write."""
        calls = self.calls
        made = "guarded_tried" if self.moves_fail else "guarded_written"
        if path == LOCKED:
            assert calls["move_locked"] > 0, f"no move was made under the lock: {calls}"
            assert calls["prepare_guarded"] == 0, f"a guarded move on the locked path: {calls}"
            assert calls["worker"] == calls["on_loop"] == 0, f"moves off the shared thread: {calls}"
        elif path == THREAD:
            assert calls[f"{made}_in_worker"] > 0, f"no guarded move in a worker thread: {calls}"
            assert calls["on_loop"] == 0, f"moves on the event loop: {calls}"
            assert calls["guarded_tried_on_loop"] == 0, f"moves on the event loop: {calls}"
        elif path == EVENT_LOOP:
            assert calls[f"{made}_on_loop"] > 0, f"no guarded move on the event loop: {calls}"
            assert calls["worker_guarded"] == 0, f"guarded tries in a worker thread: {calls}"
            assert calls["guarded_tried_in_worker"] == 0, f"guarded tries in a worker: {calls}"
        else:
            raise AssertionError(f"unknown path {path!r}")

    def close_worker_connections(self) -> None:
        """Close the connections the worker threads opened: PostgreSQL cannot drop the test
        database while they are open. The threads are idle now, and open a new one when they
        are next given a move."""
        for wrapper in self.worker_connections.values():
            wrapper.inc_thread_sharing()
            try:
                wrapper.close()
            finally:
                wrapper.dec_thread_sharing()
        self.worker_connections.clear()


def watch(monkeypatch, seen: PathSeen) -> None:
    """Count the calls of the move path's functions into ``seen``."""
    with_connection, move_locked = paths._with_connection, play.move_locked
    prepare_guarded, loop_move_apply = play.prepare_guarded, on_loop.move_apply
    check_guarded = sql.check_guarded

    def in_worker(kwargs):
        seen.saw("worker")
        if kwargs.get("guarded", True):
            seen.saw("worker_guarded")
        try:
            return with_connection(kwargs)
        finally:
            # The thread's own connection, closed at teardown.
            seen.worker_connections[threading.get_ident()] = connections["default"]

    def locked(args, move, ahead=None):
        seen.saw("move_locked")
        return move_locked(args, move, ahead)

    def where() -> str:
        """Where this thread is: a worker thread of the moves, the event loop, or another
        thread (the sockets' shared one, the test's own)."""
        if threading.current_thread().name.startswith("moves"):
            return "in_worker"
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return "elsewhere"
        return "on_loop"

    def guarded(*args, **kwargs):
        seen.saw("prepare_guarded")
        seen.saw(f"guarded_tried_{where()}")
        return prepare_guarded(*args, **kwargs)

    def written(statement, found):
        check_guarded(statement, found)  # raises Changed if nothing was written
        seen.saw(f"guarded_written_{where()}")

    async def on_the_loop(**kwargs):
        seen.saw("on_loop")
        return await loop_move_apply(**kwargs)

    monkeypatch.setattr(paths, "_with_connection", in_worker)
    monkeypatch.setattr(play, "move_locked", locked)
    monkeypatch.setattr(play, "prepare_guarded", guarded)
    monkeypatch.setattr(on_loop, "move_apply", on_the_loop)
    monkeypatch.setattr(sql, "check_guarded", written)


@pytest.fixture
def path_seen(monkeypatch) -> PathSeen:
    """What the move path did in this test (``move_path`` checks it)."""
    seen = PathSeen()
    watch(monkeypatch, seen)
    return seen


@pytest.fixture(params=available_paths())
async def move_path(request, settings, monkeypatch, path_seen):
    """Run the test on each path of a move (see the module's docstring); yields its name.

    A test using it needs ``django_db(transaction=True)``: the worker threads and the event
    loop's pool read with connections of their own, which see committed rows only.
    """
    path = request.param
    settings.PARALLEL_MOVES = path in (THREAD, EVENT_LOOP)
    settings.MOVES_ON_EVENT_LOOP = path == EVENT_LOOP
    if path == LOCKED:
        monkeypatch.setattr(play, "UNLOCKED_TRIES", 0)  # no guarded try on PostgreSQL either
    try:
        yield path
    finally:
        await on_loop.close_pools()  # its connections end before the database is emptied
        await asyncio.to_thread(path_seen.close_worker_connections)  # not from the event loop
    path_seen.check(path)


# ------------------------------------------------------------------ the first write rule

WRITES = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)
WRITES_IN_WITH = re.compile(r"\)\s*(INSERT|UPDATE|DELETE)\b|\bAS\s*\(\s*(INSERT|UPDATE|DELETE)\b")


class OrmWriteInMove(AssertionError):
    """A write sent through a Django connection while a move collected its statements."""


refused: list[str] = []  # every refusal of this test process, for refused_writes


def is_write(statement: str) -> bool:
    head = statement.lstrip()
    if WRITES.match(head):
        return True
    return head[:4].upper() == "WITH" and WRITES_IN_WITH.search(head) is not None


def refuse_orm_writes_in_moves(execute, statement, params, many, context):
    """A ``connection.execute_wrapper``: refuse a write while this thread's move collects its
    statements (``sql.collecting()``)."""
    if sql.collecting() and is_write(statement):
        refused.append(statement)
        raise OrmWriteInMove(f"an ORM write inside a move's guarded statement: {statement}")
    return execute(statement, params, many, context)


def install_write_guard(sender, connection, **kwargs) -> None:
    """On ``connection_created``: every Django connection gets the guard, outermost (a test's
    own ``execute_wrapper`` block pops its wrapper, not this one)."""
    if refuse_orm_writes_in_moves not in connection.execute_wrappers:
        connection.execute_wrappers.insert(0, refuse_orm_writes_in_moves)
