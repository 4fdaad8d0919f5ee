from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = _("Mail")

    def ready(self) -> None:
        from games.models import Game
        from games.signals import game_finished, person_moved, turn_began
        from notifications import notify

        game_finished.connect(
            notify.game_ended, sender=Game, dispatch_uid="notifications.game_ended"
        )
        turn_began.connect(notify.turn_began, sender=Game, dispatch_uid="notifications.turn_began")
        person_moved.connect(
            notify.person_moved, sender=Game, dispatch_uid="notifications.person_moved"
        )
