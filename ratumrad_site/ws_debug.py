"""autobahn's debug lines, formatted only when they are logged.

autobahn pretty-prints a debug line as every websocket connects (the protocol's 29 options,
``pprint.pformat``) and hands it to its logger, which drops it unless debug is on: 0.13 ms of
the server's CPU per socket, every page that opens one. Here autobahn's ``pformat`` returns
an object that formats itself when the logger writes it, and not before.

Its debug lines also name the method and the peer in colour (``hltype``, ``hlval``: the
method's module looked up, ANSI codes made by ``click``), for every chunk of data a socket
receives (each move) and sends itself, and as it connects and closes: 9 µs each time. Those
are deferred the same way.
"""

from __future__ import annotations

import functools
import pprint

from autobahn import util
from autobahn.twisted import websocket as twisted_websocket
from autobahn.websocket import protocol


class Later:
    """``function(*args)``, called when the value is first written out."""

    __slots__ = ("args", "function")

    def __init__(self, function, *args: object) -> None:
        self.function, self.args = function, args

    def __str__(self) -> str:
        return self.function(*self.args)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def later(function):
    """``function``, whose result is made when it is written out (a debug line's value)."""

    @functools.wraps(function)
    def deferred(*args: object) -> Later:
        return Later(function, *args)

    return deferred


def _pformat(value: object) -> str:
    return pprint.pformat(value)  # looked up when called: a test may count its calls


# ``pprint.pformat(value)``, made when it is first written out (autobahn's ``pformat``).
Deferred = later(_pformat)


def _timings_text(self: protocol.Timings) -> str:
    return pprint.pformat(self._timings)  # ``str()`` must give a string: made at once here


def install() -> None:
    """Defer autobahn's debug formatting in this process (idempotent)."""
    protocol.pformat = Deferred
    protocol.Timings.__str__ = _timings_text
    # Only its debug lines' values use these names in the two modules.
    for module in (protocol, twisted_websocket):
        module.hltype, module.hlval = later(util.hltype), later(util.hlval)
