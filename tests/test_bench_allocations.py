"""The grouping of ``bench/socket_memory.py``'s breakdown (``bench/allocations.py``): who
asked for each allocation, and which group that puts it in."""

from __future__ import annotations

import importlib.util
import tracemalloc

from tests.real_server import ROOT

_spec = importlib.util.spec_from_file_location("allocations", ROOT / "bench" / "allocations.py")
allocations = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(allocations)

SITE = "/srv/venv/lib/python3.11/site-packages"
STDLIB = "/usr/lib/python3.11"
HERE = "/srv/site"


def owner(*frames: tuple[str, int]):
    return allocations.owner(list(frames), root=HERE, stdlib=STDLIB)


def test_a_path_is_named_as_its_package_names_it():
    assert allocations.short(f"{SITE}/twisted/web/http.py", HERE, STDLIB) == (
        "twisted/web/http.py",
        False,
    )
    assert allocations.short(f"{HERE}/games/protocol.py", HERE, STDLIB) == (
        "games/protocol.py",
        False,
    )
    assert allocations.short(f"{STDLIB}/asyncio/tasks.py", HERE, STDLIB) == (
        "asyncio/tasks.py",
        True,
    )
    assert allocations.short("<frozen runpy>", HERE, STDLIB) == ("<frozen runpy>", True)


def test_the_owner_is_the_innermost_frame_outside_the_standard_library():
    # An asyncio.Queue made by the channel layer: its deques and Event are the layer's.
    assert owner(
        (f"{STDLIB}/asyncio/locks.py", 168),
        (f"{STDLIB}/asyncio/queues.py", 41),
        (f"{SITE}/channels/layers.py", 294),
        (f"{HERE}/games/protocol.py", 171),
    ) == ("channels/layers.py", 294, "asyncio/queues.py")
    # Allocated by the owner's own line: no way in between.
    assert owner(
        (f"{SITE}/daphne/ws_protocol.py", 48), (f"{SITE}/twisted/internet/defer.py", 205)
    ) == ("daphne/ws_protocol.py", 48, None)
    # Only the standard library: the outermost frame that was kept.
    assert owner((f"{STDLIB}/json/decoder.py", 353), (f"{STDLIB}/asyncio/events.py", 80)) == (
        "asyncio/events.py",
        80,
        None,
    )


def test_the_group_is_the_first_that_matches_the_owner_and_its_way():
    group = allocations.group_of
    tasks, layer, daphne, channels, django, consumers = (g[0] for g in allocations.GROUPS)
    assert group("games/protocol.py", "asyncio/tasks.py") == tasks
    assert group("daphne/server.py", "asyncio/tasks.py") == tasks  # the application's task
    assert group("games/protocol.py", None) == consumers
    assert group("lobby/consumers.py", "json/__init__.py") == consumers
    assert group("channels/layers.py", "asyncio/queues.py") == layer
    assert group("games/memory_layer.py", None) == layer
    assert group("channels_redis/pubsub.py", None) == layer
    assert group("daphne/server.py", "asyncio/queues.py") == daphne
    assert group("autobahn/websocket/protocol.py", None) == daphne
    assert group("channels/routing.py", None) == channels
    assert group("ratumrad_site/ws_auth.py", None) == channels
    assert group("django/db/models/base.py", None) == django
    assert group("psycopg/cursor.py", None) == django  # the rows of a read ahead
    assert group("tests/test_bench_allocations.py", None) == allocations.OTHER


def test_sizes_add_up_per_group_and_per_line():
    queue = [(f"{STDLIB}/asyncio/queues.py", 48), (f"{SITE}/channels/layers.py", 294)]
    task = [(f"{STDLIB}/asyncio/tasks.py", 384), (f"{HERE}/games/protocol.py", 181)]
    growth = [(queue, 600), (queue, 400), (task, 1000)]
    groups = allocations.by_group(growth, HERE, STDLIB)
    lines = allocations.by_line(growth, HERE, STDLIB)
    assert groups == {allocations.GROUPS[1][0]: 1000, allocations.GROUPS[0][0]: 1000}
    assert lines == {
        "channels/layers.py:294 via asyncio/queues.py": 1000,
        "games/protocol.py:181 via asyncio/tasks.py": 1000,
    }


def test_growth_between_two_real_snapshots_is_owned_by_the_line_that_kept_it():
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start(10)
    try:
        before = tracemalloc.take_snapshot()
        kept = [bytearray(50_000) for _ in range(20)]  # 1 MB from this line
        after = tracemalloc.take_snapshot()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    lines = allocations.by_line(allocations.grown(before, after))
    here = f"tests/test_bench_allocations.py:{kept_line()}"
    assert lines[here] >= 20 * 50_000
    assert max(lines, key=lines.get) == here
    assert len(kept) == 20


def kept_line() -> int:
    """The line of ``kept = ...`` above."""
    source = (ROOT / "tests" / "test_bench_allocations.py").read_text().splitlines()
    return next(i for i, line in enumerate(source, 1) if line.strip().startswith("kept = ["))
