"""HTTP API routes of the games app, included under ``api/``."""

from django.urls import path

from games import api, invitation_api

urlpatterns = [
    path("games/", api.GameListView.as_view(), name="game-list"),
    path("games/mine/", api.MyGamesView.as_view(), name="game-mine"),
    path("games/<int:game_id>/", api.GameDetailView.as_view(), name="game-detail"),
    path("games/<int:game_id>/join/", api.GameJoinView.as_view(), name="game-join"),
    path("games/<int:game_id>/start/", api.GameStartView.as_view(), name="game-start"),
    path("games/<int:game_id>/leave/", api.GameLeaveView.as_view(), name="game-leave"),
    path("games/<int:game_id>/log/", api.GameLogView.as_view(), name="game-log"),
    path("games/<int:game_id>/hint/", api.GameHintView.as_view(), name="game-hint"),
    path("games/<int:game_id>/rematch/", api.GameRematchView.as_view(), name="game-rematch"),
    path(
        "games/<int:game_id>/invitation/",
        invitation_api.GameInvitationView.as_view(),
        name="game-invitation",
    ),
    path(
        "invitations/<str:token>/accept/",
        invitation_api.InvitationAcceptView.as_view(),
        name="invitation-accept",
    ),
    path("kinds/", api.KindListView.as_view(), name="kind-list"),
]
