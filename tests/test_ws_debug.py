"""autobahn's debug lines are formatted only when logged (``ratumrad_site.ws_debug``)."""

from __future__ import annotations

import pprint
import string

import pytest
from autobahn import util
from autobahn.twisted import websocket as twisted_websocket
from autobahn.twisted.websocket import WebSocketServerFactory, WebSocketServerProtocol
from autobahn.websocket import protocol
from twisted.internet.testing import StringTransport

from ratumrad_site import ws_debug


@pytest.fixture
def installed(monkeypatch):
    monkeypatch.setattr(protocol, "pformat", protocol.pformat)  # both undone afterwards
    monkeypatch.setattr(protocol.Timings, "__str__", protocol.Timings.__str__)
    for module in (protocol, twisted_websocket):
        monkeypatch.setattr(module, "hltype", module.hltype)
        monkeypatch.setattr(module, "hlval", module.hlval)
    ws_debug.install()


def counting(monkeypatch, owner: object, name: str) -> tuple[list, object]:
    """``owner.name`` replaced by itself noting its first argument at every call: the notes,
    and the counting function."""
    made: list = []
    original = getattr(owner, name)

    def counted(value, *args, **kwargs):
        made.append(value)
        return original(value, *args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return made, counted


@pytest.fixture
def highlighted(monkeypatch) -> list[str]:
    """Every text autobahn's debug lines colour from now on (``autobahn.util.hl``)."""
    return counting(monkeypatch, util, "hl")[0]


@pytest.fixture
def formatted(monkeypatch) -> list[object]:
    """Every value pretty-printed from now on."""
    pformat = pprint.pformat
    made, counted = counting(monkeypatch, pprint, "pformat")
    if protocol.pformat is pformat:  # autobahn's own name for it, unless deferred
        monkeypatch.setattr(protocol, "pformat", counted)
    return made


def connect() -> WebSocketServerProtocol:
    factory = WebSocketServerFactory()
    factory.protocol = WebSocketServerProtocol  # as daphne's factory makes its sockets
    socket = factory.buildProtocol(None)
    socket.makeConnection(StringTransport())
    return socket


def test_a_socket_that_connects_formats_no_debug_line_that_is_not_logged(installed, formatted):
    socket = connect()
    assert socket.state == protocol.WebSocketProtocol.STATE_CONNECTING
    assert socket.openHandshakeTimeout == WebSocketServerFactory().openHandshakeTimeout
    assert formatted == []


def test_without_it_every_connecting_socket_formats_its_options(formatted):
    connect()
    assert len(formatted) == 1 and "openHandshakeTimeout" in str(formatted[0])


def test_a_deferred_line_reads_as_autobahn_formats_it_once_written(installed, formatted):
    options = [("autoPingInterval", 0, "Factory"), ("maxFramePayloadSize", 0, "Factory")]
    line = protocol.pformat(options)
    assert formatted == []
    assert str(line) == f"{line}" == pprint.pformat(options)
    # As the logger writes it (twisted.logger formats the event with string.Formatter).
    assert string.Formatter().format("\n{attrs}", attrs=line) == "\n" + pprint.pformat(options)
    timings = protocol.Timings()
    timings.track("onOpen")
    assert str(timings) == pprint.pformat(timings._timings) and "onOpen" in str(timings)


HANDSHAKE = (
    b"GET /ws/lobby/ HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
    b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    b"Sec-WebSocket-Version: 13\r\n\r\n"
)


def test_a_socket_s_data_in_and_out_colours_no_debug_value_that_is_not_logged(
    installed, highlighted
):
    socket = connect()
    socket.dataReceived(HANDSHAKE)  # received, and the handshake's answer sent
    assert socket.state == protocol.WebSocketProtocol.STATE_OPEN
    assert b"101 Switching Protocols" in socket.transport.value()
    assert highlighted == []


def test_without_it_every_chunk_received_colours_its_debug_values(highlighted):
    socket = connect()
    socket.dataReceived(HANDSHAKE)
    assert any("dataReceived" in text for text in highlighted)


def test_a_deferred_value_reads_as_autobahn_colours_it(installed, highlighted):
    value = twisted_websocket.hltype(WebSocketServerProtocol.dataReceived)
    peer = protocol.hlval("tcp:127.0.0.1:5000")
    assert highlighted == []
    assert str(value) == util.hltype(WebSocketServerProtocol.dataReceived)
    assert f"{peer}" == util.hlval("tcp:127.0.0.1:5000")
