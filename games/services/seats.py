"""Who plays a seat: the person leaves, takes it back, or the computer stands in when a turn
runs out."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games import broadcast, turns
from games.errors import (
    Conflict,
    TurnNotOver,
)
from games.models import Event, Game, Seat
from games.moves.base import (
    after_commit,
    load_state,
    lobby_changed,
    locked,
    seat_of,
)
from games.moves.record import autopilot_off, record_seats
from games.services.admin import do_game_abort


def check_turn_expire(*, game_id: int, now) -> Game:
    """The locked game whose turn ran out; TurnNotOver if another server process was first
    or the player moved just in time."""
    game = locked(game_id)
    if not game.is_playing or game.turn_deadline is None or game.turn_deadline > now:
        raise TurnNotOver("the turn has not run out")
    return game


def do_turn_expire(*, game: Game) -> None:
    seats = list(game.seats.select_related("user"))
    state = load_state(game)
    events = []
    for seat in turns.late_seats(game, state, seats):
        seat.autopilot = True
        seat.timeouts_in_row += 1
        seat.save(update_fields=["autopilot", "timeouts_in_row"])
        event = {"kind": "autopilot_on", "player": seat.user_id, "reason": "timeout"}
        if game.turn_based:
            # One turn only, unless the person missed too many in a row (games.turns).
            event["one_turn"] = not turns.keeps_seat(game, seat)
        events.append(event)
    record_seats(game, state, seats, events, timed_out=True)


def turn_expire(*, game_id: int, now=None) -> bool:
    """The turn timer ran out: the computer plays the late seats (False if it had not)."""
    with transaction.atomic(durable=True):
        try:
            game = check_turn_expire(game_id=game_id, now=now or timezone.now())
        except TurnNotOver:
            return False
        do_turn_expire(game=game)
    return True


def check_seat_take_back(*, game_id: int, user: AbstractBaseUser) -> tuple[Game, list, Seat]:
    game = locked(game_id)
    seats = list(game.seats.all())
    seat = seat_of(seats, user)
    if seat.left:
        raise Conflict("you have left this game", "left_game")
    return game, seats, seat


def do_seat_take_back(*, game: Game, seats: list[Seat], seat: Seat) -> None:
    if seat.autopilot and game.is_playing:
        record_seats(game, load_state(game), seats, autopilot_off(seat))


def seat_take_back(*, game_id: int, user: AbstractBaseUser) -> int:
    """The person plays their seat again after the computer stood in (no-op if it did not).

    Returns the game's ``seq``.
    """
    with transaction.atomic(durable=True):
        game, seats, seat = check_seat_take_back(game_id=game_id, user=user)
        do_seat_take_back(game=game, seats=seats, seat=seat)
    return game.seq


def check_game_leave(*, game_id: int, user: AbstractBaseUser) -> tuple[Game, list, Seat]:
    game = locked(game_id)
    seats = list(game.seats.select_related("user"))
    if game.status in Game.OVER:
        raise Conflict("the game is over", "game_over")
    seat = seat_of(seats, user)
    if seat.left:
        raise Conflict("you have already left this game", "left_game")
    return game, seats, seat


def do_game_leave(*, game: Game, seats: list[Seat], seat: Seat) -> None:
    if game.status == Game.Status.WAITING:
        _leave_waiting(game, seat, [other for other in seats if other != seat])
        return
    seat.left = seat.autopilot = True
    seat.save(update_fields=["left", "autopilot"])
    if all(other.left or other.is_bot for other in seats):
        # Nobody is left to play for: computer players do not finish it, and it is not rated.
        Event.objects.create(game=game, seq=game.seq, kind="left", data=_left(seat, False))
        do_game_abort(game=game, before=[_left(seat, False)])
        return
    record_seats(game, load_state(game), seats, [_left(seat, True)])


def _left(seat: Seat, replaced: bool) -> dict:
    return {"kind": "left", "player": seat.user_id, "replaced": replaced}


def game_leave(*, game_id: int, user: AbstractBaseUser) -> Game:
    """Leave a game for good: give the seat back before the deal, else the computer plays it.

    A waiting game that no person sits in any more is called off; its creator's part
    (starting it) passes on to the next person who joined.
    """
    with transaction.atomic(durable=True):
        game, seats, seat = check_game_leave(game_id=game_id, user=user)
        do_game_leave(game=game, seats=seats, seat=seat)
    return game


def _leave_waiting(game: Game, seat: Seat, others: list[Seat]) -> None:
    seat.delete()
    people = [other for other in others if not other.is_bot]
    if not people:
        game.status = Game.Status.ABORTED
        game.finished = timezone.now()
        game.seq += 1
    elif game.creator_id == seat.user_id:
        game.creator = min(people, key=lambda other: (other.joined, other.pk)).user
    game.save(update_fields=["status", "finished", "seq", "creator", "updated"])
    events = [_left(seat, False)]
    if not people:
        events.append({"kind": "aborted", "player": None})
    Event.objects.bulk_create(
        Event(game=game, seq=game.seq, kind=event["kind"], data=event) for event in events
    )
    after_commit(lambda: broadcast.game_changed(game, None, events))
    lobby_changed(game, also=[seat.user_id])  # the seat is gone; its user's list changes
