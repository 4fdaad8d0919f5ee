"""Guests: players who only chose a name.

A guest is an ordinary Django user with an unusable password, marked by a ``Guest`` row, so
that a later "register to keep your name" can turn them into a full account by setting a
password and deleting the mark.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, models, transaction
from django.utils.translation import gettext_lazy as _
from rest_framework.authtoken.models import Token

from games.errors import ServiceError
from games.services.lifecycle import BOT_NAMES

NAME_MAX_LENGTH = 32


def clean_name(raw: object) -> str:
    """A player name: stripped, 1 to 32 printable characters (no control or format chars)."""
    if not isinstance(raw, str):
        raise ServiceError("a name is a string", "bad_field", prefix="name")
    name = raw.strip()
    if not 1 <= len(name) <= NAME_MAX_LENGTH:
        raise ServiceError(
            "a name has 1 to {max} characters", "bad_field", prefix="name", max=NAME_MAX_LENGTH
        )
    if not name.isprintable():
        raise ServiceError("a name cannot contain control characters", "bad_field", prefix="name")
    return name


def name_key(name: str) -> str:
    return name.casefold()


BOT_NAME_KEYS = frozenset(name_key(name) for name in BOT_NAMES)


def name_is_free(name: str) -> bool:
    """No player has this name in any case, and it is not a computer player's name.

    People never get a name of the bot pool, whether or not that bot has played yet: a bot
    never plays in a person's name (``games.services.lifecycle.bot_users``), and nobody may pass
    for a bot.
    """
    return not (
        name_key(name) in BOT_NAME_KEYS
        or get_user_model().objects.filter(username__iexact=name).exists()
        or Guest.objects.filter(name_key=name_key(name)).exists()
    )


class GuestManager(models.Manager):
    def create_guest(self, *, name: object) -> Guest:
        """A new guest user called ``name`` with an API token; the name must be free."""
        name = clean_name(name)
        taken = ServiceError("the name {name} is already taken", "name_taken", name=repr(name))
        users = get_user_model().objects
        if not name_is_free(name):
            raise taken
        try:
            with transaction.atomic():
                user = users.create_user(username=name)  # no password: an unusable one
                guest = self.create(user=user, name_key=name_key(name))
                Token.objects.create(user=user)
        except IntegrityError:
            # Someone took the name between the check and the insert (PostgreSQL does not
            # serialise these transactions): the unique name_key or username refused it.
            raise taken from None
        return guest


class Guest(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="guest"
    )
    # The case-folded name, unique: keeps "Lea" and "lea" apart even when two requests race,
    # and folds non-ASCII letters the same way on every database.
    name_key = models.CharField(max_length=4 * NAME_MAX_LENGTH, unique=True, editable=False)
    created = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)

    objects = GuestManager()

    class Meta:
        ordering = ["-created", "-id"]
        verbose_name = _("guest")
        verbose_name_plural = _("guests")

    def __str__(self) -> str:
        return self.user.get_username()


class Profile(models.Model):
    """What a player chose that follows them from browser to browser: the site's language."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    # A code of settings.LANGUAGES, or empty: the browser's own choice.
    language = models.CharField(_("language"), max_length=8, blank=True)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return self.user.get_username()
