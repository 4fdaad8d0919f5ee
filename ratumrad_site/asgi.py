"""ASGI entry point: Django for HTTP, Channels consumers for websockets."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratumrad_site.settings")
# Set up Django before anything imports models (consumers, auth middleware).
django_asgi_app = get_asgi_application()

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
