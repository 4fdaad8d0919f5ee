"""The tests' own checks of the move path, tested: ``move_path`` proves which path its moves
took (tests/paths.py), the replay check sees a projection gone wrong or a corrupted row
(tests/projection.py), and the first write rule is enforced: an ORM write while a move
collects its statements is refused, and a glue that makes one fails its move."""

from __future__ import annotations

import random

import pytest
from channels.db import database_sync_to_async
from django.db import connection, transaction
from django.db.models import F

from games.kinds import ratumrad as glue
from games.models import BuiltRoad, DestinationCard, Game, Move, Seat
from games.moves import play, sql
from games.moves.base import load_state
from games.ratumrad import engine
from tests.paths import EVENT_LOOP, LOCKED, THREAD, OrmWriteInMove, available_paths, is_write
from tests.projection import Replayed
from tests.ws_helpers import (
    Socket,
    close_all,
    current_person,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    running_game,
    started_game,
)

postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="guarded writes are PostgreSQL's"
)

# ------------------------------------------------------------------ which path ran


@pytest.mark.django_db(transaction=True)
async def test_move_path_proves_the_path_its_moves_took_and_no_other(people, move_path, path_seen):
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    socket = await Socket.game(game_id, mover)
    seq = socket.received[0]["seq"]
    await socket.send({"type": "TAKE_WHEEL", "source": "deck", "ref": "w", "expect_seq": seq})
    await socket.state_at(seq + 1)
    await close_all(socket)
    path_seen.check(move_path)
    for other in {LOCKED, THREAD, EVENT_LOOP} - {move_path}:
        # A test parametrized for another path whose moves took this one fails.
        with pytest.raises(AssertionError):
            path_seen.check(other)


def test_the_paths_are_every_path_the_database_has():
    if connection.vendor == "postgresql":
        assert available_paths() == (LOCKED, THREAD, EVENT_LOOP)
    else:
        assert available_paths() == (LOCKED,)


# ------------------------------------------------------------------ the replay check


def played_game(people, moves_after_a_road: int = 3) -> tuple[Game, Replayed]:
    """A two-player game played (random legal moves) until a road was built and a few moves
    more; the replay check passes after every move."""
    from games.services.lifecycle import game_create, game_join, game_start

    game = game_create(user=people[0], name="Rhein", max_players=2)
    game_join(game_id=game.pk, user=people[1])
    Game.objects.filter(pk=game.pk).update(seed=31)
    game_start(game_id=game.pk, user=people[0])
    users = {person.pk: person for person in people[:2]}
    replayed = Replayed(game.pk)
    replayed.check()
    rng = random.Random(31)
    left = None
    while left != 0:
        state = load_state(Game.objects.get(pk=game.pk))
        legal = {
            player.id: [m for m in engine.legal_moves(state, player.id) if m["type"] != "VOTE_END"]
            for player in state.players
        }
        mover = rng.choice([player for player, moves in legal.items() if moves])
        play.move_apply(game_id=game.pk, user=users[mover], move=rng.choice(legal[mover]))
        replayed.check()
        if left is None and BuiltRoad.objects.filter(game=game).exists():
            left = moves_after_a_road
        elif left is not None:
            left -= 1
    assert DestinationCard.objects.filter(game=game, status="kept").exists()
    return Game.objects.get(pk=game.pk), replayed


def bump_state(game: Game) -> None:
    state = load_state(game)
    state.players[0].score += 1
    Game.objects.filter(pk=game.pk).update(state=engine.to_dict(state))


CORRUPTIONS = {
    "the game's state": bump_state,
    "the game's seq": lambda game: Game.objects.filter(pk=game.pk).update(seq=F("seq") + 1),
    "a seat's score": lambda game: Seat.objects.filter(pk=game.seats.first().pk).update(
        score=F("score") + 1
    ),
    "a seat's hand": lambda game: Seat.objects.filter(pk=game.seats.first().pk).update(hand={}),
    "a built road's move": lambda game: BuiltRoad.objects.filter(
        pk=BuiltRoad.objects.filter(game=game).first().pk
    ).update(seq=F("seq") + 1),
    "a built road gone": lambda game: BuiltRoad.objects.filter(game=game).first().delete(),
    "a destination card's status": lambda game: DestinationCard.objects.filter(
        pk=DestinationCard.objects.filter(game=game, status="kept").first().pk
    ).update(status="pending"),
    "a destination card too many": lambda game: DestinationCard.objects.create(
        game=game, card=999, seat=game.seats.first(), status="kept"
    ),
}


@pytest.mark.django_db
@pytest.mark.parametrize("corruption", CORRUPTIONS)
def test_the_replay_check_sees_one_corrupted_row(people, corruption):
    game, replayed = played_game(people)
    CORRUPTIONS[corruption](game)
    with pytest.raises(AssertionError):
        replayed.check()


@pytest.mark.django_db
def test_the_replay_check_sees_a_projection_that_goes_wrong_along_the_way(people, monkeypatch):
    # Right at the deal (the rows from scratch), wrong in step: keeping the short cards in the
    # preparation (R2.4) no longer updates the destination cards' rows.
    monkeypatch.setattr(glue, "DESTINATION_EVENTS", glue.DESTINATION_EVENTS - {"prepared"})
    with pytest.raises(AssertionError, match="cards"):
        played_game(people)


# ------------------------------------------------------------------ the first write rule


@pytest.mark.engine
@pytest.mark.parametrize(
    ("statement", "write"),
    [
        ('INSERT INTO "games_seat" ("game_id") VALUES (%s)', True),
        ('  update "games_seat" SET "score" = %s', True),
        ('DELETE FROM "games_builtroad" WHERE "id" = %s', True),
        ('WITH w0 AS (UPDATE "games_game" SET "seq" = 1) SELECT 1', True),
        ('WITH w0 AS (SELECT 1) DELETE FROM "games_move"', True),
        ('SELECT "id" FROM "games_game" WHERE "id" = %s FOR UPDATE', False),
        ('SELECT "updated_at" FROM "games_game"', False),
        ("WITH w0 AS (SELECT 1) SELECT * FROM w0", False),
    ],
)
def test_the_guard_tells_writes_from_reads(statement, write):
    assert is_write(statement) is write


@pytest.mark.django_db
def test_an_orm_write_while_a_move_collects_its_statements_is_refused(people, refused_writes):
    game, _ = played_game(people, moves_after_a_road=0)
    seat = game.seats.first()
    with sql.collected() as caught:
        assert Seat.objects.get(pk=seat.pk).score == seat.score  # reads are fine
        sql.update(seat, ["score"])  # the move's SQL layer: caught, not sent
        # (Each in a savepoint: the test's transaction goes on after the refusal.)
        with pytest.raises(OrmWriteInMove), transaction.atomic():
            Seat.objects.filter(pk=seat.pk).update(score=F("score") + 5)
        with pytest.raises(OrmWriteInMove), transaction.atomic():
            Move.objects.filter(game=game).delete()
    assert len(caught.writes) == 1
    assert len(refused_writes) == 2
    refused_writes.clear()  # seen: the autouse check would fail the test
    Seat.objects.filter(pk=seat.pk).update(score=F("score") + 5)  # outside a move: allowed
    assert Seat.objects.get(pk=seat.pk).score == seat.score + 5


def project_with_the_orm(monkeypatch) -> None:
    """Rat um Rad's ``project``, plus an ORM write (against the first write rule)."""
    project = glue.project

    def writes_with_the_orm(game, state, seats, events, before):
        project(game, state, seats, events, before)
        Seat.objects.filter(game=game).update(wheels=F("wheels"))

    monkeypatch.setattr(glue, "project", writes_with_the_orm)


def stored(game_id: int) -> tuple:
    game = Game.objects.get(pk=game_id)
    return game.seq, game.state, Move.objects.filter(game_id=game_id).count()


@postgresql
@pytest.mark.django_db(transaction=True)
def test_a_glue_that_writes_with_the_orm_fails_its_guarded_move_and_changes_nothing(
    people, monkeypatch, refused_writes
):
    game, _ = played_game(people, moves_after_a_road=0)
    state = load_state(game)
    mover = next(p.id for p in state.players if engine.legal_moves(state, p.id))
    move = engine.legal_moves(state, mover)[0]
    before = stored(game.pk)
    project_with_the_orm(monkeypatch)
    with pytest.raises(OrmWriteInMove):
        play.move_apply(game_id=game.pk, user=next(p for p in people if p.pk == mover), move=move)
    assert stored(game.pk) == before
    assert refused_writes
    refused_writes.clear()


@postgresql
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("move_path", [THREAD, EVENT_LOOP], indirect=True)
async def test_a_glue_that_writes_with_the_orm_fails_a_socket_move_on_a_guarded_path(
    people, monkeypatch, move_path, path_seen, refused_writes
):
    path_seen.moves_fail = True  # each guarded try fails: none writes
    game_id = await started_game(people, 2)
    alice = people[0]
    socket = await Socket.game(game_id, alice)
    before = await database_sync_to_async(stored)(game_id)
    project_with_the_orm(monkeypatch)
    keep = socket.received[0]["state"]["legal"][0]
    await socket.send({**keep, "ref": "k", "expect_seq": 0})
    while (answer := await socket.recv())["type"] not in ("ACK", "ERROR"):
        pass
    assert answer["type"] == "ERROR" and answer["ref"] == "k", answer
    assert await database_sync_to_async(stored)(game_id) == before
    await close_all(socket)
    if move_path == THREAD:
        assert refused_writes  # refused by the guard
    # On the event loop the ORM cannot write at all (Django refuses any query there).
    refused_writes.clear()
