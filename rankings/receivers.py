"""Rate every game as it finishes and award its achievements (``games.signals.game_finished``)."""

from __future__ import annotations

import logging

from django.db import transaction

from games.models import Game
from rankings import services

logger = logging.getLogger(__name__)


def rate_finished_game(sender, *, game: Game, results: list[dict], seats=None, **kwargs) -> None:
    # This runs inside the transaction that ends the game: a failure here must not undo
    # the game's end, so it is rolled back to a savepoint and logged instead
    # (``manage.py rate_games`` rates such a game later).
    try:
        with transaction.atomic():
            services.rate_game(game=game, results=results, seats=seats)
    except Exception:
        logger.exception("could not rate game %s", game.pk)


def award_finished_game(sender, *, game: Game, results: list[dict], seats=None, **kwargs) -> None:
    # As above: the game's end stands even if this fails.
    try:
        with transaction.atomic():
            services.award_achievements(game=game, results=results, seats=seats)
    except Exception:
        logger.exception("could not award the achievements of game %s", game.pk)
