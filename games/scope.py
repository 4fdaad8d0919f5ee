"""What a websocket's ASGI scope says about its client."""

from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.translation import trans_real


def header(scope: dict, name: bytes) -> str | None:
    """The first value of header ``name`` (lower case) in an ASGI scope, or None."""
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin1")
    return None


def socket_language(scope: dict) -> str:
    """The language of a socket: the language cookie, then Accept-Language, then German.

    The same order as Django's LocaleMiddleware (``get_language_from_request``) for pages.
    """
    code = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    if code:
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            pass
    for code, _quality in trans_real.parse_accept_lang_header(
        header(scope, b"accept-language") or ""
    ):
        if code == "*":
            break
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE
