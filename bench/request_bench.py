"""HTTP requests: server CPU per request, for a trivial one and for each of a game's set-up.

    .venv/bin/python bench/request_bench.py [--rounds 200] [--warm-up 20]

It starts one server process (``ratumrad_site.cluster``) on a throwaway database: PostgreSQL
when ``DATABASE_URL`` names one, else SQLite; the Redis channel layer when ``REDIS_URL`` is
set, else the in-memory one. Two guests then make ``--rounds`` rounds, one request at a time,
each a new connection as the load test makes them: ``GET /healthz`` (the request's own
machinery: daphne, Django's handler and middleware, a view that reads nothing), then a
private game of two set up as a table of ``bench/loadtest.py`` sets it up: created, joined,
started over REST. The server's CPU (every thread, in clock ticks of 10 ms that even out over
the rounds) is read before and after each request, and printed per request of each kind.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import uvloop
from loadtest import SERVER_ENV, one_server, raise_file_limit
from procfs import cpu_seconds, with_descendants

BENCH_ENV = {
    **SERVER_ENV,
    "GAMES_WAITING_PER_USER": "0",  # no limit
    "GAME_RATE": "1000000/min",
}
GAME = {"name": "request bench", "private": True, "max_players": 2, "turn_seconds": 0}
STEPS = ("healthz", "create", "join", "start")


async def main_async(args) -> None:
    with contextlib.ExitStack() as stack:
        site, server, url = await one_server(stack, BENCH_ENV, "request")
        creator, other = await site.guest(), await site.guest()
        pids = with_descendants([server.pid])
        spent = dict.fromkeys(STEPS, 0.0)

        async def step(name: str, method: str, path: str, body=None, token=None):
            before = sum(cpu_seconds(pid) for pid in pids)
            answer = await site.call(method, path, body, token)
            spent[name] += sum(cpu_seconds(pid) for pid in pids) - before
            return answer

        for round_ in range(args.warm_up + args.rounds):
            if round_ == args.warm_up:
                spent = dict.fromkeys(STEPS, 0.0)
            await step("healthz", "GET", "/healthz")
            game = await step("create", "POST", "/api/games/", GAME, creator.token)
            await step("join", "POST", f"/api/games/{game['id']}/join/", {}, other.token)
            await step("start", "POST", f"/api/games/{game['id']}/start/", {}, creator.token)
        database = "PostgreSQL" if url.startswith("postgres") else "SQLite"
        print(f"one server process, {database}; {args.rounds} rounds; server CPU per request:")
        for name in STEPS:
            print(f"  {name:8} {spent[name] / args.rounds * 1000:6.2f} ms")
        setup = sum(spent[name] for name in STEPS[1:]) / args.rounds * 1000
        print(f"  set-up   {setup:6.2f} ms (create, join, start)")


def main() -> None:
    raise_file_limit()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--warm-up", type=int, default=20, help="rounds not counted")
    uvloop.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
