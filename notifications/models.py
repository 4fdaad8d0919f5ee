"""A person's mail address and what they want mailed, and the your-turn mails not yet answered."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Game

EMAIL_MAX_LENGTH = 254  # RFC 5321's limit for a path


class MailSettings(models.Model):
    """One per person who ever entered an address. Mails go only to a confirmed address."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_settings"
    )
    email = models.EmailField(_("email address"), max_length=EMAIL_MAX_LENGTH, blank=True)
    # When ``email`` was confirmed through its signed link; None: not (yet) confirmed.
    confirmed = models.DateTimeField(_("confirmed"), null=True, blank=True)
    your_turn = models.BooleanField(_("a mail when it is my turn"), default=True)
    game_ended = models.BooleanField(_("a mail with the results when a game ends"), default=True)

    class Meta:
        verbose_name = _("mail settings")
        verbose_name_plural = _("mail settings")

    def __str__(self) -> str:
        return self.user.get_username()

    @property
    def address(self) -> str:
        """Where mails may go: the address once confirmed, else ""."""
        return self.email if self.email and self.confirmed else ""

    def wants(self, kind: str) -> bool:
        return bool(self.address) and bool(getattr(self, kind))


class TurnMail(models.Model):
    """A your-turn mail went to ``user`` for ``game``, and they have not moved since: no
    second one until they have (``notifications.notify.moved`` deletes the row)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    sent = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="one_turn_mail_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.game_id}"
