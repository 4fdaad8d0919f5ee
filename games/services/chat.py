"""Chat lines, in the lobby or at a game's table."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games import broadcast, rows
from games.errors import (
    NotFound,
    RateLimited,
    ServiceError,
)
from games.models import ChatMessage, Game
from games.moves.base import (
    after_commit,
)

# ---------------------------------------------------------------------------- chat

CHAT_MAX_LENGTH = 500


def check_chat_post(
    *, user: AbstractBaseUser, text: object, game_id: int | None = None
) -> tuple[str, Game | None]:
    """The message's text, stripped, and its game (None: the lobby's chat)."""
    if not isinstance(text, str) or not text.strip():
        raise ServiceError("a chat message needs some text", "bad_field")
    text = text.strip()
    if len(text) > CHAT_MAX_LENGTH:
        raise ServiceError(
            "chat messages have at most {max} characters", "too_large", max=CHAT_MAX_LENGTH
        )
    game = None
    if game_id is not None:
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            raise NotFound("there is no game {game}", game=repr(game_id))
    return text, game


def do_chat_post(*, user: AbstractBaseUser, text: str, game: Game | None) -> ChatMessage:
    message = ChatMessage.objects.create(game=game, user=user, text=text)
    after_commit(lambda: broadcast.chat_posted(message))
    return message


def check_chat_rate(*, user: AbstractBaseUser, lines: int, window: timedelta) -> None:
    """At most ``lines`` chat lines of ``user`` in ``window`` (``rate_limited``). The user's
    row is locked first, in the line's transaction: lines posted at the same moment (from two
    tabs, or a script's many sockets) count each other."""
    rows.lock(get_user_model(), user.pk)
    since = timezone.now() - window
    if ChatMessage.objects.filter(user=user, created__gte=since).count() >= lines:
        raise too_many_lines(lines, window)


def too_many_lines(lines: int, window: timedelta) -> RateLimited:
    """The refusal of a chat line past ``lines`` in ``window``."""
    return RateLimited(
        "at most {lines} chat lines per {seconds} seconds", lines=lines, seconds=window.seconds
    )


def chat_post(
    *,
    user: AbstractBaseUser,
    text: str,
    game_id: int | None = None,
    rate: tuple[int, timedelta] | None = None,
) -> ChatMessage:
    """Post a chat line; ``rate``: at most so many of ``user``'s lines in so long
    (``check_chat_rate``)."""
    with transaction.atomic(durable=True):
        text, game = check_chat_post(user=user, text=text, game_id=game_id)
        if rate is not None:
            check_chat_rate(user=user, lines=rate[0], window=rate[1])
        return do_chat_post(user=user, text=text, game=game)
