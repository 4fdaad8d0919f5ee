"""One frame for many sockets (``games.fanout``): the bytes a real websocket client reads as
the text that was sent, for every length class of RFC 6455's header, and a consumer that
daphne does not serve gets the text through its own ``send``."""

import functools
from collections import deque
from types import SimpleNamespace

import pytest
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol
from websockets.frames import Frame as ParsedFrame
from websockets.frames import Opcode
from websockets.streams import StreamReader

from games.fanout import Frame, text_frame


def parse(data: bytes) -> ParsedFrame:
    """One server frame, parsed as a client parses it (unmasked, nothing left over)."""
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    parser = ParsedFrame.parse(reader.read_exact, mask=False, max_size=None)
    try:
        next(parser)
    except StopIteration as done:
        assert not reader.buffer
        return done.value
    raise AssertionError("the frame is incomplete")


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_a_frame_is_a_final_unmasked_text_frame_of_the_text(size):
    text = ("Spalenberg ä €" * (size // 16 + 1))[:size]
    frame = parse(text_frame(text.encode()))
    assert (frame.opcode, frame.fin, frame.rsv1) == (Opcode.TEXT, True, False)
    assert frame.data.decode() == text


def test_the_length_takes_the_shortest_header():
    assert len(text_frame(b"x" * 125)) == 2 + 125
    assert len(text_frame(b"x" * 126)) == 4 + 126
    assert len(text_frame(b"x" * 65536)) == 10 + 65536


def test_a_consumer_without_daphne_behind_it_is_left_to_its_own_send():
    # As the tests' communicator runs a consumer: no daphne behind ``base_send``.
    sent: list = []
    communicator = SimpleNamespace(base_send=functools.partial(sent.append))
    assert Frame("{}").write(communicator) is False
    assert Frame("{}").write(object()) is False
    assert sent == []


def test_a_frame_is_framed_once_for_all_its_sockets():
    frame = Frame('{"type": "CHAT"}')
    assert frame.framed() is frame.framed()


class Transport:
    def __init__(self):
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)


def daphne_socket(max_frame: int = 0):
    """A consumer as daphne serves it: ``base_send`` is the server's ``handle_reply`` bound
    to the socket's autobahn protocol (open, plain, nothing queued)."""
    server = Server.__new__(Server)  # (its __init__ wants endpoints to listen on)
    server.connections = {}
    protocol = WebSocketProtocol.__new__(WebSocketProtocol)
    protocol.state = WebSocketProtocol.STATE_OPEN
    protocol.send_queue = deque()
    protocol._perMessageCompress = None
    protocol.autoFragmentSize = 0
    protocol.maxMessagePayloadSize = max_frame
    protocol.transport = Transport()
    server.connections[protocol] = {}
    consumer = SimpleNamespace(base_send=functools.partial(server.handle_reply, protocol))
    return consumer, protocol, server


def test_a_plain_socket_gets_the_bytes_as_long_as_it_is_open_and_nothing_waits():
    consumer, protocol, server = daphne_socket()
    first, second = Frame('{"n": 1}'), Frame('{"n": 2}')
    assert first.write(consumer) is True
    protocol.send_queue.append(b"autobahn's own")  # its frames go first: through send
    assert second.write(consumer) is False
    protocol.send_queue.clear()
    assert second.write(consumer) is True
    protocol.state = WebSocketProtocol.STATE_CLOSING  # closing: through send
    assert Frame("{}").write(consumer) is False
    protocol.state = WebSocketProtocol.STATE_CLOSED  # gone, as daphne tells: nothing
    server.connections[protocol]["disconnected"] = True
    assert Frame("{}").write(consumer) is True
    assert [parse(data).data for data in protocol.transport.written] == [b'{"n": 1}', b'{"n": 2}']


def test_a_frame_longer_than_autobahn_sends_whole_goes_through_send():
    consumer, protocol, _ = daphne_socket(max_frame=64)
    assert Frame("x" * 40).write(consumer) is True
    assert Frame("x" * 80).write(consumer) is False
    assert [len(data) for data in protocol.transport.written] == [42]


def test_a_compressed_socket_always_goes_through_send():
    consumer, protocol, _ = daphne_socket()
    protocol._perMessageCompress = object()
    assert Frame("{}").write(consumer) is False
    protocol._perMessageCompress = None  # (it cannot change once open; the answer is kept)
    assert Frame("{}").write(consumer) is False
    assert protocol.transport.written == []


async def test_a_sockets_texts_go_straight_to_its_connection_and_the_rest_through_daphne():
    from games.protocol import ProtocolConsumer

    class Recording(Server):
        async def handle_reply(self, protocol, message):
            self.replies.append(message)

    _, protocol, _ = daphne_socket()
    server = Recording.__new__(Recording)
    server.connections, server.replies = {protocol: {}}, []
    socket = ProtocolConsumer.__new__(ProtocolConsumer)
    socket.base_send = functools.partial(server.handle_reply, protocol)
    await socket.send(text_data='{"type": "PONG"}')
    await socket.send(bytes_data=b"\x00")
    protocol.state = WebSocketProtocol.STATE_CLOSING
    await socket.send(text_data='{"type": "BYE"}')
    assert [parse(data).data for data in protocol.transport.written] == [b'{"type": "PONG"}']
    assert server.replies == [
        {"type": "websocket.send", "bytes": b"\x00"},
        {"type": "websocket.send", "text": '{"type": "BYE"}'},
    ]
