"""Ratings: a finished game rates all its seats by place (openskill), once; aborted games never."""

from __future__ import annotations

import logging
import random

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Game, Seat
from games.moves import play
from games.moves.base import load_state
from games.ratumrad import engine
from games.services.admin import game_abort, game_end_now
from games.services.lifecycle import game_create, game_join, game_start
from games.signals import game_finished
from rankings import services as ratings
from rankings.models import EarnedAchievement, Rating, RatingChange

pytestmark = pytest.mark.django_db

NAMES = ("alice", "bob", "charlie", "dora", "emil")


def finished(players, status=Game.Status.FINISHED) -> Game:
    game = Game.objects.create(name="Rheinufer", max_players=len(players), seed=1, status=status)
    for order, user in enumerate(players):
        Seat.objects.create(game=game, user=user, turn_order=order)
    return game


def announce(game: Game, places: dict, totals: dict | None = None) -> None:
    """Send ``game_finished`` as the services do, with results rows for these places."""
    totals = totals or {}
    rows = [
        {"player": user.pk, "place": place, "total": totals.get(user, 50 - 10 * place)}
        for user, place in places.items()
    ]
    game_finished.send(sender=Game, game=game, results=sorted(rows, key=lambda r: r["place"]))


def ordinal(user) -> float:
    return Rating.objects.get(user=user).ordinal


def change(user, game) -> float:
    return RatingChange.objects.get(user=user, game=game).delta


def test_in_a_two_player_game_the_winner_rises_and_the_loser_falls(people):
    alice, bob = people[:2]
    game = finished([alice, bob])
    announce(game, {alice: 2, bob: 1})
    assert ordinal(bob) > 0 > ordinal(alice)
    assert Rating.objects.get(user=bob).games == Rating.objects.get(user=alice).games == 1
    row = RatingChange.objects.get(user=alice, game=game)
    assert (row.place, row.players, row.total, row.ordinal_before) == (2, 2, 30, 0)


def test_five_players_change_in_the_order_of_their_places(people):
    game = finished(people)
    announce(game, {user: place for place, user in enumerate(people, start=1)})
    changes = [change(user, game) for user in people]
    assert changes == sorted(changes, reverse=True) and len(set(changes)) == 5
    assert changes[0] > 0 > changes[-1]


def test_tied_players_get_equal_changes(people):
    alice, bob, charlie, dora = people[:4]
    game = finished([alice, bob, charlie, dora])
    announce(game, {alice: 1, bob: 2, charlie: 2, dora: 4})
    assert change(bob, game) == change(charlie, game)
    assert change(alice, game) > change(bob, game) > change(dora, game)


def test_a_game_is_rated_once_however_often_it_is_announced(people):
    alice, bob = people[:2]
    game = finished([alice, bob])
    announce(game, {alice: 1, bob: 2})
    before = list(Rating.objects.order_by("user_id").values_list("mu", "sigma", "games"))
    announce(game, {alice: 2, bob: 1})
    assert ratings.rate_game(game=game, results=ratings.results_of(game)) == []
    assert list(Rating.objects.order_by("user_id").values_list("mu", "sigma", "games")) == before
    assert RatingChange.objects.filter(game=game).count() == 2


def test_the_next_game_starts_from_the_rating_the_last_one_left(people):
    alice, bob = people[:2]
    first, second = finished([alice, bob]), finished([alice, bob])
    announce(first, {alice: 1, bob: 2})
    after_first = ordinal(alice)
    announce(second, {alice: 1, bob: 2})
    row = RatingChange.objects.get(user=alice, game=second)
    assert row.ordinal_before == after_first < row.ordinal_after == ordinal(alice)
    assert Rating.objects.get(user=alice).games == 2


def test_an_aborted_game_is_not_rated(people):
    alice, bob = people[:2]
    game = game_create(user=alice, name="Rheinufer", max_players=2)
    game_join(game_id=game.pk, user=bob)
    game_start(game_id=game.pk, user=alice)
    game_abort(game_id=game.pk)
    announce(Game.objects.get(pk=game.pk), {alice: 1, bob: 2})
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def started(players, bots: int = 0) -> Game:
    game = game_create(
        user=players[0], name="Rheinufer", max_players=len(players) + bots, bots=bots
    )
    Game.objects.filter(pk=game.pk).update(seed=7)  # the same deal every run
    for user in players[1:]:
        game_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=players[0])


def test_ending_a_game_now_rates_every_seat_by_its_place(people):
    game = started(people[:3])
    game_end_now(game_id=game.pk)
    seats = Seat.objects.filter(game=game)
    rows = RatingChange.objects.filter(game=game)
    assert {(r.user_id, r.place, r.total, r.players) for r in rows} == {
        (s.user_id, s.place, s.total, 3) for s in seats
    }
    for row in rows:
        assert Rating.objects.get(user_id=row.user_id).ordinal == row.ordinal_after


@pytest.mark.parametrize(
    ("failing", "logged"),
    [
        ("rate_game", "could not rate game {}"),
        ("award_achievements", "could not award the achievements of game {}"),
    ],
)
def test_a_step_after_the_end_that_fails_is_undone_and_logged_and_the_rest_stands(
    people, monkeypatch, caplog, failing, logged
):
    def broken(**kwargs):
        RatingChange.objects.all().delete()  # what it wrote before it failed: rolled back
        raise RuntimeError("not today")

    monkeypatch.setattr(ratings, failing, broken)
    game = started(people[:2])
    with caplog.at_level(logging.ERROR, logger="rankings.receivers"):
        game_end_now(game_id=game.pk)
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
    rated = RatingChange.objects.filter(game=game).count()
    awarded = EarnedAchievement.objects.filter(game=game).exists()
    assert (rated, awarded) == (0 if failing == "rate_game" else 2, failing == "rate_game")
    assert logged.format(game.pk) in caplog.text


@pytest.mark.django_db(transaction=True)
def test_a_games_end_rates_and_awards_under_one_savepoint(people):
    game = started(people[:2])
    with CaptureQueriesContext(connection) as queries:
        game_end_now(game_id=game.pk)
    savepoints = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SAVEPOINT")]
    assert len(savepoints) == 1
    assert RatingChange.objects.filter(game=game).count() == 2
    assert EarnedAchievement.objects.filter(game=game).exists()
    # The ratings' writes and the achievements' wait for each other: one statement.
    tables = (RatingChange._meta.db_table, EarnedAchievement._meta.db_table)
    writes = [
        q["sql"]
        for q in queries.captured_queries
        if any(f"INSERT INTO {connection.ops.quote_name(table)}" in q["sql"] for table in tables)
    ]
    assert len(writes) == (1 if connection.vendor == "postgresql" else 2), writes


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite keeps no length")
def test_a_write_that_fails_in_the_steps_common_statement_undoes_them_and_each_goes_alone(
    people, monkeypatch, caplog
):
    # The achievements' insert fails in the database (a key too long for its column), in the
    # statement it shares with the ratings' writes: both are undone, then each step is made
    # under a savepoint of its own, and the rating stands.
    from rankings import achievements

    too_long = achievements.Achievement("ratumrad", "k" * 40, "t", "d", lambda game: True)
    monkeypatch.setattr(achievements, "of_kind", lambda kind: [too_long])
    game = started(people[:2])
    with caplog.at_level(logging.ERROR, logger="rankings.receivers"):
        game_end_now(game_id=game.pk)
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
    assert RatingChange.objects.filter(game=game).count() == 2
    assert not EarnedAchievement.objects.filter(game=game).exists()
    assert f"could not award the achievements of game {game.pk}" in caplog.text


def test_the_rate_games_command_rates_finished_games_left_unrated(people, capsys):
    alice, bob = people[:2]
    game = finished([alice, bob])
    Seat.objects.filter(game=game, user=alice).update(place=1, total=20)
    Seat.objects.filter(game=game, user=bob).update(place=2, total=10)
    finished([alice, bob], status=Game.Status.ABORTED)
    call_command("rate_games")
    assert "rated 1 game(s)" in capsys.readouterr().out
    assert change(alice, game) > 0 > change(bob, game)
    call_command("rate_games")
    assert "rated 0 game(s)" in capsys.readouterr().out


@pytest.mark.django_db(transaction=True)
def test_a_whole_game_against_a_computer_player_rates_both_and_marks_the_bot(settings, people):
    settings.BOT_DELAY = 0
    alice = people[0]
    game = started([alice], bots=1)
    rng = random.Random(3)
    game.refresh_from_db()  # the bot prepared at once
    while game.status != Game.Status.FINISHED:
        state = load_state(game)
        move = rng.choice(engine.turn_moves(state, alice.pk))
        play.move_apply(game_id=game.pk, user=alice, move=move, expect_seq=game.seq)
        game.refresh_from_db()
    bot = Seat.objects.get(game=game, is_bot=True)
    rows = {row.user_id: row for row in RatingChange.objects.filter(game=game)}
    assert set(rows) == {alice.pk, bot.user_id}
    assert rows[bot.user_id].is_bot and not rows[alice.pk].is_bot
    assert Rating.objects.get(user_id=bot.user_id).is_bot
    winner, loser = sorted(rows.values(), key=lambda row: row.place)
    assert (winner.place, loser.place) == (1, 2)  # no tie with this seed
    assert winner.delta > 0 > loser.delta


def test_rating_a_game_makes_missing_rows_then_locks_them_and_asks_if_rated_in_one_statement(
    people,
):
    alice, bob = people[:2]
    game = finished([alice, bob])
    results = [
        {"player": alice.pk, "total": 30, "place": 1},
        {"player": bob.pk, "total": 20, "place": 2},
    ]
    seats = list(Seat.objects.filter(game=game))  # (as the end has them)
    with CaptureQueriesContext(connection) as first:
        assert len(ratings.rate_game(game=game, results=results, seats=seats)) == 2
    # The missing ratings made; locked, with whether the game was rated; written.
    assert len(first.captured_queries) == (3 if connection.vendor == "postgresql" else 5)
    with CaptureQueriesContext(connection) as again:
        assert ratings.rate_game(game=game, results=results, seats=seats) == []
    assert len(again.captured_queries) == 2  # (the rows exist already) and nothing written
    assert RatingChange.objects.filter(game=game).count() == 2
