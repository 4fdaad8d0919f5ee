"""The turn timer and leaving: no game stalls because someone walked away.

A person whose time runs out is played by the heuristic bot until they take the seat back;
a person who leaves for good is played to the end; the bots join a vote to end (R8.2).
"""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.db import transaction
from django.utils import timezone

from games import bots, errors, selectors, sweeper
from games.models import Event, Game, Seat
from games.moves import play
from games.moves.base import load_state
from games.rage import engine as rage
from games.ratumrad import engine
from games.services.lifecycle import game_create, game_join, game_start
from games.services.seats import check_turn_expire, game_leave, seat_take_back, turn_expire
from rankings.models import RatingChange
from tests.ws_helpers import (
    Socket,
    close_all,
    isolated_sockets,  # noqa: F401 (autouse fixture)
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def bots_at_once(settings):
    settings.BOT_DELAY = 0
    settings.TURN_SECONDS_PUBLIC = 60


def later(seconds: float = 3600):
    return timezone.now() + timedelta(seconds=seconds)


def game_of(game_id: int) -> Game:
    return Game.objects.get(pk=game_id)


def seat_of(game_id: int, user) -> Seat:
    return Seat.objects.get(game_id=game_id, user=user)


def last_event(game_id: int) -> int:
    return Event.objects.filter(game_id=game_id).order_by("-id").values_list("id", flat=True)[0]


def kinds_since(game_id: int, event_id: int = 0) -> list[str]:
    """The kinds of the feed events after the one with ``event_id``, in order."""
    events = Event.objects.filter(game_id=game_id, id__gt=event_id).order_by("id")
    return list(events.values_list("kind", flat=True))


def dealt(people: list, count: int, **options) -> int:
    game = game_create(user=people[0], name="Spalentor", max_players=count, **options)
    for person in people[1:count]:
        game_join(game_id=game.pk, user=person)
    game_start(game_id=game.pk, user=people[0])
    return game.pk


def prepare(game_id: int, *persons) -> None:
    for person in persons:
        state = load_state(game_of(game_id))
        keep = engine.legal_moves(state, person.pk)[0]
        play.move_apply(game_id=game_id, user=person, move=keep)


def whose_turn(game_id: int) -> int:
    state = load_state(game_of(game_id))
    return state.players[state.current].id


# ---------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    ("options", "seconds"),
    [
        ({}, 60),
        ({"private": True}, None),
        ({"turn_seconds": 30}, 30),
        ({"turn_seconds": 0}, None),
        ({"turn_seconds": None}, None),
        ({"private": True, "turn_seconds": 120}, 120),
    ],
)
def test_public_games_have_a_turn_timer_by_default_private_ones_none(people, options, seconds):
    game = game_create(user=people[0], name="Rhein", max_players=2, **options)
    assert game.turn_seconds == seconds
    assert game.private == options.get("private", False)


@pytest.mark.parametrize("seconds", [5, 3601, -1])
def test_a_turn_time_out_of_range_is_refused(people, seconds):
    with pytest.raises(errors.ServiceError) as refused:
        game_create(user=people[0], name="Rhein", max_players=2, turn_seconds=seconds)
    assert refused.value.code == "bad_field"
    assert not Game.objects.exists()


def test_the_deadline_covers_the_preparation_then_each_turn_but_not_the_second_card(people):
    alice, bob = people[:2]
    before = timezone.now()
    game_id = dealt(people, 2, turn_seconds=30)
    first = game_of(game_id).turn_deadline
    assert before + timedelta(seconds=30) <= first <= timezone.now() + timedelta(seconds=30)
    prepare(game_id, alice)
    assert game_of(game_id).turn_deadline == first  # bob has not chosen yet
    prepare(game_id, bob)
    turn = game_of(game_id).turn_deadline
    assert turn > first
    mover = alice if whose_turn(game_id) == alice.pk else bob
    play.move_apply(game_id=game_id, user=mover, move={"type": "TAKE_WHEEL", "source": "deck"})
    assert load_state(game_of(game_id)).turn == "second_card"
    assert game_of(game_id).turn_deadline == turn  # the same turn goes on
    play.move_apply(game_id=game_id, user=mover, move={"type": "TAKE_WHEEL", "source": "deck"})
    assert whose_turn(game_id) != mover.pk
    assert game_of(game_id).turn_deadline > turn
    view = selectors.game_view(game_of(game_id), alice.pk)
    assert view["turn_seconds"] == 30
    assert view["turn_deadline"] == game_of(game_id).turn_deadline.isoformat()


def test_no_deadline_while_a_computer_player_is_to_move_or_without_a_timer(people):
    alice = people[0]
    game = game_create(user=alice, name="Rhein", max_players=2, bots=1, turn_seconds=30)
    game_start(game_id=game.pk, user=alice)
    prepare(game.pk, alice)  # the bot prepared at once; the game runs
    state = load_state(game_of(game.pk))
    assert state.status == engine.RUNNING and whose_turn(game.pk) == alice.pk
    assert game_of(game.pk).turn_deadline is not None
    untimed = game_create(user=alice, name="Ohne Uhr", max_players=2, private=True)
    game_join(game_id=untimed.pk, user=people[1])
    game_start(game_id=untimed.pk, user=alice)
    assert game_of(untimed.pk).turn_deadline is None


# ---------------------------------------------------------------------------- timing out


def test_R8_timeout_puts_the_late_person_on_autopilot_and_the_bot_plays_their_turns(people):
    alice, bob = people[:2]
    game_id = dealt(people, 2, turn_seconds=30)
    prepare(game_id, alice, bob)
    late = alice if whose_turn(game_id) == alice.pk else bob
    other = bob if late == alice else alice
    seq, mark = game_of(game_id).seq, last_event(game_id)
    assert sweeper.sweep(now=timezone.now()) == 0  # not yet
    assert sweeper.sweep(now=later()) == 1
    assert seat_of(game_id, late).autopilot and not seat_of(game_id, late).left
    assert kinds_since(game_id, mark)[0] == "autopilot_on"
    assert whose_turn(game_id) == other.pk  # the bot played the late person's turn
    assert game_of(game_id).seq > seq
    assert game_of(game_id).turn_deadline is not None  # the other person's turn is timed
    view = selectors.game_view(game_of(game_id), other.pk)
    row = next(row for row in view["players"] if row["id"] == late.pk)
    assert row["autopilot"] is True and row["left"] is False
    # The other person plays one turn (two cards from the deck); the late person's next turn
    # is played for them at once, and it is the other person's turn again.
    before = game_of(game_id).seq
    for _ in range(2):
        move = {"type": "TAKE_WHEEL", "source": "deck"}
        play.move_apply(game_id=game_id, user=other, move=move)
    assert whose_turn(game_id) == other.pk
    assert game_of(game_id).seq > before + 2  # the stand-in moved in between


def test_in_the_preparation_everyone_late_goes_on_autopilot_at_once(people):
    alice, bob, charlie = people[:3]
    game_id = dealt(people, 3, turn_seconds=30)
    prepare(game_id, alice)
    sweeper.sweep(now=later())
    assert [seat_of(game_id, p).autopilot for p in (alice, bob, charlie)] == [False, True, True]
    state = load_state(game_of(game_id))
    assert state.status == engine.RUNNING and all(p.prepared for p in state.players)


def test_a_game_found_overdue_is_not_expired_once_the_player_moved_in_time(people):
    alice, bob = people[:2]
    game_id = dealt(people, 2, turn_seconds=30)
    Game.objects.filter(pk=game_id).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    due = list(Game.objects.filter(turn_deadline__lte=timezone.now()).values_list("pk", flat=True))
    assert due == [game_id]  # what a sweep saw ...
    prepare(game_id, alice, bob)  # ... before both chose: a new turn, a new deadline
    assert turn_expire(game_id=game_id, now=timezone.now()) is False
    assert not Seat.objects.filter(game_id=game_id, autopilot=True).exists()


def test_checking_a_turn_that_has_not_run_out_refuses_it_as_stale(people):
    game_id = dealt(people, 2, turn_seconds=30)
    with pytest.raises(errors.TurnNotOver) as error, transaction.atomic():
        check_turn_expire(game_id=game_id, now=timezone.now())
    assert error.value.code == "stale"
    with transaction.atomic():
        assert check_turn_expire(game_id=game_id, now=later()).pk == game_id


async def test_a_person_who_timed_out_is_replaced_and_takes_the_seat_back(people):
    alice, bob = people[:2]
    game_id = await database_sync_to_async(dealt)(people, 2, turn_seconds=30)
    a = await Socket.game(game_id, alice)
    await database_sync_to_async(prepare)(game_id, bob)
    await a.until("STATE")
    await database_sync_to_async(sweeper.sweep)(now=later())  # alice never chose
    events = await a.until("STATE")
    feed = [m["event"] for m in events if m["type"] == "EVENT"]
    assert feed[0]["kind"] == "autopilot_on" and feed[0]["player"] == alice.pk
    assert "alice" in feed[0]["text"]
    await a.send({"type": "SYNC"})  # the computer's move for alice may come first
    state = (await a.until("STATE"))[-1]["state"]
    me = next(row for row in state["players"] if row["id"] == alice.pk)
    assert me["autopilot"] is True and state["status"] == "RUNNING"
    await a.send({"type": "TAKE_SEAT_BACK", "ref": "back"})
    ack = (await a.until("ACK"))[-1]
    assert ack["ref"] == "back"
    assert not (await database_sync_to_async(seat_of)(game_id, alice)).autopilot
    while True:  # the STATEs of the change follow the ACK
        state = (await a.until("STATE"))[-1]["state"]
        if state["seq"] == ack["seq"] and not any(r["autopilot"] for r in state["players"]):
            break
    kinds = await database_sync_to_async(kinds_since)(game_id, 0)
    assert kinds[-1] == "autopilot_off"
    await a.close()


async def test_opening_a_socket_again_takes_the_seat_back(people):
    alice, bob = people[:2]
    game_id = await database_sync_to_async(dealt)(people, 2, turn_seconds=30)
    await database_sync_to_async(prepare)(game_id, bob)
    await database_sync_to_async(sweeper.sweep)(now=later())
    assert (await database_sync_to_async(seat_of)(game_id, alice)).autopilot
    b = await Socket.game(game_id, bob)
    a = await Socket.game(game_id, alice)
    me = next(r for r in a.received[0]["state"]["players"] if r["id"] == alice.pk)
    assert me["autopilot"] is False
    events = await b.until("STATE")
    assert any(m.get("event", {}).get("kind") == "autopilot_off" for m in events)
    await close_all(a, b)


def test_a_persons_own_move_takes_the_seat_back_and_the_drivers_move_is_then_stale(people):
    alice, bob = people[:2]
    game_id = dealt(people, 2, turn_seconds=30)
    prepare(game_id, alice, bob)
    mover = alice if whose_turn(game_id) == alice.pk else bob
    Seat.objects.filter(game_id=game_id, user=mover).update(autopilot=True)
    mark = last_event(game_id)
    play.move_apply(game_id=game_id, user=mover, move={"type": "TAKE_WHEEL", "source": "deck"})
    assert not seat_of(game_id, mover).autopilot
    assert kinds_since(game_id, mark)[:2] == ["autopilot_off", "took_wheel"]
    with pytest.raises(errors.Stale):
        play.move_apply(
            game_id=game_id,
            user=mover,
            move={"type": "TAKE_WHEEL", "source": "deck"},
            by_bot=True,
        )


# ---------------------------------------------------------------------------- leaving


def test_leaving_a_running_game_lets_the_computer_finish_it(people):
    alice, bob = people[:2]
    game_id = dealt(people, 2, turn_seconds=None)
    prepare(game_id, alice, bob)
    game_leave(game_id=game_id, user=alice)
    seat = seat_of(game_id, alice)
    assert seat.left and seat.autopilot
    assert "left" in kinds_since(game_id, 0)
    with pytest.raises(errors.Conflict) as refused:
        seat_take_back(game_id=game_id, user=alice)
    assert refused.value.code == "left_game"
    with pytest.raises(errors.Conflict):
        play.move_apply(game_id=game_id, user=alice, move={"type": "SYNC"})
    # bob plays on alone against alice's stand-in until the end
    for _ in range(2000):
        game = game_of(game_id)
        if game.status == Game.Status.FINISHED:
            break
        state = load_state(game)
        moves = engine.turn_moves(state, bob.pk)
        assert moves, "the stand-in must have moved"
        build = [m for m in moves if m["type"] == "BUILD_ROAD"]
        move = (build or moves)[0]
        if move["type"] == "DRAW_DESTINATION_CARDS" and len(moves) > 1:
            move = moves[1]
        play.move_apply(game_id=game_id, user=bob, move=move)
    assert game_of(game_id).status == Game.Status.FINISHED
    assert seat_of(game_id, alice).place is not None


def test_a_game_every_person_has_left_is_called_off_not_played_out_or_rated(people):
    alice, bob = people[:2]
    game = game_create(user=alice, name="Rhein", max_players=3, bots=1)
    game_join(game_id=game.pk, user=bob)
    game_start(game_id=game.pk, user=alice)
    game_leave(game_id=game.pk, user=alice)
    assert game_of(game.pk).status == Game.Status.PREPARATION  # bob still plays
    seq = game_of(game.pk).seq
    game_leave(game_id=game.pk, user=bob)
    game = game_of(game.pk)
    assert game.status == Game.Status.ABORTED
    assert game.seq == seq + 1, "no computer move after the last person left"
    assert kinds_since(game.pk, 0)[-2:] == ["left", "aborted"]
    assert not RatingChange.objects.filter(game=game).exists()
    assert Seat.objects.get(game=game, user=bob).place is None


def test_leaving_before_the_deal_gives_the_seat_back_and_passes_on_the_start(people):
    alice, bob, charlie = people[:3]
    game = game_create(user=alice, name="Rhein", max_players=3)
    game_join(game_id=game.pk, user=bob)
    game_join(game_id=game.pk, user=charlie)
    game_leave(game_id=game.pk, user=alice)
    game = game_of(game.pk)
    assert game.status == Game.Status.WAITING and game.creator == bob
    assert not Seat.objects.filter(game=game, user=alice).exists()
    game_join(game_id=game.pk, user=alice)  # the seat is free again
    game_start(game_id=game.pk, user=bob)
    assert game_of(game.pk).status == Game.Status.PREPARATION


def test_a_waiting_game_nobody_sits_in_any_more_is_called_off(people):
    alice = people[0]
    game = game_create(user=alice, name="Rhein", max_players=3, bots=1)
    game_leave(game_id=game.pk, user=alice)
    game = game_of(game.pk)
    assert game.status == Game.Status.ABORTED
    assert kinds_since(game.pk, 0)[-2:] == ["left", "aborted"]
    with pytest.raises(errors.Conflict):
        game_leave(game_id=game.pk, user=alice)


def test_leaving_twice_or_without_a_seat_is_refused(people):
    alice, charlie = people[0], people[2]
    game_id = dealt(people, 2)
    game_leave(game_id=game_id, user=alice)
    with pytest.raises(errors.Conflict) as twice:
        game_leave(game_id=game_id, user=alice)
    assert twice.value.code == "left_game"
    with pytest.raises(errors.ServiceError) as stranger:
        game_leave(game_id=game_id, user=charlie)
    assert stranger.value.code == "not_seated"


async def test_leave_game_over_the_socket_is_acknowledged_and_announced(people):
    alice, bob = people[:2]
    game_id = await database_sync_to_async(dealt)(people, 2)
    a = await Socket.game(game_id, alice)
    b = await Socket.game(game_id, bob)
    await a.until("STATE")
    await a.send({"type": "LEAVE_GAME", "ref": "bye"})
    assert (await a.expect("ACK"))["ref"] == "bye"
    # Alice's arrival may still reach Bob first (a PRESENCE and a STATE).
    left = (await b.until("EVENT"))[-1]["event"]
    assert left["kind"] == "left" and left["player"] == alice.pk and "alice" in left["text"]
    await a.send({"type": "TAKE_SEAT_BACK", "ref": "again"})
    error = (await a.until("ERROR"))[-1]
    assert error["code"] == "left_game" and error["ref"] == "again"
    await close_all(a, b)


# ---------------------------------------------------------------------------- bots


def test_R8_2_the_computer_players_join_a_vote_all_people_agree_to(people):
    alice, bob = people[:2]
    game = game_create(user=alice, name="Rhein", max_players=4, bots=2)
    game_join(game_id=game.pk, user=bob)
    game_start(game_id=game.pk, user=alice)
    play.move_apply(game_id=game.pk, user=alice, move={"type": "VOTE_END", "end": True})
    state = load_state(game_of(game.pk))
    assert not any(p.vote_end for p in state.players if p.id not in (alice.pk,))
    play.move_apply(game_id=game.pk, user=bob, move={"type": "VOTE_END", "end": True})
    game = game_of(game.pk)
    assert game.status == Game.Status.FINISHED and game.end_reason == "vote"


def test_the_sweeper_restarts_a_computer_player_whose_move_was_lost(people, monkeypatch):
    alice = people[0]
    game = game_create(user=alice, name="Rhein", max_players=2, bots=1)
    with monkeypatch.context() as lost:
        lost.setattr(bots, "kick", lambda game_id: None)  # a crash right after the commit
        game_start(game_id=game.pk, user=alice)
    bot = Seat.objects.get(game=game, is_bot=True)
    assert not load_state(game_of(game.pk)).players[bot.turn_order].prepared
    sweeper.sweep(now=timezone.now())  # not stalled long enough yet
    assert not load_state(game_of(game.pk)).players[bot.turn_order].prepared
    sweeper.sweep(now=later(60))
    assert load_state(game_of(game.pk)).players[bot.turn_order].prepared


# ---------------------------------------------------------------------------- other kinds


def rage_game(people: list, options: dict) -> int:
    game = game_create(
        user=people[0], name="Stiche", kind="rage", max_players=3, turn_seconds=30, options=options
    )
    for person in people[1:3]:
        game_join(game_id=game.pk, user=person)
    game_start(game_id=game.pk, user=people[0])
    return game.pk


def test_rage_a_late_bidder_is_played_by_the_computer_until_they_take_the_seat_back(people):
    game_id = rage_game(people, {})
    state = load_state(game_of(game_id))
    late = next(p for p in people if p.pk == rage.to_move(state)[0])
    assert game_of(game_id).turn_deadline is not None
    assert sweeper.sweep(now=later()) == 1
    assert seat_of(game_id, late).autopilot
    state = load_state(game_of(game_id))
    assert state.bids[state.players.index(late.pk)] is not None  # the computer bid for them
    assert late.pk not in rage.to_move(state)
    seat_take_back(game_id=game_id, user=late)
    assert not seat_of(game_id, late).autopilot


def test_rage_hidden_bids_share_one_deadline_and_every_late_bidder_is_replaced(people):
    game_id = rage_game(people, {"bids": "hidden"})
    first = people[0]
    state = load_state(game_of(game_id))
    assert len(rage.to_move(state)) == 3
    play.move_apply(game_id=game_id, user=first, move={"type": "BID", "tricks": 1})
    assert sweeper.sweep(now=later()) == 1
    late = [p for p in people[:3] if p != first]
    assert all(seat_of(game_id, person).autopilot for person in late)
    assert not seat_of(game_id, first).autopilot
    state = load_state(game_of(game_id))
    assert state.phase == "playing" and None not in state.bids
