#!/usr/bin/env python3
"""Road to 300's bots on seeded games: the grid's calibration (T1.1) and the strong bot's
decision time (T5.1), on every core.

    python bench/road300_bench.py [--games 400] [--seed 1] [--grid N] [--bots strong,random]
                                  [--processes K]

Game ``i`` uses seed ``seed + i`` for every bot, so all bots face the same dice (T1.2). Prints
per bot: mean score, share of games reaching 300 with its 95% Wilson interval, the decision
times p50/p99 (each decision timed on its own; with K processes the cores are shared), and
whether T1.1's targets hold (strong: 20-40% reach 300; random: under 1%). ``--grid`` plays a
sheet of ``games.road300.grids.GRIDS`` other than the current one (to try a new design).
No Django.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.road300 import engine, grids
from games.road300.simulation import play_game, quantile

TARGETS = {"strong": (0.20, 0.40), "random": (0.0, 0.01)}  # T1.1


def use_grid(version: int) -> None:
    engine.CURRENT = version  # new_game deals the sheet engine.CURRENT names


def play_batch(task: tuple[str, int, int, int]) -> list[dict]:
    name, first, count, version = task
    use_grid(version)
    return [play_game(name, seed) for seed in range(first, first + count)]


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--grid", type=int, default=grids.CURRENT)
    parser.add_argument("--bots", default="strong,random")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if args.grid not in grids.GRIDS:
        parser.error(f"--grid: no sheet {args.grid}; known: {sorted(grids.GRIDS)}")
    print(f"grid {args.grid}, {args.games} games per bot, seeds {args.seed}..")
    for row in grids.GRIDS[args.grid]:
        print("  " + " ".join(f"{value:3d}" for value in row))
    chunk = max(1, args.games // (4 * args.processes))
    failed = False
    with ProcessPoolExecutor(args.processes) as pool:
        for name in args.bots.split(","):
            started = time.perf_counter()
            tasks = [
                (name, args.seed + first, min(chunk, args.games - first), args.grid)
                for first in range(0, args.games, chunk)
            ]
            played = [game for batch in pool.map(play_batch, tasks) for game in batch]
            seconds = time.perf_counter() - started
            totals = [game["total"] for game in played]
            times = [t for game in played for t in game["times"]]
            problems = [p for game in played for p in game["problems"]]
            wins = sum(total >= engine.WINNING_TOTAL for total in totals)
            low, high = wilson(wins, len(totals))
            share = wins / len(totals)
            verdict = ""
            if name in TARGETS:
                lo, hi = TARGETS[name]
                ok = lo <= share < hi if name == "random" else lo <= share <= hi
                verdict = f", T1.1 target {lo:.0%}-{hi:.0%}: {'met' if ok else 'MISSED'}"
                failed |= not ok
            print(
                f"{name}: mean {sum(totals) / len(totals):.1f}, reached 300 in {share:.1%} "
                f"(95% CI {low:.1%}-{high:.1%}){verdict}; decision p50 "
                f"{1000 * quantile(times, 0.5):.1f} ms, p99 {1000 * quantile(times, 0.99):.1f} ms"
                f" over {len(times)} decisions; {len(problems)} rule violations; {seconds:.0f} s"
            )
            failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
