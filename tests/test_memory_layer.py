"""The in-memory channel layer of a single process: a group message reaches each member once,
and one message to many members does not walk every channel once per member."""

from __future__ import annotations

import asyncio

from channels.layers import InMemoryChannelLayer

from games.memory_layer import SweepingInMemoryChannelLayer


async def members(layer, count: int, group: str = "lobby") -> list[str]:
    channels = [await layer.new_channel() for _ in range(count)]
    for channel in channels:
        await layer.group_add(group, channel)
    return channels


async def test_a_group_message_reaches_every_member_once_and_no_one_who_left():
    layer = SweepingInMemoryChannelLayer()
    first, second, gone = await members(layer, 3)
    await layer.group_discard("lobby", gone)
    await layer.group_send("lobby", {"type": "lobby.games", "change": "a-1"})
    for channel in (first, second):
        message = await asyncio.wait_for(layer.receive(channel), 5)
        assert message == {"type": "lobby.games", "change": "a-1"}
        assert channel not in layer.channels  # nothing more waits there
    assert gone not in layer.channels


async def test_members_get_copies_not_the_senders_message():
    layer = SweepingInMemoryChannelLayer()
    first, second = await members(layer, 2)
    sent = {"type": "lobby.games", "users": [1]}
    await layer.group_send("lobby", sent)
    got = await layer.receive(first)
    got["users"].append(2)
    assert sent == {"type": "lobby.games", "users": [1]}
    assert (await layer.receive(second))["users"] == [1]


async def test_one_message_to_50_members_cleans_up_once_not_once_per_member(monkeypatch):
    walks = []
    original = InMemoryChannelLayer._clean_expired
    monkeypatch.setattr(
        InMemoryChannelLayer, "_clean_expired", lambda self: walks.append(original(self))
    )
    layer = SweepingInMemoryChannelLayer()
    channels = await members(layer, 50)
    await layer.group_send("lobby", {"type": "lobby.games"})
    for channel in channels:
        await layer.receive(channel)
    assert len(walks) == 1  # channels' own layer: 51, each over every channel


async def test_the_clean_up_still_drops_expired_messages_and_their_memberships():
    layer = SweepingInMemoryChannelLayer(expiry=-1)  # expired as soon as sent
    stale, fresh = await members(layer, 2)
    await layer.send(stale, {"type": "lobby.games"})
    layer.swept = float("-inf")  # the next clean-up is due
    layer._clean_expired()
    assert stale not in layer.channels
    assert set(layer.groups["lobby"]) == {fresh}


async def test_a_full_channel_misses_a_group_message_and_the_others_get_it():
    layer = SweepingInMemoryChannelLayer(capacity=1)
    full, other = await members(layer, 2)
    await layer.send(full, {"type": "first"})
    await layer.group_send("lobby", {"type": "second"})
    assert (await layer.receive(full))["type"] == "first"
    assert full not in layer.channels
    assert (await layer.receive(other))["type"] == "second"
