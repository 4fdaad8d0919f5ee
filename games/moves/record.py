"""Writing a change of a game: its state, log entries and projections, or a change of who plays
its seats; the broadcasts, the timer and the bots follow once it is committed."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from games import broadcast, selectors, turns
from games.models import Event, Game, Move, Seat
from games.moves import sql
from games.moves.base import (
    after_commit,
    kind_of,
    lobby_changed,
)
from games.signals import (
    bots_may_move,
    game_finished,
    person_moved,
    turn_began,
    turn_deadline_set,
)


def record(
    game: Game,
    state,
    seats: list[Seat],
    user: AbstractBaseUser | None,
    move: dict | None,
    events: list[dict],
    *,
    fresh: bool = False,
) -> None:
    """Write a changed state, its log entries and projections; publish after commit.

    ``fresh``: the game was made in this transaction. No socket can be on it before the
    commit, and each that opens after it is sent the game whole: its players are sent nothing.
    """
    engine = kind_of(game).engine
    was_playing = game.is_playing
    deadline_before = game.turn_deadline
    game.turn_deadline = turns.deadline(
        game, turns.stored_turn_key(game, game.state), state, seats, timezone.now()
    )
    turn_passed = _to_move_follows(engine, state, seats)
    game.computer_to_move = _computer_to_move(seats)
    _timer_follows(game, deadline_before, state, seats)
    game.status = engine.phase(state)
    finished = engine.is_over(state)
    if finished:
        kind_of(game).glue.complete_results(game, state)
        game.finished = timezone.now()
        game.end_reason = state.end_reason or ""
    _tell_waiting(game, turn_passed)
    with sql.batch():  # one statement on PostgreSQL
        for seat in turn_passed:
            sql.update(seat, ["to_move"])
        if move is not None:
            sql.insert([Move(game=game, seq=state.seq, user=user, payload=move)])
        _store(game, state, seats, events)
        sql.insert(
            [Event(game=game, seq=state.seq, kind=event["kind"], data=event) for event in events]
        )
    if was_playing and finished:
        game_finished.send(sender=Game, game=game, results=engine.results(state), seats=seats)
    if not fresh:
        # A game that ends in this change has no offer to play it again yet.
        offer = None if was_playing and finished else selectors.UNREAD
        after_commit(lambda: broadcast.game_changed(game, state, events, seats, offer))
    if was_playing != game.is_playing:
        lobby_changed(game, [seat.user_id for seat in seats])
    if game.is_playing and any(seat.computer_plays for seat in seats):
        # After the broadcast: the players see this move before the bots' answers.
        after_commit(lambda: bots_may_move.send(sender=Game, game_id=game.pk), blocking=True)


def record_seats(
    game: Game, state, seats: list[Seat], events: list[dict], timed_out: bool = False
) -> None:
    """Publish a change of who plays the seats (no move: ``seq`` stays); the timer follows.
    ``timed_out``: people's turns ran out, and the computer now plays them."""
    before = turns.stored_turn_key(game, game.state)  # the turn goes on: its deadline may stay
    deadline_before = game.turn_deadline
    game.turn_deadline = turns.deadline(game, before, state, seats, timezone.now())
    game.computer_to_move = _computer_to_move(seats)  # the turn is the same: ``to_move`` too
    game.save(update_fields=["turn_deadline", "computer_to_move", "updated"])
    _timer_follows(game, deadline_before, state, seats)
    _tell_waiting(game, [seat for seat in seats if seat.to_move])
    Event.objects.bulk_create(
        Event(game=game, seq=game.seq, kind=event["kind"], data=event) for event in events
    )
    after_commit(lambda: broadcast.game_changed(game, state, events))
    if any(seat.computer_plays for seat in seats):
        # A stand-in for a person whose time ran out plays at once: they had their whole turn.
        after_commit(
            lambda: bots_may_move.send(sender=Game, game_id=game.pk, at_once=timed_out),
            blocking=True,
        )


def _tell_waiting(game: Game, seats: list[Seat]) -> None:
    """Once committed, tell these seats' people whether the game waits for their move now
    (their pages' "My games" count); computer players have no pages. Turn-based games only:
    a live game's people are at its table, whose page counts its own game."""
    if not game.turn_based:
        return
    your_move = {
        seat.user_id: seat.to_move and not seat.computer_plays for seat in seats if not seat.is_bot
    }
    if your_move:
        game_id = game.pk
        after_commit(lambda: broadcast.turns_changed(game_id, your_move))


def _computer_to_move(seats: list[Seat]) -> bool:
    """``Game.computer_to_move``: a computer-played seat must act now (by ``Seat.to_move``)."""
    return any(seat.to_move and seat.computer_plays for seat in seats)


def _to_move_follows(engine, state, seats: list[Seat]) -> list[Seat]:
    """``Seat.to_move`` of each seat as ``state`` has it; the seats whose flag changed."""
    movers = set() if engine.is_over(state) else set(engine.to_move(state))
    changed = [seat for seat in seats if seat.to_move != (seat.user_id in movers)]
    for seat in changed:
        seat.to_move = not seat.to_move
    return changed


def _timer_follows(game: Game, before, state, seats: list[Seat]) -> None:
    """A new deadline: once committed, this process expires the turn at that very moment
    (``games.sweeper``), not at its next sweep; a turn-based game's people who must act now
    are told (``signals.turn_began``)."""
    deadline = game.turn_deadline
    if deadline is None or deadline == before:
        return
    after_commit(lambda: turn_deadline_set.send(sender=Game, game_id=game.pk, deadline=deadline))
    if game.turn_based:
        user_ids = [seat.user_id for seat in turns.late_seats(game, state, seats)]
        seq = state.seq
        after_commit(
            lambda: turn_began.send(sender=Game, game_id=game.pk, user_ids=user_ids, seq=seq),
            blocking=True,
        )


def _store(game: Game, state, seats: list[Seat], events: list[dict]) -> None:
    """Save the engine state; the kind's glue keeps its own rows in step with it."""
    before = game.state
    game.state = kind_of(game).engine.to_dict(state)
    game.seq = state.seq
    sql.update(
        game,
        [
            *("state", "seq", "status", "started", "finished", "end_reason"),
            *("turn_deadline", "computer_to_move", "updated"),
        ],
    )
    kind_of(game).glue.project(game, state, seats, events, before)


def autopilot_off(seat: Seat) -> list[dict]:
    """The person plays their seat again (they moved, or took it back)."""
    seat.autopilot = False
    seat.timeouts_in_row = 0
    sql.update(seat, ["autopilot", "timeouts_in_row"])
    return [{"kind": "autopilot_off", "player": seat.user_id}]


def hand_back(seat: Seat) -> list[dict]:
    """The computer played the one turn of a turn-based game's person: the seat is theirs
    again for their next turn (its missed turns stay counted until they move)."""
    seat.autopilot = False
    sql.update(seat, ["autopilot"])
    return [{"kind": "autopilot_off", "player": seat.user_id, "reason": "turn_played"}]


def moved_in_time(game: Game, seat: Seat) -> None:
    """The person moved: no turn of theirs was missed in a row any more (and a turn-based
    game's next your-turn mail may go out: ``signals.person_moved``)."""
    if game.turn_based:
        game_id, user_id = game.pk, seat.user_id
        after_commit(
            lambda: person_moved.send(sender=Game, game_id=game_id, user_id=user_id),
            blocking=True,
        )
    if seat.timeouts_in_row:
        seat.timeouts_in_row = 0
        sql.update(seat, ["timeouts_in_row"])
