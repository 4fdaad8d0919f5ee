"""What leaves the RAGE engine: the view of a seat or a spectator (G5), and a copy scrambled
where a seat can't see."""

from __future__ import annotations

import random
from typing import Any

from games.contract import PlayerId

from .cards import sorted_hand
from .legal import _legal, to_move
from .state import (
    BIDDING,
    KIND,
    ROUNDS,
    GameState,
    _entry,
    _seat,
    from_dict,
    is_over,
    results,
    to_dict,
)


def _bid_visible(state: GameState, seat: int, viewer: int | None) -> bool:
    mode = state.options["bids"]
    if mode == "open" or seat == viewer:
        return True
    if mode == "hidden":
        return state.phase != BIDDING
    return False  # secret: the sheet shows them once the round is scored


def view(state: GameState, player: PlayerId | None = None) -> dict:
    """What ``player`` (``None``: a spectator) may see (G5)."""
    viewer = None if player is None else _seat(state, player)
    over = is_over(state)
    data: dict[str, Any] = {
        "kind": KIND,
        "status": state.status,
        "seq": state.seq,
        "round": state.round,
        "rounds": ROUNDS,
        "cards": state.hand_size,
        "dealer": state.players[state.dealer],
        "phase": state.phase,
        "trump": state.trump,
        "no_trump": state.no_trump,
        "trump_pile": list(state.trump_pile),
        "stack_size": len(state.stack),
        "lead_color": state.lead_color,
        "leader": state.players[state.leader],
        "trick": [_entry(state, entry) for entry in state.trick],
        "tricks": [
            {
                "cards": [_entry(state, entry) for entry in trick["cards"]],
                "winner": state.players[trick["winner"]],
            }
            for trick in state.tricks
        ],
        "players": [
            {
                "id": p,
                "bid": state.bids[seat] if _bid_visible(state, seat, viewer) else None,
                "has_bid": state.bids[seat] is not None,
                "tricks_won": state.tricks_won[seat],
                "hand_size": len(state.hands[seat]),
                "score": state.scores[seat],
            }
            for seat, p in enumerate(state.players)
        ],
        "to_move": to_move(state),
        "sheet": [[dict(row) for row in rows] for rows in state.sheet],
        "legal": [],
        "options": dict(state.options),
    }
    if viewer is not None:
        data["you"] = {"player_id": player, "hand": sorted_hand(state.hands[viewer])}
        data["legal"] = _legal(state, viewer)
    if over:
        data["end_reason"] = state.end_reason
        data["results"] = results(state)
    return data


def scramble(state: GameState, player: PlayerId | None, rng: random.Random) -> GameState:
    """A copy in which what ``player`` can't see is redrawn: the other hands and the stack are
    reshuffled among themselves (sizes kept), bids hidden from them redrawn, the generator
    reseeded."""
    viewer = None if player is None else _seat(state, player)
    other = from_dict(to_dict(state))
    seats = [seat for seat in range(len(other.players)) if seat != viewer]
    pool = [card for seat in seats for card in other.hands[seat]] + other.stack
    rng.shuffle(pool)
    for seat in seats:
        size = len(other.hands[seat])
        other.hands[seat], pool = pool[:size], pool[size:]
    other.stack = pool
    for seat, bid in enumerate(other.bids):
        if bid is not None and not _bid_visible(other, seat, viewer):
            other.bids[seat] = rng.randint(0, other.hand_size)
    other.rng = random.Random(rng.getrandbits(64))
    return other
