#!/usr/bin/env python3
"""What one sweep of the turn timers costs while thousands of turn-based games wait.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sweepbench .venv/bin/python \\
        bench/sweep_bench.py [--waiting 10000] [--due 20]

Use a throwaway database: the script migrates it and fills it. ``--waiting`` turn-based games
wait for a person whose day has not run out (as rows: their state is never read), then
``--due`` real games whose 12 hours run out first are dealt. A sweep with nothing due is
timed without the waiting games and with them, then one that expires the due turns (the
computer plays each): its statements, its time and its CPU (this process and, on
PostgreSQL, the database's backend), and on PostgreSQL the plans of its two look-ups. A
sweep that scanned the waiting games would grow with them; it should not.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from procfs import cpu_seconds

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratumrad_site.settings")
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "sweep-bench-" + uuid.uuid4().hex)
os.environ.setdefault("DJANGO_SECURE", "0")
os.environ.setdefault("GAME_RATE", "1000000/min")
os.environ.setdefault("GAMES_WAITING_PER_USER", "0")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiting", type=int, default=10_000)
    parser.add_argument("--due", type=int, default=20)
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from games import sweeper
    from games.models import Game, Seat
    from games.services.lifecycle import game_create, game_join, game_start

    settings.BOT_DELAY = 0
    call_command("migrate", verbosity=0)
    tag = uuid.uuid4().hex[:8]
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"sweep-{tag}-{n}") for n in range(2)
    )

    def due_games(count: int) -> list[int]:
        made = []
        for n in range(count):
            game = game_create(
                user=users[0], name=f"due {n}", max_players=2, pace="turn_based", turn_seconds=43200
            )
            game_join(game_id=game.pk, user=users[1])
            game_start(game_id=game.pk, user=users[0])
            made.append(game.pk)
        return made

    def one_sweep(label: str, hours: float) -> None:
        statements = []

        def count(execute, sql, params, many, context):
            statements.append(sql)
            return execute(sql, params, many, context)

        backend = _backend_pid(connection)
        backend_before = cpu_seconds(backend) if backend else 0.0
        started, cpu = time.perf_counter(), time.process_time()
        now = timezone.now() + timedelta(hours=hours)
        with connection.execute_wrapper(count):
            expired = sweeper.sweep(now=now)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        backend_cpu = cpu_seconds(backend) - backend_before if backend else 0.0
        print(
            f"{label}: {expired} turns expired, {len(statements)} statements, "
            f"{wall * 1000:.1f} ms, CPU {cpu * 1000:.1f} ms here"
            + (f" + {backend_cpu * 1000:.1f} ms in PostgreSQL" if backend else "")
        )

    def playing() -> str:
        return f"{Game.objects.filter(status__in=Game.PLAYING).count():>6} games being played"

    due_games(args.due)
    one_sweep(f"a look, nothing due, {playing()}", hours=1)

    # The waiting games: a person of each has the day to move, nobody is connected.
    later = timezone.now() + timedelta(days=1)
    batch = []
    for n in range(args.waiting):
        batch.append(
            Game(
                name=f"waiting {n}",
                max_players=2,
                creator=users[0],
                seed=n,
                status=Game.Status.RUNNING,
                pace=Game.Pace.TURN_BASED,
                turn_seconds=86400,
                turn_deadline=later,
            )
        )
    waiting = Game.objects.bulk_create(batch, batch_size=2000)
    Seat.objects.bulk_create(
        (Seat(game=game, user=user) for game in waiting for user in users), batch_size=4000
    )
    connection.cursor().execute("ANALYZE") if connection.vendor == "postgresql" else None
    for _ in range(2):  # the first after the inserts also sets the new rows' hint bits
        one_sweep(f"a look, nothing due, {playing()}", hours=1)
    one_sweep(f"{args.due} turns due (12 hours), {playing()}", hours=13)
    if connection.vendor == "postgresql":
        _plans(connection, Game, settings)


def _backend_pid(connection) -> int | None:
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def _plans(connection, Game, settings) -> None:
    from django.utils import timezone

    now = timezone.now()
    playing = Game.objects.filter(status__in=Game.PLAYING)
    looks = {
        "due turns": playing.filter(turn_deadline__lte=now).order_by("turn_deadline")[:100],
        "stalled computer players": playing.filter(
            computer_to_move=True, updated__lte=now - settings.BOT_STALL
        )[:100],
    }
    for label, query in looks.items():
        print(f"plan of the look-up of {label}:")
        for line in query.values_list("pk", flat=True).explain().splitlines():
            print("   ", line)


if __name__ == "__main__":
    main()
