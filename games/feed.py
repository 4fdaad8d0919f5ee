"""The activity feed's sentences for the site's own events, the same in every kind of game:
``joined``, ``left``, ``aborted``, ``autopilot_on``, ``autopilot_off``, and the answers to
playing a finished game again, ``rematch`` and ``rematch_started``.

Each kind's glue (``games.kinds.<kind>.describe``) writes the sentences of its engine's
events and leaves the rest to :func:`describe` (``games.kinds.describe_with``). Events hold
only public data (R9.1). The sentences are English source strings with named placeholders;
the German catalog translates them. Call :func:`describe` inside
``translation.override(language)``.
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext


def describe(event: dict, names: dict[int, str]) -> str:
    """A sentence for the activity feed about ``event``; never raises on odd data."""
    writer = _WRITERS.get(event.get("kind", ""))
    if writer is None:
        return gettext("Something happened: %(kind)s") % {"kind": event.get("kind", "?")}
    try:
        return writer(event, _Names(names))
    except (KeyError, TypeError, ValueError, IndexError):
        return gettext("Something happened: %(kind)s") % {"kind": event.get("kind", "?")}


class _Names:
    def __init__(self, names: dict[int, str]):
        self.names = names

    def __call__(self, player_id) -> str:
        name = self.names.get(player_id)
        return name if name else gettext("someone")


def _joined(event: dict, name: _Names) -> str:
    return gettext("%(name)s joined the game.") % {"name": name(event["player"])}


def _aborted(event: dict, name: _Names) -> str:
    return gettext("The game was called off.")


def _autopilot_on(event: dict, name: _Names) -> str:
    if event.get("one_turn"):
        return gettext("%(name)s ran out of time: the computer plays this turn for them.") % {
            "name": name(event["player"])
        }
    return gettext("%(name)s ran out of time: the computer plays for them until they are back.") % {
        "name": name(event["player"])
    }


def _autopilot_off(event: dict, name: _Names) -> str:
    if event.get("reason") == "turn_played":
        return gettext("The computer played %(name)s's turn; the next one is theirs again.") % {
            "name": name(event["player"])
        }
    return gettext("%(name)s is back and plays again.") % {"name": name(event["player"])}


def _left(event: dict, name: _Names) -> str:
    if event.get("replaced"):
        return gettext("%(name)s left the game: the computer plays their seat to the end.") % {
            "name": name(event["player"])
        }
    return gettext("%(name)s left the game.") % {"name": name(event["player"])}


def _rematch(event: dict, name: _Names) -> str:
    if event.get("accept"):
        return gettext("%(name)s wants to play again.") % {"name": name(event["player"])}
    return gettext("%(name)s does not want to play again.") % {"name": name(event["player"])}


def _rematch_started(event: dict, name: _Names) -> str:
    return gettext("Everyone accepted: the new game begins.")


_WRITERS: dict[str, Callable[[dict, _Names], str]] = {
    "joined": _joined,
    "aborted": _aborted,
    "autopilot_on": _autopilot_on,
    "autopilot_off": _autopilot_off,
    "left": _left,
    "rematch": _rematch,
    "rematch_started": _rematch_started,
}
KINDS: tuple[str, ...] = tuple(_WRITERS)
