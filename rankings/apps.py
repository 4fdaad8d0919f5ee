from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RankingsConfig(AppConfig):
    name = "rankings"
    verbose_name = _("Rankings")
