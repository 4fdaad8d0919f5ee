"""Limits on what one user or one address may hold or do: new games, open sockets.

Counts live in the Django cache: shared by every server process with ``REDIS_URL``, in the
process's memory without it. DRF's throttles do the counting of rates; open sockets hold
expiring slots, so that a socket of a server that died frees its slot by itself.
"""

from __future__ import annotations

import hashlib
import logging
from types import SimpleNamespace

from django.conf import settings
from django.core.cache import cache
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

log = logging.getLogger(__name__)


class RateLimit(SimpleRateThrottle):
    """DRF's throttle for a rate of ``DEFAULT_THROTTLE_RATES[scope]`` per ``ident``, for calls
    that come from no HTTP request (sockets) as well as from one."""

    def __init__(self, scope: str, ident: object):
        self.scope = scope
        self.ident = str(ident)
        super().__init__()

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.ident}

    def allowed(self) -> bool:
        return self.allow_request(None, None)


def scope_address(scope: dict) -> str:
    """A socket's client address, with the throttles' rule for ``X-Forwarded-For``
    (``NUM_PROXIES``)."""
    headers = dict(scope.get("headers") or [])
    forwarded = headers.get(b"x-forwarded-for")
    client = scope.get("client") or ("", 0)
    shim = SimpleNamespace(
        headers={"x-forwarded-for": forwarded.decode("latin-1")} if forwarded else {},
        META={"REMOTE_ADDR": client[0] or ""},
    )
    return BaseThrottle().get_ident(shim) or ""


# ---------------------------------------------------------------------------- open sockets


def slot_seconds() -> float:
    """How long a slot lives without a beat: past the presence's time to live, and at least
    three beats."""
    return max(settings.PRESENCE_TTL.total_seconds(), 3 * settings.PRESENCE_BEAT.total_seconds())


def _slot_key(kind: str, owner: str, number: int) -> str:
    digest = hashlib.sha256(owner.encode()).hexdigest()[:32]
    return f"socket-slot:{kind}:{digest}:{number}"


class SocketSlots:
    """The slots one socket holds: one of its user's ``SOCKETS_PER_USER`` and one of its
    address's ``SOCKETS_PER_ADDRESS``. ``cache.add`` takes a free slot atomically (Redis:
    ``SET NX``), the socket's beat renews its slots and closing frees them; slots of a socket
    whose server died expire after ``slot_seconds()``."""

    def __init__(self, channel_name: str, user_id: int, address: str):
        self.channel_name = channel_name
        self.wanted = [
            ("user", str(user_id), settings.SOCKETS_PER_USER),
            ("address", address, settings.SOCKETS_PER_ADDRESS),
        ]
        self.keys: list[str] = []

    def claim(self) -> str | None:
        """Take a slot of each kind; None if done, else the kind that is full (nothing held)."""
        for kind, owner, limit in self.wanted:
            if limit <= 0 or not owner:
                continue  # no limit, or no address known (a Unix socket)
            key = self._take(kind, owner, limit)
            if key is None:
                self.release()
                return kind
            self.keys.append(key)
        return None

    def _take(self, kind: str, owner: str, limit: int) -> str | None:
        keys = [_slot_key(kind, owner, number) for number in range(limit)]
        taken = cache.get_many(keys)
        for key in keys:
            if key not in taken and cache.add(key, self.channel_name, slot_seconds()):
                return key
        return None

    def renew(self) -> None:
        for key in self.keys:
            if not cache.touch(key, slot_seconds()):
                # Expired meanwhile (a long pause): take it again if still free.
                cache.add(key, self.channel_name, slot_seconds())

    def release(self) -> None:
        keys, self.keys = self.keys, []
        mine = [key for key, owner in cache.get_many(keys).items() if owner == self.channel_name]
        if mine:
            cache.delete_many(mine)
