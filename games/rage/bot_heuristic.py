"""The heuristic RAGE bot (G6.1): it bids from its hand's strength (:func:`card_strength`) and
then plays to make its bid, winning tricks while it needs some and losing them once it has
enough."""

from __future__ import annotations

import random

from .cards import (
    CHANGE_TRUMP,
    COLOR_OF,
    JOKER,
    MINUS5,
    NO_TRUMP,
    PLUS5,
    VALUE_OF,
)
from .engine import trick_winner


def card_strength(card: str, trump: str | None, players: int) -> float:
    """The chance-like worth of one card for winning a trick, for bidding."""
    if card == JOKER:
        return 0.95
    color = COLOR_OF.get(card)
    if color is None:
        return 0.05 if card in (NO_TRUMP, CHANGE_TRUMP) else 0.0
    value = VALUE_OF[card]
    crowd = min(1.0, 4 / players)  # more players, more cards above it
    if color == trump:
        return 0.95 if value >= 13 else 0.7 if value >= 9 else 0.4 if value >= 5 else 0.2
    if value == 15:
        return 0.7 * crowd
    if value == 14:
        return 0.5 * crowd
    if value == 13:
        return 0.3 * crowd
    return 0.1 * crowd if value >= 11 else 0.0


class HeuristicBot:
    """Bids the rounded sum of its cards' strengths; plays to make exactly that bid."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, view: dict) -> dict:
        legal = view["legal"]
        if not legal:
            raise ValueError("there is no legal move to choose")
        if legal[0]["type"] == "BID":
            return self.bid(view, legal)
        return self.play(view, legal)

    # ------------------------------------------------------------------------------ bidding

    def bid(self, view: dict, legal: list[dict]) -> dict:
        hand = view["you"]["hand"]
        players = len(view["players"])
        strength = sum(card_strength(card, view["trump"], players) for card in hand)
        target = round(strength)
        return min(legal, key=lambda move: (abs(move["tricks"] - target), move["tricks"]))

    # ------------------------------------------------------------------------------ playing

    def play(self, view: dict, legal: list[dict]) -> dict:
        me = view["you"]["player_id"]
        row = next(p for p in view["players"] if p["id"] == me)
        need = (row["bid"] or 0) - row["tricks_won"]
        trump = None if view["no_trump"] else view["trump"]
        lead = view["lead_color"]
        trick = [(entry["card"], entry["color"]) for entry in view["trick"]]
        last = len(trick) == len(view["players"]) - 1
        if not trick:
            return self.lead(legal, trump, need > 0)
        options = [(move, *self.judge(move, trick, trump, lead)) for move in legal]
        winning = [(m, s) for m, wins, s in options if wins]
        losing = [(m, s) for m, wins, s in options if not wins]
        if need > 0:
            if winning:
                if last:  # the cheapest sure win; a +5 is best of all
                    plus = [m for m, _s in winning if m["card"] == PLUS5]
                    return plus[0] if plus else min(winning, key=lambda ms: ms[1])[0]
                return max(winning, key=lambda ms: ms[1])[0]
            return self.dump(losing, keep_high=True)
        if losing:
            return self.dump(losing, keep_high=False)
        return min(winning, key=lambda ms: ms[1])[0]

    def judge(self, move: dict, trick: list, trump: str | None, lead: str | None):
        """Whether ``move`` would win the trick as it stands, and the card's worth."""
        card = move["card"]
        if card == JOKER:
            color = move["color"]
            worth = 40 if color == trump else 30 if color == lead else -1
        else:
            color = COLOR_OF.get(card)
            worth = -2 if color is None else VALUE_OF[card] + (20 if color == trump else 0)
        if card == CHANGE_TRUMP:
            return False, 0
        if card == NO_TRUMP:
            trump = None
        entries = [*trick, (card, color)]
        return trick_winner(entries, trump) == len(trick), worth

    def dump(self, moves: list[tuple[dict, float]], *, keep_high: bool) -> dict:
        """A card that loses: a -5 into someone else's trick first, then the lowest card while
        tricks are still needed (keep the high ones), else the highest (shed danger)."""
        for move, _worth in moves:
            if move["card"] == MINUS5:
                return move
        plain = [(m, s) for m, s in moves if m["card"] != PLUS5] or moves
        if keep_high:
            return min(plain, key=lambda ms: ms[1])[0]
        return max(plain, key=lambda ms: ms[1])[0]

    def lead(self, legal: list[dict], trump: str | None, want: bool) -> dict:
        def worth(move: dict) -> float:
            card = move["card"]
            if card == JOKER:
                return 40 if move["color"] == trump else 25
            color = COLOR_OF.get(card)
            if color is None:
                return 5
            return VALUE_OF[card] + (20 if color == trump else 0)

        cards = [m for m in legal if not (m["card"] == JOKER and trump and m["color"] != trump)]
        cards = cards or legal
        if want:
            return max(cards, key=worth)
        plain = [m for m in cards if COLOR_OF.get(m["card"]) is not None] or cards
        return min(plain, key=worth)
