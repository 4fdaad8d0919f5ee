"""What a finished game's views add from the rankings: every results row's rating change (the
same for every viewer) and, in a seat's own view, the achievements the game earned it first.
Both are in the broadcast that announces the end and in every view read later."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games import broadcast, selectors
from games.models import Game
from games.services.admin import game_end_now
from games.services.lifecycle import game_create, game_join, game_start
from rankings import services
from rankings.models import EarnedAchievement, RatingChange
from rankings.services import display
from tests.test_road300_site import play_out

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, dict]]:
    """Every message the broadcasts send, as (group, message)."""
    messages: list[tuple[str, dict]] = []
    monkeypatch.setattr(broadcast, "_send_all", messages.extend)
    return messages


def started(players, bots: int = 0) -> Game:
    game = game_create(
        user=players[0], name="Rheinufer", max_players=len(players) + bots, bots=bots
    )
    for user in players[1:]:
        game_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=players[0])


def end_views(sent: list[tuple[str, dict]], game: Game) -> dict[int | None, dict]:
    """The views in the broadcast of the game's end: each seat's by user id, the public one
    as None."""
    for group, message in sent:
        if group != broadcast.game_group(game.pk) or message.get("type") != "game.update":
            continue
        if message["status"] == "FINISHED":
            frames = {int(user): frame for user, frame in message["frames"].items()}
            return {
                viewer: json.loads(frame)["state"]
                for viewer, frame in {**frames, None: message["public"]}.items()
            }
    raise AssertionError("no broadcast of the game's end")


def test_the_end_of_a_rated_game_tells_everyone_each_players_rating_change(
    people, sent, django_capture_on_commit_callbacks
):
    alice, bob, charlie = people[:3]
    game = started([alice, bob])
    with django_capture_on_commit_callbacks(execute=True):
        game_end_now(game_id=game.pk)
    changes = {row.user_id: display(row.delta) for row in RatingChange.objects.filter(game=game)}
    assert set(changes) == {alice.pk, bob.pk}

    views = end_views(sent, game)
    assert set(views) == {alice.pk, bob.pk, None}
    for view in views.values():
        assert {row["player"]: row["rating_change"] for row in view["results"]} == changes

    # Read again later: the page, the REST view, a spectator's.
    game.refresh_from_db()
    for viewer in (alice.pk, charlie.pk, None):
        rows = selectors.game_view(game, viewer)["results"]
        assert {row["player"]: row["rating_change"] for row in rows} == changes
    client = APIClient()
    client.force_authenticate(charlie)
    rows = client.get(f"/api/games/{game.pk}/").json()["results"]
    assert {row["player"]: row["rating_change"] for row in rows} == changes


def test_the_end_broadcast_reads_the_rankings_once_for_all_its_views(people, sent):
    alice, bob, charlie = people[:3]
    game = started([alice, bob, charlie])
    game_end_now(game_id=game.pk)
    game.refresh_from_db()
    seats = selectors.seats_with_presence(game.pk)
    with CaptureQueriesContext(connection) as queries:
        broadcast.game_changed(game, None, [], seats)
    assert len(end_views(sent, game)) == 4
    # The offer to play again; the rating changes and the achievements, in one statement.
    assert len(queries.captured_queries) == 2


def test_a_game_not_rated_has_no_rating_change_in_its_rows(people, monkeypatch):
    game = started(people[:2])
    monkeypatch.setattr("rankings.services.rate_game", lambda **kwargs: [])
    game_end_now(game_id=game.pk)
    game.refresh_from_db()
    rows = selectors.game_view(game, people[0].pk)["results"]
    assert [row["rating_change"] for row in rows] == [None, None]


def test_a_seat_sees_the_achievements_its_game_earned_it_first(
    people, sent, django_capture_on_commit_callbacks
):
    alice, bob = people[:2]
    daily = game_create(user=alice, name="Daily", kind="road300", options={"daily": True})
    with django_capture_on_commit_callbacks(execute=True):
        daily = play_out(daily, alice)
    earned = list(EarnedAchievement.objects.filter(game=daily).values_list("key", flat=True))
    assert "daily" in earned

    views = end_views(sent, daily)
    mine = views[alice.pk]
    assert sorted(mine["you"]["new_achievements"]) == sorted(earned)
    assert "you" not in views[None]
    assert [row["rating_change"] for row in mine["results"]] == [None]  # ranked by scores
    assert "new_achievements" not in selectors.game_view(daily, bob.pk).get("you", {})
    assert sorted(selectors.game_view(daily, alice.pk)["you"]["new_achievements"]) == sorted(earned)

    # The next daily game earns "daily" no more: it was earned before.
    again = game_create(user=alice, name="Again", kind="road300", options={"daily": True})
    again = play_out(again, alice)
    assert "daily" not in selectors.game_view(again, alice.pk)["you"]["new_achievements"]


def test_a_game_still_being_played_reads_nothing_of_the_rankings(people):
    game = started(people[:2])
    game.refresh_from_db()
    assert selectors.finished_extras(game) is None
    view = selectors.game_view(game, people[0].pk)
    assert "new_achievements" not in view["you"] and "results" not in view


def rankings_reads(queries: CaptureQueriesContext) -> int:
    table = RatingChange._meta.db_table
    return sum(
        query["sql"].lstrip().upper().startswith("SELECT") and table in query["sql"]
        for query in queries.captured_queries
    )


def ended_unrated(players) -> Game:
    game = started(players)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr("rankings.services.rate_game", lambda **kwargs: [])
        game_end_now(game_id=game.pk)
    game.refresh_from_db()
    return game


@pytest.mark.django_db(transaction=True)
def test_a_rated_games_rankings_are_read_once_a_process_and_an_unrated_games_every_time(people):
    # Outside a transaction, as the broadcasts after a commit: a rated game's changes and
    # achievements are final, so each answer to "Play again" (and each page) shows them
    # as its end's broadcast read them; a game not rated yet is read until it is.
    alice, bob = people[:2]
    rated = started([alice, bob])
    game_end_now(game_id=rated.pk)  # its broadcast reads them
    rated.refresh_from_db()
    changes = {row.user_id: display(row.delta) for row in RatingChange.objects.filter(game=rated)}
    for viewer in (alice.pk, bob.pk, None):
        with CaptureQueriesContext(connection) as queries:
            rows = selectors.game_view(rated, viewer)["results"]
        assert rankings_reads(queries) == 0
        assert {row["player"]: row["rating_change"] for row in rows} == changes

    unrated = ended_unrated([alice, bob])
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            rows = selectors.game_view(unrated, alice.pk)["results"]
        assert rankings_reads(queries) == 1 and [r["rating_change"] for r in rows] == [None] * 2
    call_command("rate_games", stdout=io.StringIO())  # rated later: the views show it
    rows = selectors.game_view(unrated, alice.pk)["results"]
    assert all(isinstance(row["rating_change"], float) for row in rows)


@pytest.mark.django_db(transaction=True)
def test_the_end_broadcast_shows_the_rankings_its_end_made_without_reading_them(people, sent):
    alice, bob = people[:2]
    game = started([alice, bob])
    # Bob earned his first win before: this game earns it him no more.
    EarnedAchievement.objects.create(user=bob, kind="ratumrad", key="first_win")
    with CaptureQueriesContext(connection) as queries:
        game_end_now(game_id=game.pk)
    # (The rating's own lock reads whether the game was rated: not what its views show.)
    extras = [query["sql"] for query in queries.captured_queries if "UNION" in query["sql"]]
    assert rankings_reads(queries) == 1 and extras == []
    changes = {row.user_id: display(row.delta) for row in RatingChange.objects.filter(game=game)}
    views = end_views(sent, game)
    for view in views.values():
        assert {row["player"]: row["rating_change"] for row in view["results"]} == changes
    for person in (alice, bob):
        earned = EarnedAchievement.objects.filter(game=game, user=person).order_by("id")
        assert views[person.pk]["you"]["new_achievements"] == [one.key for one in earned]
    assert "first_win" not in views[bob.pk]["you"]["new_achievements"]
    winner = next(row["player"] for row in views[None]["results"] if row["place"] == 1)
    assert "first_win" in views[winner]["you"]["new_achievements"] or winner == bob.pk


@pytest.mark.django_db(transaction=True)
def test_rankings_read_inside_a_transaction_are_not_kept_for_later_views(people):
    game = ended_unrated(people[:2])
    with contextlib.suppress(ZeroDivisionError), transaction.atomic():
        services.rate_game(game=game, results=services.results_of(game))
        assert all(row["rating_change"] for row in selectors.game_view(game, None)["results"])
        raise ZeroDivisionError  # rolled back: the game was never rated
    with CaptureQueriesContext(connection) as queries:
        rows = selectors.game_view(game, None)["results"]
    assert rankings_reads(queries) == 1 and [row["rating_change"] for row in rows] == [None] * 2
