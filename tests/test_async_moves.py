"""Moves made on the event loop (``games.moves.on_loop``, PostgreSQL): the same two statements
as the thread's guarded way, sent through the loop's own async connections. Whole games are
played that way, a change between a move's read and its write is kept, refusals change
nothing, the move that ends a game is left to the thread's way, a broken connection is
replaced, and the computer players answer from the sockets' database thread."""

from __future__ import annotations

import asyncio
import random

import psycopg
import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from games import errors, registry
from games.models import Game, Move, Seat
from games.moves import on_loop, play
from games.moves.base import load_state
from games.ratumrad import engine
from games.services.lifecycle import game_create, game_join, game_start
from games.services.seats import game_leave
from tests.ws_helpers import Socket, close_all, isolated_sockets  # noqa: F401 (autouse)

pytestmark = [
    pytest.mark.django_db(transaction=True),  # each change commits, as on the site
    pytest.mark.skipif(connection.vendor != "postgresql", reason="async moves are PostgreSQL's"),
]


@pytest.fixture(autouse=True)
async def pools():
    yield
    await on_loop.close_pools()  # before the test database is emptied and dropped


@sync_to_async
def dealt_game(people, count: int = 2, bots: int = 0) -> Game:
    game = game_create(
        user=people[0], name="Birsig", max_players=count + bots, bots=bots, turn_seconds=0
    )
    for person in people[1:count]:
        game_join(game_id=game.pk, user=person)
    return game_start(game_id=game.pk, user=people[0])


@sync_to_async
def game_now(game_id: int) -> tuple[Game, object]:
    game = Game.objects.get(pk=game_id)
    return game, load_state(game)


@sync_to_async
def count_moves(game_id: int) -> int:
    return Move.objects.filter(game_id=game_id).count()


def statements(monkeypatch) -> list[str]:
    sent: list[str] = []
    fetch = on_loop._fetch

    async def counted(conn, sql, params):
        sent.append(sql.split(None, 1)[0])
        return await fetch(conn, sql, params)

    monkeypatch.setattr(on_loop, "_fetch", counted)
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
        result = await on_loop.move_apply(
            game_id=game.pk, user=users[mover], move=move, expect_seq=state.seq
        )
        if isinstance(result, play.Ahead):  # it ends the game: made under the lock
            break
        # Two statements a move: the read, and the guarded write.
        assert sent == ["SELECT", "WITH"]
        assert result.seq == state.seq + 1
        assert await count_moves(game.pk) == result.seq - game.seq
    else:
        pytest.fail("the game did not end")
    # The move that ends the game is scored under the lock, on the thread's way: nothing of
    # it was written here. There it is taken as the event loop applied it (``ahead``).
    after, still = await game_now(game.pk)
    assert still.seq == state.seq and after.status != Game.Status.FINISHED
    assert result.checked.seat.user_id == mover and result.state.status == engine.FINISHED
    applied = []
    monkeypatch.setattr(registry.get("ratumrad").engine, "apply", applied.append)
    await sync_to_async(play.move_apply)(
        game_id=game.pk,
        user=users[mover],
        move=move,
        expect_seq=state.seq,
        guarded=False,
        ahead=result,
    )
    assert applied == []  # not applied again
    finished, _ = await game_now(game.pk)
    assert finished.status == Game.Status.FINISHED


async def test_a_change_between_the_read_and_the_write_is_kept_and_the_move_made_once(
    people, monkeypatch
):
    alice, bob = people[:2]
    game = await dealt_game(people)
    _, state = await game_now(game.pk)
    move = engine.legal_moves(state, alice.pk)[0]
    fetch = on_loop._fetch
    reads = []

    async def bob_leaves_after_the_first_read(conn, sql, params):
        rows = await fetch(conn, sql, params)
        if sql.startswith("SELECT"):
            reads.append(sql)
            if len(reads) == 1:
                await sync_to_async(game_leave)(game_id=game.pk, user=bob)
        return rows

    monkeypatch.setattr(on_loop, "_fetch", bob_leaves_after_the_first_read)
    result = await on_loop.move_apply(game_id=game.pk, user=alice, move=move)
    assert len(reads) == 2  # the first write found the game changed, and wrote nothing
    assert result.seq == state.seq + 2  # bob's leaving (his stand-in chose), then alice
    bob_seat = await sync_to_async(Seat.objects.get)(game=game, user=bob)
    assert bob_seat.left and bob_seat.autopilot  # not written over by the move
    assert await sync_to_async(Move.objects.filter(game=game, user=alice).count)() == 1


async def test_a_refused_move_raises_and_changes_nothing(people):
    alice = people[0]
    game = await dealt_game(people)
    _, state = await game_now(game.pk)
    with pytest.raises(errors.Stale):
        await on_loop.move_apply(
            game_id=game.pk,
            user=alice,
            move=engine.legal_moves(state, alice.pk)[0],
            expect_seq=state.seq - 1,
        )
    with pytest.raises(errors.ServiceError) as refused:
        await on_loop.move_apply(game_id=game.pk, user=alice, move={"type": "NO_SUCH_MOVE"})
    assert refused.value.code == "unknown_type"
    with pytest.raises(errors.NotFound):
        await on_loop.move_apply(game_id=game.pk + 1000, user=alice, move={"type": "X"})
    with pytest.raises(errors.NotFound):
        await on_loop.move_apply(game_id=2**70, user=alice, move={"type": "X"})
    assert (await game_now(game.pk))[1].seq == state.seq
    assert await count_moves(game.pk) == 0


async def test_a_broken_connection_is_replaced_and_the_move_made(people):
    alice = people[0]
    game = await dealt_game(people)
    _, state = await game_now(game.pk)
    moves = await on_loop.pool()
    async with moves.connection() as conn:
        pid = conn.info.backend_pid

    @sync_to_async
    def end_backend() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])

    await end_backend()
    await asyncio.sleep(0.1)
    result = await on_loop.move_apply(
        game_id=game.pk, user=alice, move=engine.legal_moves(state, alice.pk)[0]
    )
    assert result.seq == state.seq + 1


async def test_the_computer_players_answer_from_the_database_thread(people):
    # BOT_DELAY is 0 in the tests: the driver moves at once, where it is called.
    alice = people[0]
    game = await dealt_game(people, count=1, bots=1)
    for _ in range(10):
        _, state = await game_now(game.pk)
        result = await on_loop.move_apply(
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


# ---------------------------------------------------------------- reads ahead of a move


async def read_ahead(game_id: int, seq: int) -> None:
    await on_loop.prefetch(game_id, seq)


async def test_a_move_read_ahead_is_one_statement(people, monkeypatch):
    alice = people[0]
    game = await dealt_game(people)
    _, state = await game_now(game.pk)
    await read_ahead(game.pk, state.seq)
    sent = statements(monkeypatch)
    result = await on_loop.move_apply(
        game_id=game.pk, user=alice, move=engine.legal_moves(state, alice.pk)[0]
    )
    assert sent == ["WITH"]  # the guarded write alone
    assert result.seq == state.seq + 1 and await count_moves(game.pk) == 1
    # Each read serves one move: the next one reads for itself.
    _, state = await game_now(game.pk)
    sent.clear()
    bob = people[1]
    await on_loop.move_apply(game_id=game.pk, user=bob, move=engine.legal_moves(state, bob.pk)[0])
    assert sent == ["SELECT", "WITH"]


async def test_a_read_ahead_that_the_game_outran_is_made_again_and_the_move_made_once(
    people, monkeypatch
):
    alice, bob = people[:2]
    game = await dealt_game(people)
    _, state = await game_now(game.pk)
    await read_ahead(game.pk, state.seq)
    await sync_to_async(game_leave)(game_id=game.pk, user=bob)
    sent = statements(monkeypatch)
    _, now = await game_now(game.pk)
    result = await on_loop.move_apply(
        game_id=game.pk, user=alice, move=engine.legal_moves(now, alice.pk)[0]
    )
    assert sent == ["WITH", "SELECT", "WITH"]  # the first write found the game changed
    assert result.seq == now.seq + 1
    bob_seat = await sync_to_async(Seat.objects.get)(game=game, user=bob)
    assert bob_seat.left and bob_seat.autopilot  # not written over by the move
    assert await sync_to_async(Move.objects.filter(game=game, user=alice).count)() == 1


async def test_a_move_refused_on_a_read_ahead_is_tried_again_on_a_fresh_read(people, monkeypatch):
    # In the preparation both choose their cards (R2.4): bob's read ahead is outrun by
    # alice's choice, and his move, sent after he saw hers, names her seq.
    alice, bob = people[:2]
    game = await dealt_game(people)
    _, state = await game_now(game.pk)
    await read_ahead(game.pk, state.seq)
    await sync_to_async(play.move_apply)(
        game_id=game.pk, user=alice, move=engine.legal_moves(state, alice.pk)[0]
    )
    sent = statements(monkeypatch)
    result = await on_loop.move_apply(
        game_id=game.pk,
        user=bob,
        move=engine.legal_moves(state, bob.pk)[0],
        expect_seq=state.seq + 1,
    )
    assert sent == ["SELECT", "WITH"]  # not refused as stale: read again
    assert result.seq == state.seq + 2
    # A move refused on a fresh read too is refused, and changes nothing.
    _, state = await game_now(game.pk)
    await read_ahead(game.pk, state.seq)
    sent.clear()
    with pytest.raises(errors.ServiceError) as refused:
        await on_loop.move_apply(game_id=game.pk, user=bob, move={"type": "NO_SUCH_MOVE"})
    assert refused.value.code == "unknown_type"
    assert sent == ["SELECT"]
    assert (await game_now(game.pk))[1].seq == state.seq


async def test_a_read_ahead_is_not_taken_when_forgotten_too_old_or_failed(people, monkeypatch):
    alice, bob = people[:2]
    game = await dealt_game(people)
    sent = statements(monkeypatch)

    async def move(user) -> None:
        _, state = await game_now(game.pk)
        sent.clear()
        result = await on_loop.move_apply(
            game_id=game.pk, user=user, move=engine.legal_moves(state, user.pk)[0]
        )
        assert result.seq == state.seq + 1
        assert sent == ["SELECT", "WITH"]  # the move read for itself

    _, state = await game_now(game.pk)
    await read_ahead(game.pk, state.seq)
    on_loop.forget(game.pk)  # a socket came or went: the presence read is old
    await move(alice)

    _, state = await game_now(game.pk)
    await read_ahead(game.pk, state.seq)
    monkeypatch.setattr(on_loop, "PREFETCH_MAX_AGE", 0.0)
    await move(bob)
    monkeypatch.undo()
    sent = statements(monkeypatch)

    async def broken(game_id):
        raise psycopg.OperationalError("the server closed the connection")

    monkeypatch.setattr(on_loop, "_prefetch_rows", broken)
    _, state = await game_now(game.pk)
    with pytest.raises(psycopg.OperationalError):
        await read_ahead(game.pk, state.seq)
    await move(alice)


async def test_reads_whose_move_never_came_are_dropped_when_they_are_old(people, monkeypatch):
    games = [await dealt_game(people) for _ in range(3)]
    for game in games[:2]:
        await read_ahead(game.pk, 0)
    monkeypatch.setattr(on_loop, "PREFETCH_MAX_AGE", -1.0)  # every read is too old
    await read_ahead(games[2].pk, 0)
    assert list(on_loop._prefetched[asyncio.get_running_loop()]) == [games[2].pk]


async def test_a_socket_of_the_player_to_move_reads_ahead_and_a_new_socket_drops_it(
    people, monkeypatch, settings
):
    settings.PARALLEL_MOVES = True  # as on the site: moves on the event loop
    alice, bob = people[:2]
    game = await dealt_game(people)
    a = await Socket.game(game.pk, alice)
    b = await Socket.game(game.pk, bob)
    await a.until("STATE")  # bob arrived
    sent = statements(monkeypatch)
    first = a.received[0]["state"]["legal"][0]
    await a.send({**first, "ref": "a1"})
    await a.until("ACK")
    await b.until("STATE", seq=1)
    # Alice's move read for itself (no update had come yet). Bob still chooses (R2.4): his
    # socket's update made this process read the game.
    for _ in range(100):
        if sent == ["SELECT", "WITH", "SELECT"]:
            break
        await asyncio.sleep(0.01)
    assert sent == ["SELECT", "WITH", "SELECT"]
    await asyncio.sleep(0.05)  # the read is through
    sent.clear()
    legal = (await b.sync())["legal"]
    await b.send({**legal[0], "ref": "b1"})
    assert (await b.until("ACK"))[-1]["seq"] == 2
    assert sent[0] == "WITH"  # no read of its own
    # Whoever is to move now had a read made; bob goes and comes back, and the presence that
    # read holds is old: the move reads again. (A second socket of someone present changes
    # no presence: tests/test_presence_grace.py.)
    await a.until("STATE", seq=2)
    await asyncio.sleep(0.05)
    await b.close()
    await a.until("PRESENCE")
    again = await Socket.game(game.pk, bob)
    await a.until("PRESENCE")
    await asyncio.sleep(0.05)
    _, state = await game_now(game.pk)
    mover = next(person for person in (alice, bob) if engine.turn_moves(state, person.pk))
    socket = a if mover == alice else again
    legal = (await socket.sync())["legal"]
    sent.clear()
    await socket.send({**next(m for m in legal if m["type"] != "VOTE_END"), "ref": "m"})
    await socket.until("ACK")
    assert sent[:2] == ["SELECT", "WITH"]
    await close_all(a, b, again)


async def test_a_seated_player_s_socket_opens_the_pool_before_the_first_move(people, settings):
    settings.PARALLEL_MOVES = True  # as on the site: moves on the event loop
    game = await dealt_game(people)
    loop = asyncio.get_running_loop()
    watcher = await Socket.game(game.pk, people[2])
    assert loop not in on_loop._pools  # a watcher makes no moves
    alice = await Socket.game(game.pk, people[0])
    assert loop in on_loop._pools
    moves = await on_loop._pools[loop]
    await moves.wait(timeout=5)
    # Every connection is open before a move asks for one; a move then takes one of them.
    opened = moves.get_stats()
    assert opened["pool_size"] == opened["connections_num"] == on_loop.POOL_SIZE
    await alice.send({**alice.received[0]["state"]["legal"][0], "ref": "a1"})
    await alice.until("ACK")
    after = moves.get_stats()
    assert after["requests_num"] >= 1  # the move went through the pool ...
    assert after["connections_num"] == on_loop.POOL_SIZE  # ... and opened none
    await close_all(watcher, alice)


async def test_a_pool_that_did_not_open_is_logged_and_opened_on_the_next_call(monkeypatch, caplog):
    async def broken():
        raise OSError("no route to the database")

    monkeypatch.setattr(on_loop, "_open", broken)
    failed = on_loop.open_soon()
    await asyncio.gather(failed, return_exceptions=True)
    assert "the moves' pool did not open" in caplog.text
    monkeypatch.undo()
    again = on_loop.open_soon()
    assert again is not failed
    assert (await again).get_stats()["pool_max"] == on_loop.POOL_SIZE
