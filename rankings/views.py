"""Pages: the ranking lists and a player's page; all public."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.dateparse import parse_date

from games import registry
from rankings import selectors


def rankings_page(request: HttpRequest) -> HttpResponse:
    """The rankings of one kind of game (``?kind=``, Rat um Rad by default): its best game
    scores and its ratings, or for a kind ranked by scores the days of its daily game."""
    kind = registry.KINDS.get(request.GET.get("kind") or registry.DEFAULT_KIND)
    if kind is None:
        raise Http404("there is no such kind of game")
    day = request.GET.get("day")
    if day is not None and not _a_day(day):
        raise Http404("that is not a day")
    by_rating = kind.rated == "rating"
    context = {
        "kind": kind,
        "kinds": registry.KINDS.values(),
        "day": day,
        "scores": selectors.best_game_scores(kind=kind.key, day=day),
        "ratings": selectors.ratings(kind=kind.key) if by_rating else None,
        "days": [] if by_rating else selectors.daily_days(kind.key),
        "achievements": selectors.achievement_counts(kind.key),
    }
    return render(request, "rankings/rankings.html", context)


def _a_day(text: str) -> bool:
    """Whether ``text`` is a date, YYYY-MM-DD (``parse_date`` raises for one well written
    but not in the calendar, such as 2020-13-45)."""
    try:
        return parse_date(text) is not None
    except ValueError:
        return False


def player_page(request: HttpRequest, user_id: int) -> HttpResponse:
    user = get_object_or_404(get_user_model(), pk=user_id)
    return render(request, "rankings/player.html", {"record": selectors.player_record(user)})
