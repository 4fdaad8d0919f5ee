"""Who is on a websocket, and whether the page that opened it may open it.

Two kinds of clients connect:

* Browsers send their session cookie and always an ``Origin`` header. The origin must be
  one of ``ALLOWED_HOSTS`` (as ``AllowedHostsOriginValidator`` checks), or another site's
  page could use the visitor's cookie (cross-site websocket hijacking).
* Scripts and bots send ``Authorization: Token <key>`` (DRF's tokens) and usually no Origin.
  A browser cannot set that header on a websocket, so the token alone identifies them.

A connection without an Origin must bring a token: the session cookie counts only together
with an allowed Origin. A present but unknown token is not authenticated: the consumer then
answers ``not_authenticated`` (it never falls back to the session). Refused origins are
denied during the handshake (HTTP 403), before any consumer runs.
"""

from __future__ import annotations

from urllib.parse import urlparse

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.security.websocket import OriginValidator, WebsocketDenier
from channels.sessions import CookieMiddleware
from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from games.scope import header
from ratumrad_site.tokens import token_and_user


def origin_allowed(origin: str) -> bool:
    hosts = settings.ALLOWED_HOSTS
    if settings.DEBUG and not hosts:
        hosts = ["localhost", "127.0.0.1", "[::1]"]
    validator = OriginValidator(None, hosts)
    try:
        parsed = urlparse(origin)
    except ValueError:
        return False
    return validator.valid_origin(parsed)


@database_sync_to_async
def token_user(authorization: str):
    """The active user owning ``Token <key>``, else an anonymous user."""
    scheme, _, key = authorization.strip().partition(" ")
    key = key.strip()
    if scheme.lower() != "token" or not key or " " in key:
        return AnonymousUser()
    found = token_and_user(key)
    if found is None or not found[1].is_active:
        return AnonymousUser()
    return found[1]


class WebsocketAuthMiddleware:
    """Check the origin, then set ``scope["user"]`` from the token or the session.

    ``scope["auth"]`` tells the consumer which one it was: ``"token"`` or ``"session"``.
    """

    def __init__(self, inner):
        self.with_token = CookieMiddleware(inner)  # cookies still carry the language
        self.with_session = AuthMiddlewareStack(inner)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            raise ValueError("WebsocketAuthMiddleware only handles websockets")
        origin = header(scope, b"origin")
        authorization = header(scope, b"authorization")
        if origin is not None and not origin_allowed(origin):
            return await WebsocketDenier()(scope, receive, send)
        if authorization is not None:
            user = await token_user(authorization)
            scope = {**scope, "user": user, "auth": "token"}
            return await self.with_token(scope, receive, send)
        if origin is None:
            # Only token clients may leave the Origin out (see the module docstring).
            return await WebsocketDenier()(scope, receive, send)
        return await self.with_session({**scope, "auth": "session"}, receive, send)
