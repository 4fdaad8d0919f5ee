"""Road to 300's own pages: the daily challenge (T5.2), routed through its glue's ``urls``."""

from __future__ import annotations

from datetime import date

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from games import errors, registry
from games.models import Game
from games.services.lifecycle import game_create
from rankings import selectors as rankings


@require_http_methods(["GET", "POST"])
def road300_daily(request: HttpRequest) -> HttpResponse:
    """The daily challenge of Road to 300 (T5.2): POST starts today's game or resumes the one
    being played; GET shows a day's table (``?day=YYYY-MM-DD``, today by default) and the
    viewer's own game of today."""
    today = registry.get("road300").glue.today()
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), reverse("home"))
        running = _daily_games(request.user, today).filter(status=Game.Status.RUNNING).first()
        try:
            game = running or game_create(
                user=request.user,
                name=_("Daily challenge %(day)s") % {"day": today},
                kind="road300",
                options={"daily": True},
            )
        except errors.ServiceError as refused:  # too many new games
            messages.error(request, refused.message)
            return redirect("road300-daily")
        return redirect("game-page", game_id=game.pk)
    day = request.GET.get("day") or today
    try:
        if date.fromisoformat(day) > date.fromisoformat(today) or len(day) != 10:
            raise ValueError(day)
    except ValueError:
        raise Http404(f"there is no daily challenge {day!r}") from None
    mine = []
    if request.user.is_authenticated:
        mine = list(_daily_games(request.user, today).order_by("finished", "pk"))
    counted = next((game for game in mine if game.status == Game.Status.FINISHED), None)
    context = {
        "kind": registry.get("road300"),
        "day": day,
        "today": today,
        "sealed": day >= today,  # other players' games of a running day are not shown yet
        "scores": rankings.best_game_scores(kind="road300", day=day),
        "days": [other for other in rankings.daily_days("road300") if other != today],
        "running": next((game for game in mine if game.status == Game.Status.RUNNING), None),
        "counted": counted,
        "counted_score": counted.seats.get(user=request.user).total if counted else None,
    }
    return render(request, "games/road300/daily.html", context)


def _daily_games(user, day: str):
    return Game.objects.filter(
        kind="road300", seats__user=user, options__daily=True, options__day=day
    ).exclude(status=Game.Status.ABORTED)


urlpatterns = [path("road300/daily/", road300_daily, name="road300-daily")]
