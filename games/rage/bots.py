"""Computer players of RAGE (G6.1): ``random``, ``heuristic`` and ``strong``.

A bot decides from its seat's own view alone (``you.hand``, the trick, trump, the bids it may
see) and returns one of ``view["legal"]``. The heuristic bot bids from its hand's strength and
then plays to make its bid: it tries to win tricks while it needs some and to lose them once it
has enough. The strong bot (:class:`StrongBot`) samples the hidden cards consistent with
everything public and plays the rest of the round out in each sampled world (determinized Monte
Carlo).
"""

from __future__ import annotations

import random

from games.contract import RandomBot

from .cards import (
    ACTION_POINTS,
    CHANGE_TRUMP,
    COLOR_OF,
    COLORS,
    DECK,
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


# ------------------------------------------------------------------------------ the strong bot
#
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


class StrongBot:
    """Determinized Monte Carlo (G6.1). It samples worlds of the hidden cards consistent with its
    view (its hand, every card played or turned up, hand sizes, the colours a player showed they
    lack by not following) and, for every candidate move, plays the rest of the round out in each
    world, every seat playing like the heuristic bot; it picks the move with the best mean of its
    round points (G4.1). A bid is chosen the same way: its candidates are played out as targets.

    Deterministic: the generator is seeded from the bot's seed and the view (round, seq, seat).
    The work is bounded by a budget of simulated card plays, split over the candidate moves.
    """

    BUDGET = 6000  # simulated card plays per decision
    MIN_WORLDS = 6
    MAX_WORLDS = 64
    RESAMPLE = 4  # candidate worlds per sample, one kept by how well it explains the open bids
    BID_LIKELIHOOD = 0.35  # weight factor per trick between a sampled hand's bid and the real one

    def __init__(self, seed: int = 0):
        self.seed = seed

    def rng_for(self, view: dict) -> random.Random:
        me = view["you"]["player_id"]
        return random.Random(f"rage-strong|{self.seed}|{view['round']}|{view['seq']}|{me}")

    def choose(self, view: dict) -> dict:
        legal = view["legal"]
        if not legal:
            raise ValueError("there is no legal move to choose")
        if len(legal) == 1:
            return legal[0]
        if legal[0]["type"] == "BID":
            return self.bid(view, legal)
        return self.play(view, legal)

    # ------------------------------------------------------------------------ what is known

    @staticmethod
    def _seats(view: dict) -> tuple[list, int]:
        ids = [row["id"] for row in view["players"]]
        return ids, ids.index(view["you"]["player_id"])

    @staticmethod
    def voids(view: dict) -> list[set[str]]:
        """Per seat the colours it showed it lacks: who plays anything but the colour to follow
        (an action card or a Joker included, G3.2) holds none of it for the rest of the round."""
        ids = [row["id"] for row in view["players"]]
        voids: list[set[str]] = [set() for _ in ids]
        tricks = [trick["cards"] for trick in view["tricks"]] + [view["trick"]]
        for entries in tricks:
            lead = None
            for entry in entries:
                if lead is not None and COLOR_OF.get(entry["card"]) != lead:
                    voids[ids.index(entry["player"])].add(lead)
                if lead is None and entry["color"] is not None:
                    lead = entry["color"]
        return voids

    @staticmethod
    def unseen(view: dict) -> list[str]:
        """The cards the seat can't see: the deck less its hand, the pile and every card played
        this round."""
        seen = list(view["you"]["hand"]) + list(view["trump_pile"])
        seen += [entry["card"] for trick in view["tricks"] for entry in trick["cards"]]
        seen += [entry["card"] for entry in view["trick"]]
        pool = list(DECK)
        for card in seen:
            pool.remove(card)
        return pool

    def sample_hands(
        self, view: dict, rng: random.Random, pool=None, voids=None
    ) -> tuple[dict, list[str]]:
        """One world: ``({player: hand}, stack)`` for the other seats, consistent with the view
        (sizes, unseen cards, voids). The most constrained seats are dealt first; should a deal
        get stuck (rare), the voids of the last seats are given up rather than failing."""
        ids, me = self._seats(view)
        pool = list(self.unseen(view) if pool is None else pool)
        voids = self.voids(view) if voids is None else voids
        rng.shuffle(pool)
        others = [seat for seat in range(len(ids)) if seat != me]
        others.sort(key=lambda seat: -len(voids[seat]))
        hands: dict = {}
        for seat in others:
            size = view["players"][seat]["hand_size"]
            lacking = voids[seat]
            take, rest = [], []
            for card in pool:
                if len(take) < size and COLOR_OF.get(card) not in lacking:
                    take.append(card)
                else:
                    rest.append(card)
            if len(take) < size:  # no consistent deal this way: fill up regardless
                missing = size - len(take)
                take += rest[:missing]
                rest = rest[missing:]
            hands[ids[seat]] = take
            pool = rest
        return hands, pool

    def _worlds(self, view: dict, rng: random.Random, count: int, my_bid: int | None) -> list:
        """``count`` sampled worlds (:class:`_World`), each the best explanation of the visible
        bids among :attr:`RESAMPLE` draws (drawn in proportion to its likelihood)."""
        ids, me = self._seats(view)
        n = len(ids)
        size = view["cards"]
        pool = self.unseen(view)
        voids = self.voids(view)
        played: list[list[str]] = [[] for _ in ids]
        action = [0] * n
        for trick in view["tricks"]:
            winner = ids.index(trick["winner"])
            for entry in trick["cards"]:
                played[ids.index(entry["player"])].append(entry["card"])
                action[winner] += ACTION_POINTS.get(entry["card"], 0)
        for entry in view["trick"]:
            played[ids.index(entry["player"])].append(entry["card"])
        first_trump = next(
            (COLOR_OF[c] for c in view["trump_pile"] if c in COLOR_OF), view["trump"]
        )
        known = [row["bid"] for row in view["players"]]
        if my_bid is not None:
            known[me] = my_bid
        trick = [(ids.index(e["player"]), e["card"], e["color"]) for e in view["trick"]]
        worlds = []
        for _ in range(count):
            draws = []
            for _ in range(self.RESAMPLE):
                hands, stack = self.sample_hands(view, rng, pool, voids)
                bids = list(known)
                weight = 1.0
                for seat, player in enumerate(ids):
                    if seat == me:
                        continue
                    estimate = _estimate_bid(hands[player] + played[seat], first_trump, n, size)
                    if bids[seat] is None:
                        bids[seat] = estimate
                    else:
                        weight *= self.BID_LIKELIHOOD ** abs(estimate - bids[seat])
                draws.append((weight, hands, stack, bids))
            pick = rng.random() * sum(draw[0] for draw in draws)
            chosen = draws[-1]
            for draw in draws:
                pick -= draw[0]
                if pick <= 0:
                    chosen = draw
                    break
            _weight, hands, stack, bids = chosen
            world = _World()
            world.n = n
            world.hands = [
                list(view["you"]["hand"]) if seat == me else hands[player]
                for seat, player in enumerate(ids)
            ]
            world.stack = stack
            world.trump = view["trump"]
            world.no_trump = view["no_trump"]
            world.trick = list(trick)
            world.lead = view["lead_color"]
            world.leader = ids.index(view["leader"])
            world.won = [row["tricks_won"] for row in view["players"]]
            world.action = list(action)
            world.bids = [0 if bid is None else bid for bid in bids]
            worlds.append(world)
        return worlds

    def _count(self, view: dict, candidates: int) -> int:
        remaining = sum(row["hand_size"] for row in view["players"])
        count = self.BUDGET // max(1, candidates * remaining)
        return max(self.MIN_WORLDS, min(self.MAX_WORLDS, count))

    @staticmethod
    def _durchmarsch(view: dict) -> bool:
        return bool(view["options"].get("durchmarsch")) and view["round"] < view["rounds"]

    # ------------------------------------------------------------------------ bidding

    def bid(self, view: dict, legal: list[dict]) -> dict:
        ids, me = self._seats(view)
        hand = view["you"]["hand"]
        guess = _estimate_bid(hand, view["trump"], len(ids), view["cards"])
        near = [m for m in legal if abs(m["tricks"] - guess) <= 2]
        candidates = near or legal
        if len(candidates) == 1:
            return candidates[0]
        rng = self.rng_for(view)
        worlds = self._worlds(view, rng, self._count(view, len(candidates)), my_bid=guess)
        durch = self._durchmarsch(view)
        totals = [0.0] * len(candidates)
        for world in worlds:
            for i, move in enumerate(candidates):
                trial = world.copy()
                trial.bids[me] = move["tricks"]
                totals[i] += _playout(trial).points(me, durch)
        best = max(
            range(len(candidates)),
            key=lambda i: (totals[i], -abs(candidates[i]["tricks"] - guess)),
        )
        return candidates[best]

    # ------------------------------------------------------------------------ playing

    def play(self, view: dict, legal: list[dict]) -> dict:
        _ids, me = self._seats(view)
        trump, lead = view["trump"], view["lead_color"]
        named = {c for c in (trump, lead) if c is not None} or set(COLORS)
        candidates = [m for m in legal if m["card"] != JOKER or m["color"] in named]
        seen: set = set()
        unique = []
        for move in candidates:  # copies of an action card are one move
            key = (move["card"], move.get("color"))
            if key not in seen:
                seen.add(key)
                unique.append(move)
        if len(unique) == 1:
            return unique[0]
        rng = self.rng_for(view)
        worlds = self._worlds(view, rng, self._count(view, len(unique)), my_bid=None)
        durch = self._durchmarsch(view)
        totals = [0.0] * len(unique)
        for world in worlds:
            for i, move in enumerate(unique):
                trial = world.copy()
                trial.play(me, move["card"], move.get("color", COLOR_OF.get(move["card"])))
                totals[i] += _playout(trial).points(me, durch)
        best = max(range(len(unique)), key=lambda i: totals[i])
        return unique[best]


# The kind's bots by name (G6.1).
BOTS = {"random": RandomBot, "heuristic": HeuristicBot, "strong": StrongBot}

__all__ = ["BOTS", "COLORS", "HeuristicBot", "RandomBot", "StrongBot", "make_bot"]


def make_bot(name: str, seed: int = 0) -> RandomBot | HeuristicBot | StrongBot:
    try:
        factory = BOTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(BOTS)}") from None
    return factory(seed)
