"""``manage.py simulate``: seeded games of one kind, played by random players or bots, with the
kind's figures (its engine's ``simulate_report``).

Rat um Rad checks every invariant after every move; with ``--bots`` it prints per bot the win
rate, score, destinations completed and decision times. Other kinds print per bot its name,
mean score, its share of wins (or of games reaching the kind's goal) and decision times.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import registry
from games.contract import EngineError

SHOWN_VIOLATIONS = 20


class Command(BaseCommand):
    help = (
        "Play seeded games of one kind (seeds S, S+1, ...) with random players or bots, check "
        "the rules after every move and print the figures. Exits non-zero on any violation."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--kind",
            default=registry.DEFAULT_KIND,
            help=f"the kind of game ({', '.join(registry.KINDS)}; default {registry.DEFAULT_KIND})",
        )
        parser.add_argument("--games", type=int, default=100, help="games to play (100)")
        parser.add_argument("--players", type=int, default=4, help="players per game (4)")
        parser.add_argument("--seed", type=int, default=1, help="seed of the first game (1)")
        parser.add_argument(
            "--bots",
            default=None,
            help="comma-separated bots, e.g. heuristic,random; for a game of several players"
            " one per seat (it sets the player count, seats rotate from game to game)",
        )
        parser.add_argument(
            "--options", default="{}", help='the kind\'s options as JSON, e.g. \'{"bids": "open"}\''
        )

    def handle(self, *args, kind: str, games: int, players: int, seed: int, **options) -> None:
        if games < 1:
            raise CommandError("--games must be at least 1")
        try:
            game_kind = registry.get(kind)
        except registry.UnknownKind as error:
            raise CommandError(f"--kind: {error}") from None
        try:
            chosen = game_kind.engine.check_options(json.loads(options["options"]))
        except (ValueError, EngineError) as error:  # bad JSON, or the engine's BadOption
            raise CommandError(f"--options: {getattr(error, 'message', error)}") from None
        bots = [name.strip() for name in (options.get("bots") or "").split(",") if name.strip()]
        try:
            lines, violations = game_kind.engine.simulate_report(
                games=games, players=players, bots=bots or None, options=chosen, seed=seed
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        for line in lines:
            self.stdout.write(line)
        for violation in violations[:SHOWN_VIOLATIONS]:
            self.stderr.write(violation)
        if violations:
            raise CommandError(f"{len(violations)} invariant violations")
