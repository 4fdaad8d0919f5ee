"""Limits per user and per address: new games (a rate and a cap on games waiting for players,
by every way a game is made) and open sockets (closed with 4429 past the cap, counted across
processes in Redis, freed on every way a socket ends)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from games import limits, protocol
from games.models import Game
from tests.races import SlowReads, at_once
from tests.ws_helpers import Socket, close_all, isolated_sockets, make_people  # noqa: F401

RATES = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]


@pytest.fixture(autouse=True)
def fresh_counts():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def shared_rates(settings):
    settings.SHARED_SOCKET_RATES = True  # off for the other tests (tests/conftest.py)


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice")


def api_of(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def game_body(name: str = "Spiel") -> dict:
    return {"name": name, "max_players": 2}


# ---------------------------------------------------------------------------- new games


@pytest.mark.django_db
def test_new_games_are_rate_limited_per_user(alice, django_user_model, monkeypatch):
    monkeypatch.setitem(RATES, "game", "3/min")
    solo = {"name": "Solo", "kind": "road300"}
    for _ in range(3):
        assert api_of(alice).post("/api/games/", solo, format="json").status_code == 201
    refused = api_of(alice).post("/api/games/", solo, format="json")
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert "try again in" in refused.json()["message"] or "Sekunden" in refused.json()["message"]
    assert Game.objects.count() == 3
    bob = django_user_model.objects.create_user("bob")
    assert api_of(bob).post("/api/games/", solo, format="json").status_code == 201


# ---------------------------------------------------------------------------- rates


def a_rate_holds_at_once_and_over_time(monkeypatch) -> None:
    """Twelve calls at once for a rate of 3 a minute: 3 pass. The fourth waits for the first
    to leave the window, and the count is per user."""
    monkeypatch.setitem(RATES, "game", "3/min")
    allowed = at_once(12, lambda: limits.RateLimit("game", 7).allowed())
    assert allowed.count(True) == 3
    clock = [time.time() + 30]
    monkeypatch.setattr(limits.RateLimit, "timer", staticmethod(lambda: clock[0]))
    refused = limits.RateLimit("game", 7)
    assert not refused.allowed()
    assert 25 < refused.wait() <= 30  # the three came about 30 s before "now"
    assert limits.RateLimit("game", 8).allowed()
    clock[0] += 31  # the first three are out of the minute
    assert limits.RateLimit("game", 7).allowed()


def test_calls_made_at_the_same_moment_all_count_against_a_rate(monkeypatch):
    """DRF's throttle read the history, checked it and wrote it back: calls that all read
    before the first one wrote all passed (80 new guests at once from one address, with a
    limit of 30 a minute: 40 were made). In the process's memory they take turns."""
    monkeypatch.setattr(limits.RateLimit, "cache", SlowReads(cache))
    a_rate_holds_at_once_and_over_time(monkeypatch)


def test_in_redis_calls_made_at_once_count_against_a_rate_in_one_trip_each(in_redis, monkeypatch):
    monkeypatch.setattr(limits.RateLimit, "cache", limits.cache)  # Redis (``in_redis``)
    a_rate_holds_at_once_and_over_time(monkeypatch)
    assert in_redis == ["rate"] * 15  # each call one script, no other trip


@pytest.mark.django_db
def test_a_user_has_only_so_many_games_waiting_for_players(alice, monkeypatch):
    monkeypatch.setattr(settings, "GAMES_WAITING_PER_USER", 2)
    for number in range(2):
        assert api_of(alice).post("/api/games/", game_body(f"g{number}")).status_code == 201
    refused = api_of(alice).post("/api/games/", game_body())
    assert refused.status_code == 409 and refused.json()["code"] == "too_many_waiting"
    assert "2" in refused.json()["message"]
    # A solo game never waits; a waiting game called off frees its place.
    assert api_of(alice).post("/api/games/", {"name": "Solo", "kind": "road300"}).status_code == 201
    waiting = Game.objects.filter(status=Game.Status.WAITING).first()
    assert api_of(alice).post(f"/api/games/{waiting.pk}/leave/").status_code == 200
    assert api_of(alice).post("/api/games/", game_body()).status_code == 201


@pytest.mark.django_db
def test_the_pages_refuse_new_games_past_the_limits_with_a_clear_message(alice, monkeypatch):
    monkeypatch.setattr(settings, "GAMES_WAITING_PER_USER", 1)
    page = Client()
    page.force_login(alice)
    form = {"name": "Spiel", "max_players": 3, "bots": 0, "turn_seconds": 60}
    assert page.post("/new-game/", form).status_code == 302
    refused = page.post("/new-game/", form)
    assert refused.status_code == 200
    assert "Spiele, die auf Mitspielende warten" in refused.content.decode()
    assert Game.objects.count() == 1
    monkeypatch.setitem(RATES, "game", "0/min")
    answer = page.post("/road300/daily/", follow=True)
    assert "zu viele neue Spiele" in answer.content.decode()
    assert Game.objects.count() == 1


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_refuses_new_games_past_the_limits(monkeypatch):
    (alice,) = await make_people("alice")
    monkeypatch.setattr(settings, "GAMES_WAITING_PER_USER", 1)
    socket = await Socket.lobby(alice)
    await socket.send({"type": "CREATE_GAME", "ref": "a", **game_body()})
    await socket.until("GAME_CREATED")
    await socket.send({"type": "CREATE_GAME", "ref": "b", **game_body()})
    error = (await socket.until("ERROR"))[-1]
    assert (error["code"], error["ref"]) == ("too_many_waiting", "b")
    monkeypatch.setitem(RATES, "game", "0/min")
    await socket.send({"type": "CREATE_GAME", "ref": "c", "name": "Solo", "kind": "road300"})
    error = (await socket.until("ERROR"))[-1]
    assert (error["code"], error["ref"]) == ("rate_limited", "c")
    await close_all(socket)


# ---------------------------------------------------------------------------- open sockets


@pytest.mark.django_db(transaction=True)
async def test_open_sockets_are_capped_per_user_and_freed_when_one_closes(monkeypatch):
    alice, bob = await make_people("alice", "bob")
    monkeypatch.setattr(settings, "SOCKETS_PER_USER", 3)
    sockets = [await Socket.lobby(alice) for _ in range(3)]
    extra = await Socket.lobby(alice)
    error = await extra.expect("ERROR")
    assert error["code"] == "too_many_sockets" and "3" in error["message"]
    await extra.expect_close(4429)
    others = await Socket.lobby(bob)  # another player is not counted with alice
    await others.send({"type": "PING", "ref": "p"})
    assert (await others.expect("PONG"))["ref"] == "p"
    await sockets[0].close()
    again = await Socket.lobby(alice)
    await again.send({"type": "PING", "ref": "p"})
    assert (await again.expect("PONG"))["ref"] == "p"
    await close_all(*sockets[1:], again, others)
    assert not [key for key in cache._cache if "socket-slot" in str(key)]  # all freed


@pytest.mark.django_db(transaction=True)
async def test_open_sockets_are_capped_per_address_whoever_logs_in(monkeypatch):
    alice, bob, charlie = await make_people("alice", "bob", "charlie")
    monkeypatch.setattr(settings, "SOCKETS_PER_ADDRESS", 2)
    monkeypatch.setattr(protocol, "scope_address", lambda scope: "10.0.0.1")
    first, second = await Socket.lobby(alice), await Socket.lobby(bob)
    game_socket = await Socket.open("/ws/games/1/", charlie)
    error = await game_socket.expect("ERROR")
    assert error["code"] == "too_many_sockets"
    await game_socket.expect_close(4429)
    await close_all(first, second)
    monkeypatch.setattr(protocol, "scope_address", lambda scope: "10.0.0.2")
    elsewhere = await Socket.lobby(charlie)
    await elsewhere.send({"type": "PING", "ref": "p"})
    assert (await elsewhere.expect("PONG"))["ref"] == "p"
    await close_all(elsewhere)


@pytest.mark.django_db(transaction=True)
async def test_a_socket_refused_for_another_reason_frees_its_slot(monkeypatch):
    (alice,) = await make_people("alice")
    monkeypatch.setattr(settings, "SOCKETS_PER_USER", 1)
    for _ in range(3):
        missing = await Socket.open("/ws/games/999/", alice)
        assert (await missing.expect("ERROR"))["code"] == "not_found"
        await missing.expect_close(4004)
        await missing.close()
    lobby = await Socket.lobby(alice)
    await lobby.send({"type": "PING", "ref": "p"})
    assert (await lobby.expect("PONG"))["ref"] == "p"
    await close_all(lobby)


def test_slots_of_a_server_that_died_expire_and_a_beat_renews_them(monkeypatch):
    monkeypatch.setattr(settings, "SOCKETS_PER_USER", 1)
    lifetime = [60.0]
    monkeypatch.setattr(limits, "slot_seconds", lambda: lifetime[0])
    held = limits.SocketSlots("channel-a", 7, "10.0.0.1")
    assert held.claim() is None
    assert limits.SocketSlots("channel-b", 7, "10.0.0.2").claim() == "user"
    # The server dies: nobody releases. Its slot lives on only until it expires.
    lifetime[0] = 0.001
    held.renew()
    import time

    time.sleep(0.01)
    assert limits.SocketSlots("channel-c", 7, "10.0.0.3").claim() is None


def test_the_socket_address_trusts_only_num_proxies_forwarded_entries(monkeypatch):
    scope = {"client": ("10.0.0.1", 5000), "headers": [(b"x-forwarded-for", b"6.6.6.6, 1.2.3.4")]}
    assert limits.scope_address(scope) == "10.0.0.1"
    monkeypatch.setitem(settings.REST_FRAMEWORK, "NUM_PROXIES", 1)
    from rest_framework.settings import api_settings

    api_settings.reload()
    try:
        assert limits.scope_address(scope) == "1.2.3.4"
    finally:
        monkeypatch.undo()
        api_settings.reload()


CLAIM = """
import django, os, sys
django.setup()
from django.conf import settings
settings.SOCKETS_PER_USER = 2
from games.limits import SocketSlots
print(SocketSlots(sys.argv[1], 4242, "10.9.9.9").claim())
"""


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the shared count needs Redis")
def test_sockets_of_several_server_processes_count_together_in_redis(monkeypatch):
    from django.core.cache.backends.redis import RedisCache

    prefix = f"test-limits-{os.getpid()}"
    shared = RedisCache(os.environ["REDIS_URL"], {"KEY_PREFIX": f"{prefix}-cache"})
    monkeypatch.setattr(limits, "cache", shared)
    monkeypatch.setattr(settings, "SOCKETS_PER_USER", 2)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "ratumrad_site.settings",
        "REDIS_PREFIX": prefix,
    }

    def other_process(channel: str) -> str:
        run = subprocess.run(
            [sys.executable, "-c", CLAIM, channel], env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        return run.stdout.strip()

    try:
        mine = limits.SocketSlots("here", 4242, "10.9.9.9")
        assert mine.claim() is None
        assert other_process("there-1") == "None"
        assert other_process("there-2") == "user"  # this process's socket counts there too
        mine.release()
        assert other_process("there-3") == "None"
    finally:
        forget_prefixed(shared)


# ------------------------------------------------------------- open sockets, slots in Redis


@pytest.fixture
def in_redis(monkeypatch):
    """The site's cache in Redis (with ``REDIS_URL``) for the slots, every script run counted."""
    if not os.environ.get("REDIS_URL"):
        pytest.skip("the slots' sets need Redis")
    from ratumrad_site.cache import ResilientRedisCache

    shared = ResilientRedisCache(
        os.environ["REDIS_URL"], {"KEY_PREFIX": f"test-slots-{os.getpid()}-{time.time_ns()}"}
    )
    monkeypatch.setattr(limits, "cache", shared)
    runs: list[str] = []
    script = limits._script

    def counted(client, source):
        run = script(client, source)
        names = {limits.CLAIM: "claim", limits.RENEW: "renew", limits.RELEASE: "release"}
        name = {**names, limits.RATE: "rate"}[source]
        return lambda keys, args: (runs.append(name), run(keys, args))[1]

    monkeypatch.setattr(limits, "_script", counted)
    yield runs
    forget_prefixed(shared)


def forget_prefixed(redis_cache) -> None:
    """Delete the keys of ``redis_cache``'s prefix (not ``clear()``: that empties the whole
    database, which the other tests of a parallel run use too)."""
    client = redis_cache._cache.get_client(write=True)
    keys = list(client.scan_iter(match=f"{redis_cache.key_prefix}:*"))
    if keys:
        client.delete(*keys)


def holders(kind: str, owner: str) -> list[str]:
    """The channels holding a slot of ``owner`` in Redis, expired or not."""
    key = limits.cache.make_key(limits._set_key(kind, owner))
    client = limits.cache._cache.get_client(write=True)
    return sorted(member.decode() for member in client.zrange(key, 0, -1))


def test_in_redis_a_socket_takes_and_frees_both_its_slots_in_one_trip_each(in_redis, monkeypatch):
    monkeypatch.setattr(settings, "SOCKETS_PER_USER", 2)
    monkeypatch.setattr(settings, "SOCKETS_PER_ADDRESS", 3)
    first, second = (limits.SocketSlots(f"c{n}", 7, "10.0.0.1") for n in (1, 2))
    assert first.claim() is None and second.claim() is None
    assert in_redis == ["claim", "claim"]
    assert holders("user", "7") == holders("address", "10.0.0.1") == ["c1", "c2"]
    # The user's slots are all taken: refused, and nothing is held for it.
    assert limits.SocketSlots("c3", 7, "10.0.0.1").claim() == "user"
    # The address's last slot is taken by another user: the user slot taken first is given
    # back when the address is found full.
    assert limits.SocketSlots("c4", 8, "10.0.0.1").claim() is None
    assert limits.SocketSlots("c5", 9, "10.0.0.1").claim() == "address"
    assert holders("user", "9") == [] and holders("address", "10.0.0.1") == ["c1", "c2", "c4"]
    in_redis.clear()
    first.release()
    assert in_redis == ["release"]
    assert holders("user", "7") == ["c2"] and holders("address", "10.0.0.1") == ["c2", "c4"]
    assert limits.SocketSlots("c6", 7, "10.0.0.1").claim() is None
    # One script of each kind, whatever the number of calls (Django makes a client for each).
    assert set(limits._scripts) <= {limits.CLAIM, limits.RENEW, limits.RELEASE, limits.RATE}


def test_in_redis_slots_of_a_server_that_died_expire_and_one_beat_renews_all(in_redis, monkeypatch):
    monkeypatch.setattr(settings, "SOCKETS_PER_USER", 2)
    lifetime = [60.0]
    monkeypatch.setattr(limits, "slot_seconds", lambda: lifetime[0])
    held = [limits.SocketSlots(f"alive-{n}", 7, "10.0.0.1") for n in (1, 2)]
    assert [slots.claim() for slots in held] == [None, None]
    assert limits.SocketSlots("refused", 7, "10.0.0.2").claim() == "user"
    lifetime[0] = 0.05  # the server dies: nobody renews, the slots expire
    in_redis.clear()
    limits.renew_all(held)
    assert in_redis == ["renew"]  # every socket's slots, one trip
    time.sleep(0.1)
    assert limits.SocketSlots("after", 7, "10.0.0.3").claim() is None
    assert holders("user", "7") == ["after"]  # the expired ones went as it came
    lifetime[0] = 60.0
    limits.renew_all(held)  # back after a long pause: one is taken again, there is room
    assert holders("user", "7") == ["after", "alive-1"]


def test_while_redis_is_away_slots_are_counted_in_the_process(monkeypatch):
    from ratumrad_site.cache import ResilientRedisCache

    away = ResilientRedisCache("redis://127.0.0.1:9/0", {"KEY_PREFIX": "test-slots-away"})
    monkeypatch.setattr(limits, "cache", away)
    monkeypatch.setattr(settings, "SOCKETS_PER_USER", 1)
    held = limits.SocketSlots("c1", 7, "10.0.0.1")
    assert held.claim() is None and held.keys and not held.sets
    assert limits.SocketSlots("c2", 7, "10.0.0.1").claim() == "user"
    limits.renew_all([held])
    held.release()
    assert limits.SocketSlots("c3", 7, "10.0.0.1").claim() is None
    away._local.clear()


def test_in_redis_a_beat_of_many_sockets_renews_their_slots_in_parts(in_redis, monkeypatch):
    monkeypatch.setattr(settings, "SOCKETS_PER_USER", 5)
    monkeypatch.setattr(limits, "RENEWED_AT_ONCE", 4)  # slots, two a socket
    held = [limits.SocketSlots(f"c{n}", 7, "10.0.0.1") for n in range(5)]
    assert [slots.claim() for slots in held] == [None] * 5
    in_redis.clear()
    limits.renew_all(held)
    assert in_redis == ["renew"] * 3  # ten slots, four at a time
    assert holders("user", "7") == holders("address", "10.0.0.1") == [f"c{n}" for n in range(5)]


# ---------------------------------------------------------------------------- socket rates


async def answers_to(socket: Socket, kind: str, count: int) -> list[dict]:
    for n in range(count):
        await socket.send({"type": kind, "ref": f"{kind}-{n}"})
    return [await socket.recv() for _ in range(count)]


@pytest.mark.django_db(transaction=True)
async def test_requests_for_lists_are_capped_per_user_over_all_their_sockets(
    monkeypatch, shared_rates
):
    """Each socket is under its own READS_PER_SECOND; the user's sockets together are not."""
    monkeypatch.setitem(limits.SHARED_RATES, "read", {"user": 4, "address": 100})
    alice, bob = await make_people("alice", "bob")
    first, second, bobs = (
        await Socket.lobby(alice),
        await Socket.lobby(alice),
        await Socket.lobby(bob),
    )
    assert [m["type"] for m in await answers_to(first, "REQUEST_GAMES", 3)] == ["GAMES"] * 3
    later = await answers_to(second, "REQUEST_GAMES", 3)
    assert [m["type"] for m in later] == ["GAMES", "ERROR", "ERROR"]
    assert {m.get("code") for m in later[1:]} == {"rate_limited"}
    assert later[1]["message"] == (  # a socket speaks German unless told otherwise
        "höchstens 4 Anfragen nach einem Stand, einer Liste oder einem Verlauf pro Sekunde"
        " von allen Sockets eines Spielers zusammen"
    )
    assert [m["type"] for m in await answers_to(bobs, "REQUEST_GAMES", 3)] == ["GAMES"] * 3
    await close_all(first, second, bobs)


@pytest.mark.django_db(transaction=True)
async def test_requests_for_lists_are_capped_per_address_whoever_sends_them(
    monkeypatch, shared_rates
):
    monkeypatch.setitem(limits.SHARED_RATES, "read", {"user": 100, "address": 3})
    alice, bob, charlie = await make_people("alice", "bob", "charlie")
    monkeypatch.setattr(protocol, "scope_address", lambda scope: "10.0.0.1")
    alices, bobs = await Socket.lobby(alice), await Socket.lobby(bob)
    monkeypatch.setattr(protocol, "scope_address", lambda scope: "10.0.0.2")
    elsewhere = await Socket.lobby(charlie)
    assert [m["type"] for m in await answers_to(alices, "REQUEST_GAMES", 2)] == ["GAMES"] * 2
    later = await answers_to(bobs, "REQUEST_GAMES", 2)
    assert [m["type"] for m in later] == ["GAMES", "ERROR"]
    assert later[1]["message"].endswith("pro Sekunde von einer Adresse")
    assert [m["type"] for m in await answers_to(elsewhere, "REQUEST_GAMES", 3)] == ["GAMES"] * 3
    await close_all(alices, bobs, elsewhere)


@pytest.mark.django_db(transaction=True)
async def test_a_chat_line_over_a_socket_s_limit_is_refused_before_the_database(monkeypatch):
    """A flood of chat lines cost a trip to the database (and its lock of the user's row)
    each; now only the first CHAT_LINES of a socket's window go there."""
    posted = []
    real_post = protocol._chat_post
    monkeypatch.setattr(
        protocol, "_chat_post", lambda *args: posted.append(args) or real_post(*args)
    )
    (alice,) = await make_people("alice")
    socket = await Socket.lobby(alice)
    for n in range(protocol.CHAT_LINES + 3):
        await socket.send({"type": "CHAT", "text": f"line {n}", "ref": str(n)})
    answers = [await socket.recv() for _ in range(protocol.CHAT_LINES + 3)]
    # The lines come back through the lobby group: after the refusals, or among them.
    lines = [m["text"] for m in answers if m["type"] == "CHAT"]
    assert lines == [f"line {n}" for n in range(protocol.CHAT_LINES)]
    refused = [m for m in answers if m["type"] == "ERROR"]
    assert [m["ref"] for m in refused] == ["5", "6", "7"]
    assert refused[0]["message"] == "höchstens 5 Chatzeilen in 10 Sekunden"
    assert len(posted) == protocol.CHAT_LINES
    await close_all(socket)


def test_a_refused_message_counts_against_no_one_and_the_window_slides(monkeypatch, shared_rates):
    now = [1000.0]
    monkeypatch.setattr(limits.time, "monotonic", lambda: now[0])
    monkeypatch.setitem(limits.SHARED_RATES, "move", {"user": 3, "address": 100})
    first, second = limits.SocketRates(7, "10.0.0.1"), limits.SocketRates(7, "10.0.0.1")
    assert [first.over("move", 2) for _ in range(3)] == [None, None, ("socket", 2)]
    assert [second.over("move", 2) for _ in range(2)] == [None, ("user", 3)]
    assert len(second.own["move"]) == 1  # the refused one was not counted
    assert len(limits.SocketRates.shared[("move", "address", "10.0.0.1")]) == 3
    now[0] += 1.0  # a second later every window is empty again
    assert second.over("move", 2) is None
    stranger = limits.SocketRates(None, "")  # a socket with no user and no address
    assert [stranger.over("move", 2) for _ in range(3)] == [None, None, ("socket", 2)]


def test_without_shared_rates_only_the_socket_s_own_limit_counts(monkeypatch, settings):
    settings.SHARED_SOCKET_RATES = False
    monkeypatch.setitem(limits.SHARED_RATES, "read", {"user": 1, "address": 1})
    rates = [limits.SocketRates(7, "10.0.0.1") for _ in range(3)]
    assert [socket.over("read", 10) for socket in rates] == [None, None, None]
    assert not limits.SocketRates.shared


def test_the_counts_of_idle_users_and_addresses_are_forgotten(monkeypatch, shared_rates):
    now = [1000.0]
    monkeypatch.setattr(limits.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(limits, "FORGET_AFTER", 10)
    for user in range(10):
        limits.SocketRates(user, f"10.0.0.{user}").over("read", 10)
    assert len(limits.SocketRates.shared) == 20
    now[0] += 2
    limits.SocketRates(99, "10.0.1.1").over("read", 10)
    assert set(limits.SocketRates.shared) == {("read", "user", 99), ("read", "address", "10.0.1.1")}


def test_every_socket_an_address_may_open_may_ask_for_its_three_lists_at_once(shared_rates):
    """After a restart every socket opens again and asks for the games, who is online and
    the chat: as many as SOCKETS_PER_USER and SOCKETS_PER_ADDRESS allow are not refused
    (their defaults; the tests' settings raise them)."""
    per_user, per_address = 20, 100
    sockets = [limits.SocketRates(number // per_user, "10.0.0.1") for number in range(per_address)]
    answers = [socket.over("read", protocol.READS_PER_SECOND) for socket in sockets * 3]
    assert answers == [None] * (3 * per_address)
    assert sockets[0].over("read", protocol.READS_PER_SECOND) == ("user", 3 * per_user)
