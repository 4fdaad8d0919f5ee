"""An update's ``EVENT`` frames, made once in a process for the sockets that read them alike.

Each event of a game's update becomes a sentence in the feed of every socket on the game, in
the socket's language and with the players' names it knows (the kind's ``describe``). Every
socket used to make its own: fifty onlookers made fifty sentences and fifty frames of each
event, each under a switch of language. Now the first socket of a process to handle an update
makes them, and each other socket with the same language and the same names writes the same
frames (``Frame``: encoded once), as a game's ``STATE`` frames are shared already.

The frames are found by what they are made of, not by the update that brought them: the kind,
the language, the names, the update's ``seq`` and its events (an answer to "Play again" keeps
its game's ``seq`` and has events of its own). The last ``KEPT`` are kept, the oldest going
first: the sockets of one update handle it within moments of each other.
"""

from __future__ import annotations

from collections import OrderedDict

from django.utils import translation

from games import wire
from games.fanout import Frame

KEPT = 512  # sets of frames kept in a process

_made: OrderedDict[tuple, list[Frame]] = OrderedDict()


def event_frames(
    kind, language: str, names: dict[int, str], seq: int, events: list[dict]
) -> list[Frame]:
    """The ``EVENT`` frames of an update's ``events`` (``kind``: a ``GameKind``)."""
    key = (kind.key, language, frozenset(names.items()), seq, wire.dumps(events))
    frames = _made.get(key)
    if frames is None:
        frames = _made[key] = [
            Frame(wire.dumps({"type": "EVENT", "seq": seq, "event": entry}))
            for entry in entries(kind, language, names, events)
        ]
        if len(_made) > KEPT:
            _made.popitem(last=False)
    return frames


def entries(kind, language: str, names: dict[int, str], events: list[dict]) -> list[dict]:
    """The feed's entries of ``events`` in ``language`` (switched to once)."""
    describe = kind.glue.describe
    with translation.override(language):
        return [{"player": None, **event, "text": describe(event, names)} for event in events]
