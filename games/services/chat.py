"""Chat lines, in the lobby or at a game's table."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from games import broadcast
from games.errors import (
    NotFound,
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


def chat_post(*, user: AbstractBaseUser, text: str, game_id: int | None = None) -> ChatMessage:
    with transaction.atomic(durable=True):
        text, game = check_chat_post(user=user, text=text, game_id=game_id)
        return do_chat_post(user=user, text=text, game=game)
