from django.urls import path

from notifications import views

urlpatterns = [
    path("account/", views.account, name="account"),
    path("mail/confirm/<str:token>/", views.confirm, name="mail-confirm"),
    path("mail/unsubscribe/<str:token>/", views.unsubscribe, name="mail-unsubscribe"),
]
