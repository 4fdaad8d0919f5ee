"""Refusals: the services' errors (each with the protocol's code and an HTTP status), in the
active language when read, and DRF's validation errors as the protocol's one-line messages."""

from __future__ import annotations

from django.utils.translation import gettext

from games.contract import EngineError


def localized(template: str, params: dict, prefix: str | None = None) -> str:
    """A refusal in the active language: ``template`` translated, then filled with ``params``
    (which a caller may have put in a catalog: engine rules, field names stay as they are)."""
    text = gettext(template)
    if params:
        text = text.format(**params)
    return f"{prefix}: {text}" if prefix else text


class ServiceError(Exception):
    """A refused request: ``code`` is the protocol's error code, ``status`` the HTTP status.

    ``message`` is the English ``template`` filled with ``params``, translated into the
    active language when it is read (the request's, or the socket's), after ``prefix`` (a
    rule id or a field name) and a colon.
    """

    code = "bad_request"
    status = 400

    def __init__(
        self,
        message: str,
        code: str | None = None,
        status: int | None = None,
        *,
        prefix: str | None = None,
        **params: object,
    ):
        super().__init__(message.format(**params) if params else message)
        self.template, self.params, self.prefix = message, params, prefix
        if code:
            self.code = code
        if status:
            self.status = status

    @property
    def message(self) -> str:
        return localized(self.template, self.params, self.prefix)

    @classmethod
    def from_engine(cls, error: EngineError, status: int = 409, prefix: str | None = None):
        """An engine's refusal, with its rule (or ``prefix``) in front."""
        return cls(error.template, error.code, status, prefix=prefix or error.rule, **error.params)


class NotFound(ServiceError):
    code, status = "not_found", 404


class Conflict(ServiceError):
    code, status = "conflict", 409


class Forbidden(ServiceError):
    code, status = "forbidden", 403


class Stale(ServiceError):
    code, status = "stale", 409


class TurnNotOver(Stale):
    """The turn has not run out (any more): another server process was first, or the player
    moved just in time."""


class RateLimited(ServiceError):
    code, status = "rate_limited", 429


def problems(detail: object, field: str = "") -> list[str]:
    """Each field's first problem, named by the field: ``["max_players: Ensure ..."]``."""
    if isinstance(detail, dict):
        found = []
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else str(key)
            found += problems(value, f"{field}.{name}" if field and name else field or name)
        return found
    if isinstance(detail, list):
        for item in detail:
            if found := problems(item, field):
                return found
        return []
    return [f"{field}: {detail}" if field else str(detail)]
