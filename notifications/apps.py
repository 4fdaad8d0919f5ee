from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = _("Mail")

    def ready(self) -> None:
        from games.models import Game
        from games.signals import game_finished
        from notifications.notify import game_ended

        game_finished.connect(game_ended, sender=Game, dispatch_uid="notifications.game_ended")
