"""My games: every game a person sits in, those waiting for their move first; the nav and the
page title count them. ``Seat.to_move`` keeps, with every change, who must act now."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.translation import override

from games import queries, selectors
from games import ratumrad as engine
from games.models import Game, Seat
from games.moves import play
from games.moves.base import load_state
from games.services.admin import game_abort
from games.services.lifecycle import game_create, game_join, game_start
from games.services.seats import game_leave

pytestmark = pytest.mark.django_db


def dealt(people, name: str = "Rhein", **fields) -> Game:
    alice, bob = people[:2]
    game = game_create(user=alice, name=name, max_players=2, **fields)
    game_join(game_id=game.pk, user=bob)
    return game_start(game_id=game.pk, user=alice)


def flags(game_id: int) -> dict[int, bool]:
    return dict(Seat.objects.filter(game_id=game_id).values_list("user_id", "to_move"))


def assert_flags_follow_the_engine(game_id: int) -> None:
    state = load_state(Game.objects.get(pk=game_id))
    movers = set() if engine.is_over(state) else set(engine.to_move(state))
    assert flags(game_id) == {user_id: user_id in movers for user_id in flags(game_id)}


def test_seat_to_move_follows_the_engine_after_every_move(people):
    game = dealt(people)
    assert_flags_follow_the_engine(game.pk)
    assert all(flags(game.pk).values())  # the preparation: everyone chooses
    for _ in range(12):
        state = load_state(Game.objects.get(pk=game.pk))
        mover = engine.to_move(state)[0]
        move = engine.legal_moves(state, mover)[0]
        user = next(person for person in people if person.pk == mover)
        play.move_apply(game_id=game.pk, user=user, move=move)
        assert_flags_follow_the_engine(game.pk)
    assert sum(flags(game.pk).values()) == 1  # one player's turn


def test_a_game_called_off_waits_for_nobody(people):
    game = dealt(people)
    game_abort(game_id=game.pk)
    assert not any(flags(game.pk).values())
    assert queries.waiting_for(people[0].pk).count() == 0


def test_the_list_puts_the_games_waiting_for_my_move_first(people):
    alice, bob = people[:2]
    waiting = game_create(user=alice, name="Noch leer", max_players=3)
    mine = dealt(people, "Mein Zug")
    # Alice chooses her short cards in "Schon gewählt": it waits for Bob only.
    chosen = dealt(people, "Schon gewählt")
    state = load_state(chosen)
    play.move_apply(game_id=chosen.pk, user=alice, move=engine.legal_moves(state, alice.pk)[0])
    ended = dealt(people, "Vorbei")
    game_abort(game_id=ended.pk)
    rows = queries.my_games(alice.pk)
    assert [row["name"] for row in rows] == ["Mein Zug", "Schon gewählt", "Noch leer", "Vorbei"]
    assert [row["your_move"] for row in rows] == [True, False, False, False]
    assert rows[0]["turn_deadline"] is not None or mine.turn_seconds is None
    assert queries.waiting_for(alice.pk).count() == 1
    assert queries.waiting_for(bob.pk).count() == 2
    assert waiting.pk in {row["id"] for row in rows}


def test_a_seat_the_computer_plays_does_not_wait_for_its_person(people):
    alice = people[0]
    game = dealt(people)
    Seat.objects.filter(game=game, user=alice).update(autopilot=True)
    assert queries.waiting_for(alice.pk).count() == 0
    game_leave(game_id=game.pk, user=alice)
    assert not next(row for row in queries.my_games(alice.pk) if row["id"] == game.pk)["your_move"]


def test_the_list_reads_the_same_few_queries_however_many_games(people):
    dealt(people, "Eins")
    with CaptureQueriesContext(connection) as one:
        queries.my_games(people[0].pk)
    for n in range(6):
        dealt(people, f"Mehr {n}")
    with CaptureQueriesContext(connection) as seven:
        assert len(queries.my_games(people[0].pk)) == 7
    assert len(one) == len(seven) == 3


def test_the_api_lists_my_games_and_refuses_strangers(people, client):
    dealt(people)
    assert client.get("/api/games/mine/").status_code in (401, 403)
    client.force_login(people[0])
    rows = client.get("/api/games/mine/").json()
    assert [(row["name"], row["your_move"]) for row in rows] == [("Rhein", True)]
    assert {"pace", "turn_seconds", "turn_deadline", "status", "players"} <= set(rows[0])


def test_the_page_the_nav_and_the_title_count_the_games_waiting_for_me(people, client):
    dealt(people, "Mein Zug", pace="turn_based")
    dealt(people, "Auch mein Zug")
    client.force_login(people[0])
    with override("en"):
        page = client.get("/games/mine/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert re.search(r"<title>\(2\) My games", page)
    badge = re.search(
        r'id="my-turns" data-count="2" data-games="(\d+),(\d+)"[^>]*>(.*?)</span></a>', page, re.S
    )
    assert badge and badge.group(3).strip().endswith("2")
    section = page[page.index('id="my-games-your-move"') :]
    assert section.index("Mein Zug") < section.index("</section>")
    assert "left" in section and "turn-based, 24 hours a move" in section
    with override("de"):
        german = client.get("/games/mine/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Du bist am Zug" in german and "<title>(2) Meine Spiele" in german


def test_nobody_waiting_shows_no_count(people, client):
    client.force_login(people[2])
    page = client.get("/games/mine/").content.decode()
    assert "<title>(" not in page
    assert re.search(r'id="my-turns" data-count="0" data-games="" hidden', page)
    assert client.get("/games/mine/").status_code == 200
    client.logout()
    assert client.get("/games/mine/").status_code == 302


# ---------------------------------------------------------------------------- live, over sockets


@pytest.mark.django_db(transaction=True)
async def test_every_socket_of_a_person_hears_when_a_turn_based_game_starts_and_stops_waiting(
    people,
):
    from channels.db import database_sync_to_async

    from lobby.hub import COALESCE_SECONDS
    from tests.ws_helpers import Socket, close_all

    bob = people[1]
    lobby = await Socket.lobby(bob)  # on any page: the nav's count follows
    live = await database_sync_to_async(dealt)(people, "Jetzt")
    game = await database_sync_to_async(dealt)(people, pace="turn_based")
    told = await lobby.next_my_turns()
    assert told == {"type": "MY_TURNS", "game": game.pk, "your_move": True}  # the preparation
    state = await database_sync_to_async(load_state)(game)
    keep = engine.legal_moves(state, bob.pk)[0]
    await database_sync_to_async(play.move_apply)(game_id=game.pk, user=bob, move=keep)
    assert await lobby.next_my_turns() == {"type": "MY_TURNS", "game": game.pk, "your_move": False}
    await database_sync_to_async(game_abort)(game_id=game.pk)
    await lobby.drain()  # the lobby's list changed too
    assert lobby.my_turns == []  # the game had stopped waiting for Bob already
    # A live game's people are at its table: its page counts its own game (no MY_TURNS).
    assert live.pk not in {message["game"] for message in lobby.received if "game" in message}
    watcher = await Socket.lobby(people[2])  # someone else hears nothing of it
    # (but the lobby's list, which changed within the last moments: ``hub.COALESCE_SECONDS``)
    heard = await watcher.drain(COALESCE_SECONDS + 0.2)
    assert {message["type"] for message in heard} <= {"GAMES"} and watcher.my_turns == []
    await close_all(lobby, watcher)


STATE_COLUMN = re.compile(r'"games_game"\."state"')


def test_lists_of_games_leave_every_games_state_unread(people):
    # A dealt game's state is kilobytes of JSON that no list item shows: the lobby's lists,
    # a public game's entry and the player's own list read the summaries' columns only.
    from lobby import lists

    game = dealt(people, "Gross")
    assert Game.objects.filter(pk=game.pk, state__isnull=False).exists()
    with CaptureQueriesContext(connection) as read:
        listed = [
            queries.lobby_games(user_id=people[0].pk),
            lists.public_games(None, None),
            [lists.game_entry(game.pk)],
            queries.my_games(people[0].pk),
        ]
    assert [[(row["id"], row["players"]) for row in rows] for rows in listed] == [
        [(game.pk, 2)]
    ] * 4
    statements = [query["sql"] for query in read.captured_queries]
    assert statements and not [sql for sql in statements if STATE_COLUMN.search(sql)]


def test_a_public_games_entry_is_its_summary_read_whole_and_none_for_a_private_game(people):
    from lobby import lists

    waiting = game_create(user=people[0], name="Birs", max_players=3)
    playing = dealt(people, "Wiese")
    ended = dealt(people, "Rhein")
    game_abort(game_id=ended.pk)
    hidden = game_create(user=people[0], name="Allschwil", max_players=2, private=True)
    for game in (waiting, playing, ended):
        expected = selectors.game_summary(Game.objects.get(pk=game.pk))
        assert lists.game_entry(game.pk) == expected
    assert lists.game_entry(ended.pk)["finished"] is not None
    assert [lists.game_entry(waiting.pk)["players"], lists.game_entry(playing.pk)["players"]] == [
        1,
        2,
    ]
    assert lists.game_entry(hidden.pk) is None
    assert lists.game_entry(10**9) is None
