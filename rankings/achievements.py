"""Achievements: what a person has done at least once, per kind of game, kept across games.

Each :class:`Achievement` looks at one finished game from one seat (:class:`Finished`: the
seat's results row, the other rows and the stored state) and says whether the seat earned it.
``rankings.services.award_achievements`` stores what a finished game earned its people
(computer players earn none); the lobby, the game page and the player page show them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Finished:
    """A finished game as one seat sees its end."""

    row: dict  # the seat's results row
    rows: list[dict]  # every results row
    state: dict  # the stored engine state (``Game.state``)
    options: dict

    @property
    def won(self) -> bool:
        """A win against at least one other player (rows stored before ``won`` was part of
        them: first place)."""
        return self.row.get("won", self.row["place"] == 1) and len(self.rows) > 1


@dataclass(frozen=True)
class Achievement:
    kind: str
    key: str
    title: object  # a lazy translation
    description: object
    earned: Callable[[Finished], bool]


def _ratumrad_all_destinations(game: Finished) -> bool:
    return game.row["destinations_reached"] > 0 and game.row["destinations_missed"] == 0


def _ratumrad_longest(game: Finished) -> bool:
    best = max(row["longest_path"] for row in game.rows)
    return best > 0 and game.row["longest_path"] == best and len(game.rows) > 1


CORNERS = ([1, 1], [6, 1], [1, 6], [6, 6])


def _road300_corners(game: Finished) -> bool:
    return all(corner in game.state["circled"] for corner in CORNERS)


def _road300_beat_bot(game: Finished) -> bool:
    bot = game.row.get("bot_score")
    return bot is not None and game.row["total"] > bot


def _rage_sheet_rows(game: Finished) -> list[dict]:
    return [
        row for rows in game.state["sheet"] for row in rows if row["player"] == game.row["player"]
    ]


def _rage_every_bid(game: Finished) -> bool:
    rows = _rage_sheet_rows(game)
    return len(rows) == 10 and all(row["bid"] == row["tricks"] for row in rows)


def _rage_all_tricks(game: Finished) -> bool:
    return any(
        row["cards"] >= 2 and row["tricks"] == row["cards"] for row in _rage_sheet_rows(game)
    )


ACHIEVEMENTS: tuple[Achievement, ...] = (
    Achievement(
        "ratumrad",
        "first_win",
        _("First win"),
        _("Win a game of Rat um Rad against at least one other player."),
        lambda game: game.won,
    ),
    Achievement(
        "ratumrad",
        "all_destinations",
        _("Every destination"),
        _("Complete every destination card you hold at the end of a game."),
        _ratumrad_all_destinations,
    ),
    Achievement(
        "ratumrad",
        "longest_path",
        _("Longest route"),
        _("Hold the longest path of a game (R3.3)."),
        _ratumrad_longest,
    ),
    Achievement(
        "road300",
        "first_300",
        _("The road to 300"),
        _("Score 300 points or more in Road to 300."),
        lambda game: game.row.get("won", False),
    ),
    Achievement(
        "road300",
        "four_corners",
        _("Four corners"),
        _("Circle all four corners of the grid in one game."),
        _road300_corners,
    ),
    Achievement(
        "road300",
        "beat_the_bot",
        _("Better than the machine"),
        _("Score more than the strong computer player on the same dice."),
        _road300_beat_bot,
    ),
    Achievement(
        "road300",
        "daily",
        _("Daily player"),
        _("Finish a daily challenge."),
        lambda game: bool(game.options.get("daily")),
    ),
    Achievement(
        "rage",
        "first_win",
        _("First win"),
        _("Win a game of RAGE (a shared first place counts)."),
        lambda game: game.won,
    ),
    Achievement(
        "rage",
        "all_tricks",
        _("Clean sweep"),
        _("Win every trick of a round of two cards or more."),
        _rage_all_tricks,
    ),
    Achievement(
        "rage",
        "every_bid",
        _("Fortune teller"),
        _("Make your bid in all ten rounds of a game."),
        _rage_every_bid,
    ),
)

BY_KEY: dict[tuple[str, str], Achievement] = {(a.kind, a.key): a for a in ACHIEVEMENTS}


def of_kind(kind: str) -> list[Achievement]:
    return [a for a in ACHIEVEMENTS if a.kind == kind]


def earned_by(kind: str, game: Finished) -> list[Achievement]:
    """The achievements of ``kind`` that ``game`` earned its seat."""
    found = []
    for achievement in of_kind(kind):
        try:
            if achievement.earned(game):
                found.append(achievement)
        except (KeyError, TypeError, ValueError, IndexError):
            continue  # a results row without the fields an achievement reads earns nothing
    return found
