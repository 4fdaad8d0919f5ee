"""Player ratings (openskill's Plackett-Luce model) and their history, one row per rated seat.

A rating is ``mu`` (the estimated skill) and ``sigma`` (how unsure that estimate is); lists
sort by the ``ordinal`` ``mu - 3 * sigma``, which starts at 0 and rises as a player proves
themselves. Computer players are rated like people, so that people can compare themselves.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Game


class Rating(models.Model):
    """A player's rating in one kind of game (``games.registry``)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    kind = models.CharField(_("kind"), max_length=16, default="ratumrad", db_index=True)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(_("rating"), db_index=True)
    games = models.PositiveIntegerField(_("rated games"), default=0)
    is_bot = models.BooleanField(_("computer player"), default=False)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-ordinal", "user_id"]
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="one_rating_per_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.kind}): {self.ordinal:.1f}"


class RatingChange(models.Model):
    """What one rated game did to one player's rating."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    place = models.PositiveSmallIntegerField(_("place"))
    players = models.PositiveSmallIntegerField(_("players"))
    total = models.IntegerField(_("total"))
    is_bot = models.BooleanField(_("computer player"), default=False)
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    ordinal_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    ordinal_after = models.FloatField()
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created", "-id"]
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="rated_once_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.game_id}: {self.delta:+.1f}"

    @property
    def delta(self) -> float:
        return self.ordinal_after - self.ordinal_before


class EarnedAchievement(models.Model):
    """An achievement (``rankings.achievements``) a person earned, with the game that earned
    it first."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="achievements"
    )
    kind = models.CharField(_("kind"), max_length=16)
    key = models.CharField(_("achievement"), max_length=32)
    game = models.ForeignKey(Game, on_delete=models.SET_NULL, null=True, related_name="+")
    earned = models.DateTimeField(_("earned"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-earned", "-id"]
        verbose_name = _("achievement")
        verbose_name_plural = _("achievements")
        constraints = [
            models.UniqueConstraint(fields=["user", "kind", "key"], name="earned_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.kind}/{self.key}"
