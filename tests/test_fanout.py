"""One frame for many sockets (``games.fanout``): the bytes a real websocket client reads as
the text that was sent, for every length class of RFC 6455's header, and a consumer that
daphne does not serve gets the text through its own ``send``."""

import functools
from types import SimpleNamespace

import pytest
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
