"""HTTP requests on threads that the process keeps, with their database connections.

Django's ASGI handler runs each request's synchronous part (the middleware, the view) on a
thread of its own: a new one per request (asgiref's ``ThreadSensitiveContext``), ended when
the request is over. Django's database connections belong to a thread, so every request
also opened a new connection to the database and closed it again, whatever
``CONN_MAX_AGE`` says: on PostgreSQL that is a new backend process per request, more CPU
than the request's own queries (bench/turnover_bench.py: the three requests that set up a
game took three connections).

``PooledThreadsASGIHandler`` gives each request a thread from a pool instead (one request
at a time on each, as before); the thread keeps its connection for the next request, and
Django's own clean-up at each request's start and end closes it when it is too old or
broken (``close_old_connections``).

The pool has at most ``HTTP_THREADS`` threads (a setting). A request that finds them all
busy waits its turn on the event loop, holding no thread and no connection. Before, every
request at the same moment had a thread and a database connection of its own: 200 requests
at once made one server open 100 connections to PostgreSQL, all it allowed, and 97 of the
requests (and whatever else wanted a connection then, on every server) failed.

It also runs the middleware and the view in one call on that thread, as Django does under
WSGI (``BaseHandler.get_response``). Django's ASGI handler runs the middleware chain as async
code: every middleware written for both ways (``MiddlewareMixin``) then hands its
``process_request`` and ``process_response`` to the thread and back, and the chain went
back to the event loop for the middleware after ours (``AccountLanguageMiddleware`` is
synchronous only). Each hop wakes a thread: a request cost the server 2-3 ms of CPU more
(``/healthz`` 6.0-7.2 against 4.6-5.0 ms). The request's start signal, and the close of a
response that does not stream (with the end signal), go in the same call too, before the
response is sent (``handle``): one hop a request instead of three (``/healthz`` a tenth less).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.urls import set_script_prefix


class ThreadPool:
    """At most ``size`` single-thread executors, taken and given back on the event loop (no
    lock needed); who finds none free waits for the next given back, first come first
    served."""

    def __init__(self, size: int):
        self.size = size
        self.made = 0
        self.idle: list[ThreadPoolExecutor] = []
        self.waiting: deque[asyncio.Future] = deque()

    async def take(self) -> ThreadPoolExecutor:
        # The thread used last, whose connection is the most likely to be open still.
        if self.idle:
            return self.idle.pop()
        if self.made < self.size:
            self.made += 1
            return ThreadPoolExecutor(max_workers=1, thread_name_prefix="http")
        turn = asyncio.get_running_loop().create_future()
        self.waiting.append(turn)
        try:
            return await turn
        except asyncio.CancelledError:
            # Cancelled (its client went away) after a thread was handed to it: pass it on.
            if turn.done() and not turn.cancelled():
                self.give_back(turn.result())
            raise

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        while self.waiting:
            turn = self.waiting.popleft()
            if not turn.done():  # (one cancelled while it waited is skipped)
                turn.set_result(executor)
                return
        self.idle.append(executor)


class PooledThreadsASGIHandler(ASGIHandler):
    """Django's ASGI handler; each request runs its synchronous code on a pooled thread."""

    def __init__(self) -> None:
        BaseHandler.__init__(self)
        self.load_middleware(is_async=False)  # the chain of the WSGI handler
        self.threads = ThreadPool(settings.HTTP_THREADS)

    async def get_response_async(self, request):
        # As Django's (BaseHandler.get_response_async), with the synchronous chain, and the
        # request's start and end signals in the same call (``handle``).
        return await sync_to_async(self.respond, thread_sensitive=True)(request)

    def respond(self, request):
        """On the request's thread: its start signal, the middleware and the view, and, for a
        response whose content is made already (not streaming), its close with the end
        signal, before it is sent."""
        signals.request_started.send(sender=self.__class__, scope=request.scope)
        response = self.get_response(request)
        if not response.streaming:
            response._handler_class = self.__class__  # the end signal's sender
            response.close()
        return response

    async def handle(self, scope, receive, send):
        # As Django's (ASGIHandler.handle), but for the start signal, sent with the view, and
        # the close of a response that does not stream, done before it is sent: one hop to
        # the request's thread instead of three, each waking the thread.
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        # Request is complete and can be served.
        set_script_prefix(get_script_prefix(scope))
        # Get the request and check for basic issues.
        request, error_response = self.create_request(scope, body_file)
        if request is None:
            await signals.request_started.asend(sender=self.__class__, scope=scope)
            body_file.close()
            await self.send_response(error_response, send)
            await sync_to_async(error_response.close)()
            return

        async def process_request(request, send):
            response = await self.run_get_response(request)
            # Client disconnected during send_response (ignore exception).
            with contextlib.suppress(asyncio.CancelledError):
                await self.send_response(response, send)

            return response

        # Try to catch a disconnect while getting response.
        tasks = [
            asyncio.create_task(self.listen_for_disconnect(receive)),
            asyncio.create_task(process_request(request, send)),
        ]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        # Now wait on both tasks (they may have both finished by now).
        for task in tasks:
            if task.done():
                try:
                    task.result()
                except RequestAborted:
                    # Ignore client disconnects.
                    pass
                except AssertionError:
                    body_file.close()
                    raise
            else:
                # Allow views to handle cancellation.
                task.cancel()
                # Task re-raised the CancelledError as expected.
                with contextlib.suppress(asyncio.CancelledError):
                    await task

        try:
            response = tasks[1].result()
        except asyncio.CancelledError:
            await signals.request_finished.asend(sender=self.__class__)
        else:
            if not response.closed:  # a streaming response, closed once it is sent
                await sync_to_async(response.close)()

        body_file.close()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            # As Django's handler says it.
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = await self.threads.take()
        try:
            # A view cancelled with its request (the client went away) may still run on
            # the thread: the next request's work waits behind it there.
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self.threads.give_back(executor)
