"""Road to 300 on the site: a solo game created started, its results with the strong bot's score
(T4.3), the daily challenge (T5.2), hints (T5.1), rankings, and bad input over the socket; a
whole game over the socket on every path a move can take, its rows checked against a replay
after every move (tests/paths.py, tests/projection.py)."""

from __future__ import annotations

import random
import threading

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from games.kinds import road300 as glue
from games.models import Game, Move
from games.moves import play
from games.road300 import bots, engine
from games.services.lifecycle import game_create
from rankings.models import Rating
from tests.projection import Replayed
from tests.ws_helpers import Socket, close_all, isolated_sockets, make_people  # noqa: F401

KIND = {"kind": "road300", "name": "Solo"}


def api_of(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def play_out(game: Game, user, pick=0) -> Game:
    """Play ``game`` to its end through the services, always the ``pick``-th legal turn."""
    while True:
        game.refresh_from_db()
        state = engine.from_dict(game.state)
        if engine.is_over(state):
            return game
        move = engine.legal_moves(state, user.pk)[pick]
        play.move_apply(game_id=game.pk, user=user, move=move, expect_seq=state.seq)


@pytest.mark.django_db
def test_creating_a_road300_game_seats_the_caller_and_starts_it(people):
    response = api_of(people[0]).post("/api/games/", KIND)
    assert response.status_code == 201, response.json()
    game = Game.objects.get(pk=response.json()["id"])
    assert (game.kind, game.status, game.max_players) == ("road300", "RUNNING", 1)
    assert list(game.seats.values_list("user_id", "is_bot")) == [(people[0].pk, False)]
    view = api_of(people[0]).get(f"/api/games/{game.pk}/").json()
    assert view["kind"] == "road300" and view["legal"] and len(view["paths"]) == len(view["legal"])
    assert "rng" in game.state and "rng" not in view  # the stored generator never leaves


def drain_bot_score_worker() -> None:
    """Until the worker thread has done everything submitted before (it runs one at a time)."""
    glue._bot_score_worker.submit(lambda: None).result(timeout=30)


@pytest.mark.django_db
def test_T4_3_the_strong_bots_score_is_worked_out_when_the_game_is_dealt_not_in_its_last_move(
    people, monkeypatch, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        game = game_create(user=people[0], name="Solo", kind="road300")
    drain_bot_score_worker()
    expected = bots.strong_bot_score(game.seed)
    version = game.state["grid_version"]
    assert cache.get(glue.bot_score_key(game.seed, version)) == expected
    glue.bot_score.cache_clear()  # the final move finds it in the shared cache

    def too_late(seed, options=None):
        raise AssertionError("the final move played the strong bot's game")

    monkeypatch.setattr(glue, "strong_bot_score", too_late)
    game = play_out(game, people[0])
    assert game.state["results"][0]["bot_score"] == expected


@pytest.mark.django_db
def test_a_backlog_of_strong_bot_scores_is_left_to_the_final_moves(people, monkeypatch):
    monkeypatch.setattr(glue, "_bot_score_pending", threading.BoundedSemaphore(1))
    game = game_create(user=people[0], name="Solo", kind="road300")
    state = engine.from_dict(game.state)
    first = glue.warm_up(game, state)
    assert first is not None
    assert glue.warm_up(game, state) is None  # one is on its way: not queued
    first.result(timeout=30)
    drain_bot_score_worker()
    assert glue.warm_up(game, state) is not None  # done: the worker takes the next one


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"daily": "yes"}, "options.daily"),
        ({"hard": True}, "options.hard"),
        ({"daily": True, "day": "2020-01-01"}, "options.day"),
        ({"day": "2020-01-01"}, "options.day"),
    ],
)
def test_bad_road300_options_are_a_bad_field_naming_the_option(people, options, field):
    response = api_of(people[0]).post("/api/games/", {**KIND, "options": options}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_field"
    assert response.json()["message"].startswith(f"{field}:")
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_T4_3_the_results_show_the_strong_bots_score_on_the_same_seed(people):
    game = game_create(user=people[0], name="Solo", kind="road300")
    game = play_out(game, people[0])
    row = game.state["results"][0]
    assert row["bot_score"] == bots.strong_bot_score(game.seed)
    seat = game.seats.get()
    assert (seat.total, seat.place) == (row["total"], 1)
    assert game.status == "FINISHED" and game.finished is not None
    log = api_of(people[1]).get(f"/api/games/{game.pk}/log/").json()
    replayed = engine.replay(
        log["seed"],
        log["players"],
        log["options"],
        [(m["player"], m["move"]) for m in log["moves"]],
    )
    assert engine.results(replayed)[0]["total"] == row["total"]


@pytest.mark.django_db
def test_T5_2_the_daily_game_has_the_same_secret_seed_for_everyone_on_a_day(people):
    daily = {**KIND, "options": {"daily": True}}
    games = [api_of(person).post("/api/games/", daily, format="json") for person in people[:2]]
    first, second = (Game.objects.get(pk=response.json()["id"]) for response in games)
    assert first.seed == second.seed == glue.daily_seed(glue.today())
    assert first.options == {"daily": True, "day": glue.today()}
    assert glue.daily_seed("2026-11-24") != glue.daily_seed("2026-11-25")
    other = game_create(user=people[2], name="Solo", kind="road300")
    assert other.seed != first.seed
    assert "seed" not in api_of(people[0]).get(f"/api/games/{first.pk}/").json()


@pytest.mark.django_db
def test_T5_2_only_the_first_finished_daily_game_counts_on_the_days_table(people):
    page = Client()
    page.force_login(people[0])
    response = page.post("/road300/daily/")
    game = Game.objects.get(kind="road300")
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert page.post("/road300/daily/")["Location"] == f"/games/{game.pk}/"  # resumes it
    assert Game.objects.count() == 1
    play_out(game, people[0], pick=0)
    counted = game.seats.get().total
    again = Game.objects.get(pk=page.post("/road300/daily/")["Location"].split("/")[2])
    assert again.pk != game.pk and again.seed == game.seed
    play_out(again, people[0], pick=-1)
    rows = api_of(people[1]).get(f"/api/rankings/?kind=road300&day={glue.today()}").json()
    assert [(row["player"], row["score"], row["game_id"]) for row in rows] == [
        (people[0].pk, counted, game.pk)
    ]
    html = page.get("/road300/daily/").content.decode()
    assert f"/games/{game.pk}/" in html and "daily-counted" in html
    assert page.get("/road300/daily/?day=2999-01-01").status_code == 404
    assert page.get("/road300/daily/?day=someday").status_code == 404
    assert Client().get("/road300/daily/").status_code == 200


@pytest.mark.django_db
def test_T5_1_a_hint_is_the_strong_bots_turn_with_its_path(people):
    game = game_create(user=people[0], name="Solo", kind="road300")
    response = api_of(people[0]).get(f"/api/games/{game.pk}/hint/")
    assert response.status_code == 200, response.json()
    hint = response.json()
    state = engine.from_dict(game.state)
    view = engine.view(state, people[0].pk)
    assert hint["move"] == bots.make_bot("strong").choose(view)
    assert hint["path"] == view["paths"][view["legal"].index(hint["move"])]
    assert hint["seq"] == state.seq
    assert api_of(people[1]).get(f"/api/games/{game.pk}/hint/").status_code == 403
    assert APIClient().get(f"/api/games/{game.pk}/hint/").status_code in (401, 403)
    daily = game_create(user=people[1], name="Daily", kind="road300", options={"daily": True})
    refused = api_of(people[1]).get(f"/api/games/{daily.pk}/hint/")
    assert (refused.status_code, refused.json()["code"]) == (409, "no_hint")
    other = game_create(user=people[2], name="Rat", max_players=2)
    assert api_of(people[2]).get(f"/api/games/{other.pk}/hint/").json()["code"] == "no_hint"
    assert api_of(people[0]).get("/api/games/999999/hint/").status_code == 404


@pytest.mark.django_db
def test_T5_1_hints_are_rate_limited_per_user_and_per_address(people, monkeypatch):
    """A hint runs the strong bot, about a tenth of a second of the server's CPU: 40 asked at
    once had kept one server process busy for four seconds."""
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    monkeypatch.setitem(rates, "hint", "2/min")
    monkeypatch.setitem(rates, "hint_address", "2/min")
    cache.clear()
    games = [game_create(user=person, name="Solo", kind="road300") for person in people[:2]]

    def ask(person, game, address="192.0.2.1"):
        return api_of(person).get(f"/api/games/{game.pk}/hint/", REMOTE_ADDR=address)

    assert [ask(people[0], games[0]).status_code for _ in range(2)] == [200, 200]
    refused = ask(people[0], games[0], address="192.0.2.2")  # the user's own rate
    assert (refused.status_code, refused.json()["code"]) == (429, "rate_limited")
    assert int(refused["Retry-After"]) > 0
    # The address's third hint, by another person: refused; from elsewhere, given.
    assert ask(people[1], games[1]).status_code == 429
    assert ask(people[1], games[1], address="192.0.2.3").status_code == 200
    cache.clear()


@pytest.mark.django_db
def test_road300_ranks_by_best_scores_not_ratings(people):
    game = play_out(game_create(user=people[0], name="Solo", kind="road300"), people[0])
    rows = api_of(people[0]).get("/api/rankings/?kind=road300").json()
    assert [(row["player"], row["score"]) for row in rows] == [
        (people[0].pk, game.seats.get().total)
    ]
    assert not Rating.objects.filter(user=people[0]).exists()
    assert api_of(people[0]).get("/api/rankings/ratings/?kind=road300").json() == []


# ---------------------------------------------------------------------------- the socket


@database_sync_to_async
def solo_game(user, seed: int) -> int:
    game = game_create(user=user, name="Solo", kind="road300")
    Game.objects.filter(pk=game.pk).update(seed=seed)
    state = engine.new_game(seed, [user.pk], {})  # the same dice on every run
    Game.objects.filter(pk=game.pk).update(state=engine.to_dict(state))
    return game.pk


@database_sync_to_async
def stored(game_id: int) -> engine.GameState:
    return engine.from_dict(Game.objects.get(pk=game_id).state)


@database_sync_to_async
def moves_of(game_id: int) -> int:
    return Move.objects.filter(game_id=game_id).count()


def rolls_so_far(state: engine.GameState) -> set[tuple[int, ...]]:
    done = {tuple(roll) for entry in state.history for roll in entry["rolls"]}
    return done | {tuple(roll) for roll in state.rolls}


def dice_in(node) -> list[tuple[int, ...]]:
    """Every list of three dice under a ``dice`` or ``rolls`` key."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "dice" and isinstance(value, list):
                found.append(tuple(value))
            elif key == "rolls" and isinstance(value, list):
                found.extend(tuple(roll) for roll in value)
            else:
                found.extend(dice_in(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(dice_in(value))
    return found


@pytest.mark.django_db(transaction=True)
async def test_a_whole_game_over_the_socket_shows_no_die_before_it_is_rolled(move_path):
    player, watcher = await make_people("alice", "fiona")
    game_id = await solo_game(player, 4242)
    replayed = await database_sync_to_async(Replayed)(game_id)
    mine, theirs = await Socket.game(game_id, player), await Socket.game(game_id, watcher)
    rng = random.Random(1)
    seq, checked = 0, {id(mine): 0, id(theirs): 0}
    while True:
        state = await stored(game_id)
        await database_sync_to_async(replayed.check)()
        known = rolls_so_far(state)
        for socket in (mine, theirs):
            for message in socket.received[checked[id(socket)] :]:
                text = str(message)
                assert "'rng'" not in text and "'seed'" not in text, message
                assert set(dice_in(message)) <= known, message
            checked[id(socket)] = len(socket.received)
        if engine.is_over(state):
            break
        latest = next(m for m in reversed(mine.received) if m["type"] == "STATE")["state"]
        await mine.send({**rng.choice(latest["legal"]), "ref": "t", "expect_seq": seq})
        seq += 1
        for socket in (mine, theirs):
            await socket.state_at(seq)
    await database_sync_to_async(replayed.check_whole)()
    final = next(m for m in reversed(theirs.received) if m["type"] == "STATE")["state"]
    assert final["status"] == "FINISHED" and final["results"][0]["bot_score"] is not None
    await close_all(mine, theirs)


@pytest.mark.django_db(transaction=True)
async def test_bad_turns_over_the_socket_are_errors_and_change_nothing():
    (player,) = await make_people("alice")
    game_id = await solo_game(player, 7)
    socket = await Socket.game(game_id, player)
    state = socket.received[0]["state"]
    move = state["legal"][0]
    crossed = {tuple(cell) for cell in state["crossed"]}
    free = next(
        [x, y]
        for x in range(1, 7)
        for y in range(1, 7)
        if (x, y) not in crossed and [x, y] not in [m["cross"] for m in state["legal"]]
    )
    bad = [
        ({**move, "cross": free}, "illegal_move"),
        ({**move, "expect_seq": 5}, "stale"),
        ({"type": "BID", "tricks": 1}, "unknown_type"),
        ({"type": "DRAW_CARD", "source": "deck"}, "unknown_type"),
        ({**move, "to": [0, 9]}, "bad_field"),
    ]
    for message, code in bad:
        await socket.send({"expect_seq": 0, **message, "ref": "x"})
        error = await socket.expect("ERROR")
        assert error["code"] == code, error
        assert error["message"]
    assert await moves_of(game_id) == 0
    assert engine.to_dict(await stored(game_id))["seq"] == 0
    await socket.close()
