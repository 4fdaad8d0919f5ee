"""T5.2: the daily challenge's seed tells every die of the day. While the day runs nothing
public shows it, nor any roll still to come; once the day is over the log publishes it."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, time, timedelta

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from games.consumers import GameConsumer
from games.kinds import road300 as glue
from games.models import ChatMessage, Game
from games.moves import play
from games.road300 import engine
from games.services.chat import chat_post
from games.services.lifecycle import game_create
from tests.test_road300_site import dice_in, rolls_so_far, stored
from tests.ws_helpers import Socket, close_all, isolated_sockets, make_people  # noqa: F401


@pytest.fixture(autouse=True)
def one_day(monkeypatch):
    """Each test runs within one day (UTC): one that ran over midnight would see its game's
    day end before it looked (the seed published, as it must be then)."""
    day = glue.today()
    monkeypatch.setattr(glue, "today", lambda: day)


def api_of(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def next_day(day: str) -> str:
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


@database_sync_to_async
def daily_game(user) -> int:
    return game_create(user=user, name="Daily", kind="road300", options={"daily": True}).pk


def assert_secret(message, seed: int, known: set) -> None:
    text = json.dumps(message)
    assert str(seed) not in text, message
    assert set(dice_in(message)) <= known, message


@database_sync_to_async
def rest_views(game_id: int, player, other) -> tuple[dict, object]:
    mine = api_of(player).get(f"/api/games/{game_id}/")
    assert mine.status_code == 200
    return mine.json(), api_of(other).get(f"/api/games/{game_id}/")


@pytest.mark.django_db(transaction=True)
async def test_T5_2_a_socket_refused_a_daily_game_sends_nothing_of_what_happens_in_it(
    monkeypatch,
):
    # A game socket joins its game's group before it reads the game: what the group hears
    # while an onlooker's socket is being refused (here a chat line of the player) is not
    # sent to it, neither before its close nor after; nor is a SYNC its client sent.
    alice, bob = await make_people("alice", "bob")
    game_id = await daily_game(alice)
    enter = GameConsumer._enter

    def enter_meanwhile(consumer):
        found = enter(consumer)
        chat_post(user=alice, text="secret plans", game_id=game_id)
        return found

    monkeypatch.setattr(GameConsumer, "_enter", enter_meanwhile)
    watcher = await Socket.open(f"/ws/games/{game_id}/", bob)
    await watcher.send({"type": "SYNC"})  # sent before the refusal came: not answered either
    assert (await watcher.expect("ERROR"))["code"] == "sealed"
    await watcher.expect_close(4003)
    assert await watcher.comm.receive_nothing(0.3)
    assert "secret plans" not in json.dumps(watcher.received)
    posted = ChatMessage.objects.filter(game_id=game_id).values_list("text", flat=True)
    assert await database_sync_to_async(list)(posted) == ["secret plans"]  # it did happen


@pytest.mark.django_db(transaction=True)
async def test_T5_2_no_message_of_a_whole_daily_game_shows_the_seed_or_a_roll_to_come():
    alice, bob = await make_people("alice", "bob")
    game_id = await daily_game(alice)
    seed = glue.daily_seed(glue.today())
    mine = await Socket.game(game_id, alice)
    watcher = await Socket.open(f"/ws/games/{game_id}/", bob)  # bob may not look on
    refused = await watcher.expect("ERROR")
    assert refused["code"] == "sealed" and refused["message"]
    await watcher.expect_close(4003)
    rng, seq, checked = random.Random(3), 0, 0
    while True:
        state = await stored(game_id)
        known = rolls_so_far(state)
        for message in mine.received[checked:]:
            assert_secret(message, seed, known)
        checked = len(mine.received)
        view, theirs = await rest_views(game_id, alice, bob)
        assert_secret(view, seed, known)
        assert theirs.status_code == 403 and theirs.json()["code"] == "sealed"
        assert str(seed) not in theirs.content.decode()
        if engine.is_over(state):
            break
        latest = next(m for m in reversed(mine.received) if m["type"] == "STATE")["state"]
        await mine.send({**rng.choice(latest["legal"]), "ref": "t", "expect_seq": seq})
        seq += 1
        await mine.state_at(seq)
    await mine.send({"type": "REQUEST_HISTORY", "ref": "h"})
    history = await mine.expect("HISTORY")
    assert history["events"] and rolls_so_far(state)
    assert_secret(history, seed, rolls_so_far(state))
    assert seq > 5
    await close_all(mine)


@pytest.mark.django_db
def test_T5_2_a_finished_daily_game_keeps_its_seed_back_until_the_day_is_over(
    monkeypatch, django_user_model
):
    alice = django_user_model.objects.create_user("alice")
    bob = django_user_model.objects.create_user("bob")
    game = game_create(user=alice, name="Daily", kind="road300", options={"daily": True})
    moves = []
    while not engine.is_over(state := engine.from_dict(Game.objects.get(pk=game.pk).state)):
        move = engine.legal_moves(state, alice.pk)[0]
        play.move_apply(game_id=game.pk, user=alice, move=move, expect_seq=state.seq)
        moves.append(move)
    day = glue.today()
    seed = glue.daily_seed(day)

    own = api_of(alice).get(f"/api/games/{game.pk}/log/")
    assert own.status_code == 200 and own.json()["seed"] is None
    assert str(seed) not in own.content.decode()
    assert len(own.json()["moves"]) == len(moves)
    for other in (api_of(bob), APIClient()):
        refused = other.get(f"/api/games/{game.pk}/log/")
        assert refused.status_code == 403 and refused.json()["code"] == "sealed"
    page = Client()
    page.force_login(bob)
    assert page.get(f"/games/{game.pk}/").status_code == 403
    daily_page = page.get("/road300/daily/").content.decode()
    assert str(seed) not in daily_page
    # A second daily game of the same day by bob does not open alice's either.
    game_create(user=bob, name="Daily", kind="road300", options={"daily": True})
    assert api_of(bob).get(f"/api/games/{game.pk}/").status_code == 403

    monkeypatch.setattr(glue, "today", lambda: next_day(day))
    published = api_of(bob).get(f"/api/games/{game.pk}/log/").json()
    assert published["seed"] == seed
    logged = [(entry["player"], entry["move"]) for entry in published["moves"]]
    replayed = engine.replay(seed, published["players"], game.options, logged)
    assert engine.score(replayed) == Game.objects.get(pk=game.pk).seats.get().total
    assert page.get(f"/games/{game.pk}/").status_code == 200
    assert api_of(bob).get(f"/api/games/{game.pk}/").status_code == 200


@pytest.mark.django_db
def test_T5_2_the_admin_hides_a_daily_games_seed_while_the_day_runs(monkeypatch):
    admin = get_user_model().objects.create_superuser("charlie", password="pw-for-the-admin")
    game = game_create(user=admin, name="Daily", kind="road300", options={"daily": True})
    day = glue.today()
    seed = glue.daily_seed(day)
    page = Client()
    page.force_login(admin)
    url = f"/admin/games/game/{game.pk}/change/"
    html = page.get(url).content.decode()
    assert page.get(url).status_code == 200 and str(seed) not in html
    monkeypatch.setattr(glue, "today", lambda: next_day(day))
    assert str(seed) in page.get(url).content.decode()


@pytest.mark.django_db
def test_T4_3_the_strong_bots_score_is_cached_under_a_key_that_names_no_seed(monkeypatch):
    keys = []
    monkeypatch.setattr(glue, "strong_bot_score", lambda seed: 123)
    monkeypatch.setattr(glue, "_bot_process", lambda: ThreadPoolExecutor(max_workers=1))
    monkeypatch.setattr(cache, "set", lambda key, *args, **kwargs: keys.append(key))
    seed = glue.daily_seed("2026-01-02")
    glue.bot_score.cache_clear()
    assert glue.bot_score.__wrapped__(seed, 1) in (123,)
    assert keys and all(str(seed) not in key for key in keys)


@pytest.mark.django_db
def test_T5_2_a_daily_game_finished_after_its_day_does_not_count_on_the_days_table(
    django_user_model,
):
    """Once the day is over its seed is published: a game of that day still running could be
    finished with every die known, so only games finished within their day count."""
    alice = django_user_model.objects.create_user("alice")
    bob = django_user_model.objects.create_user("bob")
    day = glue.today()
    for person in (alice, bob):
        game = game_create(user=person, name="Daily", kind="road300", options={"daily": True})
        while not engine.is_over(state := engine.from_dict(Game.objects.get(pk=game.pk).state)):
            move = engine.legal_moves(state, person.pk)[0]
            play.move_apply(game_id=game.pk, user=person, move=move, expect_seq=state.seq)
    late = datetime.combine(date.fromisoformat(next_day(day)), time(0, 0, 1), tzinfo=UTC)
    Game.objects.filter(seats__user=bob).update(finished=late)
    rows = APIClient().get(f"/api/rankings/?kind=road300&day={day}").json()
    assert [row["name"] for row in rows] == ["alice"]


@pytest.mark.django_db
def test_T5_2_the_days_table_links_other_players_games_only_once_the_day_is_over(
    django_user_model, monkeypatch
):
    alice = django_user_model.objects.create_user("alice")
    bob = django_user_model.objects.create_user("bob")
    games = {}
    for person in (alice, bob):
        game = game_create(user=person, name="Daily", kind="road300", options={"daily": True})
        while not engine.is_over(state := engine.from_dict(Game.objects.get(pk=game.pk).state)):
            move = engine.legal_moves(state, person.pk)[0]
            play.move_apply(game_id=game.pk, user=person, move=move, expect_seq=state.seq)
        games[person.username] = game.pk
    page = Client()
    page.force_login(bob)
    day = glue.today()
    html = page.get(f"/road300/daily/?day={day}").content.decode()
    assert f'href="/games/{games["alice"]}/"' not in html and f"#{games['alice']}" in html
    assert f'href="/games/{games["bob"]}/"' in html
    monkeypatch.setattr(glue, "today", lambda: next_day(day))
    html = page.get(f"/road300/daily/?day={day}").content.decode()
    assert f'href="/games/{games["alice"]}/"' in html
