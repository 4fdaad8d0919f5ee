"""An admin's decisions: end a game now (scored as usual), or call it off."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from games import broadcast
from games.errors import (
    Conflict,
)
from games.models import Event, Game
from games.moves.base import (
    after_commit,
    kind_of,
    load_state,
    lobby_changed,
    locked,
)
from games.moves.record import record


def check_game_end_now(*, game_id: int) -> Game:
    game = locked(game_id)
    if not game.is_playing:
        raise Conflict("only a game being played can be ended", "not_playing")
    return game


def do_game_end_now(*, game: Game, reason: str) -> None:
    state = load_state(game)
    events = kind_of(game).engine.end_game(state, reason)
    record(game, state, list(game.seats.all()), None, None, events)


def game_end_now(*, game_id: int, reason: str = "admin") -> Game:
    """End a game that is being played, scored as usual (an admin's decision)."""
    with transaction.atomic(durable=True):
        game = check_game_end_now(game_id=game_id)
        do_game_end_now(game=game, reason=reason)
    return game


def check_game_abort(*, game_id: int) -> Game:
    game = locked(game_id)
    if game.status in Game.OVER:
        raise Conflict("the game is already over", "game_over")
    return game


def do_game_abort(*, game: Game, before: list[dict] = ()) -> None:
    """Call the game off without results; ``before``: events announced with it."""
    game.status = Game.Status.ABORTED
    game.finished = timezone.now()
    game.seq += 1
    game.turn_deadline = None
    game.save(update_fields=["status", "finished", "seq", "turn_deadline", "updated"])
    waited = game.seats.filter(to_move=True, is_bot=False).values_list("user_id", flat=True)
    waited = list(waited)
    game.seats.filter(to_move=True).update(to_move=False)
    if waited and game.turn_based:
        after_commit(lambda: broadcast.turns_changed(game.pk, dict.fromkeys(waited, False)))
    events = [*before, {"kind": "aborted", "player": None}]
    Event.objects.create(game=game, seq=game.seq, kind="aborted", data=events[-1])
    state = load_state(game) if game.state else None
    after_commit(lambda: broadcast.game_changed(game, state, events))
    lobby_changed(game)


def game_abort(*, game_id: int) -> Game:
    """Call a game off without results."""
    with transaction.atomic(durable=True):
        game = check_game_abort(game_id=game_id)
        do_game_abort(game=game)
    return game
