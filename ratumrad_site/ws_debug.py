"""autobahn's debug lines, formatted only when they are logged.

autobahn pretty-prints a debug line as every websocket connects (the protocol's 29 options,
``pprint.pformat``) and hands it to its logger, which drops it unless debug is on: 0.13 ms of
the server's CPU per socket, every page that opens one. Here autobahn's ``pformat`` returns
an object that formats itself when the logger writes it, and not before.
"""

from __future__ import annotations

import pprint

from autobahn.websocket import protocol


class Deferred:
    """``pprint.pformat(value)``, made when it is first written out."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __str__(self) -> str:
        return pprint.pformat(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def _timings_text(self: protocol.Timings) -> str:
    return pprint.pformat(self._timings)  # ``str()`` must give a string: made at once here


def install() -> None:
    """Defer autobahn's debug formatting in this process (idempotent)."""
    protocol.pformat = Deferred
    protocol.Timings.__str__ = _timings_text
