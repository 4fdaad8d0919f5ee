"""Who may move in RAGE and what: the bidders (G2.1, G2.2) and the cards a seat may play (G3.2)."""

from __future__ import annotations

from games.contract import PlayerId

from .cards import COLOR_OF, COLORS, JOKER, sorted_hand
from .state import BIDDING, GameState, _seat, is_over


def _can_follow(hand: list[str], color: str | None) -> bool:
    return color is not None and any(COLOR_OF.get(card) == color for card in hand)


def _card_moves(state: GameState, seat: int) -> list[dict]:
    hand = state.hands[seat]
    if _can_follow(hand, state.lead_color):
        cards = [card for card in hand if COLOR_OF.get(card) == state.lead_color]
    else:
        cards = hand
    moves = []
    for card in sorted_hand(set(cards)):
        if card == JOKER:
            moves.extend({"type": "PLAY_CARD", "card": JOKER, "color": c} for c in COLORS)
        else:
            moves.append({"type": "PLAY_CARD", "card": card})
    return moves


def _forbidden_bid(state: GameState, seat: int) -> int | None:
    """G2.2 plus/minus one: the bid the dealer, bidding last, may not make."""
    if not state.options["plus_minus_one"] or seat != state.dealer:
        return None
    others = [bid for s, bid in enumerate(state.bids) if s != seat]
    if any(bid is None for bid in others):
        return None
    forbidden = state.hand_size - sum(others)
    return forbidden if 0 <= forbidden <= state.hand_size else None


def _bidders(state: GameState) -> list[int]:
    """The seats that may bid now."""
    if state.phase != BIDDING:
        return []
    if state.options["bids"] == "open":
        for seat in state.bid_order():
            if state.bids[seat] is None:
                return [seat]
        return []
    return [seat for seat, bid in enumerate(state.bids) if bid is None]


def to_move(state: GameState) -> list[PlayerId]:
    if is_over(state):
        return []
    if state.phase == BIDDING:
        return [state.players[seat] for seat in _bidders(state)]
    return [state.players[state.current]]


def legal_moves(state: GameState, player: PlayerId) -> list[dict]:
    seat = _seat(state, player)
    return _legal(state, seat)


def _legal(state: GameState, seat: int) -> list[dict]:
    if is_over(state):
        return []
    if state.phase == BIDDING:
        if seat not in _bidders(state):
            return []
        forbidden = _forbidden_bid(state, seat)
        return [{"type": "BID", "tricks": n} for n in range(state.hand_size + 1) if n != forbidden]
    if seat != state.current:
        return []
    return _card_moves(state, seat)
