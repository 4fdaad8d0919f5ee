"""The card colours' names and letters in the request's language: the table, the map, the
results and the rules' legend all show them."""

from __future__ import annotations

from django.utils.translation import pgettext


def color_names() -> dict[str, str]:
    return {
        "red": pgettext("card colour", "red"),
        "blue": pgettext("card colour", "blue"),
        "orange": pgettext("card colour", "orange"),
        "green": pgettext("card colour", "green"),
        "yellow": pgettext("card colour", "yellow"),
        "pink": pgettext("card colour", "pink"),
        "black": pgettext("card colour", "black"),
        "white": pgettext("card colour", "white"),
        "joker": pgettext("card colour", "joker"),
        "grey": pgettext("card colour", "grey"),
    }


def color_letters() -> dict[str, str]:
    """One letter per colour, shown on cards and roads next to the colour itself."""
    return {
        "red": pgettext("letter for the colour red", "R"),
        "blue": pgettext("letter for the colour blue", "B"),
        "orange": pgettext("letter for the colour orange", "O"),
        "green": pgettext("letter for the colour green", "G"),
        "yellow": pgettext("letter for the colour yellow", "Y"),
        "pink": pgettext("letter for the colour pink", "P"),
        "black": pgettext("letter for the colour black", "K"),
        "white": pgettext("letter for the colour white", "W"),
        "joker": pgettext("letter for the joker", "J"),
        "grey": "*",
    }
