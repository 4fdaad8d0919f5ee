"""A player's token (``Authorization: Token <key>``, DRF's tokens) and its user, read in one
raw statement, for the API (``TokenAuthentication``) and the sockets (``ws_auth``).

Every API call and every socket of a script or bot reads its token; DRF's own
``TokenAuthentication`` read it with the ORM, whose query compiler takes longer to build the
join than the database takes to answer it. The rows become instances as a queryset makes
them (``games.rows``).
"""

from __future__ import annotations

import functools

from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from games import rows


def token_and_user(key: str) -> tuple[Token, object] | None:
    """The token ``key`` with its user (``token.user``, read with it), or None."""
    found = rows.fetch_rows(_token_sql(), [key])
    if not found:
        return None
    count = len(Token._meta.concrete_fields)
    token = rows.build(Token, found[0][:count])
    token.user = rows.build(get_user_model(), found[0][count:])
    return token, token.user


@functools.cache
def _token_sql() -> str:
    user = get_user_model()._meta
    token = Token._meta
    token_user = token.get_field("user").column
    return f"""SELECT {rows.columns(Token, "token")}, {rows.columns(get_user_model(), "account")}
        FROM {token.db_table} token JOIN {user.db_table} account
            ON account.{user.pk.column} = token.{token_user}
        WHERE token.{token.pk.column} = %s"""


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's, with the token and its user read by ``token_and_user``; the same answers."""

    def authenticate_credentials(self, key):
        found = token_and_user(key)
        if found is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        token, user = found
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return user, token
