"""Pages: the ranking lists and a player's page; all public."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from rankings import selectors


def rankings_page(request: HttpRequest) -> HttpResponse:
    context = {"scores": selectors.best_game_scores(), "ratings": selectors.ratings()}
    return render(request, "rankings/rankings.html", context)


def player_page(request: HttpRequest, user_id: int) -> HttpResponse:
    user = get_object_or_404(get_user_model(), pk=user_id)
    return render(request, "rankings/player.html", {"record": selectors.player_record(user)})
