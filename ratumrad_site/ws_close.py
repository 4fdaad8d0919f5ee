"""Close codes of RFC 6455 such as 1011 (Internal Error), sent through daphne.

daphne closes a socket with autobahn's ``sendClose``, which takes only 1000 and 3000-4999
(the codes an application picks for itself) and raised "invalid close code 1011": the
client saw the connection end with 1000 instead. The protocol (docs/protocol.md) closes a
socket that the server failed to open with 1011. Here every code that autobahn accepts in a
close frame it receives (its ``CLOSE_STATUS_CODES_ALLOWED``: 1000-1003 and 1007-1013) goes
out as the close frame itself, the rest as before.
"""

from __future__ import annotations

from autobahn.websocket.protocol import WebSocketProtocol as _Autobahn
from daphne.ws_protocol import WebSocketProtocol

_daphne_server_close = WebSocketProtocol.serverClose


def server_close(self: WebSocketProtocol, code: int | None = None) -> None:
    if code is not None and code != 1000 and code in _Autobahn.CLOSE_STATUS_CODES_ALLOWED:
        self.sendCloseFrame(code=code, isReply=False)
        return
    _daphne_server_close(self, code)


def install() -> None:
    """Let daphne's sockets close with RFC 6455's codes (idempotent)."""
    WebSocketProtocol.serverClose = server_close
