"""Play again: a finished game's offer of the same game again, and the new game it deals once
every person of it accepted (``rematch_answer``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from games import broadcast, selectors
from games.errors import Conflict, ServiceError
from games.models import Event, Game, Rematch, Seat
from games.moves import sql
from games.moves.base import (
    after_commit,
    kind_of,
    locked,
    no_game,
    seat_of,
    still_as_read,
    valid_game_id,
)
from games.moves.play import UNLOCKED_TRIES, run_after_write
from games.services.lifecycle import bot_users, do_game_start


@dataclass(frozen=True)
class RematchCheck:
    """An answer to a finished game's offer of the same game again, checked; the game locked."""

    game: Game
    seats: list[Seat]  # in the order of the deal
    rematch: Rematch
    user_id: int
    accept: bool


def rematch_people(seats: Iterable[Seat]) -> list[Seat]:
    """The seats whose person is asked to play again: not the computer players, nor whoever
    left the game (a computer player takes their seat in the new game)."""
    return [seat for seat in seats if not seat.is_bot and not seat.left]


def check_rematch_answer(*, game_id: int, user: AbstractBaseUser, accept: object) -> RematchCheck:
    """The locked finished game that ``user`` has a seat in, and may be played again."""
    _valid_answer(accept)
    game = locked(game_id)
    # With their presence (the answer's broadcast shows them as read here) and the offer, read
    # after the game's lock: one new game, however many answer at the same moment.
    seats, offer = selectors.seats_with_offer(game.pk)
    return _checked(game, seats, offer, user, accept)


def check_rematch_answer_unlocked(
    *, game_id: int, user: AbstractBaseUser, accept: object
) -> RematchCheck:
    """``check_rematch_answer`` on a read without a lock, the game's row with its version
    for a guarded write (PostgreSQL): game, seats and offer in one statement."""
    _valid_answer(accept)
    game, seats, offer = selectors.versioned_game_seats_offer(valid_game_id(game_id))
    if game is None:
        raise no_game(game_id)
    return _checked(game, seats, offer, user, accept)


def _valid_answer(accept: object) -> None:
    if not isinstance(accept, bool):
        raise ServiceError("'accept' must be true or false", "bad_field")


def _checked(
    game: Game, seats: list[Seat], offer: Rematch | None, user: AbstractBaseUser, accept: bool
) -> RematchCheck:
    seats.sort(key=lambda seat: (seat.joined, seat.pk))
    seat = seat_of(seats, user)
    if game.status != Game.Status.FINISHED:
        raise Conflict("only a finished game can be played again", "not_finished")
    if kind_of(game).glue.rematch_leaderboard(game):
        raise Conflict("this game counts one attempt: it is not played again", "no_rematch")
    if seat.left:
        raise Conflict("you have left this game", "left_game")
    rematch = offer or Rematch(game=game, answers={})
    rematch.game = game  # in hand, also for a socket's answer in async code (its seq)
    if rematch.new_game_id is not None and not accept:
        raise Conflict("the new game has begun already", "rematch_started")
    if rematch.declined and accept and rematch.new_game_id is None:
        raise Conflict(
            "someone declined to play again: start a new game from the lobby", "rematch_declined"
        )
    return RematchCheck(game, seats, rematch, user.pk, accept)


def _answered_before(checked: RematchCheck) -> bool:
    """The answer changes nothing: the new game is dealt, or this was the person's answer
    already (a second press, a retry)."""
    rematch = checked.rematch
    return rematch.new_game_id is not None or (
        rematch.answers.get(str(checked.user_id)) is checked.accept
    )


def _deals(checked: RematchCheck) -> bool:
    """Whether this answer is the last acceptance, which deals the new game."""
    if _answered_before(checked):
        return False
    answers = {**checked.rematch.answers, str(checked.user_id): checked.accept}
    return _all_accepted(answers, checked.seats)


def _all_accepted(answers: dict[str, bool], seats: list[Seat]) -> bool:
    return all(answers.get(str(seat.user_id)) is True for seat in rematch_people(seats))


def do_rematch_answer(*, checked: RematchCheck) -> Rematch:
    """Record the answer; the last person's acceptance deals the new game. Every socket of
    the finished game is sent its view again, with the offer (``rematch``) as it now stands."""
    game, rematch, key = checked.game, checked.rematch, str(checked.user_id)
    if _answered_before(checked):
        return rematch
    rematch.answers[key] = checked.accept
    events = [{"kind": "rematch", "player": checked.user_id, "accept": checked.accept}]
    new = None
    if _all_accepted(rematch.answers, checked.seats):
        people = rematch_people(checked.seats)
        new, new_seats = _seat_again(game, checked.seats, people)  # their ids are needed now
        rematch.new_game = new
        events.append({"kind": "rematch_started", "player": None, "game": new.pk})
    with sql.batch():  # one statement on PostgreSQL, the new game's deal included
        if sql.can_guard():
            # The game's row is written too, its values as they are: a guarded answer made
            # on an older read of it finds a new version and is made again (``rematch_answer``).
            sql.update(game, ["seq"])
        if new is not None:
            do_game_start(game=new, seats=new_seats, fresh=True)
        if rematch._state.adding:
            sql.insert([rematch])
            rematch._state.adding = False
        else:
            sql.update(rematch, ["answers", "new_game", "updated"])
        sql.insert(
            [Event(game=game, seq=game.seq, kind=event["kind"], data=event) for event in events]
        )
    seats = checked.seats
    after_commit(lambda: broadcast.game_changed(game, None, events, seats, rematch))
    return rematch


def _seat_again(game: Game, seats: list[Seat], people: list[Seat]) -> tuple[Game, list[Seat]]:
    """The same game again, not dealt yet: its name, options, timer and privacy, its people
    and computer players in the same seats (a computer player in the seat of whoever left)."""
    game_kind = kind_of(game)
    creator = game.creator_id
    if creator not in {seat.user_id for seat in people}:
        creator = people[0].user_id
    new = Game(
        name=game.name,
        kind=game.kind,
        options=game.options,
        max_players=game.max_players,
        creator_id=creator,
        seed=game_kind.glue.new_seed(game.options),
        private=game.private,
        turn_seconds=game.turn_seconds,
        pace=game.pace,
    )
    gone = [seat for seat in seats if seat.left and not seat.is_bot]
    stand_ins = iter(bot_users(len(gone), exclude={seat.user_id for seat in seats}))
    new_seats = []
    for seat in seats:
        user_id, is_bot, bot = seat.user_id, seat.is_bot, seat.bot
        if seat in gone:
            user_id, is_bot, bot = next(stand_ins).pk, True, game_kind.default_bot
        new_seats.append(Seat(user_id=user_id, is_bot=is_bot, bot=bot))
    sql.create_with(new, new_seats, "game")  # one statement; the rows' ids come back
    return new, new_seats


def rematch_answer(*, game_id: int, user: AbstractBaseUser, accept: object = True) -> Rematch:
    """``user``'s answer to playing a finished game again: the same seats, computer players
    and options. Once every person of it accepted, the new game is dealt (a solo game's at
    once); one decline ends the offer. A kind whose game counts one attempt (Road to 300's
    daily challenge) is not played again (``no_rematch``).

    On PostgreSQL an answer that does not deal is a guarded write, as a move is
    (``games.moves.play``): a read and a write that checks the game's row is still the
    version read, in autocommit, without the lock's transaction. Every answer writes that
    row, so of two answers made on the same read one is made again on a fresh one. The
    answer that deals is made under the lock: the new game's rows need their ids."""
    ahead = None  # the dealing answer as checked without the lock
    if sql.can_guard():
        for _ in range(UNLOCKED_TRIES):
            checked = check_rematch_answer_unlocked(game_id=game_id, user=user, accept=accept)
            if _deals(checked):
                ahead = checked
                break
            with sql.collected() as caught:
                rematch = do_rematch_answer(checked=checked)
            if caught.writes:
                try:
                    sql.execute_guarded(sql.guarded_statement(checked.game, caught.writes))
                except sql.Changed:
                    continue
            run_after_write(caught.callbacks)
            return rematch
    with transaction.atomic(durable=True):
        checked = _unchanged(ahead) or check_rematch_answer(
            game_id=game_id, user=user, accept=accept
        )
        return do_rematch_answer(checked=checked)


def _unchanged(ahead: RematchCheck | None) -> RematchCheck | None:
    """``ahead``, its game now locked, if the game's row is still the version it was read
    at: every answer writes that row, and a finished game's seats no longer change (no one
    leaves it), so the offer and seats read with it hold. Else None."""
    return ahead if ahead is not None and still_as_read(ahead.game) else None
