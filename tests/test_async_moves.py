"""Moves made on the event loop (``games.async_moves``, PostgreSQL): the same two statements
as the thread's guarded way, sent through the loop's own async connections. Whole games are
played that way, a change between a move's read and its write is kept, refusals change
nothing, the move that ends a game is left to the thread's way, a broken connection is
replaced, and the computer players answer from the sockets' database thread."""

from __future__ import annotations

import asyncio
import random

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from games import async_moves, services
from games.models import Game, Move, Seat
from games.ratumrad import engine

pytestmark = [
    pytest.mark.django_db(transaction=True),  # each change commits, as on the site
    pytest.mark.skipif(connection.vendor != "postgresql", reason="async moves are PostgreSQL's"),
]


@pytest.fixture(autouse=True)
async def pools():
    yield
    await async_moves.close_pools()  # before the test database is emptied and dropped


@sync_to_async
def dealt_game(people, count: int = 2, bots: int = 0) -> Game:
    game = services.game_create(
        user=people[0], name="Birsig", max_players=count + bots, bots=bots, turn_seconds=0
    )
    for person in people[1:count]:
        services.game_join(game_id=game.pk, user=person)
    return services.game_start(game_id=game.pk, user=people[0])


@sync_to_async
def game_now(game_id: int) -> tuple[Game, object]:
    game = Game.objects.get(pk=game_id)
    return game, services.load_state(game)


@sync_to_async
def count_moves(game_id: int) -> int:
    return Move.objects.filter(game_id=game_id).count()


def statements(monkeypatch) -> list[str]:
    sent: list[str] = []
    fetch = async_moves._fetch

    async def counted(conn, sql, params):
        sent.append(sql.split(None, 1)[0])
        return await fetch(conn, sql, params)

    monkeypatch.setattr(async_moves, "_fetch", counted)
    return sent


async def test_a_whole_game_is_played_on_the_event_loop_but_its_last_move(people, monkeypatch):
    users = {person.pk: person for person in people[:2]}
    game = await dealt_game(people)
    rng = random.Random(5)
    sent = statements(monkeypatch)
    for _ in range(600):
        _, state = await game_now(game.pk)
        movers = [p.id for p in state.players if engine.turn_moves(state, p.id)]
        mover = rng.choice(movers)
        move = rng.choice(engine.turn_moves(state, mover))
        sent.clear()
        result = await async_moves.move_apply(
            game_id=game.pk, user=users[mover], move=move, expect_seq=state.seq
        )
        if result is None:
            break
        # Two statements a move: the read, and the guarded write.
        assert sent == ["SELECT", "WITH"]
        assert result.seq == state.seq + 1
        assert await count_moves(game.pk) == result.seq - game.seq
    else:
        pytest.fail("the game did not end")
    # The move that ends the game is scored under the lock, on the thread's way: nothing of
    # it was written here.
    after, still = await game_now(game.pk)
    assert still.seq == state.seq and after.status != Game.Status.FINISHED
    await sync_to_async(services.move_apply)(
        game_id=game.pk, user=users[mover], move=move, expect_seq=state.seq
    )
    finished, _ = await game_now(game.pk)
    assert finished.status == Game.Status.FINISHED


async def test_a_change_between_the_read_and_the_write_is_kept_and_the_move_made_once(
    people, monkeypatch
):
    alice, bob = people[:2]
    game = await dealt_game(people)
    _, state = await game_now(game.pk)
    move = engine.legal_moves(state, alice.pk)[0]
    fetch = async_moves._fetch
    reads = []

    async def bob_leaves_after_the_first_read(conn, sql, params):
        rows = await fetch(conn, sql, params)
        if sql.startswith("SELECT"):
            reads.append(sql)
            if len(reads) == 1:
                await sync_to_async(services.game_leave)(game_id=game.pk, user=bob)
        return rows

    monkeypatch.setattr(async_moves, "_fetch", bob_leaves_after_the_first_read)
    result = await async_moves.move_apply(game_id=game.pk, user=alice, move=move)
    assert len(reads) == 2  # the first write found the game changed, and wrote nothing
    assert result.seq == state.seq + 2  # bob's leaving (his stand-in chose), then alice
    bob_seat = await sync_to_async(Seat.objects.get)(game=game, user=bob)
    assert bob_seat.left and bob_seat.autopilot  # not written over by the move
    assert await sync_to_async(Move.objects.filter(game=game, user=alice).count)() == 1


async def test_a_refused_move_raises_and_changes_nothing(people):
    alice = people[0]
    game = await dealt_game(people)
    _, state = await game_now(game.pk)
    with pytest.raises(services.Stale):
        await async_moves.move_apply(
            game_id=game.pk,
            user=alice,
            move=engine.legal_moves(state, alice.pk)[0],
            expect_seq=state.seq - 1,
        )
    with pytest.raises(services.ServiceError) as refused:
        await async_moves.move_apply(game_id=game.pk, user=alice, move={"type": "NO_SUCH_MOVE"})
    assert refused.value.code == "unknown_type"
    with pytest.raises(services.NotFound):
        await async_moves.move_apply(game_id=game.pk + 1000, user=alice, move={"type": "X"})
    with pytest.raises(services.NotFound):
        await async_moves.move_apply(game_id=2**70, user=alice, move={"type": "X"})
    assert (await game_now(game.pk))[1].seq == state.seq
    assert await count_moves(game.pk) == 0


async def test_a_broken_connection_is_replaced_and_the_move_made(people):
    alice = people[0]
    game = await dealt_game(people)
    _, state = await game_now(game.pk)
    moves = await async_moves.pool()
    async with moves.connection() as conn:
        pid = conn.info.backend_pid

    @sync_to_async
    def end_backend() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])

    await end_backend()
    await asyncio.sleep(0.1)
    result = await async_moves.move_apply(
        game_id=game.pk, user=alice, move=engine.legal_moves(state, alice.pk)[0]
    )
    assert result.seq == state.seq + 1


async def test_the_computer_players_answer_from_the_database_thread(people):
    # BOT_DELAY is 0 in the tests: the driver moves at once, where it is called.
    alice = people[0]
    game = await dealt_game(people, count=1, bots=1)
    for _ in range(10):
        _, state = await game_now(game.pk)
        result = await async_moves.move_apply(
            game_id=game.pk, user=alice, move=engine.turn_moves(state, alice.pk)[0]
        )
        _, now = await game_now(game.pk)
        if now.seq == result.seq and engine.turn_moves(now, alice.pk):
            continue  # still her turn (her second wheel card)
        for _ in range(100):
            if now.seq > result.seq:
                return  # the computer player answered
            await asyncio.sleep(0.05)
            _, now = await game_now(game.pk)
        pytest.fail("the computer player did not answer")
    pytest.fail("the computer player never had a turn")
