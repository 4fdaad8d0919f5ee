from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from games import bots, postgres, sweeper
        from games.models import Game
        from games.signals import bots_may_move, turn_deadline_set

        bots_may_move.connect(bots.on_bots_may_move, sender=Game, dispatch_uid="games.bots")
        turn_deadline_set.connect(
            sweeper.on_turn_deadline_set, sender=Game, dispatch_uid="games.sweeper"
        )
        connection_created.connect(postgres.fast_timestamps, dispatch_uid="fast_timestamps")
