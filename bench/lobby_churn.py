"""Seat churn under the lobby's eyes: one person joins and leaves one public game over and
over while lobby sockets watch. Frames each socket gets, and the server's CPU per change.

    .venv/bin/python bench/lobby_churn.py [--watchers 300] [--changes 200]

It starts one server process (``ratumrad_site.cluster``) on a throwaway database, as
``bench/lobby_bench.py`` does (PostgreSQL when ``DATABASE_URL`` names one, else SQLite; the
Redis channel layer when ``REDIS_URL`` is set), opens ``--watchers`` lobby sockets that asked
for the games and their changes, creates a public game and has another guest join it and
leave it again over REST, one request after the other, ``--changes`` seat changes in all.
A second after the last, it prints how many ``GAMES_CHANGED`` each socket got and the
server's CPU per seat change (its REST request included).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import uvloop  # noqa: E402
from loadtest import one_server, raise_file_limit  # noqa: E402
from lobby_bench import BENCH_ENV, open_watchers  # noqa: E402
from procfs import cpu_seconds, with_descendants  # noqa: E402

SETTLE = 1.0  # seconds for the last frames to arrive


async def main_async(args) -> None:
    with contextlib.ExitStack() as stack:
        site, server, _ = await one_server(stack, BENCH_ENV, "churn")
        watchers = await open_watchers(site, args.watchers)
        frames = [0] * len(watchers)

        async def count_frames(number: int, socket) -> None:
            async for raw in socket:
                if "GAMES_CHANGED" in (raw if isinstance(raw, str) else raw.decode()):
                    frames[number] += 1

        for watcher in watchers:
            watcher.reader.cancel()  # counted here instead
        readers = [asyncio.create_task(count_frames(n, w.socket)) for n, w in enumerate(watchers)]
        creator, joiner = await site.guest(), await site.guest()
        body = {"name": "churn", "max_players": 3}
        game = await site.call("POST", "/api/games/", body, creator.token)
        await asyncio.sleep(SETTLE)
        before = frames[:]
        pids = with_descendants([server.pid])
        cpu_before = sum(cpu_seconds(pid) for pid in pids)
        began = time.perf_counter()
        for number in range(args.changes):
            action = "join" if number % 2 == 0 else "leave"
            await site.call("POST", f"/api/games/{game['id']}/{action}/", {}, joiner.token)
        took = time.perf_counter() - began
        await asyncio.sleep(SETTLE)
        cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before
        got = [now - then for now, then in zip(frames, before, strict=True)]
        print(
            f"{args.watchers} lobby sockets, {args.changes} seat changes in {took:.1f} s:"
            f" GAMES_CHANGED per socket {min(got)}-{max(got)},"
            f" server CPU {cpu / args.changes * 1000:.1f} ms per change (its request included)"
        )
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*(watcher.close() for watcher in watchers))


def main() -> None:
    raise_file_limit()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, default=300)
    parser.add_argument("--changes", type=int, default=200)
    uvloop.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
