"""Faults that happen in real life: the database refuses a write, a client dies in the middle
of a move, a draw or a destination choice. The game goes on and nothing is lost or doubled."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import DatabaseError

from games import broadcast, consumers
from games.models import Event, Move
from games.moves import play, sql
from games.moves.base import load_state
from games.ratumrad import engine
from games.services.lifecycle import game_create, game_join, game_start
from tests.ws_helpers import (
    Socket,
    close_all,
    current_person,
    isolated_sockets,  # noqa: F401 (autouse fixture)
    running_game,
    snapshot,
)

pytestmark = pytest.mark.django_db(transaction=True)


def refuse_the_log(monkeypatch) -> None:
    """The database refuses a move's last write, its feed events: by then the move's log
    row, the game and the mover's seat have been written in the same transaction."""
    insert = sql.insert

    def insert_or_refuse(instances):
        if instances and isinstance(instances[0], Event):
            raise DatabaseError("could not extend file: No space left on device")
        insert(instances)

    monkeypatch.setattr(sql, "insert", insert_or_refuse)


async def test_a_write_the_database_refuses_is_an_error_and_changes_nothing(people, monkeypatch):
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    socket = await Socket.game(game_id, mover)
    before = await snapshot(game_id)
    move = {"type": "TAKE_WHEEL", "source": "deck", "expect_seq": before[0]}

    with monkeypatch.context() as broken:
        refuse_the_log(broken)
        await socket.send({**move, "ref": "full-disk"})
        error = (await socket.until("ERROR"))[-1]
    assert error["code"] == "unavailable" and error["ref"] == "full-disk"
    assert await snapshot(game_id) == before  # rolled back: state, log, seats
    await socket.send({**move, "ref": "again"})
    assert (await socket.until("ACK"))[-1]["seq"] == before[0] + 1
    await socket.close()


async def test_a_client_that_dies_right_after_sending_a_move_finds_it_applied_once(people):
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    dying = await Socket.game(game_id, mover)
    seq = dying.received[0]["seq"]
    await dying.send({"type": "TAKE_WHEEL", "source": "deck", "expect_seq": seq, "ref": "m"})
    await dying.close()  # gone before any answer
    back = await Socket.game(game_id, mover)
    state = back.received[0]["state"]
    if state["seq"] == seq:  # the move had not been read yet: it is simply not applied
        await back.send({"type": "TAKE_WHEEL", "source": "deck", "expect_seq": seq, "ref": "m"})
        state = (await back.until("STATE", seq=seq + 1))[-1]["state"]
    assert state["seq"] == seq + 1 and state["turn"] == "second_card"
    # Sent again after the reconnect with the old expect_seq, it is refused, not doubled.
    await back.send({"type": "TAKE_WHEEL", "source": "deck", "expect_seq": seq, "ref": "dup"})
    assert (await back.until("ERROR"))[-1]["code"] == "stale"
    moves = await database_sync_to_async(lambda: Move.objects.filter(game_id=game_id).count())()
    assert moves == seq + 1
    await back.close()


async def test_a_client_that_dies_mid_draw_takes_its_second_card_after_reconnecting(people):
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    first = await Socket.game(game_id, mover)
    seq = first.received[0]["seq"]
    await first.send({"type": "TAKE_WHEEL", "source": "deck", "expect_seq": seq, "ref": "a"})
    await first.until("ACK")
    await first.close()
    again = await Socket.game(game_id, mover)
    state = again.received[0]["state"]
    assert state["turn"] == "second_card" and state["current_player"] == mover.pk
    hand = sum(state["you"]["hand"].values())
    await again.send({"type": "TAKE_WHEEL", "source": "deck", "expect_seq": seq + 1, "ref": "b"})
    state = (await again.until("STATE", seq=seq + 2))[-1]["state"]
    assert state["current_player"] != mover.pk and sum(state["you"]["hand"].values()) == hand + 1
    await again.close()


async def test_a_client_that_dies_mid_destination_choice_chooses_after_reconnecting(people):
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    first = await Socket.game(game_id, mover)
    seq = first.received[0]["seq"]
    await first.send({"type": "DRAW_DESTINATION_CARDS", "expect_seq": seq, "ref": "d"})
    drawn = (await first.until("STATE", seq=seq + 1))[-1]["state"]["you"]["pending_destinations"]
    await first.close()
    again = await Socket.game(game_id, mover)
    state = again.received[0]["state"]
    assert state["turn"] == "choose_destinations"
    assert state["you"]["pending_destinations"] == drawn  # the same cards, not new ones
    kept = [drawn[0]["id"]]
    await again.send({"type": "KEEP_DESTINATION_CARDS", "keep": kept, "expect_seq": seq + 1})
    state = (await again.until("STATE", seq=seq + 2))[-1]["state"]
    assert kept[0] in {card["id"] for card in state["you"]["destinations"]}
    assert state["you"]["pending_destinations"] == []
    other = next(p for p in people[:2] if p.pk != mover.pk)
    assert state["current_player"] == other.pk
    await close_all(again)


def test_services_roll_a_refused_write_back_entirely(people, monkeypatch):
    """The same without a socket: the service raises, and the game is as it was."""
    alice, bob = people[:2]
    game = game_create(user=alice, name="Rhein", max_players=2)
    game_join(game_id=game.pk, user=bob)
    game_start(game_id=game.pk, user=alice)
    before = type(game).objects.get(pk=game.pk)
    keep = engine.legal_moves(load_state(before), alice.pk)[0]

    refuse_the_log(monkeypatch)
    with pytest.raises(DatabaseError):
        play.move_apply(game_id=game.pk, user=alice, move=keep)
    stored = type(game).objects.get(pk=game.pk)
    assert (stored.seq, stored.state) == (before.seq, before.state)
    assert not Move.objects.filter(game=game).exists()
    assert list(Event.objects.filter(game=game).values_list("kind", flat=True)) == [
        "joined",
        "dealt",
    ]


async def test_a_move_is_acknowledged_even_when_its_broadcast_cannot_go_out(people, monkeypatch):
    """Redis down after the commit: the move stands and its sender gets the ACK; a SYNC shows
    the new state once the messages flow again."""
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    socket = await Socket.game(game_id, mover)
    seq = socket.received[0]["seq"]

    def unreachable(messages):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    with monkeypatch.context() as down:
        down.setattr(broadcast, "_send_all", unreachable)
        await socket.send({"type": "TAKE_WHEEL", "source": "deck", "expect_seq": seq, "ref": "r"})
        answer = (await socket.until("ACK"))[-1]
    assert answer == {"type": "ACK", "ref": "r", "seq": seq + 1}
    state = await socket.sync()
    assert state["seq"] == seq + 1 and state["turn"] == "second_card"
    await socket.close()


async def test_a_socket_catches_up_by_itself_on_a_change_whose_update_was_lost(
    people, monkeypatch, settings
):
    """An update lost in the channel layer (Redis restarting): within a beat each socket of
    the game sends its feed entries and then a STATE of the change, once, by itself."""
    settings.PRESENCE_BEAT = timedelta(milliseconds=50)
    monkeypatch.setattr(consumers, "MESSAGE_GRACE", timedelta(0))
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    other = next(person for person in people[:2] if person != mover)
    sockets = [await Socket.game(game_id, mover), await Socket.game(game_id, other)]
    await sockets[0].until("STATE")  # the other player's arrival
    seq = sockets[0].received[0]["seq"]
    with monkeypatch.context() as lost:
        lost.setattr(broadcast, "_send_all", lambda messages: None)
        await database_sync_to_async(play.move_apply)(
            game_id=game_id, user=mover, move={"type": "TAKE_WHEEL", "source": "deck"}
        )
    for socket in sockets:
        caught_up = await socket.until("STATE", seq=seq + 1)
        kinds = [m["event"]["kind"] for m in caught_up if m["type"] == "EVENT"]
        assert kinds == ["took_wheel"], caught_up
        assert caught_up[-1]["state"]["turn"] == "second_card"
        assert await socket.is_quiet(0.3), "caught up twice"
    await close_all(*sockets)


async def test_when_redis_is_back_a_socket_catches_up_at_once_not_on_its_beat(people, monkeypatch):
    """The channel layer hears Redis again (``layer.resumed``): each socket of the game sends
    the change whose update was lost during the outage at once, though the change is younger
    than the grace a beat waits and the next beat is far away."""
    game_id = await running_game(people, 2)
    mover = await current_person(people, game_id)
    other = next(person for person in people[:2] if person != mover)
    sockets = [await Socket.game(game_id, mover), await Socket.game(game_id, other)]
    await sockets[0].until("STATE")  # the other player's arrival
    seq = sockets[0].received[0]["seq"]
    with monkeypatch.context() as lost:
        lost.setattr(broadcast, "_send_all", lambda messages: None)
        await database_sync_to_async(play.move_apply)(
            game_id=game_id, user=mover, move={"type": "TAKE_WHEEL", "source": "deck"}
        )
    assert await sockets[1].is_quiet(0.2)
    layer = get_channel_layer()
    await layer.group_send(broadcast.game_group(game_id), {"type": "layer.resumed"})
    for socket in sockets:
        caught_up = await socket.until("STATE", timeout=1, seq=seq + 1)
        kinds = [m["event"]["kind"] for m in caught_up if m["type"] == "EVENT"]
        assert kinds == ["took_wheel"], caught_up
        assert await socket.is_quiet(0.3), "caught up twice"
    await close_all(*sockets)
