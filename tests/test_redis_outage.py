"""Redis unreachable: the site stays up. The cache (rate limits, Road to 300's strong bot
score) goes on in each process's memory, people sign in and finish their games, and the
readiness check tells a load balancer which of PostgreSQL and Redis is down.

Redis here is an address where nobody listens, or a redis-server of the test's own. The
sockets' side is in ``tests/test_channel_layer.py`` and, with real servers,
``tests/test_redis_outage_real.py``."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import shutil

import pytest
import redis
from django.contrib.auth import get_user_model
from django.core.cache import cache, caches
from django.db import DatabaseError, connection
from django.test import Client
from rest_framework.test import APIClient

from games.kinds import road300 as glue
from games.road300 import bots
from games.services.lifecycle import game_create
from lobby.api import GuestThrottle, LoginAddressThrottle
from ratumrad_site import cache as resilient
from tests.real_server import PrivateRedis, free_port
from tests.test_road300_site import play_out

pytestmark = pytest.mark.django_db

NOBODY = f"redis://127.0.0.1:{free_port()}/0"  # a free port: connections are refused


def resilient_cache(location: str) -> dict:
    return {
        "default": {
            "BACKEND": "ratumrad_site.cache.ResilientRedisCache",
            "LOCATION": location,
            "KEY_PREFIX": f"outage-test-{secrets.token_hex(4)}",
        }
    }


@pytest.fixture(autouse=True)
def fresh_state():
    resilient._down_since.clear()
    resilient._retry_at.clear()
    yield
    resilient._down_since.clear()
    resilient._retry_at.clear()


@pytest.fixture
def redis_away(settings):
    settings.CACHES = resilient_cache(NOBODY)
    cache._local.clear()  # the memory the process counts in meanwhile
    yield
    cache._local.clear()


def test_guests_are_made_while_redis_is_away_and_their_limit_holds_in_the_process(
    redis_away, monkeypatch, caplog
):
    monkeypatch.setattr(GuestThrottle, "THROTTLE_RATES", {"guest": "2/min"})
    api = APIClient()
    with caplog.at_level(logging.WARNING, logger="ratumrad_site.cache"):
        made = [api.post("/api/auth/guest/", {"name": name}) for name in ("alice", "bob")]
        refused = api.post("/api/auth/guest/", {"name": "charlie"})
    assert [answer.status_code for answer in made] == [201, 201]
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    warnings = [r for r in caplog.records if "Redis cache unreachable" in r.getMessage()]
    assert len(warnings) == 1, "one warning per outage, not one per call"


def test_people_sign_in_with_their_password_while_redis_is_away(redis_away, monkeypatch):
    monkeypatch.setattr(LoginAddressThrottle, "THROTTLE_RATES", {"login_address": "3/min"})
    get_user_model().objects.create_user("alice", password="a long velo ride")
    browser = Client()
    answer = browser.post("/login/", {"username": "alice", "password": "a long velo ride"})
    assert answer.status_code == 302
    assert "_auth_user_id" in browser.session
    for guess in ("velo1", "velo2", "velo3"):  # the limit on guessing holds meanwhile
        Client().post("/login/", {"username": "bob", "password": guess})
    assert Client().post("/login/", {"username": "bob", "password": "x"}).status_code == 429


def test_T4_3_a_road300_game_finishes_with_the_strong_bots_score_while_redis_is_away(
    redis_away, people
):
    glue.bot_score.cache_clear()
    game = game_create(user=people[0], name="Solo", kind="road300")
    game = play_out(game, people[0])
    assert game.status == "FINISHED"
    assert game.state["results"][0]["bot_score"] == bots.strong_bot_score(game.seed)


def test_readyz_tells_a_load_balancer_that_redis_is_down_and_healthz_stays_ok(redis_away):
    ready = Client().get("/readyz")
    assert ready.status_code == 503
    assert ready.json() == {"status": "error", "database": "ok", "redis": "error"}
    alive = Client().get("/healthz")
    assert alive.status_code == 200 and alive.json()["status"] == "ok"


def test_readyz_tells_a_load_balancer_that_the_database_is_down(monkeypatch):
    def refuse():
        raise DatabaseError("connection refused")

    monkeypatch.setattr(connection, "cursor", refuse)
    ready = Client().get("/readyz")
    assert ready.status_code == 503
    assert ready.json() == {"status": "error", "database": "error", "redis": "unused"}


def test_readyz_is_ready_without_redis_configured():
    ready = Client().get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ok", "database": "ok", "redis": "unused"}


@pytest.mark.skipif(not os.environ.get("REDIS_URL", "").strip(), reason="needs Redis")
def test_readyz_is_ready_when_redis_answers(settings):
    settings.CACHES = resilient_cache(os.environ["REDIS_URL"])
    ready = Client().get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ok", "database": "ok", "redis": "ok"}


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_the_cache_counts_in_redis_again_from_the_first_call_after_it_returns(tmp_path, caplog):
    with PrivateRedis(tmp_path) as broker:
        shared = resilient.ResilientRedisCache(broker.url, {"KEY_PREFIX": "outage"})
        shared.set("before", 1)  # a pooled connection
        direct = redis.Redis(port=broker.port)
        broker.kill()
        assert shared.get("before") is None  # from memory, which never had it
        assert shared.redis_down
        shared.set("during", 2)
        broker.start()
        resilient._retry_at.clear()  # as RETRY_SECONDS later
        shared.set("after", 3)
        assert direct.get(shared.make_and_validate_key("after")) is not None  # in Redis
        assert not shared.redis_down
        assert "Redis cache reachable again" in caplog.text
        direct.close()


async def test_the_cache_objects_of_every_request_and_socket_share_one_pool(settings):
    settings.CACHES = resilient_cache(NOBODY)

    async def cache_of_a_task():
        return caches["default"]  # Django's: one per asyncio task (a request, a socket)

    first = await asyncio.create_task(cache_of_a_task())
    second = await asyncio.create_task(cache_of_a_task())
    assert first is not second
    assert first._cache is second._cache
    assert first._cache._get_connection_pool(True) is second._cache._get_connection_pool(True)
    elsewhere = resilient.ResilientRedisCache(f"redis://127.0.0.1:{free_port()}/0", {})
    assert elsewhere._cache is not first._cache
