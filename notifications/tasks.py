"""Background tasks (Django's Tasks framework): every mail leaves from one of these, after
the change that caused it was committed, so that a slow or broken mail server never holds up
or fails a move. The task checks again whether the mail is still wanted when it runs."""

from __future__ import annotations

import logging

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django_tasks import task

from games.models import Connection, Game, Seat
from notifications import mails
from notifications.models import MailSettings, TurnMail

logger = logging.getLogger(__name__)


@task()
def send_confirm_mail(user_id: int, email: str) -> str:
    user = get_user_model().objects.filter(pk=user_id).first()
    row = MailSettings.objects.filter(user_id=user_id).first()
    if user is None or row is None or row.email != email or row.confirmed:
        return "not wanted"  # the address was changed or confirmed meanwhile
    mails.confirm(user, email)
    return "sent"


@task()
def send_your_turn_mail(game_id: int, user_id: int, seq: int) -> str:
    row = MailSettings.objects.select_related("user").filter(user_id=user_id).first()
    if row is None or not row.wants("your_turn"):
        return "not wanted"
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not game.is_playing or game.seq != seq:
        return "stale"  # the game went on (or ended) before this task ran
    if not Seat.objects.filter(game_id=game_id, user_id=user_id, is_bot=False).exists():
        return "not seated"
    # A socket that closed counts for presence during its grace, but nobody reads it.
    if Connection.objects.open().filter(game_id=game_id, user_id=user_id).exists():
        return "connected"
    try:
        with transaction.atomic():
            TurnMail.objects.create(game_id=game_id, user_id=user_id)
    except IntegrityError:
        return "already sent"  # one mail per game until they have moved
    try:
        mails.your_turn(row, game)
    except Exception:
        # Not sent: the next turn may try again.
        TurnMail.objects.filter(game_id=game_id, user_id=user_id).delete()
        raise
    return "sent"


@task()
def send_game_ended_mails(game_id: int) -> str:
    game = Game.objects.filter(pk=game_id, status=Game.Status.FINISHED).first()
    if game is None:
        return "not finished"
    people = Seat.objects.filter(game=game, is_bot=False).values("user_id")
    rows = MailSettings.objects.select_related("user").filter(user_id__in=people)
    sent = failed = 0
    for row in rows:
        if not row.wants("game_ended"):
            continue
        try:
            mails.game_ended(row, game)
            sent += 1
        except Exception:
            # One address's failure does not keep the others' mails back.
            logger.exception("could not mail the end of game %s to user %s", game_id, row.user_id)
            failed += 1
    if failed:
        raise RuntimeError(f"{failed} of {sent + failed} mails of game {game_id} failed")
    return f"sent {sent}"
