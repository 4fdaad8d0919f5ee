"""Forms of the front page and the account pages: guests, accounts, a new game."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, SetPasswordForm, SetPasswordMixin
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games import services
from lobby.models import NAME_MAX_LENGTH, Guest, clean_name, name_is_free

SEAT_CHOICES = [(n, str(n)) for n in range(2, 6)]
BOT_CHOICES = [(n, str(n)) for n in range(5)]
TURN_CHOICES = [
    (0, _("no limit")),
    (30, _("30 seconds")),
    (60, _("1 minute")),
    (120, _("2 minutes")),
    (300, _("5 minutes")),
]


def name_error(code: str) -> ValidationError:
    """The service's error code about a name (``name_taken``, ``bad_field``) for people."""
    if code == "name_taken":
        return ValidationError(
            gettext("This name is already taken. Please choose another one."), code=code
        )
    return ValidationError(
        gettext("A name has 1 to %(max)d characters and no control characters.")
        % {"max": NAME_MAX_LENGTH},
        code=code,
    )


def checked_name(raw: str) -> str:
    """A free player name (the guests' rules), else a ValidationError for the form."""
    try:
        name = clean_name(raw)
    except services.ServiceError as error:
        raise name_error(error.code) from None
    if not name_is_free(name):
        raise name_error("name_taken")
    return name


class GuestForm(forms.Form):
    name = forms.CharField(
        label=_("Your name"),
        max_length=NAME_MAX_LENGTH,
        widget=forms.TextInput(attrs={"autocomplete": "nickname", "autofocus": True}),
    )

    def clean_name(self) -> str:
        return checked_name(self.cleaned_data["name"])

    def save(self) -> Guest | None:
        """The new guest; None (with the error on the form) if someone took the name first."""
        try:
            return Guest.objects.create_guest(name=self.cleaned_data["name"])
        except services.ServiceError as error:
            self.add_error("name", name_error(error.code))
            return None


class RegisterForm(SetPasswordMixin, forms.Form):
    username = forms.CharField(
        label=_("Name"),
        max_length=NAME_MAX_LENGTH,
        help_text=_("The name the other players see. It stays yours."),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    password1, password2 = SetPasswordMixin.create_password_fields()

    def clean_username(self) -> str:
        return checked_name(self.cleaned_data["username"])

    def clean(self) -> dict:
        self.validate_passwords()
        name = self.cleaned_data.get("username")
        if name:
            self.validate_password_for_user(get_user_model()(username=name))
        return super().clean()

    def save(self):
        """The new account; None (with the error on the form) if someone took the name first."""
        name = self.cleaned_data["username"]
        try:
            with transaction.atomic():
                return get_user_model().objects.create_user(
                    username=name, password=self.cleaned_data["password1"]
                )
        except IntegrityError:  # someone took the very same name since clean_username
            self.add_error("username", name_error("name_taken"))
            return None


class KeepNameForm(SetPasswordForm):
    """A guest chooses a password: the same user, now an account (history and rating stay)."""

    def save(self, commit: bool = True):
        with transaction.atomic():
            user = super().save(commit=True)
            Guest.objects.filter(user=user).delete()
        return user


class LoginForm(AuthenticationForm):
    """Log in with the name in any case: names are unique regardless of case."""

    def clean_username(self) -> str:
        name = self.cleaned_data["username"].strip()
        stored = (
            get_user_model()
            .objects.filter(username__iexact=name)
            .order_by("id")
            .values_list("username", flat=True)
            .first()
        )
        return stored or name


class NewGameForm(forms.Form):
    name = forms.CharField(label=_("Name of the game"), max_length=services.NAME_MAX_LENGTH)
    max_players = forms.TypedChoiceField(
        label=_("Seats"), choices=SEAT_CHOICES, coerce=int, initial=4
    )
    bots = forms.TypedChoiceField(
        label=_("Computer players"),
        choices=BOT_CHOICES,
        coerce=int,
        initial=0,
        help_text=_("They take seats at once; at least one seat stays yours."),
    )
    turn_seconds = forms.TypedChoiceField(
        label=_("Time per turn"),
        choices=TURN_CHOICES,
        coerce=int,
        initial=60,
        help_text=_("When a player's time is up, the computer plays their turn."),
    )
    private = forms.BooleanField(
        label=_("Private: only people with the link can find the game"), required=False
    )

    def clean(self) -> dict:
        data = super().clean()
        seats, bots = data.get("max_players"), data.get("bots")
        if seats is not None and bots is not None and bots >= seats:
            self.add_error("bots", _("Leave at least one seat for yourself."))
        return data

    def save(self, user):
        """The new game with ``user`` in the first seat; None (error on the form) if refused."""
        try:
            return services.game_create(
                user=user,
                name=self.cleaned_data["name"],
                max_players=self.cleaned_data["max_players"],
                bots=self.cleaned_data["bots"],
                private=self.cleaned_data["private"],
                turn_seconds=self.cleaned_data["turn_seconds"],
            )
        except services.ServiceError as error:
            message = gettext("The game could not be created. Please try again.")
            self.add_error(None, ValidationError(message, code=error.code))
            return None
