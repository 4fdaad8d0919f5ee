"""What a websocket's ASGI scope says about its client."""

from __future__ import annotations


def header(scope: dict, name: bytes) -> str | None:
    """The first value of header ``name`` (lower case) in an ASGI scope, or None."""
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin1")
    return None
