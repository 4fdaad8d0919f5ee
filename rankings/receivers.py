"""Rate every game as it finishes and award its achievements (``games.signals.game_finished``)."""

from __future__ import annotations

import logging

from django.db import transaction

from games.models import Game
from games.moves import sql
from rankings import selectors, services

logger = logging.getLogger(__name__)


# What follows a game's end, in the order made: the ``services`` function, and what the log
# says when it fails.
STEPS = (
    ("rate_game", "could not rate game %s"),
    ("award_achievements", "could not award the achievements of game %s"),
)


def finished_game(sender, *, game: Game, results: list[dict], seats=None, **kwargs) -> None:
    """Rate the game and award its achievements.

    This runs inside the transaction that ends the game: a failure here must not undo the
    game's end. The steps are made under one savepoint (each of its own would cost two more
    round trips to the database at every game's end), and their writes wait to go together
    (one statement on PostgreSQL); if any fails, that savepoint is rolled back and each step
    is made again under one of its own, so that the others stand and the failure is logged
    (``manage.py rate_games`` rates such a game later).
    """
    try:
        with transaction.atomic(), sql.batch():
            made = [
                getattr(services, name)(game=game, results=results, seats=seats)
                for name, _ in STEPS
            ]
    except Exception:
        pass  # which step failed, and whether it fails again, is found out below
    else:
        # What its views show of the rankings, as made: its end's broadcast reads none.
        selectors.keep_when_committed(game, *made)
        return
    for name, failure in STEPS:
        try:
            with transaction.atomic():
                getattr(services, name)(game=game, results=results, seats=seats)
        except Exception:
            logger.exception(failure, game.pk)
