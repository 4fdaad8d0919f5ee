"""Rat um Rad's activity feed: a sentence for each of its events, in the active language
(its glue's ``describe``)."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_lazy, ngettext

from games.kinds import describe_with
from games.ratumrad.board import basel

# Card colours as words (R1.4); the joker is a colour of its own in a hand.
COLOR_NAMES = {
    "red": gettext_lazy("red"),
    "blue": gettext_lazy("blue"),
    "orange": gettext_lazy("orange"),
    "green": gettext_lazy("green"),
    "yellow": gettext_lazy("yellow"),
    "pink": gettext_lazy("pink"),
    "black": gettext_lazy("black"),
    "white": gettext_lazy("white"),
    "joker": gettext_lazy("joker"),
}


def color_name(color: str | None) -> str:
    return str(COLOR_NAMES.get(color or "", color or "?"))


def _dealt(event: dict, name) -> str:
    return gettext("The cards are dealt: everyone chooses their short destination cards.")


def _prepared(event: dict, name) -> str:
    count = event["kept"]
    return ngettext(
        "%(name)s kept %(count)d short destination card.",
        "%(name)s kept %(count)d short destination cards.",
        count,
    ) % {"name": name(event["player"]), "count": count}


def _game_started(event: dict, name) -> str:
    return gettext("The game begins: %(name)s starts.") % {"name": name(event["player"])}


def _took_wheel(event: dict, name) -> str:
    if event.get("source") == "face_up":
        return gettext("%(name)s took a face-up card: %(color)s.") % {
            "name": name(event["player"]),
            "color": color_name(event.get("color")),
        }
    return gettext("%(name)s took a card from the deck.") % {"name": name(event["player"])}


def _display_wiped(event: dict, name) -> str:
    if event.get("locked"):
        return gettext(
            "Three or more jokers were face up: the display was replaced. It stays as it is "
            "until someone takes a card from it."
        )
    return gettext("Three or more jokers were face up: the display was replaced.")


def _deck_reshuffled(event: dict, name) -> str:
    count = event["cards"]
    return ngettext(
        "The discard pile was shuffled into a new deck of %(count)d card.",
        "The discard pile was shuffled into a new deck of %(count)d cards.",
        count,
    ) % {"count": count}


def _built_road(event: dict, name) -> str:
    board = basel()
    road = board.roads[event["road"]]
    place = board.location_index
    return gettext("%(name)s built %(a)s–%(b)s (+%(points)d)") % {
        "name": name(event["player"]),
        "a": board.locations[place[road.a]].name,
        "b": board.locations[place[road.b]].name,
        "points": event["points"],
    }


def _few_wheels(event: dict, name) -> str:
    count = event["wheels"]
    if count == 0:
        return gettext("%(name)s has no wheels left") % {"name": name(event["player"])}
    return ngettext(
        "%(name)s has %(count)d wheel left",
        "%(name)s has %(count)d wheels left",
        count,
    ) % {"name": name(event["player"]), "count": count}


def _no_wheel_cards(event: dict, name) -> str:
    return gettext("%(name)s has no wheel cards left") % {"name": name(event["player"])}


def _drew_destinations(event: dict, name) -> str:
    count = event["count"]
    return ngettext(
        "%(name)s drew %(count)d destination card.",
        "%(name)s drew %(count)d destination cards.",
        count,
    ) % {"name": name(event["player"]), "count": count}


def _kept_destinations(event: dict, name) -> str:
    count = event["kept"]
    return ngettext(
        "%(name)s kept %(count)d destination card.",
        "%(name)s kept %(count)d destination cards.",
        count,
    ) % {"name": name(event["player"]), "count": count}


def _final_round(event: dict, name) -> str:
    count = event["wheels"]
    return ngettext(
        "%(name)s has %(count)d wheel left: the final round begins, everyone has one more turn.",
        "%(name)s has %(count)d wheels left: the final round begins, everyone has one more turn.",
        count,
    ) % {"name": name(event["player"]), "count": count}


def _passed(event: dict, name) -> str:
    return gettext("%(name)s cannot do anything and passes.") % {"name": name(event["player"])}


def _voted_end(event: dict, name) -> str:
    if event.get("end"):
        return gettext("%(name)s votes to end the game.") % {"name": name(event["player"])}
    return gettext("%(name)s takes back the vote to end the game.") % {
        "name": name(event["player"])
    }


_ENDINGS = {
    "final_round": gettext_lazy("The game is over."),
    "vote": gettext_lazy("The game is over: everyone voted to end it."),
    "all_passed": gettext_lazy("The game is over: nobody could move any more."),
    "admin": gettext_lazy("The game is over: an administrator ended it."),
}


def _game_over(event: dict, name) -> str:
    ending = _ENDINGS.get(event.get("reason"), gettext_lazy("The game is over."))
    winners = event.get("winners") or []
    if not winners:
        return str(ending)
    won = ngettext("Winner: %(names)s.", "Winners: %(names)s.", len(winners)) % {
        "names": ", ".join(name(player) for player in winners)
    }
    return f"{ending} {won}"


_WRITERS = {
    "dealt": _dealt,
    "prepared": _prepared,
    "game_started": _game_started,
    "took_wheel": _took_wheel,
    "display_wiped": _display_wiped,
    "deck_reshuffled": _deck_reshuffled,
    "built_road": _built_road,
    "few_wheels": _few_wheels,
    "no_wheel_cards": _no_wheel_cards,
    "drew_destinations": _drew_destinations,
    "kept_destinations": _kept_destinations,
    "final_round": _final_round,
    "passed": _passed,
    "voted_end": _voted_end,
    "game_over": _game_over,
}
FEED_KINDS: tuple[str, ...] = tuple(_WRITERS)  # the events this glue writes sentences for


def describe(event: dict, names: dict[int, str]) -> str:
    return describe_with(_WRITERS, event, names)
