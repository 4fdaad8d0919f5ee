"""Count to three's glue: its state lives in ``Game.state``; the seats mirror the results."""

from __future__ import annotations

from django.urls import path
from django.utils.translation import gettext

from games.kinds import describe_with, never_sealed, random_seed
from games.moves import sql
from rankings.achievements import first_win
from tests.toy_count import engine, views

TABLE_TEMPLATE = "toy/table.html"
TABLE_SCRIPT = "js/toy/table.js"
SEAT_FIELDS = ["turn_order", "total", "place", "won"]


def project(game, state, seats, events, before) -> None:
    by_user = {seat.user_id: seat for seat in seats}
    final = {row["player"]: row for row in engine.results(state)}
    for order, player in enumerate(state.players):
        seat = by_user[player]
        row = final.get(player, {})
        values = (order, row.get("total"), row.get("place"), row.get("won"))
        if tuple(getattr(seat, name) for name in SEAT_FIELDS) != values:
            for name, value in zip(SEAT_FIELDS, values, strict=True):
                setattr(seat, name, value)
            sql.update(seat, SEAT_FIELDS)


def site_options(options: dict) -> dict:
    return options


def complete_results(game, state) -> None:
    pass


def warm_up(game, state) -> None:
    pass


new_seed = random_seed
sealed = never_sealed


def start_events(state) -> list[dict]:
    return []


def waiting_table(game) -> dict:
    return {"count": 0, "to_move": []}


def waiting_player() -> dict:
    return {}


def describe(event: dict, names: dict) -> str:
    writers = {
        "counted": lambda event, name: (
            gettext("%(name)s says %(count)s")
            % {"name": name(event["player"]), "count": event["count"]}
        )
    }
    return describe_with(writers, event, names)


def turn_key(state) -> tuple:
    return (state.status, state.count)


def stored_turn_key(stored: dict) -> tuple:
    return (stored["status"], stored["count"])


def forced_bot_move(state, people, computer):
    return None


def rules_context() -> dict:
    return {}


def rematch_leaderboard(game) -> str | None:
    return None


def hint_extra(view: dict, move: dict) -> dict:
    return {}


def page_context(game) -> dict:
    return {}


def urls() -> list:
    return [path("toy/goal/", views.goal_page, name="toy-goal")]


def api_urls() -> list:
    return [path("toy/goal/", views.GoalView.as_view(), name="toy-goal-api")]


ACHIEVEMENTS = (first_win("toy", "Say three before the other player."),)


def achievements() -> tuple:
    return ACHIEVEMENTS
