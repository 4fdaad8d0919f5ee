"""The Redis channel layer of the servers (``games.channel_layer``): a group message
reaches the sender's own members without Redis, every other process's members through it,
and each member exactly once.

Two layers stand for two server processes; both talk to the test run's Redis under a prefix
of this test's own.
"""

import asyncio
import os
import secrets
import shutil
import socket

import pytest
import redis
from channels_redis.pubsub import RedisPubSubChannelLayer

from games import broadcast
from games.channel_layer import MARKER, RESUMED, TAG_BYTES, LocalFirstPubSubChannelLayer
from games.redis_publisher import LeanPublisher, RedisAddress, _Connection
from tests.real_server import PrivateRedis

pytestmark = pytest.mark.skipif(
    not os.environ.get("REDIS_URL", "").strip(), reason="the layer talks to Redis"
)

TIMEOUT = 5


@pytest.fixture
async def layers():
    """Two layers on one Redis, as two server processes see it."""
    prefix = f"layer-test-{secrets.token_hex(4)}"
    made = [
        LocalFirstPubSubChannelLayer(hosts=[{"address": os.environ["REDIS_URL"]}], prefix=prefix)
        for _ in range(2)
    ]
    yield made
    for layer in made:
        await layer.flush()


async def member(layer, group: str) -> str:
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    return channel


async def receive(layer, channel: str) -> dict:
    return await asyncio.wait_for(layer.receive(channel), timeout=TIMEOUT)


async def test_a_group_message_reaches_every_member_once_on_both_processes(layers):
    here, there = layers
    local, remote = await member(here, "game-1"), await member(there, "game-1")
    neighbour = await member(here, "game-1")

    await here.group_send("game-1", {"type": "game.update", "seq": 1})
    assert await receive(there, remote) == {"type": "game.update", "seq": 1}
    # Redis has sent its copy to this process too, before the next message: the next thing
    # each local member gets must be the other process's message, not that copy again.
    await there.group_send("game-1", {"type": "game.update", "seq": 2})
    for channel in (local, neighbour):
        assert await receive(here, channel) == {"type": "game.update", "seq": 1}
        assert await receive(here, channel) == {"type": "game.update", "seq": 2}
    assert await receive(there, remote) == {"type": "game.update", "seq": 2}


async def test_the_sender_s_own_members_get_a_group_message_without_redis(layers):
    here, _ = layers
    local = await member(here, "game-2")
    loop_layer = here._get_layer()
    published = []
    stalled = asyncio.get_running_loop().create_future()  # Redis never answers

    def stalled_publish(channel, data):
        published.append((channel, data))
        return stalled

    shard = loop_layer._get_shard(loop_layer._get_group_channel_name("game-2"))
    shard.publish_soon = stalled_publish
    sending = asyncio.create_task(here.group_send("game-2", {"type": "chat.line", "text": "Hoi"}))
    try:
        assert await receive(here, local) == {"type": "chat.line", "text": "Hoi"}
        assert not sending.done()
        # It still goes to Redis for the other processes, tagged as this process's own.
        [(channel, data)] = published
        assert channel.endswith("__group.v2__game-2")
        assert data[:TAG_BYTES] == loop_layer.tag
        assert here.deserialize(data[TAG_BYTES:]) == {"type": "chat.line", "text": "Hoi"}
    finally:
        sending.cancel()


async def test_a_group_message_is_decoded_once_for_all_the_members_of_a_process(
    layers, monkeypatch
):
    here, there = layers
    locals_ = [await member(here, "game-9") for _ in range(3)]
    remotes = [await member(there, "game-9") for _ in range(3)]
    decoded = []
    for layer in layers:
        serializer = layer._serializer
        original = serializer.deserialize

        def counted(message, original=original, layer=layer):
            decoded.append(layer)
            return original(message)

        monkeypatch.setattr(serializer, "deserialize", counted)

    update = {"type": "game.update", "seq": 4, "frames": {"1": "x" * 2000}}
    await here.group_send("game-9", update)
    got_here = [await receive(here, channel) for channel in locals_]
    got_there = [await receive(there, channel) for channel in remotes]
    assert got_here == got_there == [update] * 3
    # Once in each process: here as sent, there as Redis brought it.
    assert decoded.count(here) == 1 and decoded.count(there) == 1
    # The next message, equal but sent anew, is decoded anew.
    await here.group_send("game-9", dict(update))
    assert [await receive(here, channel) for channel in locals_] == [update] * 3
    assert decoded.count(here) == 2


async def test_group_send_soon_hands_the_message_to_local_members_before_it_returns(layers):
    here, there = layers
    local, remote = await member(here, "game-9"), await member(there, "game-9")
    loop_layer = here._get_layer()
    sent = [here.group_send_soon("game-9", {"type": "t", "n": n}) for n in (1, 2)]
    # No await between: the messages wait in the member's queue already.
    queue = loop_layer.channels[local]
    assert [here.deserialize(queue.get_nowait())["n"] for _ in range(2)] == [1, 2]
    await asyncio.wait_for(asyncio.gather(*sent), timeout=TIMEOUT)  # Redis has them
    assert [(await receive(there, remote))["n"] for _ in range(2)] == [1, 2]


async def test_a_broadcast_on_the_event_loop_is_with_this_process_s_sockets_at_once(layers):
    # A move made on the event loop sends its update before its ACK: the mover's and their
    # neighbours' sockets here have it then, not a task later.
    here, there = layers
    local, remote = await member(here, "game-10"), await member(there, "game-10")
    broadcast._start_sending(here, [("game-10", {"type": "game.update", "seq": 4})])
    queue = here._get_layer().channels[local]
    assert here.deserialize(queue.get_nowait()) == {"type": "game.update", "seq": 4}
    assert await receive(there, remote) == {"type": "game.update", "seq": 4}


async def test_a_message_to_a_channel_of_this_process_never_leaves_it(layers):
    here, there = layers
    channel = await here.new_channel()
    loop_layer = here._get_layer()

    async def refused(*args):
        raise AssertionError("published to Redis")

    loop_layer._get_shard(channel).publish = refused
    await here.send(channel, {"type": "test.message", "n": 1})
    assert await receive(here, channel) == {"type": "test.message", "n": 1}
    # From another process it goes through Redis, and arrives without the tag.
    await there.send(channel, {"type": "test.message", "n": 2})
    assert await receive(here, channel) == {"type": "test.message", "n": 2}


async def test_a_process_without_members_of_the_group_only_publishes(layers):
    here, there = layers
    remote = await member(there, "game-3")
    await here.group_send("game-3", {"type": "game.update", "seq": 7})
    assert await receive(there, remote) == {"type": "game.update", "seq": 7}
    assert here._get_layer().groups == {}


def publisher_of(layer, group: str) -> LeanPublisher:
    loop_layer = layer._get_layer()
    publisher = loop_layer._get_shard(loop_layer._get_group_channel_name(group))._publisher
    assert isinstance(publisher, LeanPublisher)  # a redis:// address: served by it
    return publisher


def count_writes(monkeypatch) -> list[int]:
    """The number of commands in each write the publishers make."""
    writes = []
    write = _Connection.write

    def counted(self, batch):
        writes.append(len(batch.futures))
        return write(self, batch)

    monkeypatch.setattr(_Connection, "write", counted)
    return writes


async def test_messages_published_in_one_loop_turn_go_in_one_write_in_order(layers, monkeypatch):
    here, there = layers
    remote = await member(there, "game-4")
    writes = count_writes(monkeypatch)
    await asyncio.gather(*(here.group_send("game-4", {"type": "t", "n": n}) for n in range(100)))
    assert [(await receive(there, remote))["n"] for _ in range(100)] == list(range(100))
    # Made in one turn of the event loop, they went in one write (the connection's first).
    assert writes == [100]
    # Messages of the next turns go in writes of their own, without waiting for the first
    # batch's replies, and reach the other process in the order of the calls.
    writes.clear()
    first = asyncio.create_task(here.group_send("game-4", {"type": "t", "n": 100}))
    await asyncio.sleep(0)  # the write of one leaves
    await asyncio.gather(
        first, *(here.group_send("game-4", {"type": "t", "n": n}) for n in (101, 102))
    )
    assert [(await receive(there, remote))["n"] for _ in range(3)] == [100, 101, 102]
    assert writes == [1, 2]


async def test_a_new_socket_does_not_wait_for_the_messages_being_published(layers, monkeypatch):
    here, _ = layers
    await member(here, "game-5")  # Redis is connected
    stalled = asyncio.Event()
    connect = LeanPublisher._connect

    async def slow(self):
        await stalled.wait()
        return await connect(self)

    monkeypatch.setattr(LeanPublisher, "_connect", slow)
    sending = asyncio.create_task(here.group_send("game-5", {"type": "t"}))
    await asyncio.sleep(0.05)
    assert not sending.done()
    channel = await asyncio.wait_for(here.new_channel(), timeout=2)
    await asyncio.wait_for(here.group_add("game-6", channel), timeout=2)
    stalled.set()
    await asyncio.wait_for(sending, timeout=TIMEOUT)


async def test_a_failed_batch_is_each_senders_error_and_the_next_one_goes(
    layers, monkeypatch, caplog
):
    here, there = layers
    remote = await member(there, "game-7")
    local = await member(here, "game-7")
    publisher = publisher_of(here, "game-7")
    down = [True]
    connect = LeanPublisher._connect
    nowhere = RedisAddress(f"redis://127.0.0.1:{unused_port()}/0")
    real = publisher._address

    async def refused(self):
        self._address = nowhere if down[0] else real
        return await connect(self)

    monkeypatch.setattr(LeanPublisher, "_connect", refused)
    sending = [here.group_send_soon("game-7", {"type": "t", "n": n}) for n in (1, 2)]
    for sent in sending:
        with pytest.raises(redis.ConnectionError):
            await sent
    # group_send tells this process's members and goes on: a socket that opens or closes
    # while Redis is down announces its presence here, and is not refused for it.
    await here.group_send("game-7", {"type": "t", "n": 3})
    assert "game-7 heard only in this process" in caplog.text
    down[0] = False
    await here.group_send("game-7", {"type": "t", "n": 4})
    assert await receive(there, remote) == {"type": "t", "n": 4}
    assert [(await receive(here, local))["n"] for _ in range(4)] == [1, 2, 3, 4]


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again: nothing listens there


async def test_addresses_the_publisher_does_not_serve_publish_through_redis_py_in_order():
    """A host dict with options of its own (as TLS or a sentinel would have) keeps redis-py's
    pipeline: its messages too reach the other process, in order."""
    prefix = f"layer-test-{secrets.token_hex(4)}"
    here, there = (
        LocalFirstPubSubChannelLayer(
            hosts=[{"address": os.environ["REDIS_URL"], "health_check_interval": 0}],
            prefix=prefix,
        )
        for _ in range(2)
    )
    try:
        remote = await member(there, "game-9")
        loop_layer = here._get_layer()
        shard = loop_layer._get_shard(loop_layer._get_group_channel_name("game-9"))
        assert shard._publisher is None
        await asyncio.gather(*(here.group_send("game-9", {"type": "t", "n": n}) for n in range(20)))
        assert [(await receive(there, remote))["n"] for _ in range(20)] == list(range(20))
    finally:
        for layer in (here, there):
            await layer.flush()


async def test_processes_of_the_older_untagged_layer_neither_break_nor_share_groups(layers):
    here, _ = layers
    older = RedisPubSubChannelLayer(
        hosts=[{"address": os.environ["REDIS_URL"]}], prefix=here._kwargs["prefix"]
    )
    try:
        local = await member(here, "game-8")
        old_member = await member(older, "game-8")
        # Its group messages go to channels of another name: tagged payloads, which it could
        # not read, never reach it, and its own never reach this layer's members.
        await here.group_send("game-8", {"type": "t", "n": 1})
        await older.group_send("game-8", {"type": "t", "n": 2})
        assert await receive(older, old_member) == {"type": "t", "n": 2}
        # A payload without a tag is taken as it is. Sent after its group message, on the
        # same connection: had that one reached this layer, it would come first.
        assert here._get_layer().tag[:1] == MARKER
        await older.send(local, {"type": "t", "n": 3})
        assert [(await receive(here, local))["n"] for _ in range(2)] == [1, 3]
    finally:
        await older.flush()


# ---------------------------------------------------------------------------- Redis away


@pytest.fixture
def broker(tmp_path):
    """A Redis of this test's own, which it kills and starts again."""
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server")
    with PrivateRedis(tmp_path) as private:
        yield private


@pytest.fixture
async def broken_layers(broker):
    """Two layers, as two server processes see it, on the test's own Redis."""
    made = [
        LocalFirstPubSubChannelLayer(hosts=[{"address": broker.url}], prefix="outage")
        for _ in range(2)
    ]
    yield made
    for layer in made:
        await layer.flush()


async def test_while_redis_is_down_sockets_open_and_hear_their_own_process(broken_layers, broker):
    here, there = broken_layers
    before = await member(here, "game-1")
    await member(there, "game-1")
    broker.kill()
    # A new socket: its channel, its group, its presence announced; nothing raises.
    during = await asyncio.wait_for(member(here, "game-1"), TIMEOUT)
    await asyncio.wait_for(here.group_send("game-1", {"type": "t", "n": 1}), TIMEOUT)
    assert await receive(here, before) == {"type": "t", "n": 1}
    assert await receive(here, during) == {"type": "t", "n": 1}
    await asyncio.wait_for(here.group_discard("game-1", during), TIMEOUT)


async def test_when_redis_is_back_sockets_hear_of_it_and_the_first_broadcast_goes_out(
    broken_layers, broker
):
    here, there = broken_layers
    local, remote = await member(here, "game-2"), await member(there, "game-2")
    await here.group_send("game-2", {"type": "t", "n": 0})  # a pooled connection in use
    assert await receive(there, remote) == {"type": "t", "n": 0}
    assert await receive(here, local) == {"type": "t", "n": 0}

    broker.kill()
    joined_meanwhile = await member(there, "game-2")
    await asyncio.sleep(0.3)  # both processes have noticed
    broker.start()
    # Each layer renews its subscriptions, those made while Redis was away too, and then
    # tells every socket of its process: the updates published meanwhile are lost.
    for layer, channel in ((here, local), (there, remote), (there, joined_meanwhile)):
        assert await receive(layer, channel) == RESUMED
    # The first broadcast of each process after the return goes out (a pooled connection
    # that Redis had closed is opened again) and reaches the other process's members.
    await asyncio.wait_for(here.group_send_soon("game-2", {"type": "t", "n": 1}), TIMEOUT)
    assert await receive(there, remote) == {"type": "t", "n": 1}
    assert await receive(there, joined_meanwhile) == {"type": "t", "n": 1}
    await asyncio.wait_for(there.group_send_soon("game-2", {"type": "t", "n": 2}), TIMEOUT)
    assert [(await receive(here, local))["n"] for _ in range(2)] == [1, 2]


async def test_each_websocket_test_has_a_redis_prefix_of_its_own(settings):
    """``isolated_sockets`` gives the test its own prefix on Redis: what other runs and
    servers publish to the lobby group (under the site's prefix) does not reach it."""
    from channels.layers import get_channel_layer

    from tests.ws_helpers import isolated_sockets

    site_prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    fixture = isolated_sockets.__wrapped__(settings)
    await anext(fixture)
    try:
        prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
        assert prefix != site_prefix and prefix.startswith("ratumrad-test-")
        assert (await get_channel_layer().new_channel()).startswith(prefix)
    finally:
        await fixture.aclose()
