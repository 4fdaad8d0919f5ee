"""Several server processes behind one address: ``python3 dev.py cluster``.

The parent binds the listening socket once and starts daphne processes that all accept on
it (``daphne --fd``); the kernel hands each new connection to one of them. They share the
database and the Redis channel layer, so the players of one game may sit on different
processes and still see every move (the broadcast goes through Redis), and any process may
drive the computer players (a move is applied once: ``expect_seq``). A process that dies is
started again. Beside them runs the background tasks' worker (``manage.py db_worker``: it
sends the mails), also started again when it dies, and stopped with the servers. Production
setups put a reverse proxy in front instead (docs/deploy.md).

    python -m ratumrad_site.cluster [--processes 2] [--workers 1] [--host 127.0.0.1] [--port 8000]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESTART_PAUSE = 1.0  # seconds before a dead process is started again


def listen(host: str, port: int) -> socket.socket:
    """The shared listening socket; port 0 picks a free one."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(4096)
    sock.set_inheritable(True)
    return sock


def start(
    sock: socket.socket,
    env: dict[str, str] | None = None,
    log=None,
    module: str = "ratumrad_site.serve",
) -> subprocess.Popen:
    """One daphne process accepting on ``sock``; ``module`` runs it (a benchmark may wrap
    ``ratumrad_site.serve`` in a module of its own that takes the same arguments)."""
    command = [
        sys.executable,
        "-m",
        module,
        "--fd",
        str(sock.fileno()),
        "ratumrad_site.asgi:application",
    ]
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        pass_fds=[sock.fileno()],
        stdout=log,
        stderr=subprocess.STDOUT if log is not None else None,
    )


def start_worker(env: dict[str, str] | None = None, log=None) -> subprocess.Popen:
    """One background tasks' worker: it runs every queued task (the mails)."""
    command = [sys.executable, "manage.py", "db_worker", "--no-reload", "--queue-name", "*"]
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=log,
        stderr=subprocess.STDOUT if log is not None else None,
    )


def stop(processes: list[subprocess.Popen], timeout: float = 10) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + timeout
    for process in processes:
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def supervise(sock: socket.socket, count: int, workers: int = 1) -> None:
    """Run ``count`` server processes and ``workers`` task workers until interrupted,
    starting again any that dies."""
    processes = [start(sock) for _ in range(count)]
    starters = [lambda: start(sock)] * count + [start_worker] * workers
    processes += [start_worker() for _ in range(workers)]
    print(
        f"{count} server processes on http://{sock.getsockname()[0]}:{sock.getsockname()[1]}/"
        f" (pids {', '.join(str(p.pid) for p in processes[:count])}),"
        f" {workers} task worker(s) (pids {', '.join(str(p.pid) for p in processes[count:])})",
        flush=True,
    )
    stopping = False

    def on_signal(signum, frame) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        while not stopping:
            for index, process in enumerate(processes):
                if process.poll() is not None and not stopping:
                    print(f"process {process.pid} ended ({process.returncode}); restarting")
                    time.sleep(RESTART_PAUSE)
                    processes[index] = starters[index]()
            time.sleep(0.5)
    finally:
        stop(processes)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--workers", type=int, default=1, help="background task workers")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    if args.workers < 0:
        parser.error("--workers must be 0 or more")
    if args.processes > 1 and not os.environ.get("REDIS_URL", "").strip():
        parser.error(
            "several processes share their channel layer only through Redis: set REDIS_URL"
            " (and DATABASE_URL for PostgreSQL)"
        )
    supervise(listen(args.host, args.port), args.processes, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
