"""Pages of the lobby: the front page, joining and creating games, and accounts."""

from django.urls import path

from lobby import views

urlpatterns = [
    path("", views.home, name="home"),
    path("new-game/", views.new_game, name="new-game"),
    path("join/<int:game_id>/", views.join, name="join-game"),
    path("invite/<str:token>/", views.invitation, name="invitation"),
    path("invite/new/<int:game_id>/", views.invitation_renew, name="invitation-renew"),
    path("register/", views.register, name="register"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", views.LogoutView.as_view(), name="logout"),
    path("keep-name/", views.keep_name, name="keep-name"),
]
