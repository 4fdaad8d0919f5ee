"""Calls made at the same moment, for the tests of what must count each of them."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor


class SlowReads:
    """The cache, its reads taking a while: calls made at once all read before one writes."""

    def __init__(self, store):
        self.store = store

    def get(self, key, default=None):
        found = self.store.get(key, default)
        time.sleep(0.02)
        return found

    def __getattr__(self, name):
        return getattr(self.store, name)


def at_once(calls: int, call) -> list:
    """``call()`` in ``calls`` threads, started together."""
    start = threading.Barrier(calls)

    def one(_):
        start.wait()
        return call()

    with ThreadPoolExecutor(calls) as pool:
        return list(pool.map(one, range(calls)))
