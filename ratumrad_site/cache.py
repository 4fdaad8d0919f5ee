"""The Django cache in Redis, which goes on in each process's memory while Redis is away.

The rate limits keep their counters in the default cache (``CACHES`` in settings.py), and
so do the expensive results worth sharing between processes (Road to 300's strong bot
score). Django's ``RedisCache`` raised for every call while Redis was down: a new guest, a
login, a game's last move answered 500.

Here a call that cannot reach Redis goes to a cache in this process's memory instead, with
one logged warning per outage: rate limits keep holding, counted per process (each allows
the full rate), until Redis is back. For ``RETRY_SECONDS`` after a failure calls go straight
to memory, so that a Redis that does not answer at all costs each request at most one
connection timeout. A connection that Redis closed (a restart) is opened again and the call
tried once more (redis-py's ``Retry``), so the first call after Redis returns reaches it.

Django makes a cache object for every thread and every asyncio task: every HTTP request and
every socket. All of a process's share one client and its pool of connections to Redis;
each had opened a connection of its own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import cached_property
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

log = logging.getLogger(__name__)

UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)
RETRY_SECONDS = 1.0
# The connection pool's options unless CACHES gives its own: one retry on a fresh connection,
# and no call that waits for an unreachable Redis longer than a second or two.
POOL_OPTIONS = {
    "retry": Retry(NoBackoff(), 1),
    "socket_connect_timeout": 1.0,
    "socket_timeout": 2.0,
}

# Per process, not per thread: Django makes a cache object for every thread.
_down_since: dict[str, float] = {}
_retry_at: dict[str, float] = {}
_state_lock = threading.Lock()
# The clients, each with its pool of connections, by location and options: one per process.
_clients: dict[tuple[str, str], Any] = {}


class ResilientRedisCache(RedisCache):
    """``RedisCache`` with a per-process memory cache for the calls Redis cannot take."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = {**POOL_OPTIONS, **params.get("OPTIONS", {})}
        super().__init__(server, {**params, "OPTIONS": options})
        self._location = server if isinstance(server, str) else ",".join(server)
        local = {key: value for key, value in params.items() if key != "OPTIONS"}
        # LocMemCache shares its store between the objects of one name: every thread's.
        self._local = LocMemCache(f"redis-fallback:{self._location}", local)

    @cached_property
    def _cache(self):
        # Django makes a cache object for every thread and every asyncio task (an HTTP
        # request, a socket), and each made its own pool: a new connection to Redis for
        # every request and socket that used the cache. Redis's pools are thread-safe.
        key = (self._location, repr(sorted(self._options.items())))
        with _state_lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = self._class(self._servers, **self._options)
        return client

    # ------------------------------------------------------------------ state

    def _redis_allowed(self) -> bool:
        return time.monotonic() >= _retry_at.get(self._location, 0.0)

    def _failed(self, error: BaseException) -> None:
        with _state_lock:
            _retry_at[self._location] = time.monotonic() + RETRY_SECONDS
            first = self._location not in _down_since
            _down_since.setdefault(self._location, time.monotonic())
        if first:
            log.warning(
                "Redis cache unreachable (%s): rate limits count in this process's memory"
                " until it is back",
                error,
            )

    def _succeeded(self) -> None:
        if self._location not in _down_since:
            return
        with _state_lock:
            since = _down_since.pop(self._location, None)
            _retry_at.pop(self._location, None)
        if since is not None:
            log.warning("Redis cache reachable again after %.1f s", time.monotonic() - since)

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        redis = super()
        return self._redis_or(
            lambda: getattr(redis, name)(*args, **kwargs),
            lambda: getattr(self._local, name)(*args, **kwargs),
        )

    def on_redis(self, use: Callable[[Any], Any], otherwise: Callable[[], Any]) -> Any:
        """``use(client)`` with Redis's own client (for what the cache API has no call for),
        or ``otherwise()`` while Redis is away, as every call of the cache."""
        return self._redis_or(lambda: use(self._cache.get_client(write=True)), otherwise)

    def _redis_or(self, call: Callable[[], Any], otherwise: Callable[[], Any]) -> Any:
        """``call()`` on Redis, or ``otherwise()`` while Redis is away or once it failed."""
        if self._redis_allowed():
            try:
                result = call()
            except UNREACHABLE as error:
                self._failed(error)
            else:
                self._succeeded()
                return result
        return otherwise()

    @property
    def redis_down(self) -> bool:
        """Whether this process's last call found Redis unreachable."""
        return self._location in _down_since

    def ping(self) -> bool:
        """Ask Redis itself (never the memory cache) whether it answers."""
        try:
            ok = bool(self._cache.get_client(write=True).ping())
        except UNREACHABLE as error:
            self._failed(error)
            return False
        self._succeeded()
        return ok

    # ------------------------------------------------------------------ the cache API

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("add", key, value, timeout, version)

    def get(self, key, default=None, version=None):
        return self._call("get", key, default, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("set", key, value, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("touch", key, timeout, version)

    def delete(self, key, version=None):
        return self._call("delete", key, version)

    def get_many(self, keys, version=None):
        return self._call("get_many", keys, version)

    def has_key(self, key, version=None):
        return self._call("has_key", key, version)

    def incr(self, key, delta=1, version=None):
        return self._call("incr", key, delta, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("set_many", data, timeout, version)

    def delete_many(self, keys, version=None):
        return self._call("delete_many", keys, version)

    def clear(self):
        self._local.clear()
        return self._call("clear")
