"""What Linux's /proc says about a process, for the benchmarks' CPU and memory figures."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int | None) -> float:
    """User and system CPU time of process ``pid`` so far (0 for None or a process gone)."""
    return sum(cpu_split(pid))


def cpu_split(pid: int | None) -> tuple[float, float]:
    """User and system CPU time of process ``pid`` so far, apart ((0, 0) for None or a
    process gone). System time is the kernel's work for the process: its system calls, and
    on the loopback also the receiving side's TCP work of what it sends."""
    if pid is None:
        return 0.0, 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0
    return int(fields[11]) / TICKS, int(fields[12]) / TICKS  # utime, stime


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def pids_named(name: str) -> list[int]:
    """The processes whose command name is ``name``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == name:
                    found.append(int(entry.name))
            except OSError:
                continue  # gone meanwhile
    return found


def with_descendants(pids: list[int]) -> list[int]:
    """``pids`` and every process they started that still runs (a server's worker process)."""
    found, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                todo += [int(child) for child in (task / "children").read_text().split()]
            except OSError:
                continue
    return found


def run_seconds(pid: int) -> float:
    """CPU time of process ``pid``'s threads that still run, to the nanosecond (the
    scheduler's ``/proc/<pid>/task/<tid>/schedstat``); 0 for a process gone. Exact for a
    process of one thread (a PostgreSQL backend), where ``cpu_seconds`` counts in clock ticks
    (10 ms); in a process whose threads come and go, those that ended are missed."""
    return sum(task_seconds(pid).values())


def task_seconds(pid: int) -> dict[int, float]:
    """CPU time of each thread of process ``pid`` that still runs, by its id, to the
    nanosecond (``schedstat``); empty for a process gone."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return {}
    found = {}
    for task in tasks:
        try:
            found[int(task.name)] = int((task / "schedstat").read_text().split()[0]) / 1e9
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
    return found


def thread_seconds(pid: int, tid: int | None = None) -> float:
    """CPU time of thread ``tid`` of process ``pid`` (its main thread by default), to the
    nanosecond (``schedstat``); 0 for a thread gone."""
    try:
        return int(Path(f"/proc/{pid}/task/{tid or pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


async def until_quiet(cpu: Callable[[], float], quiet: float, least: float, timeout: float) -> bool:
    """Wait ``least`` seconds, then until ``cpu()`` (CPU seconds so far) grows by at most
    ``quiet`` over a second: a server done with what it was asked. False when that has not
    come within ``timeout`` seconds more."""
    await asyncio.sleep(least)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        used = cpu()
        await asyncio.sleep(1.0)
        if cpu() - used <= quiet:
            return True
    return False
