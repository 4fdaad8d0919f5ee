"""``games.moves.sql``'s writes without the query compiler come out as the ORM's would."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Event, Game, Seat
from games.moves import sql

pytestmark = pytest.mark.django_db

VARYING = ("id", "created", "updated", "joined", "invitation_nonce")  # differ row to row


def fields_of(instance) -> dict:
    row = type(instance).objects.values().get(pk=instance.pk)
    return {name: value for name, value in row.items() if name not in VARYING}


def test_created_rows_get_their_ids_in_order_and_hold_what_the_orm_would_write(
    django_assert_num_queries,
):
    ann, bob = (get_user_model().objects.create_user(name) for name in ("ann", "bob"))
    fields = {"name": "rows", "kind": "ratumrad", "max_players": 3, "creator": ann, "seed": 7}
    by_orm = Game.objects.create(**fields)
    game = Game(**fields)
    sql.create([game])
    assert game.pk is not None and game.pk != by_orm.pk
    assert not game._state.adding and game.created is not None
    assert fields_of(game) == fields_of(by_orm)
    assert Game.objects.get(pk=game.pk).invitation_nonce == game.invitation_nonce

    seats = [Seat(game=game, user=ann), Seat(game=game, user=bob, is_bot=True, bot="heuristic")]
    sql.create(seats)
    stored = list(Seat.objects.filter(game=game).order_by("joined", "id"))
    assert [seat.pk for seat in stored] == [seat.pk for seat in seats]
    assert [(seat.user_id, seat.is_bot, seat.bot) for seat in stored] == [
        (ann.pk, False, ""),
        (bob.pk, True, "heuristic"),
    ]
    with django_assert_num_queries(0):
        sql.create([])


def test_rows_whose_ids_are_needed_are_refused_inside_a_batch():
    ann = get_user_model().objects.create_user("ann")
    game = Game(name="batched", kind="ratumrad", max_players=2, creator=ann, seed=1)
    with pytest.raises(RuntimeError, match="batch"), sql.batch():
        sql.create([game])
    assert not Game.objects.filter(name="batched").exists()


def test_a_row_and_the_rows_that_refer_to_it_are_created_at_once_as_the_orm_would_write_them():
    ann, bob = (get_user_model().objects.create_user(name) for name in ("ann", "bob"))
    fields = {"name": "family", "kind": "ratumrad", "max_players": 3, "creator": ann, "seed": 7}
    by_orm = Game.objects.create(**fields)
    orm_seats = [Seat.objects.create(game=by_orm, user=ann)]
    orm_seats.append(Seat.objects.create(game=by_orm, user=bob, is_bot=True, bot="heuristic"))
    game = Game(**fields)
    seats = [Seat(user=ann), Seat(user=bob, is_bot=True, bot="heuristic")]
    with CaptureQueriesContext(connection) as made:
        sql.create_with(game, seats, "game")
    assert len(made.captured_queries) == (1 if connection.vendor == "postgresql" else 2)
    assert game.pk is not None and not game._state.adding
    assert fields_of(game) == fields_of(by_orm)
    stored = list(Seat.objects.filter(game=game).order_by("joined", "id"))
    assert [seat.pk for seat in stored] == [seat.pk for seat in seats]  # in the given order
    assert all(seat.game_id == game.pk and seat.game is game for seat in seats)
    assert not any(seat._state.adding for seat in seats)
    as_orm = [{**fields_of(seat), "game_id": None} for seat in orm_seats]
    assert [{**fields_of(seat), "game_id": None} for seat in seats] == as_orm


def test_a_row_with_no_rows_referring_to_it_is_created_alone():
    ann = get_user_model().objects.create_user("ann")
    game = Game(name="alone", kind="ratumrad", max_players=2, creator=ann, seed=1)
    sql.create_with(game, [], "game")
    assert Game.objects.get(pk=game.pk).name == "alone"
    with pytest.raises(RuntimeError, match="batch"), sql.batch():
        sql.create_with(Game(name="batched", max_players=2, seed=1), [Seat(user=ann)], "game")
    assert not Game.objects.filter(name="batched").exists()


def test_a_write_sent_now_inside_a_batch_goes_before_the_batchs_own():
    ann = get_user_model().objects.create_user("ann")
    game = Game(name="now", kind="ratumrad", max_players=2, creator=ann, seed=1)
    sql.create([game])
    with sql.batch():
        sql.insert([Event(game=game, seq=0, kind="waits", data={})])
        sql.insert([Event(game=game, seq=0, kind="now", data={})], now=True)
        # Sent already: a read inside the batch sees it, and not the write that waits.
        assert list(Event.objects.filter(game=game).values_list("kind", flat=True)) == ["now"]
    assert set(Event.objects.filter(game=game).values_list("kind", flat=True)) == {"now", "waits"}


def test_a_guarded_batch_refuses_a_write_sent_ahead_of_it():
    ann = get_user_model().objects.create_user("ann")
    game = Game(name="guarded", kind="ratumrad", max_players=2, creator=ann, seed=1)
    sql.create([game])
    with pytest.raises(RuntimeError, match="ahead"), sql.collected():
        sql.insert([Event(game=game, seq=0, kind="now", data={})], now=True)
    assert not Event.objects.filter(game=game).exists()


def test_an_insert_gives_the_rows_it_made_to_its_callback_alone_or_last_in_a_batch():
    ann = get_user_model().objects.create_user("ann")
    game = Game(name="returning", kind="ratumrad", max_players=2, creator=ann, seed=1)
    sql.create([game])
    found = []
    sql.insert(
        [Event(game=game, seq=0, kind="alone", data={})], returning=("kind",), then=found.append
    )
    with sql.batch():
        sql.insert([Event(game=game, seq=0, kind="first", data={})])
        sql.insert(
            [Event(game=game, seq=1, kind="last", data={})],
            returning=("seq", "kind"),
            then=found.append,
        )
        assert len(found) == 1  # sent with the batch
    assert found == [[("alone",)], [(1, "last")]]
    with pytest.raises(RuntimeError, match="last write"), sql.batch():
        sql.insert(
            [Event(game=game, seq=2, kind="early", data={})], returning=("kind",), then=found.append
        )
        sql.insert([Event(game=game, seq=2, kind="after", data={})])
    with pytest.raises(RuntimeError, match="no rows"), sql.collected():
        sql.insert(
            [Event(game=game, seq=3, kind="guarded", data={})],
            returning=("kind",),
            then=found.append,
        )
    assert len(found) == 2
    assert not Event.objects.filter(game=game, seq__gte=2).exists()
