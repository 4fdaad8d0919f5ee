"""``games.moves.sql``'s writes without the query compiler come out as the ORM's would."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games.models import Game, Seat
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
