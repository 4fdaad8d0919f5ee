"""Pages of a game (the REST API is in ``games.urls``)."""

urlpatterns: list = []
