"""Seeded games of bots for ``manage.py simulate --kind road300``, the benchmark and the grid's
calibration (``docs/road300-grid.md``).

Game ``i`` of a run uses seed ``seed + i`` for every bot, so all bots face the same dice
(T1.2). Every move is checked against the rules as it is played (:func:`check`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence

from . import engine
from .board import CORNERS
from .bots import BOTS, make_bot

PLAYER = "solo"


def check(state: engine.GameState) -> list[str]:
    """The invariants of a state between moves; empty when all hold."""
    problems = []
    crossed, circled = state.crossed, state.circled
    if len(set(crossed)) != len(crossed):
        problems.append("a cell was crossed twice (T2.2)")
    if len(set(circled)) != len(circled):
        problems.append("a cell was circled twice (T2.7)")
    standing = state.position
    if any(cell not in crossed for cell in circled if cell != standing):
        problems.append("a circled cell other than the standing one is not crossed (T2.4)")
    if engine.is_over(state):
        expected = sum(state.value(cell) for cell in engine.scoring_cells(state))
        if state.results[0]["total"] != expected:
            problems.append(f"total {state.results[0]['total']} is not T4.2's {expected}")
        if state.end_reason == engine.THREE_FAILED_ROLLS and state.failed_rolls != 3:
            problems.append("ended by three failed rolls without three failed rolls (T2.3)")
    elif not engine.legal_moves(state, state.player):
        problems.append("a running game offers no legal turn (T2.8)")
    return problems


def check_turn(blocked: set, position, event: dict) -> list[str]:
    """A played turn's path against T2.5/T2.6: ``blocked`` and ``position`` before the turn."""
    path = [tuple(cell) for cell in event["path"]]
    problems = []
    if len(path) != event["die"] or path[-1] != tuple(event["to"]):
        problems.append(f"path {path} is not {event['die']} steps to {event['to']} (T2.5)")
    if len(set(path)) != len(path):
        problems.append(f"path {path} visits a cell twice (T2.5)")
    if set(path) & (blocked | {tuple(event["cross"])}):
        problems.append(f"path {path} steps on a crossed or circled cell (T2.5, T2.6)")
    if position is None:
        if path[0] not in CORNERS:
            problems.append(f"the first move enters on {path[0]}, not a corner (T2.5)")
    else:
        path = [position, *path]
    for (x, y), (u, v) in itertools.pairwise(path):
        if abs(x - u) + abs(y - v) != 1:
            problems.append(f"path {path} is not made of orthogonal steps (T2.5)")
            break
    return problems


def play_game(name: str, seed: int, options: dict | None = None) -> dict:
    """One game of bot ``name`` on ``seed``: total, rounds, reason, decision times, problems."""
    state = engine.new_game(seed, [PLAYER], options)
    bot = make_bot(name, seed)
    times: list[float] = []
    problems = [f"seed {seed}: {p}" for p in check(state)]
    while not engine.is_over(state):
        view = engine.view(state, PLAYER)
        started = time.perf_counter()
        move = bot.choose(view)
        times.append(time.perf_counter() - started)
        if move not in view["legal"]:
            problems.append(f"seed {seed}: bot {name} chose {move}, which is not legal")
            break
        blocked, position = set(state.crossed) | set(state.circled), state.position
        _, events = engine.apply(state, PLAYER, move)
        for event in events:
            if event["kind"] == "turn":
                problems.extend(f"seed {seed}: {p}" for p in check_turn(blocked, position, event))
        problems.extend(f"seed {seed}, round {state.round}: {p}" for p in check(state))
    total = engine.results(state)[0]["total"] if engine.is_over(state) else 0
    return {
        "total": total,
        "rounds": len(state.circled),
        "reason": state.end_reason,
        "times": times,
        "problems": problems,
    }


def quantile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank); 0 without data."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, int(fraction * len(ordered) + 0.5) - 1))
    return ordered[rank]


def simulate(games: int, bots: Sequence[str], seed: int, options: dict | None = None) -> dict:
    """Play ``games`` seeded games (seeds ``seed`` .. ``seed + games - 1``) with every bot.

    Returns per bot name: ``games``, ``mean``, ``share_300`` (share of games reaching 300),
    ``min``, ``max``, ``mean_rounds``, ``ended_by`` (reason -> count), ``p50_seconds`` and
    ``p99_seconds`` (per decision), ``decisions``, ``totals`` and ``problems``.
    """
    report = {}
    for name in bots:
        played = [play_game(name, seed + i, options) for i in range(games)]
        totals = [game["total"] for game in played]
        times = [t for game in played for t in game["times"]]
        ended: dict[str, int] = {}
        for game in played:
            ended[game["reason"]] = ended.get(game["reason"], 0) + 1
        report[name] = {
            "games": games,
            "mean": sum(totals) / games,
            "share_300": sum(t >= engine.WINNING_TOTAL for t in totals) / games,
            "min": min(totals),
            "max": max(totals),
            "mean_rounds": sum(game["rounds"] for game in played) / games,
            "ended_by": dict(sorted(ended.items())),
            "p50_seconds": quantile(times, 0.50),
            "p99_seconds": quantile(times, 0.99),
            "decisions": len(times),
            "totals": totals,
            "problems": [p for game in played for p in game["problems"]],
        }
    return report


def simulate_report(
    *, games: int, players: int, bots: list[str] | None, options: dict, seed: int
) -> tuple[list[str], list[str]]:
    """The lines of ``manage.py simulate --kind road300`` and the rule violations found.

    Road to 300 is solo, so ``players`` is not used (one seat, whatever the command's default);
    without ``--bots`` the random player plays. Several bots each play every seed.
    """
    names = bots or ["random"]
    unknown = sorted(set(names) - set(BOTS))
    if unknown:
        raise ValueError(f"--bots: unknown bot {', '.join(unknown)}; known: {', '.join(BOTS)}")
    started = time.perf_counter()
    report = simulate(games, list(dict.fromkeys(names)), seed, options)
    seconds = time.perf_counter() - started
    lines = [f"games played: {games} per bot (seeds {seed}..{seed + games - 1})"]
    problems = []
    for name, row in report.items():
        ended = ", ".join(f"{reason} {count}" for reason, count in row["ended_by"].items())
        lines.append(
            f"bot {name}: mean score {row['mean']:.1f}, reached 300 in "
            f"{100 * row['share_300']:.1f}%, min {row['min']}, max {row['max']}, "
            f"mean rounds {row['mean_rounds']:.1f}, decision p50 "
            f"{1000 * row['p50_seconds']:.2f} ms, p99 {1000 * row['p99_seconds']:.2f} ms, "
            f"ended by: {ended}"
        )
        problems.extend(row["problems"])
    lines.append(f"invariant violations: {len(problems)}")
    lines.append(f"seconds: {seconds:.1f}")
    return lines, problems
