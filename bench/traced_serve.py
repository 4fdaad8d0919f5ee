"""A server process (``ratumrad_site.serve``, the same arguments) under ``tracemalloc``.

    python -m bench.traced_serve --fd 3 ratumrad_site.asgi:application

For ``bench/socket_memory.py``, which starts it with ``cluster.start(..., module=...)``. On
``SIGUSR1`` it writes a snapshot of what is allocated to the file that ``TRACEMALLOC_SNAPSHOT``
names (through a temporary file, so the file appears whole). The first signal starts the
tracing, keeping ``FRAMES`` frames of each allocation: so its snapshot is empty, and a later
one holds what was allocated since and is still there. Traced from the start, the server
took 35 times as long to import the site. The handler runs on the server's thread between
two callbacks of its event loop, so a snapshot sees no half-made object. Traced, the server
is so much slower that daphne's five seconds for a websocket's handshake are not always
enough: it gets ``HANDSHAKE_SECONDS``. The site itself knows nothing of this.
"""

from __future__ import annotations

import os
import signal
import sys
import tracemalloc

HANDSHAKE_SECONDS = 120
FRAMES = 10  # enough to reach from the allocating line to the code that asked for it


def dump(signum, frame) -> None:
    path = os.environ["TRACEMALLOC_SNAPSHOT"]
    if not tracemalloc.is_tracing():
        tracemalloc.start(FRAMES)
    snapshot = tracemalloc.take_snapshot()
    snapshot.dump(path + ".part")
    os.replace(path + ".part", path)


def main() -> None:
    signal.signal(signal.SIGUSR1, dump)
    sys.argv[1:1] = ["--websocket_connect_timeout", str(HANDSHAKE_SECONDS)]
    from ratumrad_site import serve

    serve.main()


if __name__ == "__main__":
    main()
