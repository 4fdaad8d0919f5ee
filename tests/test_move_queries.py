"""The database work of one move stays small: a test fails when a move's queries grow.

A move reads its game row and the seats with their presence, one query each, and writes the
move, the state, the events and what the kind's glue keeps in step. On PostgreSQL the game is
read without a lock and the writes are one statement that checks the game row is unchanged
(``games.moves.play.prepare_guarded``): no transaction statements at all. On SQLite the game
row is locked in a transaction and the writes go one by one. The broadcast after the commit
(views for every seat) reads nothing more, but for the game's end: the offer to play again, and
its rating changes and new achievements in one query, for all the views
(tests/test_finished_view.py).
"""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Game
from games.moves import play
from games.moves.base import load_state
from games.ratumrad import engine
from games.services.lifecycle import game_create, game_join, game_start

pytestmark = pytest.mark.django_db

# On PostgreSQL a move is two statements: the game with its seats, and the writes
# (games.moves.play.prepare_guarded), with no transaction statement at all. On SQLite: the
# locked game, the seats and one statement per write; the savepoints of the test's
# transaction are not counted. The move that ends the game also scores it (the results,
# every seat's rating, achievements); on PostgreSQL it is first read without the lock (1),
# found to end the game, and made under the lock (7: the game row's version, locked, stands
# for its read and its seats' while unchanged). A move that passes the turn also
# writes the ``to_move`` of the seats whose turn began or ended (on SQLite up to two more).
MOST_QUERIES = {
    "postgresql": {"move": 2, "last move": 8},
    "sqlite": {"move": 9, "last move": 17},
}
SEED = 1


def test_a_move_takes_a_bounded_number_of_queries_whatever_it_does(people):
    alice, bob = people[:2]
    game = game_create(user=alice, name="Rhein", max_players=2, turn_seconds=0)
    game_join(game_id=game.pk, user=bob)
    # The same game every run: how many rows the last move writes depends on the deal (the
    # destination cards are updated in one statement per seat, status and completion).
    Game.objects.filter(pk=game.pk).update(seed=SEED)
    game_start(game_id=game.pk, user=alice)
    users = {alice.pk: alice, bob.pk: bob}
    rng = random.Random(3)
    counts: dict[str, int] = {}
    last = None
    for _ in range(400):
        state = load_state(Game.objects.get(pk=game.pk))
        if state.status == engine.FINISHED:
            break
        movers = [p.id for p in state.players if engine.turn_moves(state, p.id)]
        mover = rng.choice(movers)
        move = rng.choice(engine.turn_moves(state, mover))
        with CaptureQueriesContext(connection) as queries:
            play.move_apply(game_id=game.pk, user=users[mover], move=move)
        work = [q["sql"] for q in queries.captured_queries if not _bookkeeping(q["sql"])]
        if Game.objects.get(pk=game.pk).status == Game.Status.FINISHED:
            last = len(work)
        else:
            counted = work if connection.vendor == "sqlite" else queries.captured_queries
            counts[move["type"]] = max(counts.get(move["type"], 0), len(counted))
    assert set(counts) >= {
        *("SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION", "TAKE_WHEEL", "BUILD_ROAD"),
        *("DRAW_DESTINATION_CARDS", "KEEP_DESTINATION_CARDS"),
    }, counts
    most = MOST_QUERIES[connection.vendor]
    assert max(counts.values()) <= most["move"], counts
    assert last is not None and last <= most["last move"], last


def _bookkeeping(sql: str) -> bool:
    """Transaction control, which depends on the database and the test's own transaction."""
    return sql.split(None, 1)[0].upper() in {"SAVEPOINT", "RELEASE", "BEGIN", "COMMIT"}


def test_on_postgresql_the_game_state_is_compressed_with_lz4():
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL column setting")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attcompression FROM pg_attribute"
            " WHERE attrelid = %s::regclass AND attname = 'state'",
            [Game._meta.db_table],
        )
        assert cursor.fetchone() == ("l",)
