"""A private game's invitation link: read and renewed by its creator, a seat for whoever
opens it.

The token is the game's id and its ``invitation_nonce``, signed (``django.core.signing``,
salted for this use only). A new nonce (``invitation_rotate``) makes every link given out
before it invalid; a token opens only the game it names.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.core import signing
from django.db import transaction
from django.utils.crypto import constant_time_compare

from games.errors import Conflict, Forbidden, NotFound, ServiceError
from games.models import Game, Seat, new_invitation_nonce
from games.moves.base import kind_of, locked, valid_game_id
from games.services.lifecycle import do_game_join

SALT = "games.invitation"
# A token the site makes is some 70 characters; anything much longer is not one of them.
TOKEN_MAX_LENGTH = 200


class InvitationInvalid(NotFound):
    """Not a link the site made: cut, changed or made up."""

    code = "invitation_invalid"


class InvitationRevoked(ServiceError):
    """A link the site made, replaced since by its creator."""

    code, status = "invitation_revoked", 410


def invitation_token(game: Game) -> str:
    # No timestamp: the link stays the same until the creator renews it.
    return signing.Signer(salt=SALT).sign_object({"g": game.pk, "n": game.invitation_nonce})


def read_token(token: object) -> tuple[int, str]:
    """The game id and nonce signed into ``token``; ``InvitationInvalid`` otherwise."""
    if not isinstance(token, str) or not 0 < len(token) <= TOKEN_MAX_LENGTH:
        raise InvitationInvalid("this invitation link is not valid")
    try:
        data = signing.Signer(salt=SALT).unsign_object(token)
    except (signing.BadSignature, ValueError, UnicodeDecodeError):
        raise InvitationInvalid("this invitation link is not valid") from None
    game_id, nonce = (data.get("g"), data.get("n")) if isinstance(data, dict) else (None, None)
    if not isinstance(nonce, str):
        raise InvitationInvalid("this invitation link is not valid")
    try:
        return valid_game_id(game_id), nonce
    except NotFound:
        raise InvitationInvalid("this invitation link is not valid") from None


def check_invitation_owner(game: Game, user: AbstractBaseUser) -> None:
    """Only the creator of a private game for several players has its link."""
    if kind_of(game).solo or not game.private:
        raise Conflict(
            "only a private game for several players has an invitation link", "no_invitation"
        )
    if game.creator_id != user.pk:
        raise Forbidden("only the player who created the game can invite to it")


def invitation_of(*, game_id: object, user: AbstractBaseUser) -> str:
    """The game's invitation token, for its creator."""
    game = Game.objects.filter(pk=valid_game_id(game_id)).first()
    if game is None:
        raise NotFound("there is no game {game}", game=repr(game_id))
    check_invitation_owner(game, user)
    return invitation_token(game)


def check_invitation_rotate(*, game_id: object, user: AbstractBaseUser) -> Game:
    game = locked(valid_game_id(game_id))
    check_invitation_owner(game, user)
    return game


def do_invitation_rotate(*, game: Game) -> str:
    game.invitation_nonce = new_invitation_nonce()
    game.save(update_fields=["invitation_nonce"])
    return invitation_token(game)


def invitation_rotate(*, game_id: object, user: AbstractBaseUser) -> str:
    """A new link for the game; every link given out before stops working."""
    with transaction.atomic(durable=True):
        return do_invitation_rotate(game=check_invitation_rotate(game_id=game_id, user=user))


@dataclass(frozen=True)
class InvitationCheck:
    """An invitation, checked, with its game locked; ``seat`` when the user already sits."""

    game: Game
    seat: Seat | None


def invited_game(token: object) -> Game:
    """The game a valid, current token invites to (not locked: for showing the invitation)."""
    game_id, nonce = read_token(token)
    game = Game.objects.filter(pk=game_id).first()
    return _current(game, game_id, nonce)


def _current(game: Game | None, game_id: int, nonce: str) -> Game:
    if game is None:
        raise NotFound("there is no game {game}", game=repr(game_id))
    if not constant_time_compare(nonce, game.invitation_nonce) or not game.private:
        raise InvitationRevoked("this invitation link was replaced by a new one")
    return game


def check_invitation_accept(*, token: object, user: AbstractBaseUser) -> InvitationCheck:
    """The locked game of a current invitation, with a seat free for ``user`` or theirs."""
    game_id, nonce = read_token(token)
    try:
        game = locked(game_id)
    except NotFound:
        game = None
    return check_invited_seat(_current(game, game_id, nonce), user)


def check_invited_seat(game: Game, user: AbstractBaseUser | None) -> InvitationCheck:
    """``user``'s seat in the game, or a free one they may take (None: nobody logged in)."""
    seats = list(game.seats.all())
    user_id = None if user is None else user.pk
    seat = next((seat for seat in seats if user_id and seat.user_id == user_id), None)
    if seat is not None:
        return InvitationCheck(game, seat)
    if game.status in Game.OVER:
        raise Conflict("the game is over", "game_over")
    if game.status != Game.Status.WAITING:
        raise Conflict("the game has already started", "started")
    if len(seats) >= game.max_players:
        raise Conflict("the game is full", "full")
    return InvitationCheck(game, None)


def invitation_preview(*, token: object, user: AbstractBaseUser | None) -> InvitationCheck:
    """What opening the link would give ``user``, read without a lock and changing nothing:
    their seat, a free one, or the refusal ``invitation_accept`` would answer now."""
    return check_invited_seat(invited_game(token), user)


def do_invitation_accept(*, checked: InvitationCheck, user: AbstractBaseUser) -> Seat:
    if checked.seat is not None:
        return checked.seat
    return do_game_join(game=checked.game, user=user)


def invitation_accept(*, token: object, user: AbstractBaseUser) -> Seat:
    """``user``'s seat in the game the invitation names: a free one taken now, or the one
    they had. Refused: not a valid link (``invitation_invalid``), replaced by a new one
    (``invitation_revoked``), the game started, over or full."""
    with transaction.atomic(durable=True):
        checked = check_invitation_accept(token=token, user=user)
        return do_invitation_accept(checked=checked, user=user)
