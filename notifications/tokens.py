"""Signed links: confirm an address, unsubscribe from a kind of mail. No login needed.

Each link names its person and the address it was made for, and is signed with the site's
secret and a salt of its own, so that it cannot be altered to reach another person, nor one
kind of link be used as the other. Both expire.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.core import signing

CONFIRM_SALT = "notifications.confirm"
UNSUBSCRIBE_SALT = "notifications.unsubscribe"
CONFIRM_MAX_AGE = timedelta(days=2)
UNSUBSCRIBE_MAX_AGE = timedelta(days=90)
TOKEN_MAX_LENGTH = 600  # far above what we sign; anything longer is refused unread
KINDS = ("your_turn", "game_ended")


class BadLink(Exception):
    """``reason``: "expired" or "invalid"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Link:
    user_id: int
    email: str
    kind: str = ""


def _sign(salt: str, data: dict) -> str:
    return signing.TimestampSigner(salt=salt).sign_object(data, compress=True)


def _read(salt: str, token: str, max_age: timedelta) -> dict:
    if not isinstance(token, str) or len(token) > TOKEN_MAX_LENGTH:
        raise BadLink("invalid")
    try:
        data = signing.TimestampSigner(salt=salt).unsign_object(token, max_age=max_age)
    except signing.SignatureExpired:
        raise BadLink("expired") from None
    except (signing.BadSignature, ValueError, UnicodeDecodeError):
        raise BadLink("invalid") from None
    if not (
        isinstance(data, dict)
        and isinstance(data.get("u"), int)
        and isinstance(data.get("e"), str)
        and data.get("k", "") in ("", *KINDS)
    ):
        raise BadLink("invalid")
    return data


def confirm_token(user_id: int, email: str) -> str:
    return _sign(CONFIRM_SALT, {"u": user_id, "e": email})


def read_confirm(token: str) -> Link:
    data = _read(CONFIRM_SALT, token, CONFIRM_MAX_AGE)
    return Link(user_id=data["u"], email=data["e"])


def unsubscribe_token(user_id: int, email: str, kind: str) -> str:
    assert kind in KINDS, kind
    return _sign(UNSUBSCRIBE_SALT, {"u": user_id, "e": email, "k": kind})


def read_unsubscribe(token: str) -> Link:
    data = _read(UNSUBSCRIBE_SALT, token, UNSUBSCRIBE_MAX_AGE)
    if not data.get("k"):
        raise BadLink("invalid")
    return Link(user_id=data["u"], email=data["e"], kind=data["k"])
