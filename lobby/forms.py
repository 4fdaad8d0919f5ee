"""Forms of the front page and the account pages: guests, accounts, a new game."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, SetPasswordForm, SetPasswordMixin
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games import errors, registry, turns
from games.models import Game
from games.services import lifecycle
from lobby.models import NAME_MAX_LENGTH, Guest, clean_name, name_is_free

SEAT_CHOICES = [(n, str(n)) for n in range(2, 9)]  # each kind takes its own range of these
BOT_CHOICES = [(n, str(n)) for n in range(8)]
LIVE_TURN_CHOICES = [
    (0, _("no limit")),
    (30, _("30 seconds")),
    (60, _("1 minute")),
    (120, _("2 minutes")),
    (300, _("5 minutes")),
]
# A turn-based game (Game.Pace) is chosen by its time a move: hours or days.
TURN_BASED_CHOICES = list(
    zip(
        turns.TURN_BASED_SECONDS,
        (_("12 hours a move"), _("24 hours a move"), _("3 days a move")),
        strict=True,
    )
)
TURN_CHOICES = [
    (_("Live: everyone at the table now"), LIVE_TURN_CHOICES),
    (_("Turn-based: each moves when they have a minute"), TURN_BASED_CHOICES),
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
    except errors.ServiceError as error:
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
        except errors.ServiceError as error:
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


def option_field(option: registry.Option) -> forms.Field:
    if option.choices is None:
        return forms.BooleanField(label=option.label, required=False, initial=option.default)
    return forms.ChoiceField(
        label=option.label,
        choices=[(choice, option.choice_labels.get(choice, choice)) for choice in option.choices],
        initial=option.default,
        required=False,  # only the chosen kind's options count; a missing one is its default
    )


class NewGameForm(forms.Form):
    """A new game of any kind: the kind's options are fields named ``<kind>__<option>``, and
    only the chosen kind's count. A solo kind needs no seats, computer players or timer."""

    kind = forms.ChoiceField(
        label=_("Game"), widget=forms.RadioSelect, initial=registry.DEFAULT_KIND, required=False
    )
    name = forms.CharField(label=_("Name of the game"), max_length=lifecycle.NAME_MAX_LENGTH)
    max_players = forms.TypedChoiceField(
        label=_("Seats"), choices=SEAT_CHOICES, coerce=int, initial=4, required=False
    )
    bots = forms.TypedChoiceField(
        label=_("Computer players"),
        choices=BOT_CHOICES,
        coerce=int,
        initial=0,
        required=False,
        help_text=_("They take seats at once; at least one seat stays yours."),
    )
    turn_seconds = forms.TypedChoiceField(
        label=_("Time per turn"),
        choices=TURN_CHOICES,
        coerce=int,
        initial=60,
        required=False,
        help_text=_(
            "When a player's time is up, the computer plays their turn. A turn-based game"
            " goes on while nobody is connected."
        ),
    )
    private = forms.BooleanField(
        label=_("Private: only people with the link can find the game"), required=False
    )
    TABLE_FIELDS = ("max_players", "bots", "turn_seconds", "private")  # not for a solo kind

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = [(key, kind.name) for key, kind in registry.KINDS.items()]
        for key, kind in registry.KINDS.items():
            for option in kind.options:
                self.fields[f"{key}__{option.name}"] = option_field(option)

    def kinds(self) -> list[dict]:
        """Each kind with its bound option fields, for the template and the script."""
        return [
            {
                "key": key,
                "kind": kind,
                "options": [self[f"{key}__{option.name}"] for option in kind.options],
            }
            for key, kind in registry.KINDS.items()
        ]

    def kind_data(self) -> dict:
        return {
            key: {"min": kind.min_players, "max": kind.max_players, "solo": kind.solo}
            for key, kind in registry.KINDS.items()
        }

    def common_fields(self) -> list:
        return [self[name] for name in ("name", *self.TABLE_FIELDS)]

    def clean_kind(self) -> str:
        return self.cleaned_data["kind"] or registry.DEFAULT_KIND

    def clean(self) -> dict:
        data = super().clean()
        kind = registry.KINDS.get(data.get("kind"))
        if kind is None or kind.solo:
            return data
        for name in ("max_players", "bots", "turn_seconds"):
            if name in data and data[name] in (None, ""):
                self.add_error(name, self.fields[name].error_messages["required"])
        seats, bots = data.get("max_players"), data.get("bots")
        if seats is None:
            return data
        if not kind.min_players <= seats <= kind.max_players:
            self.add_error(
                "max_players",
                _("%(game)s has %(low)d to %(high)d seats.")
                % {"game": kind.name, "low": kind.min_players, "high": kind.max_players},
            )
        elif bots is not None and bots >= seats:
            self.add_error("bots", _("Leave at least one seat for yourself."))
        return data

    def save(self, user):
        """The new game with ``user`` in the first seat; None (error on the form) if refused."""
        data = self.cleaned_data
        kind = registry.get(data["kind"])
        options = {
            option.name: data.get(f"{kind.key}__{option.name}") or option.default
            for option in kind.options
        }
        table = {} if kind.solo else {name: data[name] for name in self.TABLE_FIELDS}
        if table.get("turn_seconds") in dict(TURN_BASED_CHOICES):
            table["pace"] = Game.Pace.TURN_BASED
        if table.get("bots") is None:
            table.pop("bots", None)
        try:
            return lifecycle.game_create(
                user=user, name=data["name"], kind=kind.key, options=options, **table
            )
        except errors.ServiceError as error:
            message = gettext("The game could not be created. Please try again.")
            if error.code in ("rate_limited", "too_many_waiting"):
                message = error.message
            self.add_error(None, ValidationError(message, code=error.code))
            return None
