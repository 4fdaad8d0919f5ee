"""HTTP requests run on threads the process keeps, with their database connections
(ratumrad_site/http_threads.py): Django's own handler opened a connection per request. At
most ``HTTP_THREADS`` of them: the other requests wait their turn."""

import asyncio
import hashlib
import inspect
import threading

import pytest
from asgiref.sync import SyncToAsync
from asgiref.testing import ApplicationCommunicator
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.core.signals import request_finished
from django.db import connections
from django.db.backends.signals import connection_created
from django.http import StreamingHttpResponse

from ratumrad_site.http_threads import PooledThreadsASGIHandler, ThreadPool

pytestmark = pytest.mark.django_db(transaction=True)

# What PooledThreadsASGIHandler.__call__, .handle and .get_response_async were derived from (Django
# 5.2). When one changes, read the new code and carry what changed over, then write the new
# digest here.
DERIVED_FROM = {
    "ASGIHandler.__call__": (
        ASGIHandler.__call__,
        "f756809e9c9308dcccb78a301fccf09196e80cdc4745690f80384d09b69dd102",
    ),
    "ASGIHandler.handle": (
        ASGIHandler.handle,
        "98faeb5bef800331e6a8002fbc96b30e4122a23438ae45a047190a531ea11323",
    ),
    "BaseHandler.get_response_async": (
        BaseHandler.get_response_async,
        "ad82c920df0cebbb52b1ebafe6ab8b5541f200c39fa954a148b01f60725b715b",
    ),
}


@pytest.mark.parametrize("name", DERIVED_FROM)
def test_the_django_code_the_handler_replaces_is_the_code_it_was_derived_from(name):
    function, digest = DERIVED_FROM[name]
    source = inspect.getsource(function)
    assert hashlib.sha256(source.encode()).hexdigest() == digest


async def get(app, path: str) -> int:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"localhost")],
        "client": ("127.0.0.1", 50000),
        "server": ("localhost", 80),
    }
    communicator = ApplicationCommunicator(app, scope)
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(10)
    while (await communicator.receive_output(10)).get("more_body"):
        pass
    await communicator.wait(10)
    return start["status"]


@pytest.fixture
def handler():
    """A handler of the test's own; afterwards its threads' connections are closed (the test
    database cannot be dropped while a connection to it is open)."""
    app = PooledThreadsASGIHandler()
    yield app
    for executor in app.threads.idle:
        executor.submit(connections.close_all).result()
        executor.shutdown()


@pytest.fixture
def connects():
    """The threads that opened a database connection, one entry per connection."""
    opened: list[int] = []

    def created(sender, connection, **kwargs):
        opened.append(threading.get_ident())

    connection_created.connect(created)
    yield opened
    connection_created.disconnect(created)


async def test_requests_one_after_another_share_one_thread_and_its_connection(handler, connects):
    for _ in range(3):
        assert await get(handler, "/api/games/") == 200
    assert len(connects) == 1
    assert len(handler.threads.idle) == 1
    assert connects[0] != threading.get_ident()  # the request's thread, not this one


async def test_requests_at_the_same_time_each_have_a_thread(handler, connects):
    statuses = await asyncio.gather(*(get(handler, "/api/games/") for _ in range(3)))
    assert statuses == [200, 200, 200]
    assert len(handler.threads.idle) == 3
    assert len(set(connects)) == len(connects) == 3
    # The next requests take those threads again: no new connection.
    await asyncio.gather(*(get(handler, "/api/games/") for _ in range(3)))
    assert len(connects) == 3


@pytest.fixture
def hops(monkeypatch):
    """The calls handed from the event loop to a thread (asgiref's ``sync_to_async``)."""
    calls: list[str] = []
    original = SyncToAsync.__call__

    async def counted(self, *args, **kwargs):
        calls.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counted)
    return calls


async def test_a_request_runs_its_middleware_and_view_in_one_call_on_its_thread(handler, hops):
    await get(handler, "/api/games/")  # the first request of the thread connects
    hops.clear()
    assert await get(handler, "/api/games/") == 200
    # The request's start signal, the middleware with the view, the response's close and
    # its end signal, in one call. Django's own handler made nine: the start signal, every
    # middleware's hooks one by one, the close.
    assert len(hops) == 1, hops


@pytest.fixture
def finished():
    """The threads that sent the request's end signal (``request_finished``), in order, with
    what the test noted before them."""
    noted: list = []

    def receiver(sender, **kwargs):
        noted.append(("finished", threading.get_ident()))

    request_finished.connect(receiver)
    yield noted
    request_finished.disconnect(receiver)


async def test_a_response_is_closed_once_on_the_request_s_thread(handler, finished):
    assert await get(handler, "/api/games/") == 200
    assert len(finished) == 1
    assert finished[0][1] != threading.get_ident()  # not on the event loop


async def test_a_streaming_response_is_closed_once_after_it_is_sent(handler, finished):
    async def parts():
        for part in (b"a", b"b"):
            finished.append(("sent", part))
            yield part

    handler.get_response = lambda request: StreamingHttpResponse(parts())
    assert await get(handler, "/api/games/") == 200
    assert [entry[0] for entry in finished] == ["sent", "sent", "finished"]


async def test_the_pool_makes_at_most_its_size_and_the_others_wait_their_turn_in_order():
    pool = ThreadPool(2)
    first, second = await pool.take(), await pool.take()
    assert first is not second and pool.made == 2
    later = [asyncio.ensure_future(pool.take()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(turn.done() for turn in later)  # no third thread
    pool.give_back(second)
    assert await later[0] is second and not later[1].done()
    pool.give_back(first)
    assert await later[1] is first
    pool.give_back(second)
    assert await later[2] is second
    pool.give_back(first)
    pool.give_back(second)
    assert pool.idle == [first, second] and pool.made == 2
    for executor in pool.idle:
        executor.shutdown()


async def test_a_request_that_goes_away_while_it_waits_loses_no_thread():
    pool = ThreadPool(1)
    only = await pool.take()
    gone, handed = asyncio.ensure_future(pool.take()), asyncio.ensure_future(pool.take())
    await asyncio.sleep(0)
    gone.cancel()  # while it waits: skipped
    await asyncio.sleep(0)
    pool.give_back(only)  # to ``handed``, which goes away before it runs
    handed.cancel()
    with pytest.raises(asyncio.CancelledError):
        await handed
    assert pool.idle == [only]  # passed on, not lost
    assert await pool.take() is only
    only.shutdown()


async def test_requests_beyond_the_threads_wait_and_are_all_answered(settings, connects):
    settings.HTTP_THREADS = 2
    app = PooledThreadsASGIHandler()
    try:
        statuses = await asyncio.gather(*(get(app, "/api/games/") for _ in range(8)))
        assert statuses == [200] * 8
        assert app.threads.made == 2
        assert len(set(connects)) == len(connects) <= 2  # at most two connections
    finally:
        for executor in app.threads.idle:
            executor.submit(connections.close_all).result()
            executor.shutdown()
