"""The game socket: views on connect, moves, events with feed sentences, chat, presence,
reconnecting mid-turn, and two sockets racing the same move. The tests that make moves run on
every path a move can take (tests/paths.py)."""

import asyncio
import math
import re
import time
from datetime import timedelta
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone, translation

from games import feed, moves, presence, services
from games.kinds import ratumrad as glue
from games.models import Connection, Event, Game, Move
from games.ratumrad import engine
from games.ratumrad.board import basel
from games.scope import socket_language
from games.services.admin import game_abort
from games.services.lifecycle import game_join, game_start
from tests.ws_helpers import (
    Socket,
    close_all,
    current_person,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    running_game,
    started_game,
    stored_game,
    waiting_game,
)

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_seated_player_gets_their_own_view_when_connecting(people):
    alice, bob = people[:2]
    game_id = await started_game(people, 2)
    socket = await Socket.game(game_id, alice)
    message = socket.received[0]
    state = message["state"]
    assert message["seq"] == state["seq"] == 0
    assert state["game_id"] == game_id and state["status"] == "PREPARATION"
    assert state["you"]["player_id"] == alice.pk
    assert len(state["you"]["pending_destinations"]) == 3
    assert {move["type"] for move in state["legal"]} == {
        "SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION",
        "VOTE_END",
    }
    names = {row["id"]: (row["name"], row["connected"]) for row in state["players"]}
    assert names == {alice.pk: ("alice", True), bob.pk: ("bob", False)}
    await socket.close()


async def test_a_spectator_gets_the_public_view_without_you_and_without_legal_moves(people):
    charlie = people[2]
    game_id = await started_game(people, 2)
    socket = await Socket.game(game_id, charlie)
    state = socket.received[0]["state"]
    assert "you" not in state and state["legal"] == []
    assert [row["pending_destination_cards"] for row in state["players"]] == [3, 3]
    await socket.close()


async def test_a_browser_logged_in_by_session_watches_with_its_origin(people):
    game_id = await started_game(people, 2)
    socket = await Socket.game(game_id, people[0], auth="session")
    assert socket.received[0]["state"]["you"]["player_id"] == people[0].pk
    await socket.close()


async def test_a_move_is_acknowledged_to_its_sender_and_everyone_gets_events_then_state(
    people, move_path
):
    alice, bob, charlie = people[:3]
    game_id = await started_game(people, 2)
    a = await Socket.game(game_id, alice)
    b = await Socket.game(game_id, bob)
    watcher = await Socket.game(game_id, charlie)
    await a.until("STATE")  # bob arrived
    keep = a.received[0]["state"]["legal"][1]  # reject one card
    await a.send({**keep, "ref": "prep-1", "expect_seq": 0})
    sent = await a.until("STATE", seq=1)
    assert sent[0] == {"type": "ACK", "ref": "prep-1", "seq": 1}
    for socket in (a, b, watcher):
        messages = sent if socket is a else await socket.until("STATE", seq=1)
        events = [m for m in messages if m["type"] == "EVENT"]
        assert messages[-1]["type"] == "STATE"
        assert [m["event"]["kind"] for m in events] == ["prepared"]
        assert events[0]["seq"] == 1
        assert events[0]["event"]["player"] == alice.pk and events[0]["event"]["kept"] == 2
        assert events[0]["event"]["text"]
        assert not [m for m in messages if m["type"] == "ACK" and socket is not a]
    rows = {row["id"]: row for row in b.received[-1]["state"]["players"]}
    assert rows[alice.pk]["prepared"] is True and rows[bob.pk]["prepared"] is False
    assert len(a.received[-1]["state"]["you"]["destinations"]) == 3
    await close_all(a, b, watcher)


async def test_sync_answers_with_the_current_state(people):
    game_id = await running_game(people, 3)
    socket = await Socket.game(game_id, people[1])
    state = await socket.sync()
    assert state == socket.received[0]["state"]
    assert state["status"] == "RUNNING" and state["seq"] == 3
    await socket.close()


async def test_game_chat_reaches_players_and_spectators_with_name_and_time(people):
    alice, bob, charlie = people[:3]
    game_id = await started_game(people, 2)
    a = await Socket.game(game_id, alice)
    b = await Socket.game(game_id, bob)
    watcher = await Socket.game(game_id, charlie)
    await a.until("STATE")  # bob arrived
    await watcher.send({"type": "CHAT", "text": "  Hopp Basel!  "})
    for socket in (a, b, watcher):
        line = (await socket.until("CHAT"))[-1]  # after any news of arrivals
        assert line["player"] == charlie.pk and line["name"] == "charlie"
        assert line["text"] == "Hopp Basel!" and line["at"]
    await close_all(a, b, watcher)


async def test_history_gives_the_feed_and_the_chat_so_far_oldest_first(people):
    alice, charlie = people[0], people[2]
    game_id = await running_game(people, 2)
    a = await Socket.game(game_id, alice)
    await a.send({"type": "CHAT", "text": "Hopp"})
    await a.expect("CHAT")
    await a.send({"type": "CHAT", "text": "Basel"})
    await a.expect("CHAT")
    watcher = await Socket.game(game_id, charlie, language="en")
    await watcher.send({"type": "REQUEST_HISTORY"})
    history = await watcher.expect("HISTORY")
    assert [line["text"] for line in history["chat"]] == ["Hopp", "Basel"]
    assert {line["name"] for line in history["chat"]} == {"alice"}
    stored = await database_sync_to_async(
        lambda: list(Event.objects.filter(game_id=game_id).values_list("seq", "kind"))
    )()
    assert [(row["seq"], row["event"]["kind"]) for row in history["events"]] == stored
    assert [kind for _, kind in stored[:2]] == ["joined", "dealt"] and len(stored) >= 4
    assert history["events"][1]["event"]["text"].startswith("The cards are dealt")
    await close_all(a, watcher)


async def test_history_in_a_waiting_game_names_who_joined(people):
    alice, bob = people[:2]
    game_id = await waiting_game(alice)
    await database_sync_to_async(game_join)(game_id=game_id, user=bob)
    socket = await Socket.game(game_id, alice)
    await socket.send({"type": "REQUEST_HISTORY", "ref": "h"})
    history = await socket.expect("HISTORY")
    assert [row["event"]["kind"] for row in history["events"]] == ["joined"]
    assert "bob" in history["events"][0]["event"]["text"] and history["chat"] == []
    await socket.close()


async def test_events_are_described_in_the_language_of_each_socket(people):
    alice, bob, charlie = people[:3]
    game_id = await started_game(people, 2)
    german = await Socket.game(game_id, alice)
    english = await Socket.game(game_id, bob, language="en-GB,en;q=0.9,de;q=0.5")
    by_cookie = await Socket.game(game_id, charlie, cookies="django_language=en")
    keep = german.received[0]["state"]["legal"][0]
    await german.send(keep)
    event = {"kind": "prepared", "player": alice.pk, "kept": 3}
    with translation.override("de"):
        in_german = glue.describe(event, {alice.pk: "alice"})
    with translation.override("en"):
        in_english = glue.describe(event, {alice.pk: "alice"})
    assert in_english == "alice kept 3 short destination cards."
    assert in_german == "alice behält 3 Kurzstreckenkarten."
    for socket, text in ((german, in_german), (english, in_english), (by_cookie, in_english)):
        # A STATE of seq 1 may come first: one fetched for a player's arrival after the move.
        event = (await socket.until("EVENT", seq=1))[-1]
        assert event["event"]["text"] == text
    await close_all(german, english, by_cookie)


@pytest.mark.parametrize(
    ("cookie", "accept", "language"),
    [
        ("", "", "de"),
        ("", "en-US,en;q=0.9", "en"),
        ("", "fr-CH, fr;q=0.9, en;q=0.8", "en"),
        ("", "fr", "de"),
        ("en", "de", "en"),
        ("xx", "en", "en"),
    ],
)
def test_a_socket_speaks_the_cookie_language_then_the_browser_language_then_german(
    cookie, accept, language
):
    scope = {
        "cookies": {"django_language": cookie} if cookie else {},
        "headers": [(b"accept-language", accept.encode())] if accept else [],
    }
    assert socket_language(scope) == language


SAMPLE_EVENTS = [
    {"kind": "joined", "player": 2},
    {"kind": "dealt", "player": None},
    {"kind": "prepared", "player": 1, "kept": 2},
    {"kind": "game_started", "player": 1},
    {"kind": "took_wheel", "player": 1, "source": "deck"},
    {"kind": "took_wheel", "player": 1, "source": "face_up", "slot": 2, "color": "joker"},
    {"kind": "display_wiped", "locked": False},
    {"kind": "display_wiped", "locked": True},
    {"kind": "deck_reshuffled", "cards": 41},
    {"kind": "built_road", "player": 1, "road": 0, "color": "pink", "jokers": 0, "points": 1},
    {"kind": "few_wheels", "player": 1, "wheels": 4},
    {"kind": "few_wheels", "player": 1, "wheels": 0},
    {"kind": "no_wheel_cards", "player": 1},
    {"kind": "drew_destinations", "player": 1, "count": 3},
    {"kind": "kept_destinations", "player": 1, "kept": 1, "returned": 2},
    {"kind": "final_round", "player": 1, "wheels": 2},
    {"kind": "passed", "player": 1},
    {"kind": "voted_end", "player": 1, "end": True},
    {"kind": "voted_end", "player": 1, "end": False},
    {"kind": "game_over", "reason": "final_round", "winners": [1]},
    {"kind": "game_over", "reason": "vote", "winners": [1, 2]},
    {"kind": "game_over", "reason": "all_passed", "winners": []},
    {"kind": "game_over", "reason": "admin", "winners": [2]},
    {"kind": "aborted", "player": None},
    {"kind": "autopilot_on", "player": 1, "reason": "timeout"},
    {"kind": "autopilot_off", "player": 1},
    {"kind": "left", "player": 1, "replaced": True},
    {"kind": "left", "player": 2, "replaced": False},
    {"kind": "rematch", "player": 1, "accept": True},
    {"kind": "rematch", "player": 2, "accept": False},
    {"kind": "rematch_started", "player": None, "game": 7},
]


def test_the_feed_has_a_sentence_for_every_event_kind_the_engine_and_the_site_emit():
    def kinds_in(*paths: Path) -> set[str]:
        found = (re.findall(r'"kind": "(\w+)"', path.read_text()) for path in paths)
        return set().union(*found)

    def sources(module) -> list[Path]:
        path = Path(module.__file__)
        return sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]

    # The site's own events have the site's sentences; the engine's (any module of its
    # package: the rules are split by responsibility) and the deal's the glue's.
    site = kinds_in(*sources(services), *sources(moves))
    assert site and site <= set(feed.KINDS)
    rules = sorted(Path(engine.__file__).parent.glob("*.py"))
    engine_kinds = kinds_in(*rules, *sources(glue))
    assert engine_kinds <= set(glue.FEED_KINDS)
    assert not set(feed.KINDS) & set(glue.FEED_KINDS)
    known = {*feed.KINDS, *glue.FEED_KINDS}
    assert {event["kind"] for event in SAMPLE_EVENTS} == known
    for language in ("de", "en"):
        with translation.override(language):
            for event in SAMPLE_EVENTS:
                text = glue.describe(event, {1: "Lea", 2: "Noah"})
                assert text and "Something happened" not in text, event
                assert "%(" not in text and "{" not in text, text


def test_feed_sentences_name_the_player_the_places_and_the_counts():
    board = basel()
    road = next(r for r in board.roads if r.length == 3)
    place = {loc.id: loc.name for loc in board.locations}
    names = {1: "Lea", 2: "Noah", 3: "Mia"}
    built = {"kind": "built_road", "player": 1, "road": road.id, "points": 4}
    with translation.override("en"):
        assert glue.describe(built, names) == (f"Lea built {place[road.a]}–{place[road.b]} (+4)")
        few = {"kind": "few_wheels", "player": 2, "wheels": 1}
        assert glue.describe(few, names) == "Noah has 1 wheel left"
        none = {"kind": "no_wheel_cards", "player": 3}
        assert glue.describe(none, names) == "Mia has no wheel cards left"
        won = {"kind": "game_over", "reason": "vote", "winners": [1, 3]}
        assert glue.describe(won, names).endswith("Winners: Lea, Mia.")
        assert "Something happened" in glue.describe({"kind": "new_thing"}, names)
        assert glue.describe({"kind": "passed", "player": 9}, names).startswith("someone")
    with translation.override("de"):
        assert glue.describe(built, names) == (
            f"Lea hat {place[road.a]}–{place[road.b]} gebaut (+4)"
        )
        assert glue.describe(few, names) == "Noah hat nur noch 1 Rad"
        assert glue.describe(none, names) == "Mia hat keine Radkarten mehr"


async def test_reconnecting_after_the_first_card_of_a_draw_shows_the_same_turn(people, move_path):
    game_id = await running_game(people, 3)
    mover = await current_person(people, game_id)
    first = await Socket.game(game_id, mover)
    seq = first.received[0]["seq"]
    await first.send({"type": "TAKE_WHEEL", "source": "deck", "expect_seq": seq})
    before = await first.state_at(seq + 1)
    assert before["turn"] == "second_card" and before["current_player"] == mover.pk
    await first.close()
    again = await Socket.game(game_id, mover)
    after = again.received[0]["state"]
    assert after["turn"] == before["turn"] == "second_card"
    assert after["you"]["pending_destinations"] == before["you"]["pending_destinations"] == []
    assert after["legal"] == before["legal"]
    assert after["you"]["hand"] == before["you"]["hand"]
    await again.close()


async def test_reconnecting_while_choosing_destination_cards_shows_the_same_cards(
    people, move_path
):
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    first = await Socket.game(game_id, mover)
    seq = first.received[0]["seq"]
    await first.send({"type": "DRAW_DESTINATION_CARDS", "expect_seq": seq})
    before = await first.state_at(seq + 1)
    assert before["turn"] == "choose_destinations"
    assert len(before["you"]["pending_destinations"]) == 3
    await first.close()
    again = await Socket.game(game_id, mover)
    after = again.received[0]["state"]
    assert after["turn"] == before["turn"]
    assert after["you"]["pending_destinations"] == before["you"]["pending_destinations"]
    assert after["legal"] == before["legal"]
    assert {m["type"] for m in after["legal"]} == {"KEEP_DESTINATION_CARDS", "VOTE_END"}
    await again.close()


def connected(state, user):
    return next(row["connected"] for row in state["players"] if row["id"] == user.pk)


async def test_presence_flips_as_a_players_socket_opens_and_closes(people):
    alice, bob, charlie = people[:3]
    game_id = await started_game(people, 2)
    a = await Socket.game(game_id, alice)
    assert connected(a.received[0]["state"], bob) is False
    b = await Socket.game(game_id, bob)
    assert await a.expect("PRESENCE") == {"type": "PRESENCE", "player": bob.pk, "connected": True}
    assert connected((await a.expect("STATE"))["state"], bob) is True
    assert connected(b.received[0]["state"], bob) is True
    watcher = await Socket.game(game_id, charlie)  # spectators are not players: no presence
    assert await a.is_quiet()
    await b.close()
    assert await a.expect("PRESENCE") == {"type": "PRESENCE", "player": bob.pk, "connected": False}
    assert connected((await a.expect("STATE"))["state"], bob) is False
    assert (await watcher.until("STATE"))[0]["type"] == "PRESENCE"
    assert connected(watcher.received[-1]["state"], bob) is False
    await close_all(a, watcher)


async def test_a_socket_left_behind_by_a_dead_server_does_not_count_as_connected(
    people, settings, monkeypatch
):
    alice, bob = people[:2]
    game_id = await started_game(people, 2)
    old = timezone.now() - settings.PRESENCE_TTL - timedelta(seconds=1)
    make_old = database_sync_to_async(Connection.objects.create)
    await make_old(channel_name="gone!", user=bob, game_id=game_id, seen=old)
    monkeypatch.setattr(presence, "_stale_dropped", -math.inf)  # none deleted lately
    a = await Socket.game(game_id, alice)
    assert connected(a.received[0]["state"], bob) is False
    old_rows = database_sync_to_async(Connection.objects.filter(seen=old).exists)
    assert not await old_rows()  # deleted as the socket opened
    # Within a beat the next socket does not look for such rows again; after one it does.
    await make_old(channel_name="gone again!", user=bob, game_id=game_id, seen=old)
    b = await Socket.game(game_id, alice)
    assert connected(b.received[0]["state"], bob) is False
    assert await old_rows()
    monkeypatch.setattr(
        presence, "_stale_dropped", time.monotonic() - settings.PRESENCE_BEAT.total_seconds()
    )
    c = await Socket.game(game_id, alice)
    assert not await old_rows()
    await close_all(a, b, c)


async def test_an_open_socket_keeps_its_presence_fresh(people, settings):
    settings.PRESENCE_BEAT = timedelta(milliseconds=20)
    alice = people[0]
    game_id = await started_game(people, 2)
    a = await Socket.game(game_id, alice)
    row = await database_sync_to_async(Connection.objects.get)(user=alice, game_id=game_id)
    await asyncio.sleep(0.2)
    await database_sync_to_async(row.refresh_from_db)()
    assert row.seen > row.opened + timedelta(milliseconds=15)
    await a.close()


async def test_a_player_stays_connected_until_their_last_socket_closes(people):
    alice, bob = people[:2]
    game_id = await started_game(people, 2)
    a = await Socket.game(game_id, alice)
    phone = await Socket.game(game_id, bob)
    assert (await a.until("STATE"))[0] == {"type": "PRESENCE", "player": bob.pk, "connected": True}
    laptop = await Socket.game(game_id, bob)  # connected already: no change to tell
    await phone.close()  # still connected, on his laptop
    assert await a.is_quiet(0.3)
    await laptop.close()
    assert (await a.expect("PRESENCE"))["connected"] is False
    assert connected((await a.expect("STATE"))["state"], bob) is False
    await a.close()


async def test_the_same_move_sent_on_two_sockets_at_once_is_applied_once(people, move_path):
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    one = await Socket.game(game_id, mover)
    two = await Socket.game(game_id, mover)  # the same person: no PRESENCE to the first
    seq = one.received[0]["seq"]
    move = {"type": "TAKE_WHEEL", "source": "deck", "expect_seq": seq}
    await asyncio.gather(one.send({**move, "ref": "one"}), two.send({**move, "ref": "two"}))

    async def answer_and_state(socket):
        answer = state = None
        while answer is None or state is None:
            message = await socket.recv()
            if message["type"] in ("ACK", "ERROR"):
                answer = message
            elif message["type"] == "STATE" and message["seq"] == seq + 1:
                state = message
        return answer

    answers = await asyncio.gather(answer_and_state(one), answer_and_state(two))
    assert sorted(a["type"] for a in answers) == ["ACK", "ERROR"]
    error = next(a for a in answers if a["type"] == "ERROR")
    assert error["code"] == "stale"
    game = await stored_game(game_id)
    assert game.seq == seq + 1
    moves = await database_sync_to_async(lambda: Move.objects.filter(game_id=game_id).count())()
    assert moves == seq + 1
    await close_all(one, two)


async def test_a_spectator_who_takes_a_seat_gets_their_own_view_once_the_game_starts(people):
    alice, bob = people[:2]
    game_id = await waiting_game(alice, max_players=2)
    socket = await Socket.game(game_id, bob)
    assert "you" not in socket.received[0]["state"]
    await database_sync_to_async(game_join)(game_id=game_id, user=bob)
    messages = await socket.until("STATE")
    assert messages[0]["event"]["kind"] == "joined"
    assert [p["id"] for p in messages[-1]["state"]["players"]] == [alice.pk, bob.pk]
    await database_sync_to_async(game_start)(game_id=game_id, user=alice)
    messages = await socket.until("STATE")
    assert messages[0]["event"]["kind"] == "dealt"
    assert messages[-1]["state"]["you"]["player_id"] == bob.pk
    assert messages[-1]["state"]["legal"]
    await socket.close()


async def test_an_aborted_game_tells_everyone_and_allows_no_more_moves(people):
    alice, charlie = people[0], people[2]
    game_id = await started_game(people, 2)
    a = await Socket.game(game_id, alice)
    watcher = await Socket.game(game_id, charlie)
    await database_sync_to_async(game_abort)(game_id=game_id)
    for socket in (a, watcher):
        # A STATE for news of an arrival may come first, read after the abort.
        event = (await socket.until("EVENT"))[-1]["event"]
        assert event["kind"] == "aborted" and event["text"]
        state = (await socket.until("STATE", seq=1))[-1]["state"]
        assert state["status"] == Game.Status.ABORTED and state["legal"] == []
    await close_all(a, watcher)
