#!/usr/bin/env python3
"""Engine speed on one core: random games per second, and one ``apply`` + ``view``.

    python bench/engine_bench.py [--games N] [--players 4] [--seed 1] [--repeat 3] [--profile]

No Django. Games are full random games on the Basel map (``games.ratumrad.simulation``),
the random players' choices included; the rate is the best of ``--repeat`` runs. A move's
time is ``apply`` plus the ``view`` for the player who moved, choosing the move excluded.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.ratumrad import engine
from games.ratumrad.board import basel
from games.ratumrad.simulation import (
    PLAYER_NAMES,
    move_rng,
    play_random_game,
    random_move,
)


def games_per_second(games: int, players: int, seed: int) -> tuple[float, float]:
    board = basel()
    moves = 0
    started = time.perf_counter()
    for game_seed in range(seed, seed + games):
        moves += play_random_game(game_seed, players, board).moves
    seconds = time.perf_counter() - started
    return games / seconds, moves / games


def move_times(games: int, players: int, seed: int) -> list[float]:
    """Seconds of each ``apply`` + ``view`` (for the mover) over ``games`` random games."""
    board = basel()
    clock = time.perf_counter
    times = []
    for game_seed in range(seed, seed + games):
        state = engine.new_game(game_seed, PLAYER_NAMES[:players], board)
        rng = move_rng(game_seed)
        while state.status != engine.FINISHED:
            player_id, move = random_move(state, rng)
            started = clock()
            engine.apply(state, player_id, move)
            engine.view(state, player_id)
            times.append(clock() - started)
    return times


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def profile(games: int, players: int, seed: int, top: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    games_per_second(games, players, seed)
    move_times(games, players, seed)
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs of the game rate; best wins")
    parser.add_argument("--profile", action="store_true", help="print cProfile hot spots too")
    parser.add_argument("--top", type=int, default=25, help="rows of each profile table")
    args = parser.parse_args(argv)
    games_per_second(min(args.games, 5), args.players, args.seed)  # warm up
    runs = [games_per_second(args.games, args.players, args.seed) for _ in range(args.repeat)]
    rate, moves = max(runs)
    times = move_times(args.games, args.players, args.seed)
    print(f"players: {args.players}  games: {args.games}  moves per game: {moves:.1f}")
    print(f"games per second: {rate:.1f}")
    print(f"apply + view median: {statistics.median(times) * 1e6:.1f} us")
    print(f"apply + view p90: {percentile(times, 0.9) * 1e6:.1f} us")
    print(f"apply + view max: {max(times) * 1e6:.1f} us")
    if args.profile:
        profile(args.games, args.players, args.seed, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
