"""Template context for every page: how many games wait for the person's move (the nav's
"My games" count and the page title's)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games import queries


def my_turns(request: HttpRequest) -> dict:
    """``my_turns``: read once, when a page shows it (people logged in only)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"my_turns": SimpleLazyObject(lambda: queries.waiting_for(user.pk).count())}
