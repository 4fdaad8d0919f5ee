"""Every HTTP API error as ``{"code": "...", "message": "..."}`` (docs/protocol.md).

``api_exception_handler`` is DRF's ``EXCEPTION_HANDLER``: refused service calls keep their
own code and status, DRF's exceptions get the protocol's codes. ``api_not_found`` answers
paths under ``/api/`` that match no endpoint.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from games.errors import ServiceError, problems

CODES: list[tuple[type[exceptions.APIException], str]] = [
    (exceptions.ValidationError, "bad_field"),
    (exceptions.ParseError, "bad_json"),
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "not_authenticated"),
    (exceptions.PermissionDenied, "forbidden"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
    (exceptions.Throttled, "rate_limited"),
]
CSRF_FAILED = "CSRF Failed"


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, ServiceError):
        set_rollback()
        return Response({"code": exc.code, "message": exc.message}, status=exc.status)
    if isinstance(exc, RequestDataTooBig):
        text = gettext("a request body has at most {max} bytes")
        text = text.format(max=settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        return Response({"code": "too_large", "message": text}, status=413)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    response = exception_handler(exc, context)  # sets WWW-Authenticate and Retry-After
    if response is None:
        return None  # a bug: Django's 500 page and the error log
    response.data = {"code": error_code(exc), "message": message(exc)}
    return response


def error_code(exc: exceptions.APIException) -> str:
    if isinstance(exc, exceptions.PermissionDenied) and str(exc.detail).startswith(CSRF_FAILED):
        # SessionAuthentication's refusal: a browser must send the X-CSRFToken header.
        return "csrf_failed"
    for kind, code in CODES:
        if isinstance(exc, kind):
            return code
    return str(exc.default_code)


def message(exc: exceptions.APIException) -> str:
    if isinstance(exc, exceptions.ValidationError):
        return "; ".join(problems(exc.detail))
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        seconds = max(1, round(exc.wait))
        return gettext("too many requests; try again in {seconds} seconds").format(seconds=seconds)
    return str(exc.detail)


@csrf_exempt  # a POST to a wrong path is a JSON 404 too, not Django's HTML CSRF refusal
def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    message = gettext("there is no API endpoint {path}").format(path=request.path)
    return JsonResponse({"code": "not_found", "message": message}, status=404)
