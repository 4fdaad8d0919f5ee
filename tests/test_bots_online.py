"""Computer players in online games: seated by ``game_create(bots=...)``, moved by the driver
(``games.bots``) after every commit, from their own seat's view only (R9)."""

import logging
import random
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.utils import timezone

from games import broadcast, errors
from games.models import Game, Move, Seat
from games.moves import play
from games.moves.base import load_state
from games.ratumrad import engine
from games.ratumrad.bots import HeuristicBot
from games.services.lifecycle import game_create, game_start
from games.services.seats import turn_expire
from tests.test_ws_whole_games import check_no_leak, secrets_of
from tests.ws_helpers import (
    Socket,
    close_all,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    make_people,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def bots_at_once(settings):
    settings.BOT_DELAY = 0


def announced_secrets(monkeypatch) -> dict:
    """seq -> what every seat held, recorded as each change is broadcast."""
    secrets = {}
    announce = broadcast.game_changed

    def recording_announce(game, state, events, *more):
        if state is not None:
            secrets[game.seq] = secrets_of(state)
        announce(game, state, events, *more)

    monkeypatch.setattr(broadcast, "game_changed", recording_announce)
    return secrets


@pytest.fixture
def watched(monkeypatch):
    """Records what the bots were shown and every service error; checks each view (R9)."""
    record = {"views": [], "errors": []}
    choose, apply = HeuristicBot.choose, play.move_apply

    def recording_choose(self, view, board):
        state = load_state(Game.objects.get(pk=view["game_id"]))
        assert view["seq"] == state.seq
        record["views"].append(view)
        check_no_leak({"type": "STATE", "state": view}, view["you"]["player_id"], secrets_of(state))
        return choose(self, view, board)

    def recording_apply(**kwargs):
        try:
            return apply(**kwargs)
        except errors.ServiceError as error:
            record["errors"].append((kwargs["user"].pk, error.code))
            raise

    monkeypatch.setattr(HeuristicBot, "choose", recording_choose)
    monkeypatch.setattr(play, "move_apply", recording_apply)
    return record


def bot_ids(game_id: int) -> set[int]:
    return set(Seat.objects.filter(game_id=game_id, is_bot=True).values_list("user_id", flat=True))


def test_a_bot_answers_every_move_at_once_and_the_game_runs_to_its_end(watched, caplog):
    alice = get_user_model().objects.create_user("alice")
    game = game_create(user=alice, name="Rhein", max_players=2, bots=1)
    (bot,) = bot_ids(game.pk)
    assert get_user_model().objects.get(pk=bot).username == "Bot Anna"
    game_start(game_id=game.pk, user=alice)
    rng = random.Random(7)
    for _ in range(2000):
        game = Game.objects.get(pk=game.pk)
        if game.status == Game.Status.FINISHED:
            break
        state = load_state(game)
        moves = engine.turn_moves(state, alice.pk)
        assert moves, "the bot did not answer"  # whenever alice may not move, the bot may
        play.move_apply(game_id=game.pk, user=alice, move=rng.choice(moves), expect_seq=game.seq)
    assert game.status == Game.Status.FINISHED
    movers = list(Move.objects.filter(game=game).values_list("user_id", flat=True))
    assert movers.count(bot) > 10 and movers.count(alice.pk) > 10
    assert watched["errors"] == []  # no refused move, not even a stale one
    views = watched["views"]
    assert len(views) == movers.count(bot)
    assert all(view["you"]["player_id"] == bot for view in views)
    assert all("hand" not in row for view in views for row in view["players"])
    assert not [r for r in caplog.records if r.name == "games.bots" and r.levelno >= logging.ERROR]


def test_bots_are_users_of_a_fixed_pool_without_passwords():
    users = get_user_model().objects
    alice, bob = users.create_user("alice"), users.create_user("bob")
    first = game_create(user=alice, name="A", max_players=5, bots=4)
    second = game_create(user=bob, name="B", max_players=3, bots=2)
    names = get_user_model().objects.filter(pk__in=bot_ids(first.pk)).values_list("username")
    assert sorted(name for (name,) in names) == ["Bot Anna", "Bot Ben", "Bot Clara", "Bot Dario"]
    assert bot_ids(second.pk) <= bot_ids(first.pk)
    assert not any(user.has_usable_password() for user in users.filter(pk__in=bot_ids(first.pk)))


def test_a_person_called_like_a_bot_is_never_seated_as_one():
    alice = get_user_model().objects.create_user("alice")
    get_user_model().objects.create_user("Bot Anna", password="a real password 123")
    game = game_create(user=alice, name="Rhein", max_players=2, bots=1)
    (bot,) = bot_ids(game.pk)
    assert get_user_model().objects.get(pk=bot).username == "Bot Ben"


@pytest.mark.parametrize("bots", [-1, 2, 5, "1", 1.0, True, None])
def test_bad_bot_counts_are_a_bad_field(bots):
    alice = get_user_model().objects.create_user("alice")
    with pytest.raises(errors.ServiceError) as refused:
        game_create(user=alice, name="Rhein", max_players=2, bots=bots)
    assert refused.value.code == "bad_field"
    assert Game.objects.count() == 0


# ---------------------------------------------------------------------------- websocket


@database_sync_to_async
def new_bot_game(human, seed: int) -> int:
    game = game_create(user=human, name="Gegen Bots", max_players=5, bots=4)
    Game.objects.filter(pk=game.pk).update(seed=seed)
    game_start(game_id=game.pk, user=human)
    return game.pk


@database_sync_to_async
def game_seq(game_id: int) -> int:
    return Game.objects.get(pk=game_id).seq


async def test_one_person_and_four_bots_play_a_whole_game_over_the_socket(
    watched, monkeypatch, caplog
):
    secrets = announced_secrets(monkeypatch)
    (human,) = await make_people("alice")
    game_id = await new_bot_game(human, seed=11)
    socket = await Socket.game(game_id, human)
    first = socket.received[0]["state"]  # the four bots prepared as soon as it was dealt
    prepared = {row["id"]: row["prepared"] for row in first["players"]}
    assert prepared.pop(human.pk) is False and all(prepared.values()) and len(prepared) == 4
    rng = random.Random(11)
    checked = 0
    for turn in range(1000):
        latest = next(m for m in reversed(socket.received) if m["type"] == "STATE")["state"]
        for message in socket.received[checked:]:
            assert message["type"] != "ERROR", message
            check_no_leak(message, human.pk, secrets[message.get("seq", latest["seq"])])
        checked = len(socket.received)
        if latest["status"] == "FINISHED":
            break
        moves = [move for move in latest["legal"] if move["type"] != "VOTE_END"]
        assert moves, latest  # the bots have moved up to the person's turn
        ref = f"m{turn}"
        await socket.send({**rng.choice(moves), "ref": ref, "expect_seq": latest["seq"]})
        messages = await socket.until("ACK", ref=ref)
        assert all(m["type"] != "ERROR" for m in messages), messages
        # The bots answered before the ACK: read on to the STATE of the latest move.
        target = await game_seq(game_id)
        if max(m["seq"] for m in socket.received if m["type"] == "STATE") < target:
            await socket.until("STATE", seq=target)
    assert latest["status"] == "FINISHED" and latest["results"]
    assert {row["name"] for row in latest["results"]} == {
        "alice",
        "Bot Anna",
        "Bot Ben",
        "Bot Clara",
        "Bot Dario",
    }
    bots = await database_sync_to_async(bot_ids)(game_id)
    assert {view["you"]["player_id"] for view in watched["views"]} == bots
    assert watched["errors"] == []
    assert not [r for r in caplog.records if r.name == "games.bots" and r.levelno >= logging.ERROR]
    assert await socket.is_quiet(0.05)
    await close_all(socket)


async def test_a_bot_turn_lost_to_a_crash_is_taken_up_by_the_next_sync(monkeypatch):
    from games import bots as driver

    (human,) = await make_people("alice")
    step = driver.step
    monkeypatch.setattr(driver, "step", lambda game_id: False)  # the server "dies" each time
    game_id = await database_sync_to_async(
        lambda: game_create(user=human, name="Rhein", max_players=2, bots=1).pk
    )()
    await database_sync_to_async(game_start)(game_id=game_id, user=human)
    seq = await game_seq(game_id)
    socket = await Socket.game(game_id, human)
    monkeypatch.setattr(driver, "step", step)  # a live server again
    state = await socket.sync()
    assert state["seq"] == seq + 1  # the bot prepared before the STATE was read
    assert all(row["prepared"] for row in state["players"] if row["id"] != human.pk)
    await close_all(socket)


async def test_five_computer_played_seats_finish_a_game_over_the_socket(watched, monkeypatch):
    """The person's time runs out at once: four bots and the person's stand-in play to the
    end, and a spectator on the socket is shown no seat's secrets on the way. (Had the person
    left, nobody would be left to play for and the game would be called off.)

    With BOT_DELAY 0 the whole game is played inside the call that expires the turn, faster
    than the channel layer keeps messages for a socket (100): the spectator may miss some, as
    a slow client would, and catches up by SYNC."""
    secrets = announced_secrets(monkeypatch)
    human, watcher = await make_people("alice", "zoe")
    game_id = await new_bot_game(human, seed=5)
    spectator = await Socket.game(game_id, watcher)
    player = await Socket.game(game_id, human)
    late = timezone.now() + timedelta(hours=1)
    assert await database_sync_to_async(turn_expire)(game_id=game_id, now=late)
    final = await game_seq(game_id)
    assert (await database_sync_to_async(Game.objects.get)(pk=game_id)).status == "FINISHED"
    await spectator.drain()
    state = await spectator.sync()
    assert state["seq"] == final and state["status"] == "FINISHED"
    assert len(state["results"]) == 5
    assert sum(row["autopilot"] for row in state["players"]) == 1
    states = [m for m in spectator.received if m["type"] == "STATE"]
    for message in spectator.received:
        assert message["type"] != "ERROR", message
        check_no_leak(message, None, secrets[message.get("seq", final)])
    seqs = [m["seq"] for m in states]
    assert seqs == sorted(seqs)  # in order
    assert watched["errors"] == []
    await close_all(spectator, player)
