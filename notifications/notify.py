"""What the games tell this app: it may be someone's turn, they moved, a game ended.

Each call does at most one small query and enqueues its task after the commit (the end of a
game reads nothing before it); a failure here is logged and never reaches the move that
caused it.

    notify.your_turn(game_id, user_id)   it became this person's turn (turn-based games)
    notify.moved(game_id, user_id)       they moved: the next your-turn mail may go out
    game_ended                           receiver of games.signals.game_finished
    turn_began, person_moved             receivers of the games' signals of the same names,
                                         which call the two above (turn-based games only)
"""

from __future__ import annotations

import functools
import logging

from django.db import connection, transaction

from games import rows
from games.models import Game
from notifications.models import MailSettings, TurnMail

logger = logging.getLogger(__name__)


def enqueue_after_commit(task, *args) -> None:
    """``task.enqueue(*args)`` once the current transaction commits (at once outside one)."""

    def enqueue() -> None:
        try:
            task.enqueue(*args)
        except Exception:
            logger.exception("could not enqueue %s%r", task.name, args)

    transaction.on_commit(enqueue, robust=True)


def _wanted(user_ids, kind: str) -> bool:
    """Whether one of ``user_ids`` has a confirmed address and ``kind`` mails on. One raw
    statement: the ORM's compiling of it cost more than the query, at every game's end."""
    ids = [int(user_id) for user_id in user_ids]
    return bool(ids) and bool(rows.fetch_rows(_wanted_sql(kind, len(ids)), ids))


@functools.cache
def _wanted_sql(kind: str, count: int) -> str:
    meta, quote = MailSettings._meta, connection.ops.quote_name

    def column(name: str) -> str:
        return quote(meta.get_field(name).column)

    return (
        f"SELECT 1 FROM {quote(meta.db_table)} WHERE {column('user')}"
        f" IN ({', '.join(['%s'] * count)}) AND {column('confirmed')} IS NOT NULL"
        f" AND {column(kind)} AND {column('email')} <> '' LIMIT 1"
    )


def your_turn(game_id: int, user_id: int, *, seq: int | None = None) -> None:
    """It became ``user_id``'s turn in ``game_id`` (at ``seq``, the game's move number, read
    when not given). Mails them unless they have no confirmed address with your-turn mails
    on, have a socket open on the game, or were mailed for this game and have not moved."""
    from notifications.tasks import send_your_turn_mail

    try:
        with transaction.atomic():
            if not _wanted([user_id], "your_turn"):
                return
            if seq is None:
                seq = Game.objects.filter(pk=game_id).values_list("seq", flat=True).first()
                if seq is None:
                    return
        enqueue_after_commit(send_your_turn_mail, game_id, user_id, seq)
    except Exception:
        logger.exception("your-turn mail for user %s in game %s", user_id, game_id)


def moved(game_id: int, user_id: int) -> None:
    """``user_id`` moved in ``game_id``: the next time it is their turn they may be mailed."""
    try:
        with transaction.atomic():
            TurnMail.objects.filter(game_id=game_id, user_id=user_id).delete()
    except Exception:
        logger.exception(
            "could not clear the your-turn mail of user %s in game %s", user_id, game_id
        )


def game_ended(sender, *, game: Game, results=None, seats=None, **kwargs) -> None:
    """``games.signals.game_finished``, inside the transaction that ends the game: after its
    commit, mail the results to the people who sat in it and asked for them. Nothing is read
    inside that transaction: whether anyone wants the mail is asked after the commit."""
    from notifications.tasks import send_game_ended_mails

    game_id = game.pk
    try:
        if seats is None:
            seats = list(game.seats.all())
        people = [seat.user_id for seat in seats if not seat.is_bot]
    except Exception:
        logger.exception("game-ended mails of game %s", game_id)
        return
    if not people:
        return

    def enqueue() -> None:
        try:
            if _wanted(people, "game_ended"):
                send_game_ended_mails.enqueue(game_id)
        except Exception:
            logger.exception("could not enqueue the game-ended mails of game %s", game_id)

    transaction.on_commit(enqueue, robust=True)


def turn_began(sender, *, game_id: int, user_ids: list[int], seq: int, **kwargs) -> None:
    """``games.signals.turn_began`` (after the commit, turn-based games): each person who
    must act now may be mailed."""
    for user_id in user_ids:
        your_turn(game_id, user_id, seq=seq)


def person_moved(sender, *, game_id: int, user_id: int, **kwargs) -> None:
    """``games.signals.person_moved`` (after the commit, turn-based games)."""
    moved(game_id, user_id)
