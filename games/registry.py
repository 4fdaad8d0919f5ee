"""The one place that knows which games the site offers.

A kind of game is data (a :class:`GameKind`), a pure engine (``games.<kind>``, the contract in
``games.contract``) and a thin layer of Django glue (``games.kinds.<kind>``: how its state
maps to the site's models, its feed sentences, its templates). Shared code (services,
consumers, the lobby, rankings) reaches an engine only through its ``GameKind``; adding a game
means adding an engine package, a glue module and an entry in :data:`KINDS`.
``docs/architecture.md`` has the checklist.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType
from typing import Any

from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

DEFAULT_KIND = "ratumrad"


@dataclass(frozen=True)
class Option:
    """One option of a new game, as ``GET /api/kinds/`` lists it."""

    name: str
    label: Any  # a lazy translation
    default: Any
    choices: tuple | None = None  # None: a bool
    choice_labels: dict = field(default_factory=dict)  # choice -> a lazy translation
    # The words for a game's variant in the lobby: a bool's when true, else per choice (a
    # choice without words, the default among them, is not named).
    badge: Any = ""
    choice_badges: dict = field(default_factory=dict)

    def badge_of(self, value: Any) -> str:
        if self.choices is None:
            return str(self.badge) if value is True else ""
        return str(self.choice_badges.get(value, ""))

    def public_dict(self) -> dict:
        return {
            "type": "bool" if self.choices is None else "choice",
            "label": str(self.label),
            "default": self.default,
            "choices": [False, True] if self.choices is None else list(self.choices),
            "choice_labels": {str(key): str(label) for key, label in self.choice_labels.items()},
        }


@dataclass(frozen=True)
class GameKind:
    key: str
    name: Any  # a lazy translation
    engine_module: str  # the contract's face, e.g. "games.ratumrad"
    glue_module: str  # e.g. "games.kinds.ratumrad"
    options: tuple[Option, ...] = ()
    solo: bool = False  # one seat; created already started (no lobby, no bots, no timer)
    default_bot: str = ""  # the computer player that fills seats and stands in for people
    hint_bot: str = ""  # the bot a player may ask "what would you do?" (GET .../hint/)
    rated: str = "rating"  # "rating": openskill by place; "best_score": highest totals rank
    summary: Any = ""  # one line for the lobby's picker
    seats_rule: str = ""  # the rule that sets the number of players, e.g. "R1.1"
    # The name every page shows, in the viewer's language, for a game whose options carry a
    # ``day`` (a lazy translation with ``%(day)s``); a stored name stays in its creator's.
    day_name: Any = ""
    extra: dict = field(default_factory=dict)

    @cached_property
    def engine(self) -> ModuleType:
        return importlib.import_module(self.engine_module)

    @cached_property
    def glue(self) -> ModuleType:
        return importlib.import_module(self.glue_module)

    def hook(self, name: str, default: Any) -> Any:
        """The glue's optional ``name`` (see ``games.kinds``), else ``default`` (also for a kind
        without a glue module: data only)."""
        if not self.glue_module:
            return default
        return getattr(self.glue, name, default)

    @property
    def min_players(self) -> int:
        return self.engine.MIN_PLAYERS

    @property
    def max_players(self) -> int:
        return self.engine.MAX_PLAYERS

    def variant(self, options: dict) -> list[str]:
        """The options a game was created with, in words for the lobby (defaults left out)."""
        words = (option.badge_of(options.get(option.name)) for option in self.options)
        return [word for word in words if word]

    def badges(self) -> dict:
        """What :meth:`variant` says of each option value, for the lobby's script."""
        return {
            option.name: {str(key).lower(): str(value) for key, value in badges.items()}
            for option in self.options
            if (badges := option.choice_badges if option.choices else {True: option.badge})
        }

    @property
    def players_text(self) -> str:
        """How many play it, in words: "solo", "2 to 5 players"."""
        if self.solo:
            return gettext("solo: one player")
        if self.min_players == self.max_players:
            return ngettext("%(count)s player", "%(count)s players", self.min_players) % {
                "count": self.min_players
            }
        return gettext("%(min)s to %(max)s players") % {
            "min": self.min_players,
            "max": self.max_players,
        }

    @property
    def picture(self) -> str:
        """Its picture on the front page and the rules' index (a static path)."""
        return f"img/kinds/{self.key}.svg"

    @property
    def bots(self) -> tuple[str, ...]:
        return tuple(self.engine.BOTS)

    def public_dict(self) -> dict:
        """The kind as ``GET /api/kinds/`` lists it."""
        return {
            "kind": self.key,
            "name": str(self.name),
            "summary": str(self.summary),
            "min_players": self.min_players,
            "max_players": self.max_players,
            "solo": self.solo,
            "bots": list(self.bots),
            "options": {option.name: option.public_dict() for option in self.options},
        }


KINDS: dict[str, GameKind] = {
    kind.key: kind
    for kind in (
        GameKind(
            key="ratumrad",
            name=_("Rat um Rad"),
            engine_module="games.ratumrad",
            glue_module="games.kinds.ratumrad",
            default_bot="heuristic",
            seats_rule="R1.1",
            summary=_("Claim bike roads through Basel and complete your destination cards."),
        ),
        GameKind(
            key="rage",
            name=_("RAGE"),
            engine_module="games.rage",
            glue_module="games.kinds.rage",
            options=(
                Option(
                    "bids",
                    _("Bids"),
                    "open",
                    ("open", "hidden", "secret"),
                    {
                        "open": _("open: bid in turn, everyone sees every bid"),
                        "hidden": _("hidden: everyone bids at once, shown together"),
                        "secret": _("secret: each bid stays its owner's until the round is scored"),
                    },
                    choice_badges={"hidden": _("hidden bids"), "secret": _("secret bids")},
                ),
                Option(
                    "plus_minus_one",
                    _("Plus/minus one: the bids may not add up"),
                    False,
                    badge=_("plus/minus one"),
                ),
                Option(
                    "durchmarsch",
                    _("Durchmarsch: all tricks score double"),
                    False,
                    badge=_("Durchmarsch"),
                ),
            ),
            default_bot="heuristic",
            seats_rule="G1.1",
            summary=_("Trick-taking for 3 to 8: bid your tricks, beware the action cards."),
        ),
        GameKind(
            key="road300",
            name=_("Road to 300"),
            engine_module="games.road300",
            glue_module="games.kinds.road300",
            options=(
                Option(
                    "daily",
                    _("Daily challenge: the day's dice for everyone"),
                    False,
                    badge=_("daily challenge"),
                ),
            ),
            solo=True,
            default_bot="strong",
            hint_bot="strong",  # T5.1
            rated="best_score",
            seats_rule="T1",
            day_name=_("Daily challenge %(day)s"),  # T5.2
            summary=_("Solo: roll three dice, cross a cell, walk the grid: score 300."),
        ),
    )
}


class UnknownKind(LookupError):
    pass


def get(key: str) -> GameKind:
    """The kind named ``key``; :class:`UnknownKind` if the site has none of that name."""
    try:
        return KINDS[key]
    except (KeyError, TypeError):
        raise UnknownKind(f"there is no game kind {key!r}; known: {', '.join(KINDS)}") from None
