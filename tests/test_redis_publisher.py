"""The channel layer's publisher (``games.redis_publisher``), against a small Redis of the
test's own (``tests.fake_redis``) that answers, stalls, refuses or hangs up as each test asks.

The layer's own tests (tests/test_channel_layer.py) run it against the real Redis.
"""

import asyncio

import pytest
import redis

from games.redis_publisher import LeanPublisher

TIMEOUT = 5


@pytest.fixture
async def publishers():
    made = []

    def make(url, **options):
        publisher = LeanPublisher(url, **options)
        made.append(publisher)
        return publisher

    yield make
    for publisher in made:
        await publisher.close()


async def settled(*futures):
    return await asyncio.wait_for(asyncio.gather(*futures, return_exceptions=True), TIMEOUT)


async def test_the_messages_of_one_loop_turn_go_in_one_write_in_order(fake, publishers):
    server = await fake()
    publisher = publishers(server.url())
    sent = [publisher.publish_soon("game-1", b"m%d" % n) for n in range(50)]
    assert await settled(*sent) == [None] * 50
    assert server.published() == [b"m%d" % n for n in range(50)]
    assert publisher.writes == 1
    # The next turns: writes of their own, on the same connection.
    later = publisher.publish_soon("game-1", b"later")
    await asyncio.sleep(0)
    last = publisher.publish_soon("game-2", b"last")
    assert await settled(later, last) == [None, None]
    assert server.commands[-1] == (1, [b"PUBLISH", b"game-2", b"last"])
    assert (publisher.writes, server.connections) == (3, 1)


async def test_a_large_message_arrives_whole(fake, publishers):
    server = await fake()
    publisher = publishers(server.url())
    big = bytes(range(256)) * 4096  # 1 MiB, every byte value, CR LF included
    assert await settled(publisher.publish_soon("game-1", big)) == [None]
    assert server.published() == [big]


async def test_a_password_in_the_address_is_sent_before_any_message(fake, publishers):
    server = await fake(lambda command, number: b"+OK\r\n" if command[0] == b"AUTH" else b":0\r\n")
    publisher = publishers(server.url("site:s3cret@"))
    assert await settled(publisher.publish_soon("game-1", b"m")) == [None]
    assert [command for _, command in server.commands] == [
        [b"AUTH", b"site", b"s3cret"],
        [b"PUBLISH", b"game-1", b"m"],
    ]


async def test_a_refused_password_is_each_senders_error_and_nothing_is_published(fake, publishers):
    def answer(command, number):
        if command[0] == b"AUTH":
            return b"-WRONGPASS invalid username-password pair\r\n"
        return b":0\r\n"

    server = await fake(answer)
    publisher = publishers(server.url(":wrong@"))
    results = await settled(publisher.publish_soon("g", b"1"), publisher.publish_soon("g", b"2"))
    assert all(isinstance(error, redis.ResponseError) for error in results)
    assert "WRONGPASS" in str(results[0])
    assert server.published() == []


async def test_an_error_reply_is_the_error_of_its_sender_only(fake, publishers):
    server = await fake(
        lambda command, number: b"-ERR no\r\n" if command[2] == b"bad" else b":1\r\n"
    )
    publisher = publishers(server.url())
    results = await settled(*(publisher.publish_soon("g", m) for m in (b"ok", b"bad", b"ok")))
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], redis.ResponseError) and str(results[1]) == "ERR no"


async def test_a_connection_redis_closed_is_opened_again_and_the_batch_sent_once_more(
    fake, publishers
):
    # The first connection is a Redis that restarts: it hangs up on the first message.
    server = await fake(lambda command, number: "close" if number == 1 else b":1\r\n")
    publisher = publishers(server.url())
    sent = [publisher.publish_soon("g", m) for m in (b"a", b"b")]
    assert await settled(*sent) == [None, None]
    assert server.connections == 2
    assert [(number, command[2]) for number, command in server.commands] == [
        (1, b"a"),
        (2, b"a"),
        (2, b"b"),
    ]


async def test_a_batch_is_sent_twice_at_most_and_the_next_publish_connects_again(fake, publishers):
    hang_up = [True]
    server = await fake(lambda command, number: "close" if hang_up[0] else b":1\r\n")
    publisher = publishers(server.url())
    [error] = await settled(publisher.publish_soon("g", b"a"))
    assert isinstance(error, redis.ConnectionError)
    assert (server.connections, server.published()) == (2, [b"a", b"a"])
    hang_up[0] = False
    assert await settled(publisher.publish_soon("g", b"b")) == [None]
    assert server.connections == 3


async def test_a_batch_partly_answered_when_redis_hangs_up_is_not_sent_again(fake, publishers):
    server = await fake(lambda command, number: b":1\r\n" if command[2] == b"a" else "close")
    publisher = publishers(server.url())
    results = await settled(*(publisher.publish_soon("g", m) for m in (b"a", b"b", b"c")))
    # Redis had the first (its sender hears so); the others may or may not have gone out.
    assert results[0] is None
    assert all(isinstance(error, redis.ConnectionError) for error in results[1:])
    assert server.connections == 1


async def test_an_unreachable_redis_is_each_senders_connection_error(fake, publishers):
    server = await fake()
    url = server.url()
    await server.stop()
    server.server.close()
    await server.server.wait_closed()  # nothing listens on that port now
    publisher = publishers(url)
    results = await settled(publisher.publish_soon("g", b"1"), publisher.publish_soon("g", b"2"))
    assert all(isinstance(error, redis.ConnectionError) for error in results)


async def test_a_redis_that_stops_answering_fails_its_senders_and_is_left(fake, publishers):
    silent = [True]
    server = await fake(lambda command, number: None if silent[0] else b":1\r\n")
    publisher = publishers(server.url(), reply_timeout=0.2)
    loop = asyncio.get_running_loop()
    started = loop.time()
    [error] = await settled(publisher.publish_soon("g", b"a"))
    # One watchdog round with no answer: between one and two reply timeouts.
    assert isinstance(error, redis.TimeoutError)
    assert 0.2 <= loop.time() - started < 1.0
    # Not sent again (Redis may have it), and the next message goes on a new connection.
    silent[0] = False
    assert await settled(publisher.publish_soon("g", b"b")) == [None]
    assert server.published() == [b"a", b"b"]
    assert server.connections == 2


async def test_a_slow_but_answering_redis_is_waited_for(fake, publishers):
    server = await fake(lambda command, number: None)  # the test answers in its place
    publisher = publishers(server.url(), reply_timeout=0.5)
    first = publisher.publish_soon("g", b"a")
    await asyncio.sleep(0.2)
    second = publisher.publish_soon("g", b"b")
    connection = publisher._connection
    # Redis answers within each watchdog round (0.5 s), though the second batch waits
    # longer than that in all.
    await asyncio.sleep(0.2)
    connection.data_received(b":1\r\n")
    await asyncio.sleep(0.4)
    assert first.done() and not second.done()
    connection.data_received(b":1\r\n")
    assert await settled(first, second) == [None, None]
    assert publisher._connection is connection and server.connections == 1


async def test_a_greeting_without_answer_fails_in_the_connect_timeout(fake, publishers):
    server = await fake(lambda command, number: None)
    publisher = publishers(server.url(":pw@"), connect_timeout=0.2)
    [error] = await settled(publisher.publish_soon("g", b"a"))
    assert isinstance(error, redis.TimeoutError)
    assert server.published() == []


async def test_closing_leaves_no_sender_waiting(fake, publishers):
    server = await fake(lambda command, number: None)
    publisher = publishers(server.url())
    sent = publisher.publish_soon("g", b"a")
    while not server.commands:
        await asyncio.sleep(0.01)
    queued = publisher.publish_soon("g", b"b")
    await publisher.close()
    assert sent.cancelled() and queued.cancelled()
    assert publisher._connection is None


async def test_a_unix_socket_address_is_served(fake, publishers, tmp_path):
    path = str(tmp_path / "redis.sock")
    server = await fake(unix_path=path)
    publisher = publishers(f"unix://{path}?db=0")
    assert await settled(publisher.publish_soon("g", b"a")) == [None]
    assert server.published() == [b"a"]


@pytest.mark.parametrize(
    ("host", "served"),
    [
        ({"address": "redis://127.0.0.1:6379/0"}, True),
        ({"address": "redis://:pw@redis.internal/2"}, True),
        ({"address": "unix:///run/redis.sock"}, True),
        ({"address": "rediss://redis.internal:6380/0"}, False),  # TLS: redis-py's
        ({"address": "redis://127.0.0.1:6379/0", "ssl_cert_reqs": None}, False),
        ({"address": ("127.0.0.1", 6379)}, False),
        ({"sentinels": [("127.0.0.1", 26379)], "master_name": "main"}, False),
    ],
)
def test_only_plain_addresses_are_served_and_the_rest_keep_redis_py(host, served):
    assert LeanPublisher.serves(host) is served
