"""daphne on uvloop: ``python -m ratumrad_site.serve`` takes daphne's arguments.

daphne runs Twisted on an asyncio event loop, which it makes when ``daphne.server`` is
imported: uvloop's policy is set before that. uvloop's loop runs the same callbacks with less
of the loop's own work per socket event, the most of a busy server's time after the moves.
Its TCP connections send what they are given at once (``ratumrad_site.eager_write``), and
its sockets may close with RFC 6455's codes such as 1011 (``ratumrad_site.ws_close``), and
autobahn formats its debug lines only when they are logged (``ratumrad_site.ws_debug``), and
a socket's frames are read no faster than the site takes them (``ratumrad_site.ws_inflow``),
and an HTTP request's body is left to Django and refused early when too large
(``ratumrad_site.http_inflow``).

What the server has loaded before it serves is set aside from the garbage collector
(:class:`SettledServer`).
"""

from __future__ import annotations

import asyncio
import gc

try:
    import uvloop
except ImportError:  # uvloop is not installed on Windows: asyncio's own loop there
    uvloop = None

if uvloop is not None:
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

from daphne.cli import CommandLineInterface  # after the policy, see above
from daphne.server import Server

from ratumrad_site import eager_write, http_inflow, ws_close, ws_debug, ws_inflow


class SettledServer(Server):
    """daphne's server, which loads every game and freezes the heap before it serves.

    A full collection looks at every object the collector tracks. With Django, daphne and
    the games loaded, that took a server 95-100 ms under load, in which it answered no one.
    The modules, classes and tables loaded at start live as long as the process, so they
    are loaded here and moved to the collector's permanent generation (``gc.freeze``); a
    full collection then looks only at what was made since.
    """

    def run(self) -> None:
        settle()
        super().run()


def settle() -> None:
    from django.urls import get_resolver

    from games import registry

    for kind in registry.KINDS.values():
        kind.engine, kind.glue  # noqa: B018 - loaded for their side effect
    get_resolver().url_patterns  # noqa: B018 - the URLconf, imported on first use
    gc.collect()
    gc.freeze()


class CommandLine(CommandLineInterface):
    server_class = SettledServer

    def __init__(self) -> None:
        super().__init__()
        # daphne's default is 1 MiB: what a socket has waiting stays small (ws_inflow).
        self.parser.set_defaults(
            websocket_max_message_size=ws_inflow.MAX_MESSAGE_BYTES,
            websocket_max_frame_size=ws_inflow.MAX_MESSAGE_BYTES,
        )


def main() -> None:
    eager_write.install()
    http_inflow.install()
    ws_close.install()
    ws_debug.install()
    ws_inflow.install()
    CommandLine.entrypoint()


if __name__ == "__main__":
    main()
