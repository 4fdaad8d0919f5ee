"""Settings for the whole test run that must be in place before the ASGI app is imported,
and the personas of the page tests."""

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

PASSWORD = "Velo-im-Regen-42"

# No background sweeper in the test process: tests call games.sweeper.sweep() themselves.
# Real servers started by tests (tests/real_server.py) sweep as usual.
settings.TURN_SWEEP_SECONDS = 0

# Moves on the shared sync thread in the test process: connections that worker threads open
# for the consumers of a communicator outlive the test there, and PostgreSQL then refuses to
# drop the test database. The real servers of tests/test_real_server.py and tests/e2e run
# moves in parallel as in production.
settings.PARALLEL_MOVES = False

# Computer players move at once, inside the call that committed the change before theirs.
settings.BOT_DELAY = 0

# Rate limits count in this process's memory, not in a Redis shared with other test runs.
settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


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
