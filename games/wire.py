"""JSON as it goes over the sockets: orjson, and frames encoded once for all their sockets.

A move's STATE for one seat goes to every socket of that seat, on any server process: the
broadcast encodes it once (``state_frame``) and the channel layer carries the text, so no
consumer encodes it again and the channel layer packs one string instead of a nested view.
"""

from __future__ import annotations

from typing import Any

import orjson

# Keys as the standard library writes them (player ids key some views' maps); str out.
_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    return orjson.dumps(value, option=_OPTIONS).decode()


def state_frame(view: dict) -> str:
    """The protocol's ``STATE`` message for ``view``, as its frame's text."""
    return dumps({"type": "STATE", "seq": view["seq"], "state": view})
