#!/usr/bin/env python3
"""A game's end and "Play again" through the services, in one process: the CPU they take
here, without the sockets and the server around them.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/endbench .venv/bin/python bench/end_bench.py

Use a throwaway database: the script migrates it and creates two users. It plays ``--games``
games of Rat um Rad of two players, one after the other, with random legal moves
(``games.moves.play.move_apply``, as the API and the computer players move); each game's
successor is dealt by both players' "Play again" (``games.services.rematch.rematch_answer``).
It prints, each the median over the games, the CPU time of this process (``process_time``) and
the statements sent for:
- an ordinary move;
- the end: the move that ends the game (its scoring, ratings and achievements, and the
  finished game's views);
- the set-up: both answers of "Play again", the new game's deal included.

Every broadcast's frames are built as on a server, but not sent: no channel layer, so no
thread hop to one. The server's own share (the sockets, the event loop) is
``bench/turnover_bench.py``'s. ``--steps`` also prints the time of the parts of the end and
the set-up, per game.
"""

from __future__ import annotations

import argparse
import copy
import functools
import os
import random
import statistics
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratumrad_site.settings")
os.environ.setdefault("DJANGO_DEBUG", "0")  # as in production: no query log
os.environ.setdefault("DJANGO_SECRET_KEY", "end-bench-" + uuid.uuid4().hex)
os.environ.setdefault("DJANGO_SECURE", "0")
os.environ.setdefault("GAME_RATE", "1000000/min")

# The parts timed with --steps: (module, function), by where they are looked up when called.
STEPS = (
    ("games.moves.play", "prepare_guarded"),
    ("games.moves.play", "move_locked"),
    ("games.moves.record", "_store"),
    ("rankings.services", "rate_game"),
    ("rankings.services", "award_achievements"),
    ("games.broadcast", "game_changed"),
    ("games.selectors", "engine_state"),
    ("games.selectors", "finished_extras"),
    ("games.selectors", "game_view"),
    ("games.services.rematch", "check_rematch_answer"),
    ("games.services.rematch", "_seat_again"),
    ("games.services.lifecycle", "record"),
)


class Meter:
    """CPU time and statements, by the step the script is in (``now``)."""

    def __init__(self) -> None:
        self.now: str | None = None
        self.statements: dict[str, int] = defaultdict(int)
        self.parts: dict[tuple[str, str], float] = defaultdict(float)

    def count(self, execute, sql, params, many, context):
        if self.now is not None:
            self.statements[self.now] += 1
        return execute(sql, params, many, context)

    def time(self, module, name: str) -> None:
        func = getattr(module, name)

        @functools.wraps(func)
        def timed(*args, **kwargs):
            started = time.process_time()
            try:
                return func(*args, **kwargs)
            finally:
                if self.now is not None:
                    self.parts[(self.now, name)] += time.process_time() - started

        setattr(module, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", action="store_true", help="time the parts, too")
    args = parser.parse_args()

    import importlib

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from games import broadcast, selectors
    from games.models import Game
    from games.moves import play
    from games.ratumrad import engine
    from games.services.lifecycle import game_create, game_join, game_start
    from games.services.rematch import rematch_answer

    call_command("migrate", verbosity=0)
    broadcast.get_channel_layer = lambda: None  # the frames are built, and not sent
    meter = Meter()
    if args.steps:
        for module, name in STEPS:
            meter.time(importlib.import_module(module), name)
    tag = uuid.uuid4().hex[:8]
    users = [get_user_model().objects.create_user(f"end-{tag}-{n}") for n in range(2)]
    by_id = {user.pk: user for user in users}
    rng = random.Random(args.seed)
    cpu: dict[str, list[float]] = defaultdict(list)
    game = game_create(user=users[0], name=f"end {tag}", max_players=2)
    game_join(game_id=game.pk, user=users[1])
    game = game_start(game_id=game.pk, user=users[0])
    with connection.execute_wrapper(meter.count):
        for _ in range(args.games):
            while True:
                state = selectors.engine_state(game)
                mover = rng.choice([p.id for p in state.players if engine.turn_moves(state, p.id)])
                move = rng.choice(engine.turn_moves(state, mover))
                after, _ = engine.apply(copy.deepcopy(state), mover, move)
                step = "end" if after.status == engine.FINISHED else "move"
                meter.now, started = step, time.process_time()
                play.move_apply(game_id=game.pk, user=by_id[mover], move=move)
                cpu[step].append(time.process_time() - started)
                meter.now = None
                if step == "end":
                    break
                game.refresh_from_db()
            meter.now, started = "set-up", time.process_time()
            rematch_answer(game_id=game.pk, user=users[0])
            offer = rematch_answer(game_id=game.pk, user=users[1])
            cpu["set-up"].append(time.process_time() - started)
            meter.now = None
            game = Game.objects.get(pk=offer.new_game_id)

    print(f"{args.games} games of ratumrad with 2 players, {connection.vendor}, one process")
    for step in ("move", "end", "set-up"):
        figures = cpu[step]
        print(
            f"  {step:7} {statistics.median(figures) * 1000:6.2f} ms of CPU (median),"
            f" {meter.statements[step] / len(figures):4.1f} statements"
        )
    end_and_set_up = statistics.median(cpu["end"]) + statistics.median(cpu["set-up"])
    print(f"  end + set-up: {end_and_set_up * 1000:.2f} ms")
    if args.steps:
        print("parts, per game (ms of CPU; a part inside another counts in both):")
        for (step, name), seconds in sorted(meter.parts.items()):
            if step != "move":
                print(f"  {step:7} {name:22} {seconds / args.games * 1000:6.2f}")


if __name__ == "__main__":
    main()
