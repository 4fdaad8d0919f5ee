"""Pages: the ranking list and player pages (the REST reads are in rankings.api)."""

from django.urls import path

from rankings import views

urlpatterns = [
    path("rankings/", views.rankings_page, name="rankings"),
    path("players/<int:user_id>/", views.player_page, name="player"),
]
