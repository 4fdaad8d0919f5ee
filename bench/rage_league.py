#!/usr/bin/env python3
"""RAGE's bots in a league of seeded games (G6.2), on every core.

    python bench/rage_league.py [--games 200] [--seed 1] [--players 4]
                                [--lineup strong,heuristic,heuristic,heuristic]
                                [--options '{"bids": "open"}'] [--processes K]

Game ``i`` uses seed ``seed + i``; the lineup (one bot name per seat, ``--players`` seats: a
shorter lineup repeats) is rotated by ``i`` seats, so every bot plays every seat. Prints per bot:
mean score per game, win share (shared first places count as wins), decision times p50/p99 (each
``choose`` timed on its own; with K processes the cores are shared); and the difference strong
minus heuristic in mean score per game with its 95% confidence interval, paired per game (the
strong seats' mean minus the heuristic seats' mean in the same game; mean +- 1.96 sd/sqrt(n)).

Exits non-zero when G6.2's targets are missed: the interval of strong - heuristic entirely above
0, the strong bot's p99 decision time at most 200 ms, heuristic's mean above random's by a wide
margin (20 points) when both play; or when a state breaks the rules' invariants. No Django.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rage import engine
from games.rage.bots import BOTS, make_bot
from games.rage.simulation import check

P99_LIMIT = 0.200  # G6.2: the strong bot decides within 200 ms p99
WIDE_MARGIN = 20.0  # G6.2: heuristic beats random "by a wide margin" (points per game)


def quantile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank); 0 without data."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, int(fraction * len(ordered) + 0.5) - 1))
    return ordered[rank]


def play_game(task: tuple[list[str], int, dict]) -> dict:
    """One game; ``names[i]`` plays seat ``i``. Totals, places, decision times per seat."""
    names, seed, options = task
    players = [f"{name}#{i + 1}" for i, name in enumerate(names)]
    bots = {
        player: make_bot(name, seed * 31 + i)
        for i, (player, name) in enumerate(zip(players, names, strict=True))
    }
    seat_of = {player: i for i, player in enumerate(players)}
    times: list[list[float]] = [[] for _ in players]
    state = engine.new_game(seed, players, options)
    problems: list[str] = []
    moves = 0
    while not engine.is_over(state):
        player = engine.to_move(state)[0]
        view = engine.view(state, player)
        started = time.perf_counter()
        move = bots[player].choose(view)
        times[seat_of[player]].append(time.perf_counter() - started)
        if move not in view["legal"]:
            problems.append(f"seed {seed}: {names[seat_of[player]]} chose an illegal {move}")
            break
        engine.apply(state, player, move)
        moves += 1
        problems.extend(f"seed {seed}: {problem}" for problem in check(state))
        if moves > 2_000:
            problems.append(f"seed {seed}: no end after {moves} moves")
            break
    rows = {row["player"]: row for row in engine.results(state)}
    return {
        "names": names,
        "totals": [rows[p]["total"] if rows else 0 for p in players],
        "places": [rows[p]["place"] if rows else 0 for p in players],
        "times": times,
        "problems": problems,
    }


def play_batch(tasks: list[tuple[list[str], int, dict]]) -> list[dict]:
    return [play_game(task) for task in tasks]


def paired_interval(diffs: list[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean and its 95% interval (mean +- z sd / sqrt(n))."""
    n = len(diffs)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(diffs) / n
    if n == 1:
        return mean, -math.inf, math.inf
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = z * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--lineup", default="strong,heuristic,heuristic,heuristic")
    parser.add_argument("--options", default="{}", help="the game's options, as JSON")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if not engine.MIN_PLAYERS <= args.players <= engine.MAX_PLAYERS:
        parser.error(f"--players: {engine.MIN_PLAYERS} to {engine.MAX_PLAYERS}")
    lineup = [name.strip() for name in args.lineup.split(",") if name.strip()]
    unknown = sorted(set(lineup) - set(BOTS))
    if not lineup or unknown:
        parser.error(f"--lineup: unknown bot {', '.join(unknown)}; known: {', '.join(BOTS)}")
    try:
        options = engine.check_options(json.loads(args.options))
    except (ValueError, engine.EngineError) as error:
        parser.error(f"--options: {error}")
    seats = [lineup[k % len(lineup)] for k in range(args.players)]
    tasks = [
        ([seats[(k + i) % args.players] for k in range(args.players)], args.seed + i, options)
        for i in range(args.games)
    ]
    chunk = max(1, args.games // (4 * max(1, args.processes)))
    batches = [tasks[i : i + chunk] for i in range(0, len(tasks), chunk)]
    print(
        f"{args.games} games of {args.players} players, seeds {args.seed}.."
        f"{args.seed + args.games - 1},"
        f" lineup {','.join(seats)} (rotated), options {json.dumps(options, sort_keys=True)},"
        f" {args.processes} processes"
    )
    started = time.perf_counter()
    if args.processes > 1:
        with ProcessPoolExecutor(args.processes) as pool:
            played = [game for batch in pool.map(play_batch, batches) for game in batch]
    else:
        played = [game for batch in batches for game in play_batch(batch)]
    seconds = time.perf_counter() - started

    names = list(dict.fromkeys(seats))
    totals: dict[str, list[int]] = {name: [] for name in names}
    wins = dict.fromkeys(names, 0)
    times: dict[str, list[float]] = {name: [] for name in names}
    diffs: list[float] = []
    problems = [problem for game in played for problem in game["problems"]]
    for game in played:
        per_game: dict[str, list[int]] = {}
        for name, total, place, spent in zip(
            game["names"], game["totals"], game["places"], game["times"], strict=True
        ):
            totals[name].append(total)
            wins[name] += place == 1
            times[name].extend(spent)
            per_game.setdefault(name, []).append(total)
        if "strong" in per_game and "heuristic" in per_game:
            strong = sum(per_game["strong"]) / len(per_game["strong"])
            heuristic = sum(per_game["heuristic"]) / len(per_game["heuristic"])
            diffs.append(strong - heuristic)

    failed = bool(problems)
    means = {}
    for name in names:
        count = len(totals[name])
        means[name] = sum(totals[name]) / count
        verdict = ""
        p99 = quantile(times[name], 0.99)
        if name == "strong":
            ok = p99 <= P99_LIMIT
            failed |= not ok
            verdict = f", p99 target <= {1000 * P99_LIMIT:.0f} ms: {'met' if ok else 'MISSED'}"
        print(
            f"{name}: mean {means[name]:.1f} per game, won {100 * wins[name] / count:.1f}% "
            f"({count} seats); decision p50 {1000 * quantile(times[name], 0.5):.1f} ms, "
            f"p99 {1000 * p99:.1f} ms, max {1000 * max(times[name], default=0):.1f} ms over "
            f"{len(times[name])} decisions{verdict}"
        )
    if diffs:
        mean, low, high = paired_interval(diffs)
        ok = low > 0
        failed |= not ok
        print(
            f"strong - heuristic: {mean:+.2f} per game (95% CI {low:+.2f} .. {high:+.2f}, "
            f"paired over {len(diffs)} games), target CI above 0: {'met' if ok else 'MISSED'}"
        )
    if "heuristic" in means and "random" in means:
        margin = means["heuristic"] - means["random"]
        ok = margin > WIDE_MARGIN
        failed |= not ok
        print(
            f"heuristic - random: {margin:+.1f} per game, target > {WIDE_MARGIN:.0f}: "
            f"{'met' if ok else 'MISSED'}"
        )
    print(f"rule violations: {len(problems)}; {seconds:.0f} s")
    for problem in problems[:10]:
        print(f"  {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
