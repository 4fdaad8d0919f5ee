"""A signed-in player's language follows them: it is kept on the account, and a browser
without the language cookie (another browser, or one that lost it) speaks it and gets the
cookie back. The cookie itself lives for ``LANGUAGE_COOKIE_AGE`` (a year)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views import i18n

from lobby.models import Profile

COOKIE = settings.LANGUAGE_COOKIE_NAME


def known(code: object) -> bool:
    return isinstance(code, str) and code in dict(settings.LANGUAGES)


def saved(user) -> str:
    """The language kept on ``user``'s account, or "" when they never chose one."""
    found = Profile.objects.filter(user_id=user.pk).values_list("language", flat=True).first()
    return found if known(found) else ""


def save(user, code: str) -> None:
    if known(code):
        Profile.objects.update_or_create(user_id=user.pk, defaults={"language": code})


def speak(request: HttpRequest, code: str) -> None:
    """This request speaks ``code`` from now on, and its response sets the cookie."""
    request = getattr(request, "_request", request)  # a DRF request wraps Django's
    translation.activate(code)
    request.LANGUAGE_CODE = code
    request.account_language = code


def set_cookie(response: HttpResponse, code: str) -> None:
    response.set_cookie(
        COOKIE,
        code,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


@receiver(user_logged_in, dispatch_uid="lobby.language.on_login")
def on_login(sender, request: HttpRequest | None, user, **kwargs) -> None:
    """Signing in brings the account's language; an account without one keeps the language
    this browser chose."""
    if request is None:
        return
    code = saved(user)
    if code:
        speak(request, code)
    elif known(chosen := request.COOKIES.get(COOKIE)):
        save(user, chosen)


def set_language(request: HttpRequest) -> HttpResponse:
    """Django's ``set_language``; a signed-in player's choice is kept on their account too."""
    response = i18n.set_language(request)
    chosen = response.cookies.get(COOKIE)
    if chosen is not None and request.user.is_authenticated:
        save(request.user, chosen.value)
    return response


class AccountLanguageMiddleware:
    """After the authentication middleware: a signed-in player whose browser has no language
    cookie gets the account's language, and the cookie with it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        without_cookie = COOKIE not in request.COOKIES and request.user.is_authenticated
        if without_cookie and (code := saved(request.user)):
            speak(request, code)
        response = self.get_response(request)
        code = getattr(request, "account_language", "")
        if code and COOKIE not in response.cookies:
            set_cookie(response, code)
        return response
