"""RAGE on the site: games with their variant and computer players, options G2.2 forbids
refused in REST and on the lobby socket, bad moves, and whole games over the socket whose every
message to every seat and spectator is scanned for cards and bids its recipient may not see
(G2.2, G5), on every path a move can take, the stored rows checked against a replay after every
move (tests/paths.py, tests/projection.py)."""

from __future__ import annotations

import random

import pytest
from channels.db import database_sync_to_async
from rest_framework.test import APIClient

from games import protocol
from games.models import Game
from games.moves import play
from games.rage import bots, engine
from games.rage.cards import CARD_NAMES
from games.services.lifecycle import game_create, game_join, game_start
from rankings.models import Rating
from tests.paths import LOCKED, available_paths
from tests.projection import Replayed
from tests.ws_helpers import Socket, close_all, isolated_sockets, make_people  # noqa: F401

RAGE = {"kind": "rage", "name": "Stiche"}
UNIQUE_CARDS = {card for card in CARD_NAMES if "-" in card}  # the colour cards, each once


def api_of(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.mark.django_db
def test_a_rage_game_keeps_its_variant_and_seats_up_to_seven_computer_players(people):
    options = {"bids": "hidden", "durchmarsch": True}
    body = {**RAGE, "max_players": 8, "bots": 7, "options": options}
    response = api_of(people[0]).post("/api/games/", body, format="json")
    assert response.status_code == 201, response.json()
    item = response.json()
    assert item["options"] == {"bids": "hidden", "plus_minus_one": False, "durchmarsch": True}
    assert item["players"] == 8 and item["kind"] == "rage"
    listed = api_of(people[1]).get("/api/games/?kind=rage").json()
    assert [game["id"] for game in listed] == [item["id"]]
    assert api_of(people[1]).get("/api/games/?kind=road300").json() == []
    game_start(game_id=item["id"], user=people[0])
    view = api_of(people[0]).get(f"/api/games/{item['id']}/").json()
    assert view["round"] == 1 and view["cards"] == 10 and len(view["you"]["hand"]) == 10
    assert len(view["players"]) == 8


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("options", "field", "says"),
    [
        ({"bids": "hidden", "plus_minus_one": True}, "options.plus_minus_one", "open bids"),
        ({"bids": "secret", "plus_minus_one": True}, "options.plus_minus_one", "open bids"),
        ({"bids": "loud"}, "options.bids", "open"),
        ({"durchmarsch": "yes"}, "options.durchmarsch", "true or false"),
        ({"trumps": 2}, "options.trumps", "no option"),
    ],
)
def test_G2_2_options_it_forbids_are_a_bad_field_that_says_why(people, options, field, says):
    api = api_of(people[0])
    body = {**RAGE, "max_players": 4, "options": options}
    response = api.post("/api/games/", body, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_field"
    assert response.json()["message"].startswith(f"{field}:")
    assert says in response.json()["message"]
    assert not Game.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("seats", [2, 9])
def test_G1_1_a_rage_table_has_3_to_8_seats(people, seats):
    response = api_of(people[0]).post("/api/games/", {**RAGE, "max_players": seats})
    assert response.status_code == 400 and response.json()["message"].startswith("max_players:")


@pytest.mark.django_db(transaction=True)
async def test_G2_2_the_lobby_socket_refuses_a_forbidden_combination_naming_the_field():
    (alice,) = await make_people("alice")
    lobby = await Socket.lobby(alice, language="en")
    options = {"bids": "secret", "plus_minus_one": True}
    await lobby.send(
        {"type": "CREATE_GAME", "ref": "r", **RAGE, "max_players": 4, "options": options}
    )
    answer = await lobby.until("ERROR")
    assert answer[-1]["code"] == "bad_field"
    assert answer[-1]["message"].startswith("options.plus_minus_one:")
    assert not await database_sync_to_async(Game.objects.exists)()
    await lobby.close()


# ---------------------------------------------------------------------------- whole games


@database_sync_to_async
def dealt_game(people, bots: int, options: dict, seed: int) -> int:
    seats = len(people) + bots
    game = game_create(
        user=people[0], name="Stiche", kind="rage", max_players=seats, bots=bots, options=options
    )
    for person in people[1:]:
        game_join(game_id=game.pk, user=person)
    Game.objects.filter(pk=game.pk).update(seed=seed)  # the same deal on every run
    game_start(game_id=game.pk, user=people[0])
    return game.pk


@database_sync_to_async
def stored(game_id: int) -> engine.GameState:
    return engine.from_dict(Game.objects.get(pk=game_id).state)


def secrets(state: engine.GameState, viewer) -> dict:
    """What ``viewer`` (a player id, None: a spectator) may not know in ``state``."""
    seat = state.players.index(viewer) if viewer in state.players else None
    hidden = [card for s, hand in enumerate(state.hands) if s != seat for card in hand]
    hidden += state.stack
    bids = {}
    for s, bid in enumerate(state.bids):
        mode = state.options["bids"]
        visible = mode == "open" or s == seat or (mode == "hidden" and state.phase != "bidding")
        if bid is not None and not visible:
            bids[state.players[s]] = bid
    own = sorted(state.hands[seat]) if seat is not None else None
    return {"cards": set(hidden) & UNIQUE_CARDS, "bids": bids, "own": own}


def strings_in(node):
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from strings_in(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings_in(value)
    elif isinstance(node, str):
        yield node


def check_message(message: dict, viewer, secret: dict) -> None:
    """G5: no card of another hand or of the stack, no hand but one's own, no bid hidden from
    the viewer, no stack order."""
    leaked = secret["cards"] & set(strings_in(message))
    assert not leaked, (viewer, leaked, message)
    text = str(message)
    assert "'stack'" not in text and "'hands'" not in text and "'rng'" not in text, message
    if message["type"] == "STATE":
        state = message["state"]
        you = state.get("you")
        if viewer is None:
            assert not you and state["legal"] == []
        else:
            assert sorted(you["hand"]) == secret["own"], (you, secret["own"])
        for row in state["players"]:
            if row["id"] in secret["bids"]:
                assert row["bid"] is None, (viewer, row)
    if message["type"] == "EVENT":
        event = message["event"]
        if event["kind"] == "bid" and event["player"] in secret["bids"]:
            assert "tricks" not in event, event
        assert event["kind"] != "bids_revealed" or not secret["bids"], event


WHOLE_GAMES = [
    ({"bids": "open", "plus_minus_one": True, "durchmarsch": True}, 11),
    ({"bids": "hidden"}, 12),
    ({"bids": "secret"}, 13),
]


def whole_game_cases() -> list:
    """Every variant under the lock; on the other paths one variant each, in turn (the
    secrecy of a message does not depend on the path, its rows might)."""
    cases = [(LOCKED, options, seed) for options, seed in WHOLE_GAMES]
    others = [path for path in available_paths() if path != LOCKED]
    cases += [(path, *WHOLE_GAMES[index]) for index, path in enumerate(others)]
    return cases


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("move_path", "options", "seed"), whole_game_cases(), indirect=["move_path"]
)
async def test_G5_no_message_of_a_whole_game_shows_a_card_or_bid_its_recipient_may_not_see(
    move_path, options, seed, monkeypatch
):
    # The test plays as fast as the server answers: on a fast machine one socket's moves can
    # pass the flood guard's MOVES_PER_SECOND, whose refusal this test is not about.
    monkeypatch.setattr(protocol, "MOVES_PER_SECOND", 10_000)
    people = await make_people("alice", "bob", "charlie", "dora", "fiona")
    players, watcher = people[:4], people[4]
    game_id = await dealt_game(players, 0, options, seed)  # every move is the test's
    sockets = {p.pk: await Socket.game(game_id, p) for p in players}
    sockets[None] = await Socket.game(game_id, watcher)
    rng = random.Random(seed)
    checked = dict.fromkeys(sockets, 0)
    state = await stored(game_id)
    replayed = await database_sync_to_async(Replayed)(game_id)
    seq, before, played = state.seq, None, None
    for _ in range(2000):
        for viewer, socket in sockets.items():
            secret = secrets(state, viewer)
            if before is not None:
                # A move may end a round: cards played in it are dealt again at once. What the
                # viewer may not see is what stayed hidden across the move, its card aside.
                earlier = secrets(before, viewer)["cards"]
                secret["cards"] = (secret["cards"] & earlier) - {played}
            for message in socket.received[checked[viewer] :]:
                check_message(message, viewer, secret)
            checked[viewer] = len(socket.received)
        if engine.is_over(state):
            break
        mover = rng.choice(engine.to_move(state))
        move = rng.choice(engine.legal_moves(state, mover))
        await sockets[mover].send({**move, "ref": "m", "expect_seq": seq})
        seq += 1
        for socket in sockets.values():
            await socket.state_at(seq)
        before, played, state = state, move.get("card"), await stored(game_id)
        assert state.seq == seq
        await database_sync_to_async(replayed.check)()
    assert engine.is_over(state)
    await database_sync_to_async(replayed.check_whole)()
    final = next(m for m in reversed(sockets[None].received) if m["type"] == "STATE")["state"]
    assert len(final["sheet"]) == engine.ROUNDS and final["status"] == "FINISHED"
    points = {row["player"]: row["total"] for row in final["sheet"][-1]}
    assert {row["player"]: row["total"] for row in final["results"]} == points
    await close_all(*sockets.values())
    assert await database_sync_to_async(Rating.objects.filter(kind="rage").count)() == 4


@pytest.mark.django_db(transaction=True)
async def test_bad_rage_moves_are_clear_errors_and_change_nothing():
    people = await make_people("alice", "bob", "charlie")
    game_id = await dealt_game(people, 0, {"bids": "open", "plus_minus_one": True}, 5)
    state = await stored(game_id)
    bidder = engine.to_move(state)[0]
    other = next(p for p in people if p.pk != bidder)
    socket = await Socket.game(game_id, other, language="en")
    mine = await Socket.game(game_id, next(p for p in people if p.pk == bidder), language="en")
    hand = state.hands[state.players.index(bidder)]
    not_held = next(card for card in sorted(UNIQUE_CARDS) if card not in hand)
    refusals = [
        (socket, {"type": "BID", "tricks": 1}, "not_your_turn"),
        (mine, {"type": "BID", "tricks": 11}, "illegal_move"),
        (mine, {"type": "BID", "tricks": "two"}, "bad_field"),
        (mine, {"type": "PLAY_CARD", "card": hand[0]}, "illegal_move"),  # G2.3: bids first
        (mine, {"type": "PLAY_CARD", "card": not_held}, "illegal_move"),
        (mine, {"type": "ROAD_TURN", "cross": [1, 1], "to": [1, 1]}, "unknown_type"),
        (mine, {"type": "BID", "tricks": 0, "expect_seq": 9}, "stale"),
    ]
    for client, move, code in refusals:
        await client.send({"expect_seq": state.seq, **move, "ref": "x"})
        error = await client.until("ERROR")
        assert error[-1]["code"] == code, (move, error[-1])
        assert error[-1]["message"], error[-1]
    assert engine.to_dict(await stored(game_id)) == engine.to_dict(state)
    await close_all(socket, mine)


@pytest.mark.django_db
def test_a_rage_game_rates_its_players_in_the_rage_ranking(people):
    game = game_create(user=people[0], name="Stiche", kind="rage", max_players=3, bots=2)
    game_start(game_id=game.pk, user=people[0])
    rng = random.Random(4)
    while True:
        game.refresh_from_db()
        state = engine.from_dict(game.state)
        if engine.is_over(state):
            break
        if people[0].pk in engine.to_move(state):
            move = rng.choice(engine.legal_moves(state, people[0].pk))
            play.move_apply(game_id=game.pk, user=people[0], move=move, expect_seq=state.seq)
        else:  # the computer players move after the commit; here, at once
            seat = next(s for s in game.seats.all() if s.user_id in engine.to_move(state))
            move = bots.make_bot("heuristic", 1).choose(engine.view(state, seat.user_id))
            play.move_apply(game_id=game.pk, user=seat.user, move=move, by_bot=True)
    ratings = api_of(people[1]).get("/api/rankings/ratings/?kind=rage").json()
    assert {row["player"] for row in ratings} == set(game.seats.values_list("user_id", flat=True))
    assert api_of(people[1]).get("/api/rankings/ratings/?kind=ratumrad").json() == []
