"""The turn timer: who must act now, and until when.

A game with ``turn_seconds`` has a ``turn_deadline`` while a person must act: whoever the
engine's ``to_move`` names (in Rat um Rad's preparation everyone who has not chosen their
short cards yet, later the current player). The deadline is set when such a turn begins and
stays while the same turn goes on (the kind's ``turn_key``: in Rat um Rad the second card of
a draw, choosing drawn destination cards). Computer players and seats on autopilot have none:
the bot driver moves for them. When a deadline passes, the sweeper (``games.sweeper``) puts
the late seats on autopilot through ``games.services.seats.turn_expire``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from datetime import datetime, timedelta

from games import registry
from games.models import Game, Seat

TurnKey = Hashable


def stored_turn_key(game: Game, stored: dict | None) -> TurnKey | None:
    """The turn of a stored state (``Game.state``), None before the deal."""
    if stored is None:
        return None
    return registry.get(game.kind).glue.stored_turn_key(stored)


def late_seats(game: Game, state, seats: Iterable[Seat]) -> list[Seat]:
    """The seats of the people who must act now (computer-played seats never are)."""
    engine = registry.get(game.kind).engine
    if engine.is_over(state):
        return []
    waiting = set(engine.to_move(state))
    return [seat for seat in seats if seat.user_id in waiting and not seat.computer_plays]


def deadline(
    game: Game,
    before: TurnKey | None,
    state,
    seats: Iterable[Seat],
    now: datetime,
) -> datetime | None:
    """``game.turn_deadline`` after a change that turned the turn ``before`` into ``state``."""
    if not game.turn_seconds or not late_seats(game, state, seats):
        return None
    now_key = registry.get(game.kind).glue.turn_key(state)
    if before == now_key and game.turn_deadline is not None:
        return game.turn_deadline  # the same turn goes on
    return now + timedelta(seconds=game.turn_seconds)
