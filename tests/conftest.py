"""Settings for the whole test run that must be in place before the ASGI app is imported,
and the personas of the page tests."""

import os
from datetime import timedelta

import pytest
from asgiref.sync import SyncToAsync
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.commands import flush
from django.db import connections
from django.db.backends.signals import connection_created

from games.limits import SocketRates
from tests import paths
from tests.fake_redis import fake  # noqa: F401 (the Redis publisher and subscriber tests)
from tests.paths import move_path, path_seen  # noqa: F401 (the socket tests' fixtures)

PASSWORD = "Velo-im-Regen-42"

# No background sweeper in the test process: tests call games.sweeper.sweep() themselves.
# Real servers started by tests (tests/real_server.py) sweep as usual.
settings.TURN_SWEEP_SECONDS = 0

# Moves on the shared sync thread in the test process unless a test asks for another path
# (``move_path`` in tests/paths.py, which closes the worker threads' connections and the event
# loop's pool afterwards: PostgreSQL refuses to drop a test database they still hold). The
# real servers of tests/test_real_server.py and tests/e2e run moves in parallel as in
# production.
settings.PARALLEL_MOVES = False

# Computer players move at once, inside the call that committed the change before theirs.
settings.BOT_DELAY = 0

# The tests open dozens of sockets as one user: the rates of a user's (and an address's)
# sockets together are on only in the tests of them (tests/test_limits.py).
settings.SHARED_SOCKET_RATES = False

# Sockets of the test process keep their database connection, as servers under load do
# (DATABASE_CONN_MAX_AGE): connecting to PostgreSQL costs more than most of what a message
# does with it. The connection lives in asgiref's one thread for database calls and is
# closed there before the test database is dropped (django_db_setup below).
if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    settings.DATABASES["default"]["CONN_MAX_AGE"] = None


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, and afterwards the sockets' connection closed."""
    yield
    with django_db_blocker.unblock():
        SyncToAsync.single_thread_executor.submit(connections.close_all).result()


# The first write rule (games.kinds): every connection of the test process refuses an ORM
# write while a move collects its statements (tests/paths.py).
connection_created.connect(paths.install_write_guard)


@pytest.fixture(autouse=True)
def shared_socket_rates():
    """Each test's sockets count their users' and addresses' rates from nothing: a user id
    of a test rolled back comes again in the next (``games.limits.SocketRates``)."""
    SocketRates.shared.clear()
    yield SocketRates.shared
    SocketRates.shared.clear()


@pytest.fixture(autouse=True)
def refused_writes():
    """Fail a test in which an ORM write was refused inside a move, even if whoever made the
    move swallowed the error (a socket answers ``unavailable``, a callback logs it). A test of
    the guard itself empties ``paths.refused`` once it has seen the refusal."""
    paths.refused.clear()
    yield paths.refused
    assert not paths.refused, f"ORM writes inside a move's guarded statement: {paths.refused}"


# A fast hash: the production hasher spends about a second of CPU on every password on
# purpose, and the suite sets and checks hundreds of them. Servers started by tests keep it.
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# After each transactional test Django empties every table and then runs post_migrate again,
# which recreates the content types and permissions it has just deleted. Those two tables
# only ever hold what the migrations put there, so they are kept and post_migrate is left
# out: two thirds of a flush. On PostgreSQL the rest is emptied with DELETE rather than
# TRUNCATE, which makes new files for every table and index (about 40 times slower for the
# suite's small tables); Django's foreign keys there are deferred, so the order is free.
KEPT_TABLES = {"django_content_type", "auth_permission"}


def _sql_flush(style, connection, reset_sequences=True, allow_cascade=False):
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    tables = [table for table in tables if table not in KEPT_TABLES]
    if connection.vendor == "postgresql" and not reset_sequences:
        return [f"DELETE FROM {connection.ops.quote_name(table)};" for table in tables]
    return connection.ops.sql_flush(
        style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
    )


_flush = flush.Command.handle


def _flush_without_post_migrate(self, **options):
    return _flush(self, **{**options, "inhibit_post_migrate": True})


flush.sql_flush = _sql_flush
flush.Command.handle = _flush_without_post_migrate

# Rate limits count in this process's memory, not in a Redis shared with other test runs.
settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# A closed socket's departure is told at once: the tests of the grace before it set their own
# (tests/test_presence_grace.py).
settings.PRESENCE_GRACE = timedelta(0)


def pytest_collection_modifyitems(config, items):
    """CI runs the suite twice (.ci/run), and some tests in one of the two passes only.

    With RATUMRAD_SKIP_ENGINE_TESTS=1, the tests marked ``engine`` are left out: their results
    do not depend on DATABASE_URL or REDIS_URL. The browser tests marked ``page(n)`` run in pass n
    only: what they drive on the server, the other tests run on either database and channel
    layer. With RATUMRAD_PAGE_PASS=n only those of pass n run (unset: all of them)."""
    skip_engine = os.environ.get("RATUMRAD_SKIP_ENGINE_TESTS", "").strip() == "1"
    page_pass = os.environ.get("RATUMRAD_PAGE_PASS", "").strip()

    def left_out(item) -> bool:
        page = item.get_closest_marker("page")
        if page is not None and page_pass and str(page.args[0]) != page_pass:
            return True
        return skip_engine and item.get_closest_marker("engine") is not None

    skipped = [item for item in items if left_out(item)]
    if skipped:
        config.hook.pytest_deselected(items=skipped)
        items[:] = [item for item in items if not left_out(item)]


def person(name: str):
    """A registered player (modules with players of their own define these fixtures again)."""
    return get_user_model().objects.create_user(name, password=PASSWORD)


@pytest.fixture
def alice():
    return person("alice")


@pytest.fixture
def bob():
    return person("bob")


@pytest.fixture
def charlie():
    return person("charlie")


class People(list):
    """The personas as users, in order; ``people["bob"]`` finds one by name."""

    def __getitem__(self, key):
        if isinstance(key, str):
            return next(user for user in self if user.username == key)
        return super().__getitem__(key)


@pytest.fixture
def people(django_user_model) -> People:
    """alice, bob, charlie, dora and emil: users without a password (tests log them in)."""
    from tests.ws_helpers import PERSONAS

    return People(django_user_model.objects.create_user(name) for name in PERSONAS)


# Limits far above what the suite needs per user and per address (the tests of the limits set
# their own): tests create many games and sockets for one user within a minute.
settings.GAMES_WAITING_PER_USER = 1000
settings.SOCKETS_PER_USER = 1000
settings.SOCKETS_PER_ADDRESS = 1000
settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["game"] = "100000/min"

# Background tasks run at once, in the process that enqueues them (after the commit that
# enqueued them). tests/test_mail_worker.py runs the real database queue and its worker.
settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


@pytest.fixture
def smtp(settings):
    """A real SMTP server (aiosmtpd) on a free local port, and Django's SMTP backend pointed at
    it. ``smtp.messages`` holds every mail received, parsed; ``smtp.to(address)`` those for
    one address."""
    from tests.smtp_server import SMTPServer

    server = SMTPServer()
    server.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = server.port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.SITE_URL = "https://ratumrad.example"
    try:
        yield server
    finally:
        server.stop()
