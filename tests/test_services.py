"""The services: seats, dealing, one transaction per move, the log and the projections."""

import random
import re
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import errors, selectors
from games.models import BuiltRoad, ChatMessage, DestinationCard, Event, Game, Move, Seat
from games.moves import play
from games.ratumrad import engine
from games.services import chat
from games.services.chat import CHAT_MAX_LENGTH, chat_post, check_chat_post
from games.services.lifecycle import game_create, game_join, game_start
from tests.races import at_once

pytestmark = pytest.mark.django_db(transaction=True)


def started_game(people, count=2):
    game = game_create(user=people[0], name="Rheinufer", max_players=count)
    for person in people[1:count]:
        game_join(game_id=game.pk, user=person)
    return game_start(game_id=game.pk, user=people[0])


def test_creating_a_game_seats_its_creator(people):
    game = game_create(user=people[0], name="  Rheinufer ", max_players=3)
    assert game.name == "Rheinufer" and game.status == Game.Status.WAITING
    assert list(game.seats.values_list("user__username", flat=True)) == ["alice"]


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"name": "", "max_players": 2}, "bad_field"),
        ({"name": "x" * 65, "max_players": 2}, "bad_field"),
        ({"name": "ok", "max_players": 1}, "bad_field"),
        ({"name": "ok", "max_players": 6}, "bad_field"),
        ({"name": "ok", "max_players": "3"}, "bad_field"),
    ],
)
def test_bad_game_settings_are_refused(people, fields, code):
    with pytest.raises(errors.ServiceError) as error:
        game_create(user=people[0], **fields)
    assert error.value.code == code and Game.objects.count() == 0


def test_joining_refuses_a_full_a_started_game_and_a_second_seat(people):
    game = game_create(user=people[0], name="g", max_players=2)
    with pytest.raises(errors.Conflict, match="already"):
        game_join(game_id=game.pk, user=people[0])
    game_join(game_id=game.pk, user=people[1])
    with pytest.raises(errors.Conflict, match="full"):
        game_join(game_id=game.pk, user=people[2])
    game_start(game_id=game.pk, user=people[0])
    with pytest.raises(errors.Conflict, match="started"):
        game_join(game_id=game.pk, user=people[2])


def test_the_deal_seats_the_players_in_the_order_they_joined(people):
    """R2.5: the seats go to the deal in joining order, read raw under the game's lock
    (``selectors.seats_in_joining_order``), whatever the seats' ids say."""
    game = game_create(user=people[0], name="g", max_players=3)
    game_join(game_id=game.pk, user=people[1])
    game_join(game_id=game.pk, user=people[2])
    first = Seat.objects.get(game=game, user=people[0]).joined
    Seat.objects.filter(game=game, user=people[2]).update(joined=first - timedelta(seconds=1))
    orm = list(Seat.objects.filter(game=game).order_by("joined", "id"))
    raw = selectors.seats_in_joining_order(game.pk)
    assert [(s.pk, s.user_id, s.joined, s.color) for s in raw] == [
        (s.pk, s.user_id, s.joined, s.color) for s in orm
    ]
    assert [s.user_id for s in raw] == [people[2].pk, people[0].pk, people[1].pk]
    game = game_start(game_id=game.pk, user=people[0])
    # The seed shuffles the colours, and with them the turns, of the players in that order.
    expected = engine.new_game(game.seed, [people[2].pk, people[0].pk, people[1].pk])
    dealt = Seat.objects.filter(game=game).order_by("turn_order")
    assert [(s.user_id, s.color) for s in dealt] == [(p.id, p.color) for p in expected.players]


def test_the_deal_reads_its_seats_once_and_its_broadcast_shows_their_names(people):
    game = game_create(user=people[0], name="g", max_players=2)
    game_join(game_id=game.pk, user=people[1])
    with CaptureQueriesContext(connection) as dealing:
        game_start(game_id=game.pk, user=people[0])
    seat_table = re.compile(rf"\b(FROM|JOIN) \"?{Seat._meta.db_table}\b", re.IGNORECASE)
    reads = [
        query["sql"]
        for query in dealing.captured_queries
        if query["sql"].lstrip().upper().startswith("SELECT") and seat_table.search(query["sql"])
    ]
    assert len(reads) == 1, reads  # under the lock, with names and presence
    view = selectors.game_view(Game.objects.get(pk=game.pk), people[0].pk)
    assert sorted(player["name"] for player in view["players"]) == ["alice", "bob"]


def test_only_the_creator_starts_and_only_with_two_players(people):
    game = game_create(user=people[0], name="g", max_players=3)
    with pytest.raises(errors.Conflict):
        game_start(game_id=game.pk, user=people[0])
    game_join(game_id=game.pk, user=people[1])
    with pytest.raises(errors.Forbidden):
        game_start(game_id=game.pk, user=people[1])
    game = game_start(game_id=game.pk, user=people[0])
    assert game.status == Game.Status.PREPARATION
    seats = list(Seat.objects.filter(game=game).order_by("turn_order"))
    assert [s.color for s in seats] == ["red", "blue"] and all(s.wheels == 30 for s in seats)
    assert DestinationCard.objects.filter(game=game).count() == 2 * 4


def test_a_move_out_of_turn_or_by_an_outsider_changes_nothing(people):
    game = started_game(people)
    before = Game.objects.get(pk=game.pk).state
    with pytest.raises(errors.ServiceError) as error:
        play.move_apply(game_id=game.pk, user=people[4], move={"type": "SYNC"})
    assert error.value.code == "not_seated"
    state = selectors.engine_state(game)
    with pytest.raises(errors.ServiceError) as error:
        play.move_apply(game_id=game.pk, user=people[0], move={"type": "TAKE_WHEEL"})
    assert error.value.code in {"illegal_move", "bad_field"}
    assert Game.objects.get(pk=game.pk).state == before and state.seq == 0
    assert Move.objects.count() == 0


def test_a_stale_move_is_refused_and_never_applied_twice(people):
    game = started_game(people)
    state = selectors.engine_state(game)
    player = state.players[0]
    move = {"type": "SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION", "keep": player.pending}
    play.move_apply(game_id=game.pk, user=people_by_id(people)[player.id], move=move, expect_seq=0)
    with pytest.raises(errors.Stale):
        play.move_apply(
            game_id=game.pk, user=people_by_id(people)[player.id], move=move, expect_seq=0
        )
    assert Move.objects.filter(game=game).count() == 1


def people_by_id(people):
    return {person.pk: person for person in people}


@pytest.mark.parametrize("count", [2, 5])
def test_a_whole_random_game_through_the_services_matches_the_engine(people, count):
    game = started_game(people, count)
    users = people_by_id(people)
    rng = random.Random(count)
    while True:
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        state = selectors.engine_state(game)
        movers = [p.id for p in state.players if engine.turn_moves(state, p.id)]
        mover = rng.choice(movers)
        move = rng.choice(engine.turn_moves(state, mover))
        play.move_apply(game_id=game.pk, user=users[mover], move={**move, "ref": "x"})
    log = selectors.game_log(game)
    replayed = engine.replay(
        log["seed"], log["players"], [(m["player"], m["move"]) for m in log["moves"]]
    )
    assert engine.to_dict(replayed) == game.state
    assert log["results"] == replayed.results
    seats = {seat.user_id: seat for seat in Seat.objects.filter(game=game)}
    for row in replayed.results:
        assert (seats[row["player"]].total, seats[row["player"]].place) == (
            row["total"],
            row["place"],
        )
    owners = dict(BuiltRoad.objects.filter(game=game).values_list("road", "seat__user_id"))
    assert owners == {r["road"]: r["owner"] for r in engine.view(replayed)["roads"]}
    held = {
        (card, user_id)
        for card, user_id in DestinationCard.objects.filter(game=game).values_list(
            "card", "seat__user_id"
        )
    }
    assert held == {(card, p.id) for p in replayed.players for card in p.destinations}
    assert not DestinationCard.objects.filter(game=game, complete=None).exists()
    assert Event.objects.filter(game=game, kind="game_over").count() == 1
    assert Move.objects.filter(game=game).count() == replayed.seq


@pytest.mark.parametrize(
    ("text", "game_id", "code"),
    [
        ("", None, "bad_field"),
        ("   ", None, "bad_field"),
        (42, None, "bad_field"),
        ("x" * (CHAT_MAX_LENGTH + 1), None, "too_large"),
        ("Hallo", 987654, "not_found"),
    ],
)
def test_checking_a_chat_message_refuses_bad_text_and_unknown_games(people, text, game_id, code):
    with pytest.raises(errors.ServiceError) as error:
        check_chat_post(user=people[0], text=text, game_id=game_id)
    assert error.value.code == code
    assert not ChatMessage.objects.exists()


def test_checking_a_chat_message_strips_it_and_finds_its_game(people):
    game = game_create(user=people[0], name="Rheinufer", max_players=2)
    assert check_chat_post(user=people[0], text="  Hallo  ", game_id=game.pk) == (
        "Hallo",
        game,
    )
    assert check_chat_post(user=people[0], text="Hoi") == ("Hoi", None)
    assert not ChatMessage.objects.exists()  # a check writes nothing


def test_posting_a_chat_message_stores_it_for_its_game(people):
    game = game_create(user=people[0], name="Rheinufer", max_players=2)
    message = chat_post(user=people[1], text=" Hallo ", game_id=game.pk)
    stored = ChatMessage.objects.get()
    assert (stored.pk, stored.game_id, stored.user_id, stored.text) == (
        message.pk,
        game.pk,
        people[1].pk,
        "Hallo",
    )


@pytest.mark.skipif(
    connection.vendor == "sqlite",
    reason="SQLite's in-memory test database refuses a second writer instead of waiting",
)
def test_chat_lines_posted_at_the_same_moment_count_against_the_rate(people, monkeypatch):
    """Lines counted before one was written had all passed; now each counts under the lock of
    its user's row, in its own transaction. The check before the count is made slow, so that
    all twelve would count before the first one is written."""
    check = chat.check_chat_post

    def slow_check(**fields):
        found = check(**fields)
        time.sleep(0.02)
        return found

    monkeypatch.setattr(chat, "check_chat_post", slow_check)

    def post():
        try:
            chat_post(user=people[0], text="Hallo", rate=(3, timedelta(seconds=10)))
            return "posted"
        except errors.RateLimited:
            return "rate_limited"
        finally:
            connection.close()  # the thread's own

    answers = at_once(12, post)
    assert sorted(answers) == ["posted"] * 3 + ["rate_limited"] * 9
    assert ChatMessage.objects.filter(user=people[0]).count() == 3
    # Another person's lines are theirs: the rate is per user.
    chat_post(user=people[1], text="Hoi", rate=(3, timedelta(seconds=10)))


def test_a_service_called_inside_another_transaction_fails_at_once(people):
    game = game_create(user=people[0], name="Rheinufer", max_players=2)
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        game_join(game_id=game.pk, user=people[1])
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        chat_post(user=people[1], text="Hallo", game_id=game.pk)
    assert list(game.seats.values_list("user__username", flat=True)) == ["alice"]
    assert not ChatMessage.objects.exists()
