"""The turn timer: who must act now, and until when.

A game with ``turn_seconds`` has a ``turn_deadline`` while a person must act: whoever the
engine's ``to_move`` names (in Rat um Rad's preparation everyone who has not chosen their
short cards yet, later the current player). The deadline is set when such a turn begins and
stays while the same turn goes on (the kind's ``turn_key``: in Rat um Rad the second card of
a draw, choosing drawn destination cards). Computer players and seats on autopilot have none:
the bot driver moves for them. When a deadline passes, the sweeper (``games.sweeper``) puts
the late seats on autopilot through ``games.services.seats.turn_expire``.

A turn-based game (``Game.pace``) takes hours or days a turn and goes on with nobody
connected. When a turn runs out there, the computer plays that one turn for the person and
hands the seat back (``hands_back``); after ``KEEPS_SEAT_AFTER`` turns in a row played for
them, it keeps the seat until they take it back, as in a live game.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from datetime import datetime, timedelta

from django.utils.translation import gettext

from games import registry
from games.models import Game, Seat

TurnKey = Hashable

TURN_BASED_SECONDS = (12 * 3600, 24 * 3600, 3 * 24 * 3600)  # what a turn-based game may take
TURN_BASED_DEFAULT = 24 * 3600
KEEPS_SEAT_AFTER = 3  # turns in a row played for a person of a turn-based game


def pace_words() -> dict[int, str]:
    """The time a move of a turn-based game, in words of the active language."""
    return {
        12 * 3600: gettext("turn-based, 12 hours a move"),
        24 * 3600: gettext("turn-based, 24 hours a move"),
        3 * 24 * 3600: gettext("turn-based, 3 days a move"),
    }


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


def keeps_seat(game: Game, seat: Seat) -> bool:
    """Whether the computer, standing in for ``seat``'s person, plays on until they are back
    (live games; a turn-based game after ``KEEPS_SEAT_AFTER`` missed turns in a row)."""
    return not game.turn_based or seat.timeouts_in_row >= KEEPS_SEAT_AFTER


def hands_back(game: Game, seat: Seat, state) -> bool:
    """Whether the computer, having just moved for ``seat``, gives it back to its person: a
    turn-based game's stand-in for one turn, once that turn is over."""
    if seat.is_bot or seat.left or not seat.autopilot or keeps_seat(game, seat):
        return False
    return seat.user_id not in registry.get(game.kind).engine.to_move(state)
