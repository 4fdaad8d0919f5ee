"""Achievements: what a person has done at least once, per kind of game, kept across games.

Each :class:`Achievement` looks at one finished game from one seat (:class:`Finished`: the
seat's results row, the other rows and the stored state) and says whether the seat earned it.
Each kind's glue lists its own (``achievements()``, see ``games.kinds``); this module keeps the
machinery and what every kind may share (:func:`first_win`).
``rankings.services.award_achievements`` stores what a finished game earned its people
(computer players earn none); the lobby, the game page and the player page show them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

from games import registry


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


def first_win(kind: str, description) -> Achievement:
    """A win against at least one other player (:attr:`Finished.won`), for any kind."""
    return Achievement(kind, "first_win", _("First win"), description, lambda game: game.won)


def all_achievements() -> list[Achievement]:
    """Every kind's achievements, in the registry's order of kinds."""
    return [achievement for kind in registry.KINDS for achievement in of_kind(kind)]


def of_kind(kind: str) -> list[Achievement]:
    if kind not in registry.KINDS:
        return []
    return list(registry.get(kind).hook("achievements", list)())


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
