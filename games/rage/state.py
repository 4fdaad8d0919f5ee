"""The RAGE game state: its constants, options and storage, and the contract's plain questions
(phase, over or not, results). Pure Python, no Django."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.contract import BadOption, NotSeated, PlayerId, dump_rng, load_rng

KIND = "rage"
MIN_PLAYERS = 3
MAX_PLAYERS = 8
MOVE_TYPES = frozenset({"BID", "PLAY_CARD"})
BID_MODES = ("open", "hidden", "secret")
OPTIONS = {"bids": "open", "plus_minus_one": False, "durchmarsch": False}
ROUNDS = 10  # G1.2

RUNNING = "RUNNING"
FINISHED = "FINISHED"
BIDDING = "bidding"
PLAYING = "playing"
ROUND_OVER = "round_over"
ROUNDS_PLAYED = "rounds_played"


@dataclass(slots=True)
class GameState:
    """A game. Per-seat data are lists in seat order; a trick entry is ``[seat, card, color]``
    (``color``: a colour card's colour, a Joker's named colour, else ``None``)."""

    players: list[PlayerId]
    seed: Any = 0
    options: dict = field(default_factory=lambda: dict(OPTIONS))
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    round: int = 1
    dealer: int = 0
    phase: str = BIDDING
    status: str = RUNNING
    hands: list[list[str]] = field(default_factory=list)
    stack: list[str] = field(default_factory=list)  # stack[0] is the top (G1.3)
    trump_pile: list[str] = field(default_factory=list)  # turned up, oldest first
    trump: str | None = None
    no_trump: bool = False  # a No Trump holds for the rest of this trick (G3.6)
    bids: list[int | None] = field(default_factory=list)
    leader: int = 0  # who led (or leads) the current trick
    trick: list[list] = field(default_factory=list)
    lead_color: str | None = None
    tricks: list[dict] = field(default_factory=list)  # {"cards": [entry...], "winner": seat}
    tricks_won: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    sheet: list[list[dict]] = field(default_factory=list)  # per scored round, rows per seat
    seq: int = 0
    end_reason: str | None = None
    results: list[dict] | None = None

    @property
    def hand_size(self) -> int:
        """G1.2: round k deals 11 - k cards."""
        return ROUNDS + 1 - self.round

    @property
    def current(self) -> int:
        """The seat to play a card."""
        return (self.leader + len(self.trick)) % len(self.players)

    def bid_order(self) -> list[int]:
        """G2.1: left of the dealer first, the dealer last."""
        n = len(self.players)
        return [(self.dealer + 1 + i) % n for i in range(n)]


# ---------------------------------------------------------------------------- options


def check_options(options: object) -> dict:
    """``bids`` (open, hidden or secret), ``plus_minus_one`` and ``durchmarsch`` (G2.2)."""
    if not isinstance(options, dict):
        raise BadOption("options", "options are a JSON object")
    for name, value in options.items():
        if name not in OPTIONS:
            raise BadOption(f"options.{name}", "RAGE has no option {name}", name=repr(name))
        if name == "bids":
            if _names_both(value):
                raise BadOption("options.bids", "hidden and secret bids exclude each other", "G2.2")
            if not isinstance(value, str) or value not in BID_MODES:
                raise BadOption(
                    "options.bids",
                    "bids are {choices}",
                    "G2.2",
                    choices=", ".join(BID_MODES),
                )
        elif not isinstance(value, bool):
            raise BadOption(f"options.{name}", "option {name} is true or false", name=name)
    checked = {**OPTIONS, **options}
    if checked["plus_minus_one"] and checked["bids"] != "open":
        raise BadOption(
            "options.plus_minus_one",
            "plus/minus one needs open bids: with {bids} bids nobody could enforce it",
            "G2.2",
            bids=checked["bids"],
        )
    return checked


def _names_both(value: object) -> bool:
    """``bids`` asking for hidden and secret at once (a list, or one string naming both)."""
    return isinstance(value, str | list | tuple) and "hidden" in value and "secret" in value


# ---------------------------------------------------------------------------- the contract


def _seat(state: GameState, player: PlayerId) -> int:
    try:
        return state.players.index(player)
    except (ValueError, TypeError):
        raise NotSeated("player {player} has no seat in this game", player=repr(player)) from None


def phase(state: GameState) -> str:
    return state.status


def is_over(state: GameState) -> bool:
    return state.status == FINISHED


def results(state: GameState) -> list[dict]:
    # ``won`` is worked out here: states stored before it was part of the rows lack it.
    return [{**row, "won": row["place"] == 1} for row in state.results or []]


def _entry(state: GameState, entry: Sequence) -> dict:
    seat, card, color = entry
    return {"player": state.players[seat], "card": card, "color": color}


# ---------------------------------------------------------------------------- storage


def to_dict(state: GameState) -> dict:
    """The whole state, the generator included (storage only, never a client)."""
    return {
        "kind": KIND,
        "seed": state.seed,
        "players": list(state.players),
        "options": dict(state.options),
        "rng": dump_rng(state.rng),
        "round": state.round,
        "dealer": state.dealer,
        "phase": state.phase,
        "status": state.status,
        "hands": [list(hand) for hand in state.hands],
        "stack": list(state.stack),
        "trump_pile": list(state.trump_pile),
        "trump": state.trump,
        "no_trump": state.no_trump,
        "bids": list(state.bids),
        "leader": state.leader,
        "trick": [list(entry) for entry in state.trick],
        "lead_color": state.lead_color,
        "tricks": [
            {"cards": [list(e) for e in t["cards"]], "winner": t["winner"]} for t in state.tricks
        ],
        "tricks_won": list(state.tricks_won),
        "scores": list(state.scores),
        "sheet": [[dict(row) for row in rows] for rows in state.sheet],
        "seq": state.seq,
        "end_reason": state.end_reason,
        "results": results(state) if state.results else None,
    }


def from_dict(data: dict) -> GameState:
    """Rebuild a state saved by :func:`to_dict`; it shares nothing with ``data``."""
    rng = load_rng(data["rng"])
    return GameState(
        players=list(data["players"]),
        seed=data["seed"],
        options=dict(data["options"]),
        rng=rng,
        round=data["round"],
        dealer=data["dealer"],
        phase=data["phase"],
        status=data["status"],
        hands=[list(hand) for hand in data["hands"]],
        stack=list(data["stack"]),
        trump_pile=list(data["trump_pile"]),
        trump=data["trump"],
        no_trump=data["no_trump"],
        bids=list(data["bids"]),
        leader=data["leader"],
        trick=[list(entry) for entry in data["trick"]],
        lead_color=data["lead_color"],
        tricks=[
            {"cards": [list(e) for e in t["cards"]], "winner": t["winner"]} for t in data["tricks"]
        ],
        tricks_won=list(data["tricks_won"]),
        scores=list(data["scores"]),
        sheet=[[dict(row) for row in rows] for rows in data["sheet"]],
        seq=data["seq"],
        end_reason=data["end_reason"],
        results=None if data["results"] is None else [dict(r) for r in data["results"]],
    )
