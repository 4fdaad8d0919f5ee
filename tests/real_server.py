"""A real daphne server in a subprocess, on a database of its own, for tests over real sockets.

* ``server_database()`` makes the database the servers use: a temporary SQLite file, or with a
  PostgreSQL ``DATABASE_URL`` a throwaway database ``ratumrad_real_<random>`` on the same
  server (dropped at the end). Each is a copy of one migrated template per test process
  (``manage.py migrate`` runs once, for the template: several seconds of CPU). It is not
  pytest-django's test database: the server sees only what the tests send over HTTP and
  websockets.
* ``Server`` runs daphne (``python -m ratumrad_site.serve -b 127.0.0.1 -p <free port>
  ratumrad_site.asgi:application``)
  in the repository root with that ``DATABASE_URL`` (and the test process's ``REDIS_URL``),
  waits until it listens and ``/healthz`` answers, and kills it when the ``with`` block ends,
  however it ends. ``kill()`` is a SIGKILL: the server gets no chance to clean up.

Several test runs may share the machine, the PostgreSQL server and Redis at once: ports are
free ones, database names are random, and with Redis the game ids start at a random number
(the servers share Redis's default channel-layer prefix, and groups are named by game id).

``PrivateRedis`` is a redis-server of a test's own, which it may kill and start again.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = 30  # seconds for one server to come up (a cold start takes about 1 s)
MIGRATE_TIMEOUT = 120
HTTP_TIMEOUT = 10
REDIS_START_TIMEOUT = 10
START_ATTEMPTS = 3  # a free port can be taken by someone else before daphne binds it


class ServerError(RuntimeError):
    pass


# ---------------------------------------------------------------------------- database


SERVER_REDIS_PREFIX = f"ratumrad-test-{secrets.token_hex(4)}"


LIMITS_FOR_TESTS = {
    "GAME_RATE": "100000/min",
    "GAMES_WAITING_PER_USER": "1000",
    "SOCKETS_PER_USER": "1000",
    "SOCKETS_PER_ADDRESS": "10000",
    "SHARED_SOCKET_RATES": "0",
    "ADDRESS_FRAMES_PER_SECOND": "0",
}


def _server_env(database_url: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ) | (extra or {})
    env.setdefault("DATABASE_CONN_MAX_AGE", "60")  # as servers under load run
    # Groups such as "lobby" and the rate limits of these servers are their own in a Redis
    # that the test process itself and other test runs use at the same time.
    env.setdefault("REDIS_PREFIX", SERVER_REDIS_PREFIX)
    env.setdefault("PRESENCE_GRACE_SECONDS", "0")  # departures told at once, as in-process
    # The tests make many games and sockets as one user and from one address.
    for name, value in LIMITS_FOR_TESTS.items():
        env.setdefault(name, value)
    env["DATABASE_URL"] = database_url
    env["DJANGO_SETTINGS_MODULE"] = "ratumrad_site.settings"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _is_postgres(url: str) -> bool:
    return urlsplit(url).scheme in ("postgres", "postgresql", "pgsql", "postgis")


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def _migrate(database_url: str) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=ROOT,
        env=_server_env(database_url),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=MIGRATE_TIMEOUT,
    )
    if done.returncode != 0:
        raise ServerError(f"migrate failed:\n{done.stdout}\n{done.stderr}")


def _first_game_id() -> int:
    return secrets.randbelow(10**12) + 10**6


# Per test process: a migrated database that each of ``server_database``'s is copied from.
_templates: dict[str, str] = {}


def _sqlite_template() -> Path:
    """The migrated SQLite file of this process (removed when it exits)."""
    if "sqlite" not in _templates:
        folder = tempfile.mkdtemp(prefix="ratumrad-real-template-")
        atexit.register(shutil.rmtree, folder, True)
        path = Path(folder) / "template.sqlite3"
        _migrate(f"sqlite:///{path}")
        _templates["sqlite"] = str(path)
    return Path(_templates["sqlite"])


def _postgres_template(admin_url: str, test_url: str) -> str:
    """The name of this process's migrated PostgreSQL database (dropped when it exits); no
    connection to it stays open, as a copy needs."""
    if test_url not in _templates:
        import psycopg

        name = f"ratumrad_template_{secrets.token_hex(6)}"
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        atexit.register(_drop_database, admin_url, name)
        _migrate(_with_database(test_url, name))
        _templates[test_url] = name
    return _templates[test_url]


def _drop_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def server_database() -> Iterator[str]:
    """A migrated database for the servers; yields its ``DATABASE_URL``."""
    test_url = os.environ.get("DATABASE_URL", "").strip()
    shared_layer = bool(os.environ.get("REDIS_URL", "").strip())
    if test_url and _is_postgres(test_url):
        import psycopg

        name = f"ratumrad_real_{secrets.token_hex(6)}"
        admin_url = _with_database(test_url, "postgres")
        template = _postgres_template(admin_url, test_url)
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        url = _with_database(test_url, name)
        try:
            if shared_layer:
                with psycopg.connect(url, autocommit=True) as connection:
                    connection.execute(
                        f"ALTER TABLE games_game ALTER COLUMN id RESTART WITH {_first_game_id()}"
                    )
            yield url
        finally:
            _drop_database(admin_url, name)
    else:
        with tempfile.TemporaryDirectory(prefix="ratumrad-real-") as folder:
            path = Path(folder) / "server.sqlite3"
            shutil.copyfile(_sqlite_template(), path)
            url = f"sqlite:///{path}"
            if shared_layer:
                with contextlib.closing(sqlite3.connect(path)) as connection, connection:
                    connection.execute(
                        "INSERT INTO sqlite_sequence (name, seq) VALUES ('games_game', ?)",
                        (_first_game_id(),),
                    )
            yield url


# ---------------------------------------------------------------------------- HTTP


# Straight to 127.0.0.1, whatever proxy the environment names.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def http_json(method: str, url: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    """One JSON request the way a script sends it (no cookies, no Origin): status and body."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with _DIRECT.open(request, timeout=HTTP_TIMEOUT) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw.decode(errors="replace")


# ---------------------------------------------------------------------------- server


def free_port() -> int:
    with contextlib.closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _die_with_parent() -> None:
    """In the child: get SIGKILL when the test process dies (Linux), so no server outlives it."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Server:
    """One daphne process serving the site on 127.0.0.1 and a free port."""

    def __init__(self, database_url: str, log_dir: Path | str, env: dict[str, str] | None = None):
        self.database_url = database_url
        self.env = env or {}  # more environment variables for this server
        self.log_dir = Path(log_dir)
        self.port: int | None = None
        self.process: subprocess.Popen | None = None
        self.log_path: Path | None = None

    def __enter__(self) -> Server:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    def start(self) -> None:
        failures = []
        for _ in range(START_ATTEMPTS):
            self._spawn(free_port())
            try:
                self._wait_until_ready()
                return
            except ServerError as error:
                failures.append(str(error))
                self.stop()
                if "Address already in use" not in str(error):
                    break
        raise ServerError("\n\n".join(failures))

    def _spawn(self, port: int) -> None:
        self.port = port
        self.log_path = self.log_dir / f"daphne-{port}-{secrets.token_hex(3)}.log"
        # PR_SET_PDEATHSIG follows the thread that forks: only safe from the main thread.
        in_main_thread = threading.current_thread() is threading.main_thread()
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "ratumrad_site.serve",  # daphne, as the cluster runs it
                    "-b",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "ratumrad_site.asgi:application",
                ],
                cwd=ROOT,
                env=_server_env(self.database_url, self.env),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in the terminal goes to the tests only
                preexec_fn=_die_with_parent if sys.platform == "linux" and in_main_thread else None,
            )

    def log(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")

    def _wait_until_ready(self) -> None:
        """Until this process listens on the port and /healthz answers through it.

        The log line proves that the answer comes from this process and not from someone
        else who took the port meanwhile.
        """
        listening = f"Listening on TCP address 127.0.0.1:{self.port}"
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(
                    f"daphne exited with {self.process.returncode}:\n{self.log()[-3000:]}"
                )
            if listening in self.log():
                with contextlib.suppress(OSError):
                    status, body = http_json("GET", self.base_url + "/healthz")
                    if status == 200 and body.get("status") == "ok":
                        return
            time.sleep(0.05)
        raise ServerError(f"daphne did not come up in {START_TIMEOUT} s:\n{self.log()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL: the server stops at once, mid-whatever, like a crash or a power cut."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """Ask the server to stop (SIGTERM), kill it if it takes too long."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)

    def get(self, path: str, token: str | None = None) -> tuple[int, Any]:
        return http_json("GET", self.base_url + path, token=token)

    def post(self, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        return http_json("POST", self.base_url + path, body if body is not None else {}, token)

    def status(self, field: str) -> int:
        """A number of the process's ``/proc/<pid>/status`` (Linux): ``VmRSS`` in KiB,
        ``Threads``..."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
        raise AssertionError(f"no {field} in the server's status")


# ---------------------------------------------------------------------------- Redis


class PrivateRedis:
    """A redis-server of this test's own on a free port, without persistence, as in CI."""

    def __init__(self, folder):
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no", "--daemonize", "no"),
                *("--dir", str(self.folder)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        deadline = time.monotonic() + REDIS_START_TIMEOUT
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(0.05)
            finally:
                client.close()

    def kill(self) -> None:
        """SIGKILL: Redis stops at once, its clients' connections break."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> PrivateRedis:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.kill()
