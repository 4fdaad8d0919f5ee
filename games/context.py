"""Template context for every page: the games waiting for the person's move (the nav's
"My games" count and the page title's; static/js/my-turns.js keeps both up to date)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games import queries


class Waiting:
    """The ids of the games waiting for a person's move: ``len()`` counts them, ``ids`` is
    what the page hands its script."""

    def __init__(self, game_ids: list[int]):
        self.game_ids = game_ids

    def __len__(self) -> int:
        return len(self.game_ids)

    def __str__(self) -> str:
        return str(len(self.game_ids))

    @property
    def ids(self) -> str:
        return ",".join(map(str, self.game_ids))


def my_turns(request: HttpRequest) -> dict:
    """``my_turns``: read once, when a page shows it (people logged in only)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    def read() -> Waiting:
        return Waiting(list(queries.waiting_for(user.pk).values_list("game_id", flat=True)))

    return {"my_turns": SimpleLazyObject(read)}
