#!/usr/bin/env python3
"""Time one move through the services (lock, load, apply, write, broadcast) on the configured
database and channel layer.

    DATABASE_URL=sqlite:////tmp/bench.sqlite3 .venv/bin/python bench/move_bench.py [--moves 200]

Use a throwaway database: the script migrates it and creates users and a 4-player game.
Prints the median and p90 of ``services.move_apply`` in milliseconds, and the CPU time it
takes in this process (what a server process spends on a move before any socket work).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratumrad_site.settings")
# As in production: DEBUG would keep every query in memory and wrap every cursor.
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "move-bench-" + uuid.uuid4().hex)
os.environ.setdefault("DJANGO_SECURE", "0")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    args = parser.parse_args()

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from games import selectors, services
    from games.models import Game
    from games.ratumrad import engine

    call_command("migrate", verbosity=0)
    tag = uuid.uuid4().hex[:8]
    users = [get_user_model().objects.create_user(f"bench-{tag}-{n}") for n in range(4)]
    by_id = {user.pk: user for user in users}
    rng = random.Random(1)
    times: list[float] = []
    cpu_times: list[float] = []  # this process's CPU time: Python, the ORM and the driver
    game = None
    while len(times) < args.moves:
        if game is None or game.status == Game.Status.FINISHED:
            game = services.game_create(user=users[0], name=f"bench {tag}", max_players=4)
            for user in users[1:]:
                services.game_join(game_id=game.pk, user=user)
            game = services.game_start(game_id=game.pk, user=users[0])
        state = selectors.engine_state(game)
        movers = [p.id for p in state.players if engine.turn_moves(state, p.id)]
        mover = rng.choice(movers)
        move = rng.choice(engine.turn_moves(state, mover))
        started, cpu = time.perf_counter(), time.process_time()
        services.move_apply(game_id=game.pk, user=by_id[mover], move=move)
        times.append(time.perf_counter() - started)
        cpu_times.append(time.process_time() - cpu)
        game.refresh_from_db()
    times.sort()
    print(f"moves: {len(times)}")
    print(f"move_apply median: {statistics.median(times) * 1000:.1f} ms")
    print(f"move_apply p90: {times[int(len(times) * 0.9)] * 1000:.1f} ms")
    cpu = statistics.mean(cpu_times)
    print(f"CPU per move in this process: {cpu * 1000:.2f} ms (one core: {1 / cpu:.0f} moves/s)")


if __name__ == "__main__":
    main()
