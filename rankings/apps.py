from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RankingsConfig(AppConfig):
    name = "rankings"
    verbose_name = _("Rankings")

    def ready(self) -> None:
        from games import selectors
        from games.models import Game
        from games.signals import game_finished
        from rankings.receivers import finished_game
        from rankings.selectors import finished_game_extras

        if finished_game_extras not in selectors.FINISHED_VIEW_HOOKS:
            selectors.FINISHED_VIEW_HOOKS.append(finished_game_extras)

        game_finished.connect(finished_game, sender=Game, dispatch_uid="rankings.finished")
