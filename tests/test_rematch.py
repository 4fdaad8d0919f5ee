"""Playing a finished game again: every person of a table game accepts and one new game is
dealt with the same seats, computer players and options; a decline ends the offer; a solo game
starts again at once; the daily challenge counts one attempt and points at its leaderboard.
Over the services, the REST API and the game socket, with the errors of each."""

from __future__ import annotations

import contextlib
import json
import re
import threading

import pytest
from channels.db import database_sync_to_async
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from rest_framework.test import APIClient

from games import errors, feed, selectors
from games.models import Event, Game, Rematch, Seat
from games.moves.base import kind_of
from games.services import rematch as rematch_service
from games.services.admin import game_end_now
from games.services.lifecycle import game_create, game_join, game_start
from games.services.rematch import check_rematch_answer, rematch_answer
from games.services.seats import game_leave
from tests.ws_helpers import Socket, close_all, isolated_sockets  # noqa: F401 (autouse)

pytestmark = pytest.mark.django_db(transaction=True)


def finished_game(people, *, kind="ratumrad", bots=0, options=None, private=False) -> Game:
    """A game of ``people`` (the first created it) and ``bots`` computer players, dealt and
    then ended at once (scored as usual)."""
    count = len(people) + bots
    game = game_create(
        user=people[0],
        name="Rheinknie",
        kind=kind,
        max_players=count,
        bots=bots,
        options=options,
        private=private,
        turn_seconds=120,
    )
    if not registry_solo(game):
        for person in people[1:]:
            game_join(game_id=game.pk, user=person)
        game_start(game_id=game.pk, user=people[0])
    return game_end_now(game_id=game.pk)


def registry_solo(game: Game) -> bool:
    return kind_of(game).solo


def seats_of(game: Game) -> list[tuple[int, bool, str]]:
    return [(seat.user_id, seat.is_bot, seat.bot) for seat in game.seats.order_by("joined", "id")]


def new_games() -> list[Game]:
    return list(Game.objects.filter(rematch_of__isnull=False))


def api_of(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def answer(user, game_id, accept=True):
    return api_of(user).post(f"/api/games/{game_id}/rematch/", {"accept": accept}, format="json")


# ---------------------------------------------------------------------------- table games


def test_when_everyone_accepts_one_new_game_is_dealt_with_the_same_seats_bots_and_options(
    people,
):
    alice, bob = people["alice"], people["bob"]
    options = {"bids": "secret", "plus_minus_one": False, "durchmarsch": True}
    old = finished_game([alice, bob], kind="rage", bots=1, options=options, private=True)

    first = rematch_answer(game_id=old.pk, user=alice)
    assert first.new_game is None and first.answers == {str(alice.pk): True}
    assert Game.objects.count() == 1  # bob has not answered yet

    rematch = rematch_answer(game_id=old.pk, user=bob)
    new = Game.objects.get(pk=rematch.new_game_id)
    assert [game.pk for game in new_games()] == [new.pk]
    assert (new.kind, new.options, new.name) == ("rage", old.options, "Rheinknie")
    assert (new.private, new.turn_seconds, new.max_players) == (True, 120, 3)
    assert new.creator_id == alice.pk and new.seed != old.seed
    assert seats_of(new) == seats_of(old)  # alice, bob and the same computer player
    assert [seat[1:] for seat in seats_of(new) if seat[1]] == [(True, "heuristic")]
    assert new.is_playing and new.state is not None  # dealt
    assert [event.kind for event in Event.objects.filter(game=old, kind__startswith="rematch")] == [
        "rematch",
        "rematch",
        "rematch_started",
    ]


def test_the_finished_view_shows_the_offer_to_every_seat_and_asks_only_the_people(people):
    alice, bob = people["alice"], people["bob"]
    old = finished_game([alice, bob], bots=1)
    view = selectors.game_view(old, bob.pk)
    bot = next(row["id"] for row in view["players"] if row["is_bot"])
    assert view["rematch"] == {
        "offered": True,
        "leaderboard": None,
        "asked": [row["id"] for row in view["players"] if row["id"] != bot],
        "accepted": [],
        "declined": [],
        "game": None,
    }
    rematch_answer(game_id=old.pk, user=alice)
    for viewer in (alice.pk, bob.pk, None):  # spectators see the offer as it stands too
        assert selectors.game_view(old, viewer)["rematch"]["accepted"] == [alice.pk]


def test_a_game_being_played_has_no_offer_in_its_view(people):
    alice, bob = people["alice"], people["bob"]
    game = game_create(user=alice, name="g", max_players=2)
    game_join(game_id=game.pk, user=bob)
    game_start(game_id=game.pk, user=alice)
    assert "rematch" not in selectors.game_view(Game.objects.get(pk=game.pk), alice.pk)


def test_a_decline_ends_the_offer_and_a_later_acceptance_is_refused(people):
    alice, bob, charlie = people["alice"], people["bob"], people["charlie"]
    old = finished_game([alice, bob, charlie])
    rematch_answer(game_id=old.pk, user=alice)
    rematch_answer(game_id=old.pk, user=bob, accept=False)
    with pytest.raises(errors.Conflict) as refused:
        rematch_answer(game_id=old.pk, user=charlie)
    assert refused.value.code == "rematch_declined"
    view = selectors.game_view(old, alice.pk)["rematch"]
    assert (view["accepted"], view["declined"], view["game"]) == ([alice.pk], [bob.pk], None)
    assert new_games() == []


def test_answering_twice_changes_nothing_and_the_new_game_stays_the_only_one(people):
    alice, bob = people["alice"], people["bob"]
    old = finished_game([alice, bob])
    rematch_answer(game_id=old.pk, user=alice)
    rematch_answer(game_id=old.pk, user=alice)  # a second press
    assert Event.objects.filter(game=old, kind="rematch").count() == 1
    new = rematch_answer(game_id=old.pk, user=bob).new_game_id
    assert rematch_answer(game_id=old.pk, user=bob).new_game_id == new
    assert rematch_answer(game_id=old.pk, user=alice).new_game_id == new
    assert [game.pk for game in new_games()] == [new]
    with pytest.raises(errors.Conflict) as refused:
        rematch_answer(game_id=old.pk, user=alice, accept=False)
    assert refused.value.code == "rematch_started"


def test_a_person_who_left_is_not_asked_and_a_computer_player_takes_their_seat(people):
    alice, bob, charlie = people["alice"], people["bob"], people["charlie"]
    game = game_create(user=alice, name="g", max_players=3)
    for person in (bob, charlie):
        game_join(game_id=game.pk, user=person)
    game_start(game_id=game.pk, user=alice)
    game_leave(game_id=game.pk, user=charlie)
    old = game_end_now(game_id=game.pk)
    assert sorted(selectors.game_view(old, alice.pk)["rematch"]["asked"]) == [alice.pk, bob.pk]

    with pytest.raises(errors.Conflict) as refused:
        rematch_answer(game_id=old.pk, user=charlie)
    assert refused.value.code == "left_game"
    rematch_answer(game_id=old.pk, user=alice)
    new = Game.objects.get(pk=rematch_answer(game_id=old.pk, user=bob).new_game_id)
    seats = seats_of(new)
    assert seats[:2] == [(alice.pk, False, ""), (bob.pk, False, "")]
    stand_in = Seat.objects.get(game=new, user_id=seats[2][0])
    assert stand_in.is_bot and stand_in.bot == "heuristic" and stand_in.user_id != charlie.pk


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's")
@pytest.mark.parametrize("presses", [("alice", "bob"), ("bob", "bob")])
def test_two_presses_at_the_same_moment_deal_one_new_game(people, monkeypatch, presses):
    # Charlie accepted before; ("bob", "bob"): alice too, and bob presses in two tabs at once.
    trio = [people["alice"], people["bob"], people["charlie"]]
    old = finished_game(trio)
    rematch_answer(game_id=old.pk, user=people["charlie"])
    if presses == ("bob", "bob"):
        rematch_answer(game_id=old.pk, user=people["alice"])
    read = threading.Barrier(2, timeout=1)
    waited: set[int] = set()

    def then_wait(check):
        def check_then_wait(**args):
            checked = check(**args)
            if threading.get_ident() not in waited:  # each press's first read
                waited.add(threading.get_ident())
                with contextlib.suppress(threading.BrokenBarrierError):
                    read.wait()  # both read at once unless the game's lock keeps one out
            return checked

        return check_then_wait

    # Both ways an answer reads: without the lock (a guarded answer) and under it.
    for name in ("check_rematch_answer", "check_rematch_answer_unlocked"):
        monkeypatch.setattr(rematch_service, name, then_wait(getattr(rematch_service, name)))
    failures: list[BaseException] = []

    def press(name: str) -> None:
        try:
            rematch_answer(game_id=old.pk, user=people[name])
        except BaseException as error:  # reported by the test
            failures.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=press, args=(name,)) for name in presses]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert failures == []
    assert Game.objects.count() == 2  # the finished game and one new game
    assert len(new_games()) == 1
    assert Rematch.objects.get(game=old).answers == {str(person.pk): True for person in trio}


@pytest.fixture
def group_sends(monkeypatch):
    """The (group, type) of every message the broadcasts send."""
    from games import broadcast

    sent: list[tuple[str, str]] = []
    send_all = broadcast._send_all

    def recorded(messages):
        sent.extend((group, message["type"]) for group, message in messages)
        send_all(messages)

    monkeypatch.setattr(broadcast, "_send_all", recorded)
    return sent


def test_the_new_game_is_dealt_without_a_broadcast_its_sockets_read_it_whole(people, group_sends):
    """No socket can be on a game before the transaction that makes it commits: its deal is
    sent to nobody, and each socket that opens is sent it whole (below)."""
    from games.broadcast import game_group

    alice, bob = people["alice"], people["bob"]
    old = finished_game([alice, bob])
    group_sends.clear()
    rematch_answer(game_id=old.pk, user=alice)
    new_id = rematch_answer(game_id=old.pk, user=bob).new_game_id
    updates = [group for group, kind in group_sends if kind == "game.update"]
    assert updates == [game_group(old.pk), game_group(old.pk)]  # each answer's offer
    assert game_group(new_id) not in {group for group, _ in group_sends}
    new = Game.objects.get(pk=new_id)
    assert new.is_playing and new.state  # dealt


@pytest.fixture
def updates(monkeypatch):
    """Every ``game.update`` the broadcasts send, whole."""
    from games import broadcast

    sent: list[dict] = []
    send_all = broadcast._send_all

    def recorded(messages):
        sent.extend(message for _, message in messages if message["type"] == "game.update")
        send_all(messages)

    monkeypatch.setattr(broadcast, "_send_all", recorded)
    return sent


def offer_reads(queries: CaptureQueriesContext) -> int:
    reads = re.compile(rf'^\s*SELECT\b.*\b(FROM|JOIN)\s+"?{Rematch._meta.db_table}\b', re.I | re.S)
    return sum(1 for query in queries.captured_queries if reads.search(query["sql"]))


def test_the_end_and_each_answer_are_broadcast_with_the_offer_as_committed_without_reading_it(
    people, updates
):
    """A game that has just ended has no offer yet, and an answer has its offer in hand: their
    broadcasts read none, and show it as it stands."""
    alice, bob = people["alice"], people["bob"]
    with CaptureQueriesContext(connection) as ending:
        old = finished_game([alice, bob])
    assert offer_reads(ending) == 0
    ended = json.loads(updates[-1]["frames"][str(bob.pk)])["state"]
    assert ended["status"] == "FINISHED"
    assert ended["rematch"]["accepted"] == [] and ended["rematch"]["game"] is None
    for person, accepted in ((alice, [alice.pk]), (bob, sorted([alice.pk, bob.pk]))):
        with CaptureQueriesContext(connection) as answering:
            offer = rematch_answer(game_id=old.pk, user=person)
        assert offer_reads(answering) == 1  # the answer's own
        for seated in (alice, bob):
            shown = json.loads(updates[-1]["frames"][str(seated.pk)])["state"]["rematch"]
            assert shown["accepted"] == accepted
            assert shown["game"] == offer.new_game_id
    assert Game.objects.get(pk=offer.new_game_id).is_playing


def test_each_answer_locks_the_game_then_reads_its_seats_and_offer_in_one_statement(people):
    alice, bob = people["alice"], people["bob"]
    old = finished_game([alice, bob])
    for person, offered in ((alice, {}), (bob, {str(alice.pk): True})):
        with CaptureQueriesContext(connection) as checking:
            checked = check_rematch_answer(game_id=old.pk, user=person, accept=True)
        assert len(checking.captured_queries) == 2  # the game locked; its seats and offer
        assert checked.rematch.answers == offered  # the offer as committed, if any
        assert checked.rematch._state.adding is (not offered)
        assert [seat.user_id for seat in checked.seats] == [alice.pk, bob.pk]
        assert all(hasattr(seat, "connected") for seat in checked.seats)
        rematch_answer(game_id=old.pk, user=person)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="one statement on PostgreSQL")
def test_each_answer_writes_its_offer_its_log_entries_and_any_deal_in_one_statement(people):
    alice, bob = people["alice"], people["bob"]
    old = finished_game([alice, bob])
    offer_writes = re.compile(rf'\b(INSERT INTO|UPDATE)\s+"?{Rematch._meta.db_table}\b', re.I)
    for person in (alice, bob):  # the first answer makes the offer's row, the second updates it
        with CaptureQueriesContext(connection) as answering:
            rematch_answer(game_id=old.pk, user=person)
        writes = [q["sql"] for q in answering.captured_queries if offer_writes.search(q["sql"])]
        assert len(writes) == 1, writes
        assert f"INSERT INTO {connection.ops.quote_name(Event._meta.db_table)}" in writes[0]
    # The last answer's statement also deals the new game (its state, seats and log).
    assert f"UPDATE {connection.ops.quote_name(Game._meta.db_table)}" in writes[0]
    assert Event.objects.filter(game=old, kind="rematch").count() == 2
    offer = Rematch.objects.get(game=old)
    assert offer.answers == {str(alice.pk): True, str(bob.pk): True}
    assert offer.new_game.is_playing and offer.new_game.state is not None


@pytest.mark.skipif(connection.vendor != "postgresql", reason="guarded writes are PostgreSQL's")
def test_an_answer_that_does_not_deal_is_a_read_and_a_guarded_write_without_a_lock(people):
    alice, bob = people["alice"], people["bob"]
    old = finished_game([alice, bob])
    with CaptureQueriesContext(connection) as answering:
        rematch_answer(game_id=old.pk, user=alice)
    read, write = (query["sql"] for query in answering.captured_queries)
    assert "FOR UPDATE" not in read and not connection.in_atomic_block
    assert "xmin" in write and f'"{Rematch._meta.db_table}"' in write
    assert Rematch.objects.get(game=old).answers == {str(alice.pk): True}
    # The answer that deals is made under the lock, on the same read if the game's row is
    # still that version: the read, the lock's check, the new game and seats, the deal.
    with CaptureQueriesContext(connection) as dealing:
        offer = rematch_answer(game_id=old.pk, user=bob)
    statements = [
        query["sql"]
        for query in dealing.captured_queries
        if not query["sql"].startswith(("SAVEPOINT", "RELEASE", "BEGIN", "COMMIT"))
    ]
    assert len(statements) == 4, statements
    assert offer_reads(dealing) == 1
    assert Game.objects.get(pk=offer.new_game_id).is_playing


@pytest.mark.skipif(connection.vendor != "postgresql", reason="guarded writes are PostgreSQL's")
@pytest.mark.django_db(transaction=True)  # each write its own transaction, as on a site
def test_an_answer_whose_read_another_answer_outdated_is_made_again_on_a_fresh_one(
    people, monkeypatch
):
    trio = [people["alice"], people["bob"], people["charlie"]]
    old = finished_game(trio)
    check = rematch_service.check_rematch_answer_unlocked
    reads = []

    def read_then_charlie_answers(**args):
        reads.append(args["user"])
        checked = check(**args)
        if len(reads) == 1:  # after alice's first read, before her write
            with monkeypatch.context() as inner:
                inner.setattr(rematch_service, "check_rematch_answer_unlocked", check)
                rematch_answer(game_id=old.pk, user=people["charlie"], accept=False)
        return checked

    monkeypatch.setattr(rematch_service, "check_rematch_answer_unlocked", read_then_charlie_answers)
    with pytest.raises(errors.Conflict) as refused:
        rematch_answer(game_id=old.pk, user=people["alice"])
    # Her write on the first read was refused; her fresh read has charlie's decline.
    assert reads == [people["alice"], people["alice"]]
    assert refused.value.code == "rematch_declined"
    assert Rematch.objects.get(game=old).answers == {str(people["charlie"].pk): False}
    assert Event.objects.filter(game=old, kind="rematch").count() == 1


# ---------------------------------------------------------------------------- solo games


def test_a_solo_game_starts_again_at_once_with_the_same_options(people):
    rosa = people["alice"]
    old = finished_game([rosa], kind="road300", options={})
    assert selectors.game_view(old, rosa.pk)["rematch"]["offered"] is True
    new = Game.objects.get(pk=rematch_answer(game_id=old.pk, user=rosa).new_game_id)
    assert (new.kind, new.options, new.status) == ("road300", old.options, Game.Status.RUNNING)
    assert seats_of(new) == [(rosa.pk, False, "")]


def test_the_daily_challenge_is_not_played_again_its_end_screen_names_the_days_table(people):
    dana = people["alice"]
    old = finished_game([dana], kind="road300", options={"daily": True})
    day = old.options["day"]
    assert selectors.game_view(old, dana.pk)["rematch"] == {
        "offered": False,
        "leaderboard": f"/road300/daily/?day={day}#daily-table",
        "asked": [dana.pk],
        "accepted": [],
        "declined": [],
        "game": None,
    }
    response = answer(dana, old.pk)
    assert response.status_code == 409 and response.json()["code"] == "no_rematch"
    assert Game.objects.count() == 1


def test_the_end_screen_of_the_page_has_the_offer_and_its_words_in_german(people, client):
    alice, bob = people["alice"], people["bob"]
    old = finished_game([alice, bob])
    client.force_login(alice)
    html = client.get(f"/games/{old.pk}/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<div class="rematch" id="rematch" aria-live="polite" hidden></div>' in html
    for german in ("Nochmals spielen", "Nein, danke", "Möchte nochmals spielen: {names}"):
        assert json.dumps(german)[1:-1] in html
    assert '"offered": true' in html  # the page's first state carries the offer


# ---------------------------------------------------------------------------- REST


def test_the_rest_answer_returns_the_offer_and_the_new_game_once_everyone_accepted(people):
    alice, bob = people["alice"], people["bob"]
    old = finished_game([alice, bob])
    response = answer(alice, old.pk)
    assert response.status_code == 200
    assert response.json() == {
        "offered": True,
        "leaderboard": None,
        "asked": [alice.pk, bob.pk],
        "accepted": [alice.pk],
        "declined": [],
        "game": None,
    }
    response = api_of(bob).post(f"/api/games/{old.pk}/rematch/")  # accept is the default
    assert response.status_code == 200
    assert response.json()["game"] == new_games()[0].pk


@pytest.mark.parametrize(
    ("who", "path", "body", "status", "code"),
    [
        ("charlie", "finished", {}, 403, "not_seated"),
        ("alice", "/api/games/987654/rematch/", {}, 404, "not_found"),
        ("alice", "/api/games/99999999999999999999/rematch/", {}, 404, "not_found"),
        ("alice", "running", {}, 409, "not_finished"),
        ("alice", "finished", {"accept": "perhaps"}, 400, "bad_field"),
    ],
)
def test_the_rest_answer_refuses_with_a_clear_error(people, who, path, body, status, code):
    alice, bob = people["alice"], people["bob"]
    old = finished_game([alice, bob])
    running = game_create(user=alice, name="g", max_players=2)
    game_join(game_id=running.pk, user=bob)
    game_start(game_id=running.pk, user=alice)
    game_id = {"finished": old.pk, "running": running.pk}.get(path)
    url = f"/api/games/{game_id}/rematch/" if game_id else path
    response = api_of(people[who]).post(url, body, format="json")
    assert response.status_code == status
    assert response.json()["code"] == code and response.json()["message"]
    assert not Rematch.objects.exists() and new_games() == []


def test_the_rest_answer_needs_a_login(people):
    old = finished_game([people["alice"], people["bob"]])
    response = APIClient().post(f"/api/games/{old.pk}/rematch/", {}, format="json")
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"


# ---------------------------------------------------------------------------- the socket


@database_sync_to_async
def finished_async(people, **options) -> int:
    return finished_game(people, **options).pk


@database_sync_to_async
def rest_answer(user, game_id, accept=True):
    return answer(user, game_id, accept)


async def next_rematch(socket: Socket) -> dict:
    """Read on to the next STATE; its offer."""
    return (await socket.until("STATE"))[-1]["state"]["rematch"]


async def test_each_persons_socket_sees_the_offer_live_and_is_told_the_new_game(people):
    alice, bob = people["alice"], people["bob"]
    game_id = await finished_async([alice, bob])
    alices = await Socket.game(game_id, alice, language="en")
    bobs = await Socket.game(game_id, bob, language="de")
    await alices.drain()

    await alices.send({"type": "REMATCH", "accept": True, "ref": "r1"})
    seen = await alices.until("ACK", ref="r1")
    assert seen[-1]["seq"] == (await database_sync_to_async(Game.objects.get)(pk=game_id)).seq
    offer = await next_rematch(bobs)  # bob sees alice's acceptance at once
    assert (offer["accepted"], offer["game"]) == ([alice.pk], None)
    events = [message for message in bobs.received if message["type"] == "EVENT"]
    assert events[-1]["event"]["text"] == "alice möchte nochmals spielen."

    await bobs.send({"type": "REMATCH", "ref": "r2"})  # accept is the default
    for socket in (alices, bobs):
        offer = await next_rematch(socket)
        while offer["game"] is None:
            offer = await next_rematch(socket)
        assert offer["accepted"] == [alice.pk, bob.pk]
    # Bob's answer, to an offer read back from the database (alice's came first), is
    # acknowledged as alice's was: the finished game's seq, not an error.
    replies = [message for message in bobs.received if message.get("ref") == "r2"]
    while not replies:
        message = await bobs.recv()
        replies = [message] if message.get("ref") == "r2" else []
    assert replies[0] == {"type": "ACK", "ref": "r2", "seq": seen[-1]["seq"]}
    new = await database_sync_to_async(lambda: [game.pk for game in new_games()])()
    assert [offer["game"]] == new
    await close_all(alices, bobs)


async def test_a_socket_on_the_new_game_is_sent_its_deal_whole(people):
    alice, bob = people["alice"], people["bob"]
    game_id = await finished_async([alice, bob])
    await rest_answer(alice, game_id)
    new_id = (await rest_answer(bob, game_id)).json()["game"]
    new = await database_sync_to_async(Game.objects.get)(pk=new_id)
    bobs = await Socket.game(new_id, bob)  # after its first STATE
    state = next(message for message in bobs.received if message["type"] == "STATE")["state"]
    assert (state["seq"], state["status"]) == (new.seq, new.status)
    you = state["you"]
    assert you["player_id"] == bob.pk and sum(you["hand"].values()) > 0  # his cards, dealt
    await bobs.close()


async def test_a_decline_reaches_the_others_sockets(people):
    alice, bob = people["alice"], people["bob"]
    game_id = await finished_async([alice, bob])
    alices = await Socket.game(game_id, alice)
    response = await rest_answer(bob, game_id, accept=False)
    assert response.status_code == 200 and response.json()["declined"] == [bob.pk]
    offer = await next_rematch(alices)
    assert (offer["declined"], offer["game"]) == ([bob.pk], None)
    await alices.send({"type": "REMATCH", "accept": True, "ref": "again"})
    error = (await alices.until("ERROR"))[-1]
    assert (error["code"], error["ref"]) == ("rematch_declined", "again")
    await alices.close()


@pytest.mark.parametrize(
    ("who", "game", "message", "code"),
    [
        ("charlie", "finished", {"type": "REMATCH"}, "not_seated"),
        ("alice", "running", {"type": "REMATCH"}, "not_finished"),
        ("alice", "finished", {"type": "REMATCH", "accept": "yes"}, "bad_field"),
    ],
)
async def test_the_socket_refuses_with_an_error_frame(people, who, game, message, code):
    alice, bob = people["alice"], people["bob"]
    finished_id = await finished_async([alice, bob])

    @database_sync_to_async
    def running_game() -> int:
        running = game_create(user=alice, name="g", max_players=2)
        game_join(game_id=running.pk, user=bob)
        return game_start(game_id=running.pk, user=alice).pk

    game_id = finished_id if game == "finished" else await running_game()
    socket = await Socket.game(game_id, people[who])
    await socket.drain()
    await socket.send({**message, "ref": "x"})
    error = await socket.expect("ERROR")
    assert (error["code"], error["ref"]) == (code, "x") and error["message"]
    assert await socket.is_quiet()
    assert not await database_sync_to_async(Rematch.objects.exists)()
    await socket.close()


# ---------------------------------------------------------------------------- the feed


@pytest.mark.parametrize(
    ("event", "english", "german"),
    [
        (
            {"kind": "rematch", "player": 1, "accept": True},
            "Lea wants to play again.",
            "Lea möchte nochmals spielen.",
        ),
        (
            {"kind": "rematch", "player": 1, "accept": False},
            "Lea does not want to play again.",
            "Lea möchte nicht nochmals spielen.",
        ),
        (
            {"kind": "rematch_started", "player": None, "game": 7},
            "Everyone accepted: the new game begins.",
            "Alle haben zugesagt: Das neue Spiel beginnt.",
        ),
    ],
)
def test_the_feed_tells_the_answers_in_both_languages(event, english, german):
    for language, text in (("en", english), ("de", german)):
        with translation.override(language):
            assert feed.describe(event, {1: "Lea"}) == text
