"""The event loop of this server process, for work that its worker threads hand to it.

Noted by the first connection (``games.sweeper.SweeperMiddleware``). Outside a server (a
management command, a test without sockets) there is none, and callers do the work where
they are.
"""

from __future__ import annotations

import asyncio

_server: dict[str, asyncio.AbstractEventLoop | None] = {"loop": None}


def get() -> asyncio.AbstractEventLoop | None:
    """The event loop of this server process, if it still runs."""
    loop = _server["loop"]
    return loop if loop is not None and loop.is_running() and not loop.is_closed() else None


def note(loop: asyncio.AbstractEventLoop) -> None:
    _server["loop"] = loop
