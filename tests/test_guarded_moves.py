"""On PostgreSQL a move is read without a lock and written in one statement that first checks
that its game row is the version read (``games.moves.play.prepare_guarded``). A change that
commits between a move's read and its write makes the move read again and try again: nothing
is lost, nothing is doubled, and no one's change is written over."""

from __future__ import annotations

import contextlib
import copy
import random
import threading

import psycopg
import pytest
from django.db import connection, connections
from django.utils import timezone

from games import bots, registry, selectors
from games.models import Event, Game, Move, Seat
from games.moves import placeholders, play, sql
from games.moves.base import load_state
from games.ratumrad import engine
from games.services.admin import game_end_now
from games.services.lifecycle import game_create, game_join, game_start
from games.services.seats import game_leave, seat_take_back, turn_expire
from rankings.models import RatingChange

pytestmark = [
    pytest.mark.django_db(transaction=True),  # each change commits, as on the site
    pytest.mark.skipif(connection.vendor != "postgresql", reason="guarded writes are PostgreSQL's"),
]


def dealt_game(people, count: int = 2) -> Game:
    game = game_create(user=people[0], name="Birsig", max_players=count)
    for person in people[1:count]:
        game_join(game_id=game.pk, user=person)
    return game_start(game_id=game.pk, user=people[0])


def first_legal(game_id: int, user) -> dict:
    return engine.legal_moves(load_state(Game.objects.get(pk=game_id)), user.pk)[0]


def count_reads(monkeypatch, between=None) -> list[int]:
    """The users whose moves were read without a lock, one entry a read; ``between(call)``
    runs after each read. Reads made inside ``between`` (by bots it sets off) are left out."""
    calls: list[int] = []
    check = play.check_move
    inside = threading.local()

    def counted(**args):
        checked = check(**args)
        if args.get("read") is None or getattr(inside, "between", False):
            return checked
        calls.append(args["user"].pk)
        if between is not None:
            inside.between = True
            try:
                between(len(calls))
            finally:
                inside.between = False
        return checked

    monkeypatch.setattr(play, "check_move", counted)
    return calls


@contextlib.contextmanager
def guarded(instance: Game):
    """The writes and callbacks inside as a move's guarded write makes them (``play.move_apply``
    on PostgreSQL): one statement, then the callbacks."""
    with sql.collected() as caught:
        yield
    sql.execute_guarded(sql.guarded_statement(instance, caught.writes))
    play.run_after_write(caught.callbacks)


def test_a_guarded_batch_writes_nothing_if_its_row_changed_after_the_read(people):
    game = dealt_game(people)
    read, _ = selectors.versioned_game_with_seats(game.pk)
    Game.objects.filter(pk=game.pk).update(name="Rhein")  # another change, committed
    told = []
    with pytest.raises(sql.Changed), guarded(read):
        sql.insert([Event(game=read, seq=99, kind="left", data={})])
        read.name = "Wiese"
        sql.update(read, ["name"])
        sql.on_commit(lambda: told.append("sent"))
    assert Game.objects.get(pk=game.pk).name == "Rhein"
    assert not Event.objects.filter(game=game, seq=99).exists()
    assert told == []


def test_a_guarded_batch_writes_everything_and_then_runs_its_callbacks(people):
    game = dealt_game(people)
    read, seats = selectors.versioned_game_with_seats(game.pk)
    told = []
    with guarded(read):
        sql.insert([Event(game=read, seq=99, kind="left", data={})])
        read.name = "Wiese"
        sql.update(read, ["name"])
        sql.on_commit(lambda: told.append(Game.objects.get(pk=game.pk).name))
        # Two updates of one row in one batch: the second joins the first (one statement
        # must not update a row twice).
        seats[0].autopilot = True
        sql.update(seats[0], ["autopilot"])
        seats[0].score = 7
        sql.update(seats[0], ["score"])
        assert told == []  # nothing is written before the batch ends
    assert Game.objects.get(pk=game.pk).name == "Wiese"
    assert Event.objects.filter(game=game, seq=99).exists()
    assert told == ["Wiese"]
    seat = Seat.objects.get(pk=seats[0].pk)
    assert (seat.autopilot, seat.score) == (True, 7)
    # The row has a new version: the old read can no longer write.
    with pytest.raises(sql.Changed), guarded(read):
        sql.update(read, ["name"])


def test_a_seat_change_between_a_moves_read_and_its_write_is_kept_and_the_move_made_once(
    people, monkeypatch
):
    alice, bob = people[:2]
    game = dealt_game(people)
    seq = game.seq

    def bob_leaves(call: int) -> None:
        if call == 1:
            game_leave(game_id=game.pk, user=bob)

    reads = count_reads(monkeypatch, bob_leaves)
    result = play.move_apply(game_id=game.pk, user=alice, move=first_legal(game.pk, alice))

    # The first try found the game changed (bob left, and his stand-in chose his cards) and
    # wrote nothing; the second read saw both.
    assert reads[:2] == [alice.pk, alice.pk]
    assert result.seq == seq + 2
    moves = list(Move.objects.filter(game=game).order_by("seq").values_list("user_id", "seq"))
    assert moves[:2] == [(bob.pk, seq + 1), (alice.pk, seq + 2)]
    bob_seat = Seat.objects.get(game=game, user=bob)
    assert bob_seat.left and bob_seat.autopilot  # not written over by the move
    kinds = list(Event.objects.filter(game=game).values_list("kind", flat=True))
    assert kinds.count("left") == 1
    state = load_state(Game.objects.get(pk=game.pk))
    assert all(not player.pending for player in state.players)


def test_a_move_without_a_change_in_between_is_read_once(people, monkeypatch):
    alice = people[0]
    game = dealt_game(people)
    reads = count_reads(monkeypatch)
    play.move_apply(game_id=game.pk, user=alice, move=first_legal(game.pk, alice))
    assert reads == [alice.pk]


def test_two_players_moving_at_the_same_moment_both_get_their_move(people, monkeypatch):
    # In the preparation (R2.4) both players choose their destination cards at once. Both
    # read the game before either writes; one write finds the game changed and tries again.
    alice, bob = people[:2]
    game = dealt_game(people)
    seq = game.seq
    moves = {person.pk: first_legal(game.pk, person) for person in (alice, bob)}
    both_read = threading.Barrier(2, timeout=10)
    first_read = threading.local()

    def wait_for_the_other(call: int) -> None:
        if not getattr(first_read, "done", False):
            first_read.done = True
            both_read.wait()

    reads = count_reads(monkeypatch, wait_for_the_other)
    errors: list[BaseException] = []

    def move_for(person) -> None:
        try:
            play.move_apply(game_id=game.pk, user=person, move=moves[person.pk])
        except BaseException as error:  # reported by the test
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=move_for, args=(person,)) for person in (alice, bob)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    # Two reads at once, and the later writer's second read.
    assert sorted(reads) in ([alice.pk, alice.pk, bob.pk], [alice.pk, bob.pk, bob.pk])
    state = load_state(Game.objects.get(pk=game.pk))
    assert state.seq == seq + 2
    assert sorted(Move.objects.filter(game=game).values_list("seq", flat=True)) == [
        seq + 1,
        seq + 2,
    ]
    assert all(not player.pending for player in state.players)  # both choices made


def test_the_write_statement_is_sent_with_postgresqls_own_numbered_placeholders():
    # psycopg would parse the long statement's %s again for every move (it caches only
    # statements of at most 4 kB and 50 parameters); the numbering is done once per text.
    statement = "UPDATE t SET a = %s, b = %s WHERE id = %s AND EXISTS (SELECT 1 FROM guard)"
    assert placeholders.numbered(statement) == (
        "UPDATE t SET a = $1, b = $2 WHERE id = $3 AND EXISTS (SELECT 1 FROM guard)"
    )
    assert placeholders.numbered(statement) is placeholders.numbered(statement)


def test_every_write_of_the_move_that_ends_a_game_is_sent_with_numbered_placeholders(
    people, monkeypatch
):
    # Its batches (the state, the seats, the log, the ratings) are longer than psycopg keeps
    # its own conversion for: each would be parsed again at every game's end.
    game = dealt_game(people)
    mover, move = to_the_last_move(game, people)
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def recorded(cursor, query, params=None, **kwargs):
        sent.append(str(query))
        return execute(cursor, query, params, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", recorded)
    play.move_apply(game_id=game.pk, user=mover, move=move)
    writes = [query for query in sent if query.split(None, 1)[0].upper() in WRITES]
    assert len(writes) >= 3, sent  # the move's batch, the ratings', the achievements'
    assert [query for query in writes if "%s" in query] == []


WRITES = {"INSERT", "UPDATE", "DELETE", "WITH"}


def seat_rows(game_id: int) -> list[dict]:
    """Every column of the game's seats."""
    return list(Seat.objects.filter(game_id=game_id).order_by("pk").values())


def test_every_change_of_a_seat_of_a_game_being_played_writes_the_game_row(people, monkeypatch):
    # Moves read without a lock learn of seat changes only through the game row's version.
    # Every service of games/services/ that changes a seat of a game being played: the
    # timer's stand-in (seats.turn_expire), taking a seat back (seats.seat_take_back),
    # leaving, replaced by the computer or as the last person, which calls the game off
    # (seats.game_leave), and an admin's end (admin.game_end_now, which scores the seats).
    alice, bob = people[:2]
    game = dealt_game(people)
    ended = dealt_game(people)
    monkeypatch.setattr(bots, "kick", lambda game_id: None)  # no stand-in moves in between
    Game.objects.filter(pk=game.pk).update(turn_seconds=60, turn_deadline=timezone.now())

    def version(game_id: int) -> str:
        return selectors.versioned_game_with_seats(game_id)[0]._row_version

    changes = [
        ("the timer runs out", game.pk, lambda: turn_expire(game_id=game.pk)),
        ("alice takes her seat back", game.pk, lambda: seat_take_back(game_id=game.pk, user=alice)),
        ("bob leaves", game.pk, lambda: game_leave(game_id=game.pk, user=bob)),
        ("alice leaves last", game.pk, lambda: game_leave(game_id=game.pk, user=alice)),
        ("an admin ends it", ended.pk, lambda: game_end_now(game_id=ended.pk)),
    ]
    for name, game_id, change in changes:
        before = (version(game_id), seat_rows(game_id))
        change()
        after = (version(game_id), seat_rows(game_id))
        assert after[1] != before[1], name  # the seats did change
        assert after[0] != before[0], name  # and so did the game row's version
    assert Game.objects.get(pk=game.pk).status == Game.Status.ABORTED  # the last one left
    assert Game.objects.get(pk=ended.pk).status == Game.Status.FINISHED


def to_the_last_move(game: Game, people) -> tuple:
    """Random moves until the next one ends the game: its mover and that move."""
    users = {person.pk: person for person in people}
    rng = random.Random(5)
    for _ in range(1000):
        state = load_state(Game.objects.get(pk=game.pk))
        mover = rng.choice([p.id for p in state.players if engine.turn_moves(state, p.id)])
        move = rng.choice(engine.turn_moves(state, mover))
        after, _ = engine.apply(copy.deepcopy(state), mover, move)
        if after.status == engine.FINISHED:
            return users[mover], move
        play.move_apply(game_id=game.pk, user=users[mover], move=move)
    pytest.fail("the game did not end")


@pytest.fixture
def applied(monkeypatch) -> list[int]:
    """The users whose moves the engine applied, one entry each time."""
    kind = registry.get("ratumrad").engine
    calls: list[int] = []
    apply = kind.apply

    def counted(state, player, move):
        calls.append(player)
        return apply(state, player, move)

    monkeypatch.setattr(kind, "apply", counted)
    return calls


def test_the_move_that_ends_a_game_is_applied_once_if_nothing_changed_before_the_lock(
    people, applied
):
    game = dealt_game(people)
    mover, move = to_the_last_move(game, people)
    applied.clear()
    result = play.move_apply(game_id=game.pk, user=mover, move=move)
    # Tried without the lock, found to end the game, and taken as it was under the lock.
    assert applied == [mover.pk]
    ended = Game.objects.get(pk=game.pk)
    assert ended.status == Game.Status.FINISHED and ended.seq == result.seq
    assert Move.objects.filter(game=game, seq=result.seq).count() == 1
    assert RatingChange.objects.filter(game=game).count() == 2


def test_a_change_before_the_lock_makes_the_move_that_ends_a_game_read_and_applied_again(
    people, applied, monkeypatch
):
    game = dealt_game(people)
    mover, move = to_the_last_move(game, people)
    applied.clear()
    move_locked = play.move_locked

    def renamed_first(args, move, ahead=None):
        # Another change commits between the try and the lock (from a connection of its own).
        def rename() -> None:
            Game.objects.filter(pk=game.pk).update(name="Birsig am Ende")
            connections.close_all()  # this thread's connection

        renaming = threading.Thread(target=rename)
        renaming.start()
        renaming.join()
        return move_locked(args, move, ahead)

    monkeypatch.setattr(play, "move_locked", renamed_first)
    result = play.move_apply(game_id=game.pk, user=mover, move=move)
    assert applied == [mover.pk, mover.pk]  # the try, then again on the locked read
    ended = Game.objects.get(pk=game.pk)
    assert ended.status == Game.Status.FINISHED and ended.seq == result.seq
    assert ended.name == "Birsig am Ende"  # not written over by the move
    assert RatingChange.objects.filter(game=game).count() == 2
