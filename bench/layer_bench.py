#!/usr/bin/env python3
"""The channel layer's own CPU per group message, in one process: in-memory and Redis.

    REDIS_URL=redis://127.0.0.1:6379/7 .venv/bin/python bench/layer_bench.py [--messages 2000]
                                                                [--size 7000] [--runs 3]

A move's update is one group message of about 7 kB (every seat's frame and the public one;
a finished game's, with its results, about 13 kB). This sends ``--messages`` such messages
one at a time, paced as a server's moves are (``PACE`` apart, so that each goes out alone),
and prints this process's CPU per message, user and system time apart, in four cases:

- ``pacing``: the loop and its pauses alone, sending nothing (subtracted from the others);
- ``in-memory``: ``group_send`` to a group with a member in this process, which receives it
  (``games.memory_layer``, one server process);
- ``redis, member here``: the same through the Redis layer (``games.channel_layer``): the
  member gets the message at once, Redis has it published for the other processes, and
  brings it back to this process too, which drops it;
- ``redis, no member here``: ``group_send`` to a group with no member in this process: the
  publishing alone.

Redis runs on the same machine: on the loopback the sender's system time includes Redis's
receiving side, as it does for a server's sockets (``bench/send_floor.py``). Use a Redis
database of its own: the groups are named afresh each run, and nothing is stored.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import uvloop

from games.channel_layer import LocalFirstPubSubChannelLayer
from games.memory_layer import SweepingInMemoryChannelLayer

PACE = 0.0005  # seconds between two messages
WARM_UP = 50  # messages sent before each case is measured


def update(size: int) -> dict:
    """A game's update as ``games.broadcast.game_changed`` makes it, ``size`` bytes of frames."""
    seat = "x" * (size * 3 // 7)
    return {
        "type": "game.update",
        "seq": 1,
        "events": [{"kind": "move", "player": 1}],
        "status": "PLAYING",
        "players": [[1, "Lea"], [2, "Noah"]],
        "frames": {"1": seat, "2": seat},
        "public": "z" * (size - 2 * len(seat)),
        "movers": [2],
    }


def cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


async def measure(send, messages: int) -> tuple[float, float]:
    """CPU seconds (user, system) per message of ``messages`` calls of ``send``, paced."""
    for _ in range(WARM_UP):
        await send()
        await asyncio.sleep(PACE)
    await asyncio.sleep(0.3)  # what the warm-up left in flight has come back
    user, system = cpu()
    for _ in range(messages):
        await send()
        await asyncio.sleep(PACE)
    await asyncio.sleep(0.3)  # and so has what the run sent
    after_user, after_system = cpu()
    # The 0.3 s of waiting at the end cost next to nothing: an idle loop.
    return (after_user - user) / messages, (after_system - system) / messages


async def cases(redis_url: str, size: int, messages: int) -> dict[str, tuple[float, float]]:
    message = update(size)
    found = {}

    async def nothing() -> None:
        return None

    found["pacing"] = await measure(nothing, messages)

    memory = SweepingInMemoryChannelLayer()
    channel = await memory.new_channel()
    await memory.group_add("game-1", channel)

    async def in_memory() -> None:
        await memory.group_send("game-1", message)
        await memory.receive(channel)

    found["in-memory"] = await measure(in_memory, messages)

    prefix = f"layer-bench-{uuid.uuid4().hex[:8]}"
    redis = LocalFirstPubSubChannelLayer(hosts=[{"address": redis_url}], prefix=prefix)
    try:
        channel = await redis.new_channel()
        await redis.group_add("game-1", channel)

        async def member_here() -> None:
            await redis.group_send("game-1", message)
            await redis.receive(channel)

        async def no_member_here() -> None:
            await redis.group_send("game-2", message)

        found["redis, member here"] = await measure(member_here, messages)
        found["redis, no member here"] = await measure(no_member_here, messages)
    finally:
        await redis.flush()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--size", type=int, default=7000, help="bytes of frames a message")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        parser.error("set REDIS_URL to a Redis database of its own")
    runs = [uvloop.run(cases(redis_url, args.size, args.messages)) for _ in range(args.runs)]
    print(f"{args.messages} group messages of {args.size} bytes a run, {args.runs} runs")
    print("CPU per message (median of the runs; user + system), the pacing's taken off the others:")
    for case in runs[0]:
        less = (0.0, 0.0) if case == "pacing" else None
        user = statistics.median(run[case][0] - (less or run["pacing"])[0] for run in runs)
        system = statistics.median(run[case][1] - (less or run["pacing"])[1] for run in runs)
        user, system = user * 1e6, system * 1e6
        print(f"  {case:<22} {user + system:7.1f} µs ({user:6.1f} + {system:5.1f})")


if __name__ == "__main__":
    main()
