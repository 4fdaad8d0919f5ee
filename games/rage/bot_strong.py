"""The strong RAGE bot (G6.1): it samples the hidden cards consistent with everything public
and plays the rest of the round out in each sampled world (determinized Monte Carlo)."""

from __future__ import annotations

import random

from .bot_world import _estimate_bid, _playout, _World
from .cards import (
    ACTION_POINTS,
    COLOR_OF,
    COLORS,
    DECK,
    JOKER,
)


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
