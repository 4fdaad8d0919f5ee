"""Whole games for 2 to 5 players played only through the game socket, with a spectator, on
every path a move can take (tests/paths.py).

Every player picks random legal moves from the ``legal`` list of their own latest STATE.
Every message every client receives is checked against the engine state of its ``seq``
(R9): a client sees its own hand and cards and nobody else's, never the order of a deck.
The results everyone sees at the end equal a replay of the game's log (R2.5), and after every
move the stored rows equal a replay's projection (tests/projection.py).
"""

import asyncio
import random

import pytest
from channels.db import database_sync_to_async

from games import selectors
from games.models import Game
from games.ratumrad import engine
from tests.projection import Replayed
from tests.ws_helpers import (
    PERSONAS,
    Socket,
    close_all,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    make_people,
)

pytestmark = pytest.mark.django_db(transaction=True)

SECRET_KEYS = {"rng", "seed", "out_of_game", "prep_returned", "pending", "wipes_in_row"}
COUNT_KEYS = {"deck", "discard", "short_deck", "wheel_cards", "destination_cards"}


@database_sync_to_async
def new_game(people: list, seed: int) -> int:
    from games.services.lifecycle import game_create, game_join, game_start

    game = game_create(user=people[0], name=f"{len(people)} players", max_players=5)
    for person in people[1:]:
        game_join(game_id=game.pk, user=person)
    Game.objects.filter(pk=game.pk).update(seed=seed)  # the same deal on every run
    game_start(game_id=game.pk, user=people[0])
    return game.pk


def secrets_of(state: engine.GameState) -> dict:
    """What each seat holds in ``state``: hand, kept and pending card ids."""
    return {
        player.id: {
            "hand": dict(zip(engine.COLORS, player.hand, strict=True)),
            "destinations": set(player.destinations),
            "pending": set(player.pending),
        }
        for player in state.players
    }


@database_sync_to_async
def secrets_at(game_id: int) -> dict:
    """What each seat holds now."""
    return secrets_of(engine.from_dict(Game.objects.get(pk=game_id).state))


@database_sync_to_async
def replayed_results(game_id: int) -> list[dict]:
    log = selectors.game_log(Game.objects.get(pk=game_id))
    moves = [(row["player"], row["move"]) for row in log["moves"]]
    return engine.replay(log["seed"], log["players"], moves).results


def walk(node, path=()):
    """Every (path, key, value) in a JSON tree."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield path, key, value
            yield from walk(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, (*path, index))


def is_card(value) -> bool:
    return isinstance(value, dict) and {"id", "a", "b", "points"} <= set(value)


def check_no_leak(message: dict, viewer: int | None, secrets: dict) -> None:
    """R9: ``message`` (received by ``viewer``, None for a spectator) shows no one else's
    secrets, as they were in the engine at the message's seq."""
    own = secrets.get(viewer, {"hand": None, "destinations": set(), "pending": set()})
    others = set()
    for player, held in secrets.items():
        if player != viewer:
            others |= held["destinations"] | held["pending"]
    for path, key, value in walk(message):
        in_results = "results" in path  # R8.3: revealed at the end
        assert key not in SECRET_KEYS, (path, key)
        if key in COUNT_KEYS:
            assert isinstance(value, int), (path, key, value)
        if key == "you":
            assert viewer is not None and path == ("state",), path
            assert value["player_id"] == viewer
            assert value["hand"] == own["hand"]
            assert {c["id"] for c in value["destinations"]} == own["destinations"]
            assert {c["id"] for c in value["pending_destinations"]} == own["pending"]
        if key == "hand" and not in_results:
            assert path == ("state", "you"), path
        if key == "keep":
            assert set(value) <= own["pending"] and not set(value) & others, value
        if is_card(value) and not in_results:
            assert value["id"] in own["destinations"] | own["pending"], (path, value)
            assert value["id"] not in others, (path, value)
        if isinstance(value, list) and key in ("destinations", "pending_destinations"):
            assert in_results or path == ("state", "you"), (path, key)
    if message["type"] == "STATE" and viewer is None:
        assert "you" not in message["state"] and message["state"]["legal"] == []


class Table:
    def __init__(self, game_id, people, watcher, sockets, rng):
        self.game_id = game_id
        self.people = {person.pk: person for person in people}
        self.watcher = watcher
        self.sockets = sockets  # user id (None: the spectator) -> Socket
        self.rng = rng
        self.secrets = {}  # seq -> secrets_at(seq)
        self.checked = dict.fromkeys(sockets, 0)  # messages checked per socket
        self.seq = 0
        self.acks = 0
        self.replayed: Replayed | None = None  # set once the game is dealt

    def latest(self, viewer) -> dict:
        return next(m for m in reversed(self.sockets[viewer].received) if m["type"] == "STATE")[
            "state"
        ]

    async def send(self, player: int, move: dict) -> dict:
        """Send ``move`` with a ref and expect_seq; read every socket up to the new STATE."""
        ref = f"m{self.acks}"
        socket = self.sockets[player]
        while True:
            await socket.send({**move, "ref": ref, "expect_seq": self.seq})
            while (ack := await socket.recv())["type"] not in ("ACK", "ERROR"):
                pass
            if ack.get("code") != "rate_limited":
                break
            await asyncio.sleep(0.2)  # a polite bot backs off and tries again
        assert ack == {"type": "ACK", "ref": ref, "seq": self.seq + 1}, (ack, move)
        self.acks += 1
        self.seq = ack["seq"]
        self.secrets[self.seq] = await secrets_at(self.game_id)
        for socket in self.sockets.values():
            messages = await socket.until("STATE", seq=self.seq)
            events = [m for m in messages if m["type"] == "EVENT"]
            assert events and all(m["seq"] == self.seq for m in events), messages
            for event in events:
                text = event["event"]["text"]
                assert text and "Something happened" not in text, event
        self.check_messages()
        await database_sync_to_async(self.replayed.check)()
        return self.latest(player)

    def check_messages(self) -> None:
        for viewer, socket in self.sockets.items():
            for message in socket.received[self.checked[viewer] :]:
                seq = message.get("seq", self.seq)
                check_no_leak(message, viewer, self.secrets[seq])
            self.checked[viewer] = len(socket.received)

    def next_move(self) -> tuple[int, dict] | None:
        """A random move of someone who may move, from their own STATE's legal list."""
        state = self.latest(next(iter(self.people)))
        if state["status"] == "PREPARATION":
            waiting = [p for p in self.people if not self.player_row(p)["prepared"]]
            player = self.rng.choice(waiting)
        elif state["status"] in ("RUNNING", "FINAL_ROUND"):
            player = state["current_player"]
        else:
            return None
        legal = [m for m in self.latest(player)["legal"] if m["type"] != "VOTE_END"]
        return player, self.rng.choice(legal)

    def player_row(self, player: int) -> dict:
        state = self.latest(player)
        return next(row for row in state["players"] if row["id"] == player)


async def play(count: int, seed: int, *, max_moves: int | None = None) -> Table:
    people = await make_people(*PERSONAS[:count], "fiona")
    players, watcher = people[:count], people[count]
    game_id = await new_game(players, seed)
    rng = random.Random(seed)
    sockets = {}
    for person in players:
        sockets[person.pk] = await Socket.game(game_id, person)
    sockets[None] = await Socket.game(game_id, watcher)
    for socket in sockets.values():
        await socket.drain()
    table = Table(game_id, players, watcher, sockets, rng)
    table.replayed = await database_sync_to_async(Replayed)(game_id)
    await database_sync_to_async(table.replayed.check)()
    table.secrets[0] = await secrets_at(game_id)
    table.check_messages()
    moves = 0
    while (step := table.next_move()) is not None:
        if max_moves is not None and moves >= max_moves:
            break
        await table.send(*step)
        moves += 1
    if table.latest(None)["status"] != "FINISHED":
        for player in table.people:  # R8.2: everyone votes to end it
            await table.send(player, {"type": "VOTE_END", "end": True})
    return table


async def finish(table: Table, reason: str | None = None) -> None:
    expected = await replayed_results(table.game_id)
    assert expected
    for viewer in table.sockets:
        state = table.latest(viewer)
        assert state["status"] == "FINISHED" and state["legal"] == []
        if reason:
            assert state["end_reason"] == reason
        # The log's rows are the view's without the site's additions: names, ratings.
        shown = [
            {k: v for k, v in row.items() if k not in ("name", "rating_change")}
            for row in state["results"]
        ]
        assert shown == expected
        assert {row["name"] for row in state["results"]} == set(PERSONAS[: len(table.people)])
        changes = {row["player"]: row["rating_change"] for row in state["results"]}
        assert all(isinstance(change, float) for change in changes.values()), changes
        assert changes == {  # public: the same for every viewer
            row["player"]: row["rating_change"] for row in table.latest(None)["results"]
        }
    await database_sync_to_async(table.replayed.check_whole)()
    for socket in table.sockets.values():
        assert await socket.is_quiet(0.05)
    await close_all(*table.sockets.values())


async def test_a_two_player_game_runs_to_its_natural_end_without_leaks(move_path):
    table = await play(2, seed=2)
    await finish(table)
    assert table.latest(None)["end_reason"] in ("final_round", "all_passed")


async def test_a_three_player_game_runs_to_its_natural_end_without_leaks(move_path):
    table = await play(3, seed=3)
    await finish(table)
    assert table.latest(None)["end_reason"] in ("final_round", "all_passed")


async def test_a_four_player_game_ends_by_everyone_voting_without_leaks(move_path):
    table = await play(4, seed=4, max_moves=60)
    await finish(table, "vote")


async def test_a_five_player_game_ends_by_everyone_voting_without_leaks(move_path):
    table = await play(5, seed=5, max_moves=60)
    await finish(table, "vote")
