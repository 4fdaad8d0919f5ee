"""Pages: the ranking lists, a player's page and the rules; all public."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import get_language

from rankings import selectors

RULES_LANGUAGES = ("de", "en")  # the first is the default


def rankings_page(request: HttpRequest) -> HttpResponse:
    context = {"scores": selectors.best_game_scores(), "ratings": selectors.ratings()}
    return render(request, "rankings/rankings.html", context)


def player_page(request: HttpRequest, user_id: int) -> HttpResponse:
    user = get_object_or_404(get_user_model(), pk=user_id)
    return render(request, "rankings/player.html", {"record": selectors.player_record(user)})


def rules_page(request: HttpRequest) -> HttpResponse:
    language = (get_language() or "").split("-")[0]
    if language not in RULES_LANGUAGES:
        language = RULES_LANGUAGES[0]
    return render(request, f"rules/rules_{language}.html")
