"""Computer players of RAGE (G6.1): ``random``, ``heuristic`` and ``strong``.

A bot decides from its seat's own view alone (``you.hand``, the trick, trump, the bids it may
see) and returns one of ``view["legal"]``. The heuristic bot bids from its hand's strength and
then plays to make its bid: it tries to win tricks while it needs some and to lose them once it
has enough. The strong bot (:class:`StrongBot`) samples the hidden cards consistent with
everything public and plays the rest of the round out in each sampled world (determinized Monte
Carlo).

The heuristic bot is in ``bot_heuristic``, the strong bot in ``bot_strong`` and the worlds it
plays out in ``bot_world``.
"""

from __future__ import annotations

from games.contract import RandomBot

from .bot_heuristic import HeuristicBot
from .bot_strong import StrongBot
from .cards import COLORS

# The kind's bots by name (G6.1).
BOTS = {"random": RandomBot, "heuristic": HeuristicBot, "strong": StrongBot}

__all__ = ["BOTS", "COLORS", "HeuristicBot", "RandomBot", "StrongBot", "make_bot"]


def make_bot(name: str, seed: int = 0) -> RandomBot | HeuristicBot | StrongBot:
    try:
        factory = BOTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(BOTS)}") from None
    return factory(seed)
