"""``manage.py simulate``: random games on the Basel map, invariants checked after every move.

With ``--bots`` the seats are played by computer players instead (``games.ratumrad.bots``)
and the command prints per bot: win rate, score, destinations completed and decision times.
"""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.ratumrad.board import basel
from games.ratumrad.bots import BOTS, play_bot_game
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
        parser.add_argument(
            "--bots",
            default=None,
            help=(
                "comma-separated bot per seat, e.g. heuristic,random (known: "
                f"{', '.join(BOTS)}); sets the player count, seats rotate from game to game"
            ),
        )

    def handle(
        self, *args, games: int, players: int, seed: int, bots: str | None = None, **options
    ) -> None:
        if games < 1:
            raise CommandError("--games must be at least 1")
        if bots:
            self._bot_games(games, seed, bots)
            return
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
        self._fail_on(violations)

    def _bot_games(self, games: int, seed: int, bots: str) -> None:
        names = [name.strip() for name in bots.split(",") if name.strip()]
        unknown = sorted(set(names) - set(BOTS))
        if unknown:
            raise CommandError(
                f"--bots: unknown bot {', '.join(unknown)}; known: {', '.join(BOTS)}"
            )
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            raise CommandError(f"--bots must name {MIN_PLAYERS} to {MAX_PLAYERS} bots")
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
        self.stdout.write(f"games played: {games}")
        self.stdout.write(f"bots: {','.join(names)}")
        self.stdout.write(f"invariant violations: {len(violations)}")
        self.stdout.write(f"mean moves per game: {moves / games:.1f}")
        self.stdout.write(f"games per second: {games / seconds:.1f}")
        self.stdout.write(f"games ended by: {ended}")
        for name in names:
            if name not in per_bot:
                continue
            f = per_bot.pop(name)
            n = f["games"]
            share = f["done"] / f["cards"] if f["cards"] else 0.0
            times = sorted(f["times"])
            self.stdout.write(
                f"bot {name}: games {n}, win rate {100 * f['wins'] / n:.1f}%, "
                f"mean score {f['score'] / n:.1f}, "
                f"destinations completed {f['done'] / n:.2f} of {f['cards'] / n:.2f} "
                f"({100 * share:.1f}%), "
                f"decision p50 {_percentile(times, 0.50):.2f} ms, "
                f"p99 {_percentile(times, 0.99):.2f} ms"
            )
        self._fail_on(violations)

    def _fail_on(self, violations: list[str]) -> None:
        """Show the first violations and exit non-zero when there are any."""
        for violation in violations[:SHOWN_VIOLATIONS]:
            self.stderr.write(violation)
        if violations:
            raise CommandError(f"{len(violations)} invariant violations")


def _percentile(sorted_seconds: list[float], fraction: float) -> float:
    """The ``fraction`` quantile in milliseconds (nearest rank); 0 without data."""
    if not sorted_seconds:
        return 0.0
    rank = min(len(sorted_seconds) - 1, max(0, int(fraction * len(sorted_seconds) + 0.5) - 1))
    return 1000 * sorted_seconds[rank]
