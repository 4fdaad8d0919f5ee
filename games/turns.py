"""The turn timer: who must act now, and until when.

A game with ``turn_seconds`` has a ``turn_deadline`` while a person must act: in the
preparation phase everyone who has not chosen their short cards yet, later the current
player. The deadline is set when such a turn begins and stays while the same turn goes on
(the second card of a draw, choosing drawn destination cards). Computer players and seats on
autopilot have none: the bot driver moves for them. When a deadline passes, the sweeper
(``games.sweeper``) puts the late seats on autopilot through ``services.turn_expire``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from games.models import Game, Seat
from games.ratumrad import engine

TurnKey = tuple[str, int | None]


def turn_key(status: str, current: int | None) -> TurnKey:
    """What identifies a turn: everyone prepares at once, later it is one player's turn."""
    return (status, None if status == engine.PREPARATION else current)


def stored_turn_key(stored: dict | None) -> TurnKey | None:
    """The turn of a stored state (``Game.state``), None before the deal."""
    if stored is None:
        return None
    return turn_key(stored["status"], stored["current"])


def late_seats(state: engine.GameState, seats: Iterable[Seat]) -> list[Seat]:
    """The seats of the people who must act now (computer-played seats never are)."""
    if state.status == engine.PREPARATION:
        waiting = {player.id for player in state.players if not player.prepared}
    elif state.status in (engine.RUNNING, engine.FINAL_ROUND):
        waiting = {state.players[state.current].id}
    else:
        return []
    return [seat for seat in seats if seat.user_id in waiting and not seat.computer_plays]


def deadline(
    game: Game,
    before: TurnKey | None,
    state: engine.GameState,
    seats: Iterable[Seat],
    now: datetime,
) -> datetime | None:
    """``game.turn_deadline`` after a change that turned the turn ``before`` into ``state``."""
    if not game.turn_seconds or not late_seats(state, seats):
        return None
    if before == turn_key(state.status, state.current) and game.turn_deadline is not None:
        return game.turn_deadline  # the same turn goes on
    return now + timedelta(seconds=game.turn_seconds)
