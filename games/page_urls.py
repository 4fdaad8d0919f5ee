"""Pages of a game, mounted under ``games/`` (the REST API is in ``games.urls``)."""

from django.urls import path

from games import views

urlpatterns = [
    path("<int:game_id>/", views.game_page, name="game-page"),
    path("mine/", views.my_games_page, name="my-games"),
]
