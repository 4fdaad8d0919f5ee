"""The channel layer's subscriber (``games.redis_subscriber``) and the shard that renews its
subscriptions (``games.redis_shards.LeanShard``), against a small Redis of the test's own
(``tests.fake_redis``) that answers, stalls, refuses or hangs up as each test asks.

The layer's own tests (tests/test_channel_layer.py) run both against the real Redis.
"""

import asyncio
import socket

import pytest
import redis

from games import redis_shards
from games.channel_layer import RESUMED, LocalFirstPubSubChannelLayer
from games.redis_publisher import RedisAddress
from games.redis_shards import LeanShard
from games.redis_subscriber import SubscriberConnection

TIMEOUT = 5


def bulk(part: bytes) -> bytes:
    return b"$%d\r\n%s\r\n" % (len(part), part)


def message(channel: bytes, data: bytes) -> bytes:
    return b"*3\r\n" + bulk(b"message") + bulk(channel) + bulk(data)


def answers(password: bytes | None = None, silent_pings: set[int] = frozenset()):
    """Redis's replies to a subscriber; no reply to PING on the connections named."""

    def answer(command, number):
        name = command[0].upper()
        if name == b"AUTH":
            return b"+OK\r\n" if command[-1] == password else b"-WRONGPASS invalid password\r\n"
        if name in (b"SUBSCRIBE", b"UNSUBSCRIBE"):
            kind = name.lower()
            return b"".join(
                b"*3\r\n" + bulk(kind) + bulk(channel) + b":%d\r\n" % n
                for n, channel in enumerate(command[1:], 1)
            )
        if name == b"PING":
            return None if number in silent_pings else b"*2\r\n" + bulk(b"pong") + bulk(b"")
        return b"-ERR unknown command\r\n"

    return answer


class Heard:
    """What a connection handed on: its messages, and whether it was lost."""

    def __init__(self) -> None:
        self.messages: list[tuple[bytes, bytes]] = []
        self.lost: list[BaseException] = []
        self.arrived = asyncio.Event()

    def on_message(self, channel: bytes, data: bytes) -> None:
        self.messages.append((channel, data))
        self.arrived.set()

    def on_lost(self, connection, error: BaseException) -> None:
        self.lost.append(error)
        self.arrived.set()

    async def until(self, condition) -> None:
        async with asyncio.timeout(TIMEOUT):
            while not condition():
                self.arrived.clear()
                await self.arrived.wait()


async def opened(server, heard: Heard, url: str | None = None, timeout: float = TIMEOUT):
    return await SubscriberConnection.open(
        RedisAddress(url or server.url()), heard.on_message, heard.on_lost, timeout
    )


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again: nothing listens there


async def test_messages_are_handed_on_whole_and_in_order_however_they_arrive(fake):
    server = await fake(answers())
    heard = Heard()
    connection = await opened(server, heard)
    connection.subscribe("game-1", "game-2")
    await asyncio.wait_for(connection.ping(), TIMEOUT)
    assert server.commands == [(1, [b"SUBSCRIBE", b"game-1", b"game-2"]), (1, [b"PING"])]
    big = bytes(range(256)) * 4096  # 1 MiB, every byte value, CR LF included
    server.push(1, message(b"game-1", b"a") + message(b"game-2", b"b") + message(b"game-1", big))
    # One message in two pieces, cut inside its data.
    split = message(b"game-2", b"the last one")
    server.push(1, split[:30])
    await asyncio.sleep(0.05)
    server.push(1, split[30:])
    await heard.until(lambda: len(heard.messages) == 4)
    assert heard.messages == [
        (b"game-1", b"a"),
        (b"game-2", b"b"),
        (b"game-1", big),
        (b"game-2", b"the last one"),
    ]
    connection.unsubscribe("game-2")
    await asyncio.wait_for(connection.ping(), TIMEOUT)
    assert server.commands[-2] == (1, [b"UNSUBSCRIBE", b"game-2"])
    assert heard.lost == []
    connection.close()


async def test_the_password_goes_first_and_a_refused_one_is_a_connection_error(fake):
    server = await fake(answers(password=b"secret"))
    connection = await opened(server, Heard(), server.url("lea:secret@"))
    assert server.commands == [(1, [b"AUTH", b"lea", b"secret"])]
    connection.close()
    with pytest.raises(redis.AuthenticationError, match="refused the password"):
        await opened(server, Heard(), server.url(":wrong@"))
    assert issubclass(redis.AuthenticationError, redis.ConnectionError)  # the layer's UNREACHABLE


async def test_an_unreachable_redis_and_a_silent_one_fail_in_time(fake):
    with pytest.raises(redis.ConnectionError, match="cannot be reached"):
        await SubscriberConnection.open(
            RedisAddress(f"redis://127.0.0.1:{unused_port()}/0"), None, None, TIMEOUT
        )
    silent = await fake(lambda command, number: None)
    with pytest.raises(redis.TimeoutError):
        await opened(silent, Heard(), silent.url(":secret@"), timeout=0.2)


async def test_a_hang_up_is_told_once_and_a_close_not_at_all(fake):
    server = await fake(lambda command, number: "close" if command[0] == b"PING" else None)
    heard = Heard()
    connection = await opened(server, heard)
    answered = connection.ping()
    with pytest.raises(redis.ConnectionError):
        await asyncio.wait_for(answered, TIMEOUT)
    await heard.until(lambda: heard.lost)
    await asyncio.sleep(0.05)
    assert len(heard.lost) == 1 and isinstance(heard.lost[0], redis.ConnectionError)
    with pytest.raises(redis.ConnectionError):
        connection.subscribe("game-1")  # nothing is written to a closed connection

    closed = Heard()
    connection = await opened(server, closed)
    waiting = connection.ping()
    connection.close()
    with pytest.raises(redis.ConnectionError):
        await waiting
    await asyncio.sleep(0.05)
    assert closed.lost == []


@pytest.mark.parametrize(
    "sent", [b"?what\r\n", b"-ERR nobody asked\r\n", b"+OK\r\n"], ids=["garbage", "error", "reply"]
)
async def test_what_redis_should_not_send_closes_the_connection(fake, sent):
    server = await fake(answers())
    heard = Heard()
    connection = await opened(server, heard)
    connection.subscribe("game-1")
    server.push(1, sent + message(b"game-1", b"after"))
    await heard.until(lambda: heard.lost)
    assert isinstance(heard.lost[0], redis.ConnectionError)
    assert heard.messages == []  # nothing is read after it
    assert connection.lost


# ---------------------------------------------------------------------------- the shard


@pytest.fixture
def quick_renewal(monkeypatch):
    monkeypatch.setattr(redis_shards, "RECONNECT_PAUSE", 0.05)
    monkeypatch.setattr(redis_shards, "CONFIRM_TIMEOUT", 0.3)


async def test_a_renewal_redis_does_not_confirm_is_tried_again_on_a_new_connection(
    fake, quick_renewal
):
    server = await fake(answers(silent_pings={2}))
    layer = LocalFirstPubSubChannelLayer(hosts=[{"address": server.url()}], prefix="fake")
    try:
        channel = await layer.new_channel()
        await layer.group_add("game-1", channel)
        loop_layer = layer._get_layer()
        group = loop_layer._get_group_channel_name("game-1")
        assert isinstance(loop_layer._get_shard(group), LeanShard)
        await server.received(2)
        assert [command for _, command in server.commands] == [
            [b"SUBSCRIBE", channel.encode()],
            [b"SUBSCRIBE", group.encode()],
        ]
        server.writers[1].close()  # Redis restarts
        # The first new connection subscribes again but never confirms it: after
        # CONFIRM_TIMEOUT the shard gives it up and the next one does.
        resumed = await asyncio.wait_for(layer.receive(channel), TIMEOUT)
        assert resumed == RESUMED
        assert server.connections == 3
        renewals = [[command for number, command in server.commands if number == n] for n in (2, 3)]
        for commands in renewals:
            assert commands[-1] == [b"PING"]
            assert sorted(commands[0][1:]) == sorted([channel.encode(), group.encode()])
        # The renewed connection carries the other processes' messages.
        server.push(3, message(group.encode(), layer.serialize({"type": "t", "n": 1})))
        assert await asyncio.wait_for(layer.receive(channel), TIMEOUT) == {"type": "t", "n": 1}
        await layer.group_discard("game-1", channel)
        await server.received(len(server.commands) + 1)
        assert server.commands[-1] == (3, [b"UNSUBSCRIBE", group.encode()])
    finally:
        await layer.flush()


async def test_a_shard_flushed_while_redis_is_away_stops_trying(fake, quick_renewal):
    server = await fake(answers())
    layer = LocalFirstPubSubChannelLayer(hosts=[{"address": server.url()}], prefix="fake")
    channel = await layer.new_channel()
    await server.stop()  # Redis goes away
    shard = layer._get_layer()._get_shard(channel)
    async with asyncio.timeout(TIMEOUT):
        while shard._renewer is None:
            await asyncio.sleep(0.01)
    await layer.flush()
    assert (shard._renewer, shard._connection, shard._lost) == (None, None, False)
    await asyncio.sleep(0.2)
    assert server.connections == 1
