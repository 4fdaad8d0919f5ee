#!/usr/bin/env python3
"""Engine speed on one core, for every kind: games and moves per second, and bot decisions.

    python bench/engine_bench.py [--kind all] [--games 200] [--players N] [--seed 1]
                                 [--repeat 3] [--bot-games 10] [--profile]

No Django: each kind's pure engine through the contract (``games/contract.py``) alone.

- games/s: whole seeded games (``--seed``, ``--seed + 1``, ...) with a random legal move for
  whoever is to move, choosing included; the best of ``--repeat`` runs.
- moves/s and apply + view: one ``apply`` plus the ``view`` of the player who moved (what the
  server does for a move besides the database and the sockets), choosing excluded.
- bot decisions: each of the kind's bots but ``random`` plays ``--bot-games`` games in every
  seat; the time of ``choose(view)``, the view built beforehand (the site builds it anyway).

``--players`` defaults to 4 (Rat um Rad and RAGE) and 1 (Road to 300).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import registry

DEFAULT_PLAYERS = 4


@dataclass
class Figures:
    kind: str
    players: int
    games_per_second: float
    moves_per_game: float
    apply_view: list[float]  # seconds of each apply + view
    decisions: dict[str, list[float]]  # bot -> seconds of each choose()


def players_for(kind: registry.GameKind, wanted: int | None) -> int:
    count = wanted if wanted is not None else DEFAULT_PLAYERS
    return min(max(count, kind.min_players), kind.max_players)


def random_game(engine, seed: int, players: int, options: dict, timed: list | None) -> int:
    """One game of random legal moves; the moves it took. With ``timed``, each move's
    ``apply`` + mover's ``view`` is appended to it in seconds."""
    state = engine.new_game(seed, list(range(1, players + 1)), options)
    rng = random.Random(seed)
    clock = time.perf_counter
    moves = 0
    while not engine.is_over(state):
        player = rng.choice(engine.to_move(state))
        legal = engine.legal_moves(state, player)
        move = legal[rng.randrange(len(legal))]
        if timed is None:
            engine.apply(state, player, move)
        else:
            started = clock()
            engine.apply(state, player, move)
            engine.view(state, player)
            timed.append(clock() - started)
        moves += 1
    return moves


def games_per_second(engine, games: int, players: int, seed: int, options: dict):
    started = time.perf_counter()
    moves = sum(random_game(engine, s, players, options, None) for s in range(seed, seed + games))
    seconds = time.perf_counter() - started
    return games / seconds, moves / games


def decision_times(engine, bot: str, games: int, players: int, seed: int, options: dict):
    """Seconds of each ``choose(view)`` of ``bot`` playing every seat of ``games`` games."""
    times = []
    clock = time.perf_counter
    for game_seed in range(seed, seed + games):
        seats = list(range(1, players + 1))
        state = engine.new_game(game_seed, seats, options)
        bots = {player: engine.make_bot(bot, game_seed * 10 + player) for player in seats}
        rng = random.Random(game_seed)
        while not engine.is_over(state):
            player = rng.choice(engine.to_move(state))
            view = engine.view(state, player)
            started = clock()
            move = bots[player].choose(view)
            times.append(clock() - started)
            engine.apply(state, player, move)
    return times


def measure(kind: registry.GameKind, args) -> Figures:
    engine = kind.engine
    players = players_for(kind, args.players)
    options = engine.check_options({})
    games_per_second(engine, min(args.games, 5), players, args.seed, options)  # warm up
    runs = [
        games_per_second(engine, args.games, players, args.seed, options)
        for _ in range(args.repeat)
    ]
    rate, moves = max(runs)
    timed: list[float] = []
    for game_seed in range(args.seed, args.seed + args.games):
        random_game(engine, game_seed, players, options, timed)
    decisions = {
        bot: decision_times(engine, bot, args.bot_games, players, args.seed, options)
        for bot in engine.BOTS
        if bot != "random"
    }
    return Figures(kind.key, players, rate, moves, timed, decisions)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def report(figures: Figures) -> None:
    times = figures.apply_view
    seats = f"{figures.players} player{'s' if figures.players > 1 else ''}"
    print(f"{figures.kind}: {seats}, {figures.moves_per_game:.1f} moves a game")
    print(f"  games per second: {figures.games_per_second:.1f}")
    print(f"  moves per second (apply + view): {len(times) / sum(times):,.0f}")
    print(
        f"  apply + view: p50 {ms(statistics.median(times))},"
        f" p99 {ms(percentile(times, 0.99))}, max {ms(max(times))}"
    )
    for bot, decisions in figures.decisions.items():
        print(
            f"  bot {bot}: decision p50 {ms(statistics.median(decisions))},"
            f" p99 {ms(percentile(decisions, 0.99))} ({len(decisions)} decisions)"
        )


def profile(kind: registry.GameKind, args) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    measure(kind, args)
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=["all", *registry.KINDS], default="all")
    parser.add_argument("--games", type=int, default=200, help="random games per run")
    parser.add_argument("--players", type=int, help="seats (within each kind's range)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs of the game rate; best wins")
    parser.add_argument("--bot-games", type=int, default=10, help="games per bot, every seat")
    parser.add_argument("--profile", action="store_true", help="print cProfile hot spots too")
    parser.add_argument("--top", type=int, default=25, help="rows of each profile table")
    args = parser.parse_args(argv)
    kinds = registry.KINDS.values() if args.kind == "all" else [registry.get(args.kind)]
    for kind in kinds:
        report(measure(kind, args))
        if args.profile:
            profile(kind, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
