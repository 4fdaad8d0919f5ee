from django import forms
from django.utils.translation import gettext_lazy as _

from notifications.models import EMAIL_MAX_LENGTH, MailSettings


class AddressForm(forms.Form):
    email = forms.EmailField(
        label=_("Email address"),
        max_length=EMAIL_MAX_LENGTH,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class MailChoicesForm(forms.ModelForm):
    class Meta:
        model = MailSettings
        fields = ["your_turn", "game_ended"]
