"""Seeded games of bots for ``manage.py simulate --kind rage`` and the benchmark (G6.2).

Game ``i`` of a run uses seed ``seed + i``; the bots take the seats in rotation, shifted by one
seat per game, so every bot plays every seat. Every state is checked against the rules as the
game is played (:func:`check`).
"""

from __future__ import annotations

import time
from collections import Counter

from . import engine
from .bots import BOTS, make_bot
from .cards import DECK


def check(state: engine.GameState) -> list[str]:
    """The invariants of a state between moves; empty when all hold."""
    problems = []
    cards = [c for hand in state.hands for c in hand] + state.stack + state.trump_pile
    cards += [entry[1] for entry in state.trick]
    cards += [entry[1] for trick in state.tricks for entry in trick["cards"]]
    if Counter(cards) != Counter(DECK):
        problems.append(f"round {state.round}: the cards are not the 112 of the deck (G1.1)")
    if engine.is_over(state):
        return problems
    size = state.hand_size
    played = len(state.tricks)
    for seat, hand in enumerate(state.hands):
        in_trick = any(entry[0] == seat for entry in state.trick)
        if len(hand) != size - played - in_trick:
            problems.append(f"round {state.round}: seat {seat} holds {len(hand)} cards (G1.2)")
    if sum(state.tricks_won) != played:
        problems.append(f"round {state.round}: tricks won do not add up (G3.4)")
    if state.phase == engine.PLAYING and any(bid is None for bid in state.bids):
        problems.append(f"round {state.round}: a card before every bid is in (G2.3)")
    if not state.no_trump and state.trump is None:
        problems.append(f"round {state.round}: no trump without a No Trump (G1.3)")
    if not engine.to_move(state):
        problems.append(f"round {state.round}: a running game with nobody to move")
    return problems


def play_game(names: list[str], seed: int, options: dict) -> dict:
    """One game; ``names[i]`` plays seat ``i``. Returns totals, places and problems."""
    players = [f"{name}#{i + 1}" for i, name in enumerate(names)]
    bots = {
        player: make_bot(name, seed * 31 + i)
        for i, (player, name) in enumerate(zip(players, names, strict=True))
    }
    state = engine.new_game(seed, players, options)
    problems: list[str] = []
    moves = 0
    while not engine.is_over(state):
        player = engine.to_move(state)[0]
        move = bots[player].choose(engine.view(state, player))
        engine.apply(state, player, move)
        moves += 1
        problems.extend(check(state))
        if moves > 2_000:
            problems.append(f"seed {seed}: no end after {moves} moves")
            break
    rows = {row["player"]: row for row in engine.results(state)}
    return {
        "totals": [rows[p]["total"] for p in players] if rows else [],
        "places": [rows[p]["place"] for p in players] if rows else [],
        "problems": [f"seed {seed}: {problem}" for problem in problems],
    }


def simulate_report(
    *, games: int, players: int, bots: list[str] | None, options: dict, seed: int
) -> tuple[list[str], list[str]]:
    """The lines of ``manage.py simulate --kind rage`` and the rule violations found: per bot its
    mean score per game and the share of games it won (shared first places count)."""
    if not engine.MIN_PLAYERS <= players <= engine.MAX_PLAYERS:
        raise ValueError(
            f"--players: RAGE takes {engine.MIN_PLAYERS} to {engine.MAX_PLAYERS}, not {players}"
        )
    names = list(bots or ["random"])
    unknown = sorted(set(names) - set(BOTS))
    if unknown:
        raise ValueError(f"--bots: unknown bot {', '.join(unknown)}; known: {', '.join(BOTS)}")
    options = engine.check_options(options or {})
    started = time.perf_counter()
    scores: dict[str, list[int]] = {name: [] for name in dict.fromkeys(names)}
    wins: Counter = Counter()
    problems: list[str] = []
    for i in range(games):
        seats = [names[(i + k) % len(names)] for k in range(players)]
        game = play_game(seats, seed + i, options)
        problems.extend(game["problems"])
        for name, total, place in zip(seats, game["totals"], game["places"], strict=True):
            scores[name].append(total)
            wins[name] += place == 1
    seconds = time.perf_counter() - started
    lines = [f"games played: {games} with {players} players (seeds {seed}..{seed + games - 1})"]
    for name, totals in scores.items():
        count = len(totals)
        mean = sum(totals) / count if count else 0.0
        share = 100 * wins[name] / count if count else 0.0
        lines.append(f"bot {name}: mean {mean:.1f} per game, won {share:.1f}% ({count} seats)")
    lines.append(f"invariant violations: {len(problems)}")
    lines.append(f"seconds: {seconds:.1f}")
    return lines, problems
