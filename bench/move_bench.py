#!/usr/bin/env python3
"""Time one move through the services (lock, load, apply, write, broadcast) on the configured
database and channel layer.

    DATABASE_URL=sqlite:////tmp/bench.sqlite3 .venv/bin/python bench/move_bench.py [--moves 200]

Use a throwaway database: the script migrates it and creates users and a 4-player game.
Prints the median and p90 of ``games.moves.play.move_apply`` in milliseconds, the statements
to the database, the size of the stored state, and the CPU time it takes in this process
(what a server process spends on a move before any socket work) and, on PostgreSQL, in the
database's backend process.

Then, as a floor, the same figures for the least a durable move needs, in plain SQL with no
ORM and no rules: lock the game row, write a state of the same size and one log row, commit.

``--compare`` (PostgreSQL) makes every other move under the game row's lock, as SQLite does,
instead of in one guarded statement (``games.moves.play.prepare_guarded``), and prints the
figures of each way: taken turn about in one run, the two share whatever the machine is doing
meanwhile.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from procfs import cpu_seconds

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratumrad_site.settings")
# As in production: DEBUG would keep every query in memory and wrap every cursor.
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "move-bench-" + uuid.uuid4().hex)
os.environ.setdefault("DJANGO_SECURE", "0")
os.environ.setdefault("GAME_RATE", "1000000/min")  # every game of the bench is one user's


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument(
        "--compare", action="store_true", help="every other move under the lock (PostgreSQL)"
    )
    args = parser.parse_args()

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from games import selectors
    from games.models import Game
    from games.moves import play
    from games.ratumrad import engine
    from games.services.lifecycle import game_create, game_join, game_start

    call_command("migrate", verbosity=0)
    tag = uuid.uuid4().hex[:8]
    users = [get_user_model().objects.create_user(f"bench-{tag}-{n}") for n in range(4)]
    by_id = {user.pk: user for user in users}
    rng = random.Random(1)
    times: list[float] = []
    cpu_times: list[float] = []  # this process's CPU time: Python, the ORM and the driver
    game = None
    backend = backend_pid()  # the connection stays open: DEBUG is off, no request ends it
    backend_cpu = 0.0
    statements: list[int] = []
    ways = ("guarded", "locked") if args.compare else ("",)
    by_way = {way: {"times": [], "cpu": [], "backend": 0.0} for way in ways}
    state_bytes: list[int] = []

    def count(execute, sql, params, many, context):
        statements[-1] += 1
        return execute(sql, params, many, context)

    while len(times) < args.moves:
        if game is None or game.status == Game.Status.FINISHED:
            game = game_create(user=users[0], name=f"bench {tag}", max_players=4)
            for user in users[1:]:
                game_join(game_id=game.pk, user=user)
            game = game_start(game_id=game.pk, user=users[0])
        state = selectors.engine_state(game)
        movers = [p.id for p in state.players if engine.turn_moves(state, p.id)]
        mover = rng.choice(movers)
        move = rng.choice(engine.turn_moves(state, mover))
        way = ways[len(times) % len(ways)]
        backend_started = cpu_seconds(backend)
        statements.append(0)
        started, cpu = time.perf_counter(), time.process_time()
        with connection.execute_wrapper(count):
            play.move_apply(game_id=game.pk, user=by_id[mover], move=move, guarded=way != "locked")
        times.append(time.perf_counter() - started)
        cpu_times.append(time.process_time() - cpu)
        backend_cpu += cpu_seconds(backend) - backend_started
        by_way[way]["times"].append(times[-1])
        by_way[way]["cpu"].append(cpu_times[-1])
        by_way[way]["backend"] += cpu_seconds(backend) - backend_started
        game.refresh_from_db()
        state_bytes.append(len(json.dumps(game.state)))
    times.sort()
    print(f"moves: {len(times)}")
    print(f"move_apply median: {statistics.median(times) * 1000:.1f} ms")
    print(f"move_apply p90: {times[int(len(times) * 0.9)] * 1000:.1f} ms")
    print(
        f"statements per move: mean {statistics.mean(statements):.1f}"
        f" (min {min(statements)}, max {max(statements)}, BEGIN and COMMIT not counted)"
    )
    print(f"stored state: mean {statistics.mean(state_bytes) / 1024:.1f} KiB of JSON")
    cpu = statistics.mean(cpu_times)
    print(f"CPU per move in this process: {cpu * 1000:.2f} ms (one core: {1 / cpu:.0f} moves/s)")
    if backend is not None:
        print(f"CPU per move in the database backend: {backend_cpu / len(times) * 1000:.2f} ms")
    if args.compare:
        for way, figures in by_way.items():
            moves = len(figures["times"])
            print(
                f"{way}: {moves} moves, median {statistics.median(figures['times']) * 1000:.2f} ms;"
                f" CPU per move {statistics.mean(figures['cpu']) * 1000:.2f} ms here,"
                f" {figures['backend'] / moves * 1000:.2f} ms in the database backend"
            )
    if backend is not None:
        floor(game, users[0], backend, args.moves)


def backend_pid() -> int | None:
    """The process of this connection's PostgreSQL backend (None on other databases)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def floor(game, user, backend: int, count: int) -> None:
    """The least a durable move costs: one transaction that locks the game row, writes a
    state as large as the real one and a log row, and commits; plain SQL through the driver.
    """
    from django.db import connection, transaction

    from games.models import Game, Move

    state = json.dumps(Game.objects.get(pk=game.pk).state)
    row = Game.objects.create(name="floor", max_players=2, creator=user, seed=0)
    games, moves = Game._meta.db_table, Move._meta.db_table
    times, cpu_times = [], []
    backend_started = cpu_seconds(backend)
    for _ in range(count):
        started, cpu = time.perf_counter(), time.process_time()
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"SELECT seq FROM {games} WHERE id = %s FOR UPDATE", [row.pk])
            (seq,) = cursor.fetchone()
            cursor.execute(
                f"UPDATE {games} SET state = %s, seq = %s, updated = now() WHERE id = %s",
                [state, seq + 1, row.pk],
            )
            cursor.execute(
                f"INSERT INTO {moves} (game_id, seq, user_id, payload, created)"
                " VALUES (%s, %s, %s, %s, now())",
                [row.pk, seq + 1, user.pk, '{"type": "TAKE_WHEEL", "source": "deck"}'],
            )
        times.append(time.perf_counter() - started)
        cpu_times.append(time.process_time() - cpu)
    backend_cpu = cpu_seconds(backend) - backend_started
    times.sort()
    cpu = statistics.mean(cpu_times)
    print(f"floor, plain SQL: median {statistics.median(times) * 1000:.1f} ms;")
    print(
        f"  CPU per move {cpu * 1000:.2f} ms here, {backend_cpu / count * 1000:.2f} ms in the"
        f" database backend: two cores allow at most {2 / (cpu + backend_cpu / count):.0f}"
        " moves/s"
    )


if __name__ == "__main__":
    main()
