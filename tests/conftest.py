"""Settings for the whole test run that must be in place before the ASGI app is imported."""

from django.conf import settings

# No background sweeper in the test process: tests call games.sweeper.sweep() themselves.
# Real servers started by tests (tests/real_server.py) sweep as usual.
settings.TURN_SWEEP_SECONDS = 0
