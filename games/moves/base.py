"""What a move and every service (``games.services``) share: the game's kind and state, its
locked row, the seat of a user, and what waits for the commit."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser

from games import broadcast, registry, rows
from games.errors import (
    NotFound,
    ServiceError,
)
from games.models import Game, Seat
from games.moves import sql


def kind_of(game: Game) -> registry.GameKind:
    return registry.get(game.kind)


def after_commit(func, blocking: bool = False) -> None:
    # Robust: a message that cannot go out (Redis down) must not turn a committed change into
    # an error for its sender. The others notice the gap in ``seq`` and ask for the state.
    # ``blocking``: it reads the database (see sql.on_commit).
    sql.on_commit(func, blocking)


def lobby_changed(game: Game, users: Iterable[int] | None = None, also: Iterable[int] = ()) -> None:
    """Tell the lobby once the change is committed. A private game's entry is listed only to
    its players: ``users``, who sit in it (read now when not given), and ``also``, who just
    left it; a public game's change reaches every lobby socket."""
    listed_to = None
    if game.private:
        seated = game.seats.values_list("user_id", flat=True) if users is None else users
        listed_to = sorted({*seated, *also})
    after_commit(lambda: broadcast.lobby_changed(listed_to, game.pk))


def seat_of(seats: list[Seat], user: AbstractBaseUser) -> Seat:
    seat = next((seat for seat in seats if seat.user_id == user.pk), None)
    if seat is None:
        raise ServiceError("you have no seat in this game", "not_seated", 403)
    return seat


def no_game(game_id: object) -> NotFound:
    return NotFound("there is no game {game}", game=repr(game_id))


def valid_game_id(game_id: object) -> int:
    """``game_id`` if it can be a game's id, else NotFound."""
    low, high = rows.facts().ops.integer_field_range(Game._meta.pk.get_internal_type())
    if isinstance(game_id, int) and not isinstance(game_id, bool) and low <= game_id <= high:
        return game_id
    raise no_game(game_id)


def locked(game_id: int) -> Game:
    """The game's row, locked until the transaction ends (``select_for_update``)."""
    game = rows.lock(Game, valid_game_id(game_id))
    if game is None:
        raise no_game(game_id)
    return game


def still_as_read(game: Game) -> bool:
    """Lock ``game``'s row until the transaction ends; whether it is still the version it was
    read at without a lock (``_row_version``): then nothing that writes the row changed it."""
    return rows.lock_version(Game, game.pk) == game._row_version


def load_state(game: Game):
    """The engine state of a dealt game."""
    return kind_of(game).engine.from_dict(game.state)
