"""daphne on uvloop: ``python -m ratumrad_site.serve`` takes daphne's arguments.

daphne runs Twisted on an asyncio event loop, which it makes when ``daphne.server`` is
imported: uvloop's policy is set before that. uvloop's loop runs the same callbacks with less
of the loop's own work per socket event, the most of a busy server's time after the moves.
Its TCP connections send what they are given at once (``ratumrad_site.eager_write``).
"""

from __future__ import annotations

import asyncio

try:
    import uvloop
except ImportError:  # uvloop is not installed on Windows: asyncio's own loop there
    uvloop = None

if uvloop is not None:
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

from daphne.cli import CommandLineInterface  # after the policy, see above

from ratumrad_site import eager_write


def main() -> None:
    eager_write.install()
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
