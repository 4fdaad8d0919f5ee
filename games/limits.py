"""Limits on what one user or one address may hold or do: new games, open sockets, and the
moves and reads of sockets (``SocketRates``).

Counts live in the Django cache: shared by every server process with ``REDIS_URL``, in the
process's memory without it. Rates are DRF's throttles, each check and count made in one step
(``AtomicRate``); open sockets hold expiring slots, so that a socket of a server that died
frees its slot by itself. The sockets' messages are counted in each process's memory.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import threading
import time
from collections import deque
from types import SimpleNamespace

from django.conf import settings
from django.core.cache import cache
from django.core.cache.backends.redis import RedisCache
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle, UserRateThrottle

log = logging.getLogger(__name__)


class AtomicRate:
    """For DRF's ``SimpleRateThrottle``: a request checked and counted in one step.

    DRF reads a key's history of requests, checks it and writes it back: calls made at the
    same moment all pass on the same read (80 new guests at once from one address, with a
    limit of 30 a minute: 40 were made). In Redis the history is a sorted set that one script
    trims, counts and adds to (``RATE``), one trip instead of two; in a process's memory (no
    Redis, or Redis away) DRF's read and write are made under one lock per process."""

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        return _on_redis(self._allow_in, lambda: self._allow_here(request, view), self.cache)

    def _allow_in(self, client) -> bool:
        # A member of its own for each request: two at the same instant count twice.
        member = f"{self.now!r}:{secrets.token_hex(4)}"
        cutoff = self.now - self.duration
        allowed, self.count, oldest = _script(client, RATE)(
            [self.cache.make_key(f"rate-window:{self.key}")],
            [repr(self.now), repr(cutoff), self.num_requests, member, _expire(self.duration)],
        )
        self.oldest = None if oldest is None else float(oldest)
        return bool(allowed)

    def _allow_here(self, request, view) -> bool:
        with _memory_rates:
            allowed = super().allow_request(request, view)
        self.count = len(self.history)
        self.oldest = self.history[-1] if self.history else None
        return allowed

    def wait(self) -> float | None:
        """DRF's ``wait``: the seconds until the next call may pass, from the calls that count
        and the oldest of them."""
        remaining = (
            self.duration if self.oldest is None else self.duration - (self.now - self.oldest)
        )
        available = self.num_requests - self.count + 1
        return None if available <= 0 else remaining / available


_memory_rates = threading.Lock()


class RateLimit(AtomicRate, SimpleRateThrottle):
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


class AddressRate(AtomicRate, SimpleRateThrottle):
    """A rate per client address, whoever asks, logged in or not (``scope``)."""

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class HintThrottle(AtomicRate, UserRateThrottle):
    """Hints per user (``HINT_RATE``): each runs the kind's strong bot in the request's thread,
    about a tenth of a second of the server's CPU, so a flood of them would hold every other
    request and socket of the process up."""

    scope = "hint"


class HintAddressThrottle(AddressRate):
    """Hints per client address (``HINT_ADDRESS_RATE``): one address's many guests share it."""

    scope = "hint_address"


# ---------------------------------------------------------------------------- socket rates

# Of the sockets of one server process, per kind of message: the most a second from one
# user's sockets together, and from one address's (an empty address is not counted). A
# socket has a limit of its own besides (``games.protocol``): SOCKETS_PER_USER and
# SOCKETS_PER_ADDRESS times it would let a script with many sockets take several cores. The
# reads leave room for every socket a user or an address may open (20, 100) to open at once
# (after a restart) and ask for its three lists.
SHARED_RATES = {
    "move": {"user": 100, "address": 200},
    "read": {"user": 60, "address": 300},
    "write": {"user": 20, "address": 100},
}
FORGET_AFTER = 10_000  # keys counted before those idle for a second are forgotten


def _recent(sent: deque[float], now: float, seconds: float) -> deque[float]:
    while sent and sent[0] <= now - seconds:
        sent.popleft()
    return sent


class SocketRates:
    """One socket's counts of moves, reads and chat lines, and its share of those of its
    user's and its address's sockets in this process (``SHARED_RATES``). The counts are the
    process's own, in its memory: each server process guards its own CPU."""

    shared: dict[tuple, deque[float]] = {}  # (kind, "user" or "address", who): times

    def __init__(self, user_id: int | None, address: str):
        self.own: dict[str, deque[float]] = {}
        self.owners = [("user", user_id)] if user_id is not None else []
        if address:
            self.owners.append(("address", address))

    def over(self, kind: str, most: int, seconds: float = 1.0) -> tuple[str, int] | None:
        """None, and the message counted, if this socket, its user and its address are all
        under their limits for ``kind`` (``most`` in ``seconds`` for the socket); else who is
        over (``socket``, ``user`` or ``address``) and their limit, and nothing counted."""
        now = time.monotonic()
        windows = [(_recent(self.own.setdefault(kind, deque()), now, seconds), "socket", most)]
        limits = SHARED_RATES.get(kind) if settings.SHARED_SOCKET_RATES else None
        if limits:
            shared = self.shared
            if len(shared) > FORGET_AFTER:
                for key in [key for key, sent in shared.items() if not _recent(sent, now, 1)]:
                    del shared[key]
            for owner, who in self.owners:
                sent = _recent(shared.setdefault((kind, owner, who), deque()), now, 1)
                windows.append((sent, owner, limits[owner]))
        for sent, owner, limit in windows:
            if len(sent) >= limit:
                return owner, limit
        for sent, _owner, _limit in windows:
            sent.append(now)
        return None


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
    address's ``SOCKETS_PER_ADDRESS``. The socket's beat renews its slots and closing frees
    them; slots of a socket whose server died expire after ``slot_seconds()``.

    In Redis each owner's slots are one sorted set (its sockets by when their slots expire),
    and claiming, renewing and freeing are each one script, one trip for both owners (every
    due socket's slots in one trip, for the beat). In any other cache, and while Redis is
    away, each slot is a key of its own: ``cache.add`` takes a free one atomically."""

    def __init__(self, channel_name: str, user_id: int, address: str):
        self.channel_name = channel_name
        self.wanted = [
            ("user", str(user_id), settings.SOCKETS_PER_USER),
            ("address", address, settings.SOCKETS_PER_ADDRESS),
        ]
        self.keys: list[str] = []  # the slots' own keys (not in Redis)
        self.sets: list[tuple[str, int]] = []  # the owners' sets in Redis, with their limits

    def claim(self) -> str | None:
        """Take a slot of each kind; None if done, else the kind that is full (nothing held)."""
        wanted = [
            (kind, owner, limit) for kind, owner, limit in self.wanted if limit > 0 and owner
        ]  # (else no limit, or no address known: a Unix socket)
        if not wanted:
            return None
        return _on_redis(lambda client: self._claim_in(client, wanted), lambda: self._claim(wanted))

    def _claim_in(self, client, wanted: list[tuple[str, str, int]]) -> str | None:
        sets = [(cache.make_key(_set_key(kind, owner)), limit) for kind, owner, limit in wanted]
        now, ttl = time.time(), slot_seconds()
        keys = [key for key, _ in sets]
        limits = [limit for _, limit in sets]
        full = _script(client, CLAIM)(
            keys, [self.channel_name, now, now + ttl, _expire(ttl), *limits]
        )
        if full:
            return wanted[int(full) - 1][0]
        self.sets = sets
        return None

    def _claim(self, wanted: list[tuple[str, str, int]]) -> str | None:
        for kind, owner, limit in wanted:
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
        renew_all([self])

    def release(self) -> None:
        keys, self.keys = self.keys, []
        sets, self.sets = self.sets, []
        if sets:
            names = [key for key, _ in sets]
            _on_redis(lambda client: _script(client, RELEASE)(names, [self.channel_name]), list)
        if keys:
            mine = [
                key for key, owner in cache.get_many(keys).items() if owner == self.channel_name
            ]
            if mine:
                cache.delete_many(mine)


def renew_all(every: list[SocketSlots]) -> None:
    """Renew the slots of these sockets: those in Redis in one trip."""
    held = [(slots, key, limit) for slots in every for key, limit in slots.sets]
    ttl = slot_seconds()
    for start in range(0, len(held), RENEWED_AT_ONCE):  # (Redis runs a script alone)
        part = held[start : start + RENEWED_AT_ONCE]
        args = [time.time() + ttl, _expire(ttl)]
        for slots, _, limit in part:
            args += [slots.channel_name, limit]
        keys = [key for _, key, _ in part]
        _on_redis(lambda client, keys=keys, args=args: _script(client, RENEW)(keys, args), list)
    for slots in every:
        for key in slots.keys:
            if not cache.touch(key, ttl):
                # Expired meanwhile (a long pause): take it again if still free.
                cache.add(key, slots.channel_name, ttl)


def _set_key(kind: str, owner: str) -> str:
    digest = hashlib.sha256(owner.encode()).hexdigest()[:32]
    return f"socket-slots:{kind}:{digest}"


def _expire(seconds: float) -> int:
    return max(1, math.ceil(seconds))


# ARGV: the socket's channel, now, when its slots expire, the sets' time to live, and each
# set's limit. Expired slots go first; a set that is full gives back what was taken before.
CLAIM = """
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[2])
  if redis.call('ZCARD', key) >= tonumber(ARGV[4 + i]) then
    for j = 1, i - 1 do redis.call('ZREM', KEYS[j], ARGV[1]) end
    return i
  end
  redis.call('ZADD', key, ARGV[3], ARGV[1])
  redis.call('EXPIRE', key, ARGV[4])
end
return 0
"""
# ARGV: when the slots expire, the sets' time to live, then each key's channel and limit. A
# slot that expired meanwhile (a long pause) is taken again if there is room.
RENEW = """
for i, key in ipairs(KEYS) do
  local channel, limit = ARGV[1 + 2 * i], tonumber(ARGV[2 + 2 * i])
  if redis.call('ZSCORE', key, channel) or redis.call('ZCARD', key) < limit then
    redis.call('ZADD', key, ARGV[1], channel)
    redis.call('EXPIRE', key, ARGV[2])
  end
end
return 0
"""
# ARGV: now, the window's start (older requests no longer count), the limit, this request's
# member, the set's time to live. Returns whether it is allowed, how many count now and the
# oldest of them (its score as text: Lua would cut a number to an integer).
RATE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  allowed = 1
  count = count + 1
end
redis.call('EXPIRE', KEYS[1], ARGV[5])
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {allowed, count, oldest[2] or false}
"""
RENEWED_AT_ONCE = 1000  # slots per script: a few milliseconds of Redis's time
RELEASE = """
for i, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
return 0
"""

_scripts: dict[str, object] = {}  # by source: redis-py's script, run with any client


def _script(client, source: str):
    """``source`` run by ``client`` (redis-py sends its hash, and its text the first time
    the server does not know it). Django's cache makes a client for every call."""
    found = _scripts.get(source)
    if found is None:
        found = _scripts[source] = client.register_script(source)
    return lambda keys, args: found(keys=keys, args=args, client=client)


def _on_redis(use, otherwise, store=None):
    """``use(client)`` with the Redis client when the cache (``store``, else the default
    one) is Redis and reachable, else ``otherwise()`` (``ratumrad_site.cache``: while Redis is
    away, the process's memory)."""
    store = cache if store is None else store
    on_redis = getattr(store, "on_redis", None)
    if on_redis is not None:
        return on_redis(use, otherwise)
    if isinstance(store, RedisCache):
        return use(store._cache.get_client(write=True))
    return otherwise()
