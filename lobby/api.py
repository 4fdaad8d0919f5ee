"""Identity in the HTTP API: become a guest (a name, a token and a logged-in session)."""

from __future__ import annotations

import hashlib
import unicodedata

from django.contrib.auth import login
from django.contrib.auth.models import AbstractBaseUser
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api import error, parse
from games.limits import AddressRate
from games.serializers import TextField
from lobby.models import NAME_MAX_LENGTH, Guest

# Headers that only browsers send: Origin (on every cross-site POST and every fetch POST)
# and the Fetch Metadata headers. Cookies for this site count too.
BROWSER_HEADERS = ("HTTP_ORIGIN", "HTTP_SEC_FETCH_SITE")


class GuestRequestSerializer(serializers.Serializer):
    name = TextField(
        max_length=NAME_MAX_LENGTH,
        help_text="1 to 32 printable characters, surrounding spaces dropped; unique"
        " among players regardless of case",
    )


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class GuestSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="send as `Authorization: Token <token>`")
    user = UserSerializer()


def user_data(user: AbstractBaseUser) -> dict:
    return {"id": user.pk, "name": user.get_username()}


class GuestThrottle(AddressRate):
    """New guests per client address (REST_FRAMEWORK's DEFAULT_THROTTLE_RATES["guest"]),
    logged-in callers too (each call makes a new user), checked and counted in one step
    (``AtomicRate``), as the other throttles here."""

    scope = "guest"


class LoginAddressThrottle(GuestThrottle):
    """Password login attempts per client address, whatever the name
    (DEFAULT_THROTTLE_RATES["login_address"])."""

    scope = "login_address"

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": "login-address", "ident": self.get_ident(request)}


def login_name_key(name: object) -> str:
    """A name as uniqueness compares it (NFKC, as Django normalizes usernames, and any
    case): look-alike spellings of one name share one count."""
    name = AbstractBaseUser.normalize_username(str(name).strip()).casefold()
    return unicodedata.normalize("NFKC", name)


class LoginNameThrottle(GuestThrottle):
    """Password login attempts per name from one address (DEFAULT_THROTTLE_RATES["login"]).

    Counted per (name, address), as django-axes does: guessing one person's password from
    one address is slowed down, and the owner still logs in from any other address. A limit
    per name alone would let anyone lock the owner out."""

    scope = "login"

    def get_cache_key(self, request, view) -> str:
        name = login_name_key(request.POST.get("username", ""))
        pair = f"{name}\x00{self.get_ident(request)}"
        ident = hashlib.sha256(pair.encode()).hexdigest()
        return self.cache_format % {"scope": "login-name", "ident": ident}


def login_allowed(request) -> bool:
    """Whether another password attempt is allowed from this address and for this name from
    it (``LOGIN_ADDRESS_RATE``, ``LOGIN_RATE``); every call counts as an attempt."""
    throttles = (LoginAddressThrottle(), LoginNameThrottle())
    return all([throttle.allow_request(request, None) for throttle in throttles])


class RegisterThrottle(GuestThrottle):
    """New accounts with a password per client address, at the guests' rate (``GUEST_RATE``):
    each costs a password hash."""

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": "register", "ident": self.get_ident(request)}


def enforce_browser_csrf(request: Request) -> None:
    """Refuse a browser's guest login that lacks the CSRF token (login CSRF).

    Without this check a page on another site could log a visitor's browser in as a guest
    of its choosing and watch what they do under that name. DRF checks CSRF only for a
    session that is already logged in, so the check is made here. A client that sends none
    of the browser's headers (a script or a bot, with no cookies) cannot be tricked into a
    request by another site and has no session to protect: it gets its token without the
    CSRF round trip. Browsers read the token from the ``csrftoken`` cookie (set by any page
    and by ``GET /api/auth/me/``) and send it as ``X-CSRFToken``.
    """
    if request.COOKIES or any(header in request.META for header in BROWSER_HEADERS):
        SessionAuthentication().enforce_csrf(request)


class GuestView(APIView):
    authentication_classes = []  # anyone may become a new guest; CSRF: enforce_browser_csrf
    permission_classes = [AllowAny]
    throttle_classes = [GuestThrottle]

    @extend_schema(
        operation_id="auth_guest",
        tags=["auth"],
        summary="Play as a guest: choose a name, get a token and a logged-in session",
        description=(
            "Creates a user with this name and no password, answers with its API token and"
            " logs the browser session in. Browsers (requests with cookies, `Origin` or"
            " `Sec-Fetch-Site`) must send the CSRF token as `X-CSRFToken`; other clients"
            " need not. Limited per client address (`429 rate_limited`)."
        ),
        request=GuestRequestSerializer,
        responses={
            201: GuestSerializer,
            400: error(
                "name_taken: someone has this name; bad_field: empty, too long or"
                " unprintable; bad_json: the body is not JSON",
                ("name_taken", "the name 'Lea' is already taken"),
                ("bad_field", "name: This field may not be blank."),
            ),
            403: error(
                "csrf_failed: a browser must send the X-CSRFToken header",
                ("csrf_failed", "CSRF Failed: CSRF token missing."),
            ),
            429: error(
                "rate_limited: too many new guests from this address",
                ("rate_limited", "too many requests; try again in 42 seconds"),
            ),
        },
        examples=[OpenApiExample("Lea", value={"name": "Lea"}, request_only=True)],
    )
    def post(self, request: Request) -> Response:
        enforce_browser_csrf(request)
        fields = parse(GuestRequestSerializer, request.data)
        guest = Guest.objects.create_guest(name=fields["name"])
        login(request, guest.user, backend="django.contrib.auth.backends.ModelBackend")
        return Response(
            {"token": guest.user.auth_token.key, "user": user_data(guest.user)}, status=201
        )


@method_decorator(ensure_csrf_cookie, name="dispatch")
class MeView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="auth_me",
        tags=["auth"],
        summary="Who the caller is (null when not logged in); sets the csrftoken cookie",
        responses={
            200: inline_serializer("Me", {"user": UserSerializer(allow_null=True)}),
            401: error(
                "not_authenticated: the token is not valid",
                ("not_authenticated", "Invalid token."),
            ),
        },
    )
    def get(self, request: Request) -> Response:
        user = request.user if request.user.is_authenticated else None
        return Response({"user": user and user_data(user)})
