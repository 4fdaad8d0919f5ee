"""Who asked for the memory a server grew by between two ``tracemalloc`` snapshots: the
breakdown of ``bench/socket_memory.py``.

An allocation's owner is the innermost frame of its traceback outside Python's standard
library (an ``asyncio.Queue`` made for a channel is the channel layer's, not asyncio's); the
standard library module in between, if any, is the way it was made (``via``). Its group is
the first of ``GROUPS`` that its owner's path and its way match.
"""

from __future__ import annotations

import sysconfig
import tracemalloc
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
STDLIB = sysconfig.get_paths()["stdlib"]

# (label, owner path prefixes (any if empty), ways (any if empty)); the first that matches.
GROUPS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("asyncio tasks: daphne's for the application, the consumer's readers and beat; their waits",
     (), ("asyncio/tasks.py",)),
    ("the channel layer: the socket's channel (a queue) and its groups",
     ("channels/layers.py", "channels_redis/", "redis/", "msgpack/", "games/memory_layer.py",
      "games/channel_layer.py", "games/redis_shards.py", "games/redis_publisher.py",
      "games/redis_subscriber.py"), ()),
    ("daphne, Twisted, autobahn: the connection, its HTTP request, the websocket protocol",
     ("daphne/", "twisted/", "autobahn/", "txaio/", "zope/"), ()),
    ("Channels and the site's middleware: the consumer, the scope's copies",
     ("channels/", "asgiref/", "ratumrad_site/"), ()),
    ("the database: Django's objects (the user, connections), rows read",
     ("django/", "psycopg/", "psycopg_pool/"), ()),
    ("the site's consumers and what they keep", ("games/", "lobby/"), ()),
)  # fmt: skip
OTHER = "other"


def short(filename: str, root: str = ROOT, stdlib: str = STDLIB) -> tuple[str, bool]:
    """A file's path as its package names it (``twisted/web/http.py``, ``games/protocol.py``,
    ``asyncio/tasks.py``), and whether it is part of the standard library."""
    if filename.startswith("<frozen "):
        return filename, True
    if "/site-packages/" in filename:
        return filename.rsplit("/site-packages/", 1)[1], False
    if filename.startswith(root + "/"):
        return filename[len(root) + 1 :], False
    if filename.startswith(stdlib + "/"):
        return filename[len(stdlib) + 1 :], True
    return filename, False


def owner(frames: Sequence[tuple[str, int]], root: str = ROOT, stdlib: str = STDLIB):
    """``(path, line, via)`` of an allocation whose frames are ``frames``, the innermost first:
    the innermost frame outside the standard library, and the standard library file called
    from there (None if it allocated itself). All in the standard library: the outermost."""
    via = None
    for filename, line in frames:
        path, standard = short(filename, root, stdlib)
        if not standard:
            return path, line, via
        via = path
    path, _ = short(frames[-1][0], root, stdlib)
    return path, frames[-1][1], None


def group_of(path: str, via: str | None) -> str:
    for label, prefixes, ways in GROUPS:
        if prefixes and not path.startswith(prefixes):
            continue
        if ways and (via is None or not via.startswith(ways)):
            continue
        return label
    return OTHER


def grown(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot):
    """``(frames innermost first, bytes)`` of every traceback's growth from ``before``."""
    for stat in after.compare_to(before, "traceback"):
        if stat.size_diff:
            frames = [(frame.filename, frame.lineno) for frame in reversed(stat.traceback)]
            yield frames, stat.size_diff


Growth = Iterable[tuple[Sequence[tuple[str, int]], int]]


def by_group(growth: Growth, root: str = ROOT, stdlib: str = STDLIB) -> dict[str, int]:
    """Bytes grown per group."""
    groups: dict[str, int] = {}
    for frames, size in growth:
        path, _, via = owner(frames, root, stdlib)
        label = group_of(path, via)
        groups[label] = groups.get(label, 0) + size
    return groups


def by_line(growth: Growth, root: str = ROOT, stdlib: str = STDLIB) -> dict[str, int]:
    """Bytes grown per owning line (``path:line``, with `` via`` the standard library file)."""
    lines: dict[str, int] = {}
    for frames, size in growth:
        path, line, via = owner(frames, root, stdlib)
        key = f"{path}:{line}" + (f" via {via}" if via else "")
        lines[key] = lines.get(key, 0) + size
    return lines
