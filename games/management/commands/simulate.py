"""``manage.py simulate``: random games on the Basel map, invariants checked after every move."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.ratumrad.board import basel
from games.ratumrad.engine import MAX_PLAYERS, MIN_PLAYERS
from games.ratumrad.simulation import play_random_game

SHOWN_VIOLATIONS = 20


class Command(BaseCommand):
    help = (
        "Play random games on the Basel map (seeds S, S+1, ...), check every invariant after "
        "every move and print the figures. Exits non-zero on any violation."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=100, help="games to play (100)")
        parser.add_argument("--players", type=int, default=4, help="players per game (4)")
        parser.add_argument("--seed", type=int, default=1, help="seed of the first game (1)")

    def handle(self, *args, games: int, players: int, seed: int, **options) -> None:
        if games < 1:
            raise CommandError("--games must be at least 1")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise CommandError(f"--players must be {MIN_PLAYERS} to {MAX_PLAYERS}")
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
        self.stdout.write(f"games played: {games}")
        self.stdout.write(f"invariant violations: {len(violations)}")
        self.stdout.write(f"mean moves per game: {moves / games:.1f}")
        self.stdout.write(f"mean winning score: {winning / games:.1f}")
        self.stdout.write(f"games per second: {games / seconds:.1f}")
        self.stdout.write(f"games ended by: {ended}")
        for violation in violations[:SHOWN_VIOLATIONS]:
            self.stderr.write(violation)
        if violations:
            raise CommandError(f"{len(violations)} invariant violations")
