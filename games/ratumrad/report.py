"""The figures of ``manage.py simulate --kind ratumrad``: random games, or games of bots, on
the Basel map with every invariant checked after every move."""

from __future__ import annotations

import time

from .board import basel
from .bots import BOTS, play_bot_game
from .engine import MAX_PLAYERS, MIN_PLAYERS
from .simulation import play_random_game


class BadArguments(ValueError):
    """Settings that ``simulate`` cannot play; the message names the option."""


def simulate_report(
    *, games: int, players: int, bots: list[str] | None, options: dict, seed: int
) -> tuple[list[str], list[str]]:
    """Play the games (seeds ``seed``, ``seed + 1``, ...); the lines to print and the
    invariant violations found."""
    if bots:
        return _bot_games(games, seed, bots)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise BadArguments(f"--players must be {MIN_PLAYERS} to {MAX_PLAYERS}")
    board = basel()
    violations: list[str] = []
    moves = winning = 0
    reasons: dict[str, int] = {}
    started = time.perf_counter()
    for game_seed in range(seed, seed + games):
        stats = play_random_game(game_seed, players, board, check=True)
        violations.extend(stats.violations)
        moves += stats.moves
        winning += stats.winner_total or 0
        reason = stats.end_reason or "unfinished"
        reasons[reason] = reasons.get(reason, 0) + 1
    seconds = time.perf_counter() - started
    ended = ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items()))
    lines = [
        f"games played: {games}",
        f"invariant violations: {len(violations)}",
        f"mean moves per game: {moves / games:.1f}",
        f"mean winning score: {winning / games:.1f}",
        f"games per second: {games / seconds:.1f}",
        f"games ended by: {ended}",
    ]
    return lines, violations


def _bot_games(games: int, seed: int, names: list[str]) -> tuple[list[str], list[str]]:
    unknown = sorted(set(names) - set(BOTS))
    if unknown:
        raise BadArguments(f"--bots: unknown bot {', '.join(unknown)}; known: {', '.join(BOTS)}")
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise BadArguments(f"--bots must name {MIN_PLAYERS} to {MAX_PLAYERS} bots")
    board = basel()
    violations: list[str] = []
    moves = 0
    reasons: dict[str, int] = {}
    per_bot: dict[str, dict] = {}
    started = time.perf_counter()
    for k, game_seed in enumerate(range(seed, seed + games)):
        shift = k % len(names)  # no bot keeps the same seat in every game
        result = play_bot_game(game_seed, names[shift:] + names[:shift], board, check=True)
        violations.extend(result.violations)
        moves += result.moves
        reason = result.end_reason or "unfinished"
        reasons[reason] = reasons.get(reason, 0) + 1
        for seat in result.seats:
            figures = per_bot.setdefault(
                seat.bot,
                {"games": 0, "wins": 0, "score": 0, "done": 0, "cards": 0, "times": []},
            )
            figures["games"] += 1
            figures["wins"] += seat.place == 1
            figures["score"] += seat.total
            figures["done"] += seat.destinations_completed
            figures["cards"] += seat.destinations_total
            figures["times"].extend(seat.decision_seconds)
    seconds = time.perf_counter() - started
    ended = ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items()))
    lines = [
        f"games played: {games}",
        f"bots: {','.join(names)}",
        f"invariant violations: {len(violations)}",
        f"mean moves per game: {moves / games:.1f}",
        f"games per second: {games / seconds:.1f}",
        f"games ended by: {ended}",
    ]
    for name in names:
        if name not in per_bot:
            continue
        f = per_bot.pop(name)
        n = f["games"]
        share = f["done"] / f["cards"] if f["cards"] else 0.0
        times = sorted(f["times"])
        lines.append(
            f"bot {name}: games {n}, win rate {100 * f['wins'] / n:.1f}%, "
            f"mean score {f['score'] / n:.1f}, "
            f"destinations completed {f['done'] / n:.2f} of {f['cards'] / n:.2f} "
            f"({100 * share:.1f}%), "
            f"decision p50 {percentile_ms(times, 0.50):.2f} ms, "
            f"p99 {percentile_ms(times, 0.99):.2f} ms"
        )
    return lines, violations


def percentile_ms(sorted_seconds: list[float], fraction: float) -> float:
    """The ``fraction`` quantile in milliseconds (nearest rank); 0 without data."""
    if not sorted_seconds:
        return 0.0
    rank = min(len(sorted_seconds) - 1, max(0, int(fraction * len(sorted_seconds) + 0.5) - 1))
    return 1000 * sorted_seconds[rank]
