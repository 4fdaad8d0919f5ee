"""Computer players for Rat um Rad, and a runner that lets them play full games.

A bot decides from one seat's view alone (R9: what that seat may see) and the public board;
it returns one of the dicts in ``view["legal"]``. Pure Python, no Django.

* :class:`RandomBot` picks uniformly among the legal moves (never the vote to end).
* :class:`HeuristicBot` plans shortest routes for its open destination cards, collects the
  colours they need, builds as soon as it can pay and plays for points near the end.

The heuristic bot is in ``bot_heuristic``, what both read from a view in ``bot_seat``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from . import engine
from .board import Board, basel
from .bot_heuristic import HeuristicBot
from .bot_seat import _without_vote
from .invariants import check_invariants


class Bot(Protocol):
    name: str

    def choose(self, view: dict, board: Board) -> dict:
        """One move out of ``view["legal"]``."""
        ...


class RandomBot:
    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(f"random-bot-{seed}")

    def choose(self, view: dict, board: Board) -> dict:
        legal = view["legal"]
        moves = _without_vote(legal) or legal
        return moves[self.rng.randrange(len(moves))]


BOTS: dict[str, type] = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(name: str, seed: int = 0) -> Bot:
    try:
        cls = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(BOTS)}") from None
    return cls(seed)


# ---------------------------------------------------------------------------- whole games

SEAT_IDS = ("p1", "p2", "p3", "p4", "p5")
MAX_MOVES = 20_000


@dataclass
class SeatResult:
    bot: str
    player: str
    total: int = 0
    place: int = 0
    destinations_completed: int = 0
    destinations_total: int = 0
    decision_seconds: list[float] = field(default_factory=list)


@dataclass
class BotGameResult:
    seed: int
    seats: list[SeatResult]
    moves: int = 0
    end_reason: str | None = None
    violations: list[str] = field(default_factory=list)


def play_bot_game(
    seed: int,
    bot_names: Sequence[str],
    board: Board | None = None,
    *,
    check: bool = False,
    max_moves: int = MAX_MOVES,
) -> BotGameResult:
    """Play game ``seed`` with seat ``i`` (player ``p{i+1}``) played by ``bot_names[i]``.

    Each bot sees only ``engine.view`` of its own seat. With ``check`` every invariant is
    tested after every move and problems go to ``violations``.
    """
    board = board or basel()
    if not engine.MIN_PLAYERS <= len(bot_names) <= engine.MAX_PLAYERS:
        raise ValueError(f"a game needs 2 to 5 bots, not {len(bot_names)}")
    pairs = list(zip(SEAT_IDS, bot_names, strict=False))
    ids = tuple(pid for pid, _ in pairs)
    bots = {pid: make_bot(name, seed * 8 + i) for i, (pid, name) in enumerate(pairs)}
    seats = {pid: SeatResult(bot=name, player=pid) for pid, name in pairs}
    result = BotGameResult(seed=seed, seats=list(seats.values()))
    state = engine.new_game(seed, ids, board)
    broken = False
    while state.status != engine.FINISHED and not broken:
        if result.moves >= max_moves:
            result.violations.append(f"seed {seed}: no end within {max_moves} moves")
            break
        if state.status == engine.PREPARATION:
            movers = [p.id for p in state.players if not p.prepared]
        else:
            movers = [state.players[state.current].id]
        for pid in movers:
            seen = engine.view(state, pid)
            started = time.perf_counter()
            move = bots[pid].choose(seen, board)
            seats[pid].decision_seconds.append(time.perf_counter() - started)
            if move not in seen["legal"]:
                result.violations.append(f"seed {seed}: {pid} chose an illegal move {move}")
                move = seen["legal"][0]
            try:
                engine.apply(state, pid, move)
            except engine.EngineError as exc:
                result.violations.append(f"seed {seed}: legal move {move} refused: {exc}")
                broken = True
                break
            result.moves += 1
            if check:
                where = f"seed {seed}, move {result.moves} ({pid} {move['type']})"
                result.violations.extend(f"{where}: {p}" for p in check_invariants(state))
    result.end_reason = state.end_reason
    for row in state.results or []:
        seat = seats[row["player"]]
        seat.total = row["total"]
        seat.place = row["place"]
        seat.destinations_completed = row["destinations_reached"]
        seat.destinations_total = row["destinations_reached"] + row["destinations_missed"]
    return result
