"""The strong RAGE bot's simulator: a world (one way the hidden cards could lie), the cheap
policy every seat follows in it and the playout of the rest of a round (G3, G4)."""

from __future__ import annotations

from .bot_heuristic import card_strength
from .cards import (
    ACTION_POINTS,
    CHANGE_TRUMP,
    COLOR_OF,
    COLORS,
    JOKER,
    MINUS5,
    NO_TRUMP,
    PLUS5,
    VALUE_OF,
)

# A world is one way the hidden cards could lie: every other hand and the stack's order. The
# simulator below plays the rest of a round in such a world by the rules of the engine (G3, G4;
# the tests check it against ``engine``), every seat following a cheap version of the heuristic
# bot's play.

_RANK_JOKER = 50  # a Joker outranks every colour card; a later Joker the earlier one (G3.5)


class _World:
    """The rest of one round in one sampled world, in plain lists (seat order)."""

    __slots__ = (
        "action",
        "bids",
        "hands",
        "lead",
        "leader",
        "n",
        "no_trump",
        "stack",
        "trick",
        "trump",
        "won",
    )

    def copy(self) -> _World:
        other = _World.__new__(_World)
        other.n = self.n
        other.hands = [list(hand) for hand in self.hands]
        other.stack = list(self.stack)
        other.trump = self.trump
        other.no_trump = self.no_trump
        other.trick = list(self.trick)
        other.lead = self.lead
        other.leader = self.leader
        other.won = list(self.won)
        other.action = list(self.action)
        other.bids = list(self.bids)
        return other

    @property
    def current(self) -> int:
        return (self.leader + len(self.trick)) % self.n

    def turn_up(self) -> None:
        """G1.3: stack cards onto the pile until a colour shows."""
        stack = self.stack
        while stack:
            color = COLOR_OF.get(stack.pop(0))
            if color is not None:
                self.trump = color
                return

    def play(self, seat: int, card: str, color: str | None) -> None:
        """The engine's ``_play`` and ``_finish_trick`` (G3), without the checks and events."""
        self.hands[seat].remove(card)
        self.trick.append((seat, card, color))
        if self.lead is None and color is not None:
            self.lead = color
        if card == NO_TRUMP:
            self.no_trump = True
            self.trump = None
        elif card == CHANGE_TRUMP:
            self.no_trump = False
            self.turn_up()
        if len(self.trick) < self.n:
            return
        trick = self.trick
        winner = trick[_winning_index(trick, self.trump)][0]
        self.won[winner] += 1
        points = sum(ACTION_POINTS.get(entry[1], 0) for entry in trick)
        if points:
            self.action[winner] += points
        self.trick = []
        self.lead = None
        self.leader = winner
        if self.no_trump:
            self.no_trump = False
            if any(self.hands):
                self.turn_up()

    def points(self, seat: int, durchmarsch: bool) -> int:
        """G4.1/G4.2: the round's points of ``seat`` (the round being over)."""
        won = self.won[seat]
        tricks = 2 * won if durchmarsch and won == sum(self.won) else won
        return tricks + self.action[seat] + (10 if won == self.bids[seat] else -5)


def _rank(card: str, color: str | None, index: int, trump: str | None, lead: str | None) -> int:
    """How an entry of a trick ranks (0: it can't win); the engine's ``trick_winner`` order."""
    if color is None:
        return 0
    value = _RANK_JOKER + index if card == JOKER else VALUE_OF[card]
    if color == trump:
        return 200 + value
    if color == lead:
        return 100 + value
    return 0


def _winning_index(trick, trump: str | None) -> int:
    lead = None
    best, best_rank = 0, 0
    for i, (_seat, card, color) in enumerate(trick):
        if color is None:
            continue
        if lead is None:
            lead = color
        rank = _rank(card, color, i, trump, lead)
        if rank > best_rank:
            best, best_rank = i, rank
    return best


def _worth(card: str, color: str | None, trump: str | None, lead: str | None) -> int:
    """The heuristic bot's worth of a card (what it would rather keep)."""
    if card == JOKER:
        return 40 if color == trump else 30 if color == lead else -1
    if color is None:
        return -2
    return VALUE_OF[card] + (20 if color == trump else 0)


def _policy(world: _World, seat: int) -> tuple[str, str | None]:
    """The card ``seat`` plays in a playout: the heuristic bot's rules, made cheap."""
    hand = world.hands[seat]
    lead = world.lead
    trump = world.trump
    cards = hand
    if lead is not None:
        follow = [card for card in hand if COLOR_OF.get(card) == lead]
        if follow:
            cards = follow
    need = world.bids[seat] - world.won[seat] > 0
    trick = world.trick
    joker_color = trump or lead or COLORS[0]
    if not trick:  # lead: the strongest card while tricks are needed, else the weakest colour
        best, best_worth = None, None
        for card in cards:
            if card == JOKER:
                worth = 40 if trump else 25
            else:
                color = COLOR_OF.get(card)
                worth = 5 if color is None else VALUE_OF[card] + (20 if color == trump else 0)
                if not need and color is None:
                    worth += 100
            if best_worth is None or (worth > best_worth if need else worth < best_worth):
                best, best_worth = card, worth
        return best, joker_color if best == JOKER else COLOR_OF.get(best)
    best_rank = 0
    first = None
    for i, (_seat, card, color) in enumerate(trick):
        if color is None:
            continue
        if first is None:
            first = color
        rank = _rank(card, color, i, trump, first)
        if rank > best_rank:
            best_rank = rank
    index = len(trick)
    last = index == world.n - 1
    win = lose = None  # (card, colour, worth): the chosen winning / losing card so far
    minus = None
    for card in cards:
        color = joker_color if card == JOKER else COLOR_OF.get(card)
        if card == MINUS5:
            minus = card
        wins = color is not None and _rank(card, color, index, trump, lead or color) > best_rank
        worth = _worth(card, color, trump, lead)
        if wins:
            if (
                win is None
                or (need and not last and worth > win[2])
                or ((last or not need) and worth < win[2])
            ):
                win = (card, color, worth)
        else:
            if card == PLUS5 and lose is not None:
                continue
            if lose is None or lose[0] == PLUS5 or (worth < lose[2] if need else worth > lose[2]):
                lose = (card, color, worth)
    if need and win is not None:
        return win[0], win[1]
    if minus is not None:
        return MINUS5, None
    if lose is not None:
        return lose[0], lose[1]
    return win[0], win[1]


def _playout(world: _World) -> _World:
    """Play the round out in ``world`` (changed in place) by :func:`_policy`."""
    hands = world.hands
    while True:
        seat = (world.leader + len(world.trick)) % world.n
        if not hands[seat]:
            return world
        card, color = _policy(world, seat)
        world.play(seat, card, color)


def _estimate_bid(hand, trump: str | None, players: int, size: int) -> int:
    """The heuristic bot's bid for ``hand``."""
    target = round(sum(card_strength(card, trump, players) for card in hand))
    return max(0, min(size, target))
