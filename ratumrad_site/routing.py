"""Websocket URL patterns; the game and lobby consumers add themselves here."""

websocket_urlpatterns: list = []
