"""R8: when a person's turn runs out, the computer plays it within 3 seconds of the deadline.

The server process that sets a deadline arms a timer on its event loop for that very moment
(not the next sweep), and the stand-in's first move waits no ``BOT_DELAY``. The loop here is a
stand-in that records when things are scheduled; the clock is set by hand."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

from games import bots, serverloop
from games.models import Game, Seat
from games.moves import play
from games.moves.base import load_state
from games.ratumrad import engine
from games.services.lifecycle import game_create, game_join, game_start

BOUND = timedelta(seconds=3)


class RecordingLoop:
    """A server's event loop that runs what threads hand it at once, and records its timers
    and the bot driver's waits instead of waiting."""

    def __init__(self):
        self.timers: list[SimpleNamespace] = []
        self.bot_waits: list[float] = []
        self.tasks: list = []

    def is_running(self) -> bool:
        return True

    def is_closed(self) -> bool:
        return False

    def call_soon_threadsafe(self, callback, *args, context=None):
        if callback is bots._wait_then_move:
            _game_id, delay = args
            self.bot_waits.append(delay)
            return
        callback(*args)

    def call_later(self, delay, callback, *args):
        timer = SimpleNamespace(
            at=timezone.now() + timedelta(seconds=delay), callback=callback, args=args
        )
        timer.cancel = lambda: self.timers.remove(timer)
        self.timers.append(timer)
        return timer

    def create_task(self, coroutine):
        self.tasks.append(coroutine)

    def run_tasks(self) -> None:
        async def run(coroutine):
            await coroutine

        while self.tasks:
            async_to_sync(run)(self.tasks.pop(0))


@pytest.fixture
def loop(monkeypatch, settings):
    settings.BOT_DELAY = 0.8  # as a server runs: a computer player's pause before its move
    recording = RecordingLoop()
    monkeypatch.setitem(serverloop._server, "loop", recording)
    return recording


def game_at_a_persons_turn(alice, bob) -> Game:
    """Alice and Bob with 30 s per turn, both short cards chosen: a person's turn is timed."""
    game = game_create(user=alice, name="Spalentor", max_players=2, turn_seconds=30)
    game_join(game_id=game.pk, user=bob)
    game_start(game_id=game.pk, user=alice)
    for person in (alice, bob):
        state = load_state(Game.objects.get(pk=game.pk))
        play.move_apply(game_id=game.pk, user=person, move=engine.legal_moves(state, person.pk)[0])
    return Game.objects.get(pk=game.pk)


@pytest.mark.django_db(transaction=True)
def test_R8_the_turn_runs_out_at_its_deadline_and_the_computer_plays_it_at_once(
    people, loop, monkeypatch
):
    alice, bob = people["alice"], people["bob"]
    game = game_at_a_persons_turn(alice, bob)
    deadline = game.turn_deadline
    assert game.status == "RUNNING" and deadline is not None
    # The timer of this turn fires at its deadline (the preparation's was replaced).
    assert len(loop.timers) == 1
    timer = loop.timers[0]
    assert deadline <= timer.at <= deadline + BOUND

    # The clock reaches the timer's moment: the late person's seat goes to the computer, and
    # its move is scheduled then, without the pause of a computer player's own turns.
    late = Seat.objects.get(game=game, turn_order=load_state(game).current)
    monkeypatch.setattr(timezone, "now", lambda: timer.at)
    timer.callback(*timer.args)
    loop.run_tasks()
    assert Seat.objects.get(pk=late.pk).autopilot
    assert loop.bot_waits == [0.0]
    assert timer.at + timedelta(seconds=loop.bot_waits[0]) <= deadline + BOUND


@pytest.mark.django_db(transaction=True)
def test_a_move_in_time_replaces_the_timer_and_a_late_timer_changes_nothing(people, loop):
    alice, bob = people["alice"], people["bob"]
    game = game_at_a_persons_turn(alice, bob)
    first = loop.timers[0]
    state = load_state(game)
    mover = alice if state.players[state.current].id == alice.pk else bob
    for _ in range(2):  # a whole turn: two cards from the deck
        play.move_apply(game_id=game.pk, user=mover, move={"type": "TAKE_WHEEL", "source": "deck"})
    game.refresh_from_db()
    assert first not in loop.timers and len(loop.timers) == 1  # the other person's turn
    assert game.turn_deadline <= loop.timers[0].at <= game.turn_deadline + BOUND
    first.callback(*first.args)  # a timer that was already due: nobody is late now
    loop.run_tasks()
    assert not Seat.objects.filter(game=game, autopilot=True).exists()
    assert loop.bot_waits == []
