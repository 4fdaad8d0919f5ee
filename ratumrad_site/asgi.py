"""ASGI entry point: Django for HTTP, Channels consumers for websockets."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratumrad_site.settings")
# Set up Django before anything imports models (consumers, auth middleware), as
# django.core.asgi.get_asgi_application does.
django.setup(set_prefix=False)

from ratumrad_site.http_threads import PooledThreadsASGIHandler  # noqa: E402

# Django's handler, whose requests keep their threads and database connections.
django_asgi_app = PooledThreadsASGIHandler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.sweeper import SweeperMiddleware  # noqa: E402
from ratumrad_site.routing import websocket_urlpatterns  # noqa: E402
from ratumrad_site.ws_auth import WebsocketAuthMiddleware  # noqa: E402

# The process's background work (turn timer sweeps, delayed computer players) runs on the
# event loop of the server: SweeperMiddleware starts it with the first connection.
application = SweeperMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            # Origin check and token-or-session login (ratumrad_site/ws_auth.py).
            "websocket": WebsocketAuthMiddleware(URLRouter(websocket_urlpatterns)),
        }
    )
)
