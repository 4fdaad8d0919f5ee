"""An HTTP request's body goes to the site as it came, and no larger than the site takes
(``ratumrad_site.http_inflow``): Twisted no longer parses forms on the event loop, and a body
over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is answered 413 before it is read."""

from __future__ import annotations

import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest
from daphne.http_protocol import HTTPFactory
from django.conf import settings

from ratumrad_site import http_inflow
from tests.real_server import Server, server_database

TIMEOUT = 10  # seconds for an answer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with server_database() as url, Server(url, tmp_path_factory.mktemp("http")) as running:
        yield running


def exchange(server: Server, head: bytes, body: bytes = b"") -> tuple[int, dict, bytes]:
    """Send a request's bytes on a new connection; its answer's status, headers and body (all
    the server sends until it closes or the body's length is in)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT) as conn:
        conn.sendall(head + body)
        return read_answer(conn)


def read_answer(conn: socket.socket) -> tuple[int, dict, bytes]:
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = conn.recv(65536)
        assert chunk, f"closed before an answer: {got!r}"
        got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, value in (x.split(":", 1) for x in lines)}
    length = int(headers.get("content-length", "-1"))
    while length < 0 or len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(status_line.split()[1]), headers, body


def post_head(path: str, content_type: str, length: int | None = None) -> bytes:
    size = b"Transfer-Encoding: chunked" if length is None else b"Content-Length: %d" % length
    return b"POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\n%s\r\n\r\n" % (
        path.encode(),
        content_type.encode(),
        size,
    )


def test_a_form_body_reaches_the_site_as_it_came(server):
    """Twisted parsed every form body itself, on the event loop (and answered a bare 400 for
    a multipart body it could not parse); now the API answers it, as it does any body it
    does not take."""
    body = b"not a multipart body"
    head = post_head("/api/auth/guest/", "multipart/form-data; boundary=x", len(body))
    status, headers, answer = exchange(server, head, body)
    assert status == 415
    assert headers["content-type"] == "application/json"
    assert json.loads(answer)["code"] == "unsupported_media_type"
    form = b"name=" + b"a" * 100 + b"&x=1" * 1000
    head = post_head("/api/auth/guest/", "application/x-www-form-urlencoded", len(form))
    status, _, answer = exchange(server, head, form)
    assert (status, json.loads(answer)["code"]) == (415, "unsupported_media_type")


def test_a_body_longer_than_the_site_takes_is_refused_before_it_is_read(server):
    """Only the headers are sent: the answer comes without the body (before, the server
    waited for all of it, then Django refused it)."""
    most = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    head = post_head("/api/auth/guest/", "application/json", most + 1)
    with socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT) as conn:
        conn.sendall(head)
        status, headers, answer = read_answer(conn)
        assert conn.recv(1) == b""  # and the connection is closed
    assert status == 413
    assert headers["connection"] == "close"
    assert json.loads(answer) == {
        "code": "too_large",
        "message": f"a request body has at most {most} bytes",
    }


def test_a_chunked_body_is_refused_once_it_grows_past_the_limit(server):
    most = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    chunk = b"x" * 65536
    with socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT) as conn:
        conn.sendall(post_head("/api/auth/guest/", "application/json"))
        sent = 0
        while sent <= most:  # never the last chunk: only the limit makes an answer
            conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sent += len(chunk)
        status, _, answer = read_answer(conn)
    assert (status, json.loads(answer)["code"]) == (413, "too_large")


def test_a_body_within_the_limit_and_the_next_request_on_the_connection_are_answered(server):
    body = json.dumps({"name": "Inflow", "padding": "x" * 100_000}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT) as conn:
        conn.sendall(post_head("/api/auth/guest/", "application/json", len(body)) + body)
        status, _, answer = read_answer(conn)
        assert status == 201, answer
        assert json.loads(answer)["user"]["name"] == "Inflow"
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        status, _, answer = read_answer(conn)
    assert status == 200, answer


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="counts threads in /proc")
def test_a_hundred_requests_at_once_wait_for_the_server_s_threads_and_are_all_answered(server):
    """Each request at the same moment had a thread and a database connection of its own:
    on PostgreSQL 200 of them took all its connections (``ratumrad_site.http_threads``)."""
    before = server.status("Threads")
    peak, done = [before], threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak.append(server.status("Threads"))
            time.sleep(0.005)

    def get(_: int) -> int:
        return server.get("/api/games/")[0]

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with ThreadPoolExecutor(100) as pool:
            statuses = list(pool.map(get, range(100)))
    finally:
        done.set()
        watcher.join()
    assert statuses == [200] * 100
    assert max(peak) <= before + settings.HTTP_THREADS


@pytest.mark.parametrize(("verbosity", "logged"), [(1, False), (2, True)])
def test_twisted_s_access_line_is_made_only_when_daphne_logs_it(monkeypatch, verbosity, logged):
    """At daphne's verbosity 1 (the default) Twisted's log goes nowhere."""
    made = []
    factory = HTTPFactory(SimpleNamespace(verbosity=verbosity))
    factory._logFile = SimpleNamespace(write=lambda line: None)
    factory._logFormatter = lambda when, request: made.append(request) or "line"
    monkeypatch.setattr(HTTPFactory, "log", http_inflow.log)
    factory.log("a request")
    assert made == (["a request"] if logged else [])
