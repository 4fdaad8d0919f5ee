"""The heuristic Rat um Rad bot: it plans shortest routes for its open destination cards,
collects the colours they need, builds as soon as it can pay and plays for points near the end.
"""

from __future__ import annotations

import random

from .board import CARD_COLORS, GREY, JOKER, ROAD_POINTS, Board
from .bot_seat import (
    BUILD,
    DRAW_DESTINATIONS,
    INF,
    KEEP,
    PREPARE,
    SECOND_CARD,
    TAKE,
    _components,
    _joined,
    _Seat,
    _without_vote,
)


class HeuristicBot:
    """Plays like a careful human, from its own view only."""

    name = "heuristic"
    keep_cost_weight = 1.2  # points a wheel of route costs when weighing destination cards
    late_wheels = 3  # the game is near its end when any player has this few wheels
    draw_destinations_wheels = 12

    def __init__(self, seed: int = 0):
        self.rng = random.Random(f"heuristic-bot-{seed}")

    def choose(self, view: dict, board: Board) -> dict:
        legal = view["legal"]
        moves = _without_vote(legal)
        if not moves:
            return legal[0]
        if len(moves) == 1:
            return moves[0]
        seat = _Seat.of(view, board)
        kind = moves[0]["type"]
        if kind == PREPARE:
            return self._keep(seat, moves, view["you"]["pending_destinations"])
        if kind == KEEP:
            return self._keep(seat, moves, view["you"]["pending_destinations"])
        if view["turn"] == SECOND_CARD:
            return self._take(seat, moves, view, self._needs(seat)[0], second=True)
        return self._turn(seat, moves, view)

    # -- destination cards (R2.4, R7.1)

    def _value(self, seat: _Seat, cards: list[dict]) -> float:
        open_cards = [card for card in cards if not card["complete"]]
        planned, chosen, given_up, _ = seat.plan(open_cards)
        cost = sum(seat.board.roads[r].length for r in planned)
        return (
            sum(card["points"] for card in chosen)
            - sum(card["points"] for card in given_up)
            - self.keep_cost_weight * cost
        )

    def _keep(self, seat: _Seat, moves: list[dict], pending: list[dict]) -> dict:
        network = _components(seat.board, seat.mine)
        by_id = {
            card["id"]: {**card, "complete": _joined(network, card["a"], card["b"])}
            for card in pending
        }
        best, best_value = moves[0], -INF
        for move in moves:
            kept = [by_id[card_id] for card_id in move["keep"]]
            value = self._value(seat, [*seat.destinations, *kept])
            if value > best_value + 1e-9:
                best, best_value = move, value
        return best

    # -- colours

    def _needs(self, seat: _Seat) -> tuple[dict[str, int], set[int], dict]:
        """Missing cards per colour for the planned roads, the plan and who each road serves."""
        open_cards = [card for card in seat.destinations if not card["complete"]]
        planned, _, _, serves = seat.plan(open_cards)
        if not planned:
            planned = self._point_targets(seat)
        need = dict.fromkeys(CARD_COLORS, 0)
        greys = []
        for road_id in planned:
            road = seat.board.roads[road_id]
            if road.color == GREY:
                greys.append(road.length)
            else:
                need[road.color] += road.length
        for length in sorted(greys, reverse=True):
            color = max(CARD_COLORS, key=lambda c: (seat.hand[c] - need[c], c))
            need[color] += length
        missing = {c: max(0, need[c] - seat.hand[c]) for c in CARD_COLORS}
        return missing, planned, serves

    def _point_targets(self, seat: _Seat) -> set[int]:
        """With nothing to connect: the longest open road that fits the wheels left."""
        fitting = [
            seat.board.roads[r]
            for r in seat.open_roads
            if seat.board.roads[r].length <= seat.wheels
        ]
        if not fitting:
            return set()
        best = max(
            fitting,
            key=lambda r: (r.length, seat.hand[r.color] if r.color != GREY else 0, -r.id),
        )
        return {best.id}

    # -- a fresh turn

    def _turn(self, seat: _Seat, moves: list[dict], view: dict) -> dict:
        builds = [m for m in moves if m["type"] == BUILD]
        takes = [m for m in moves if m["type"] == TAKE]
        draw = next((m for m in moves if m["type"] == DRAW_DESTINATIONS), None)
        if seat.final_round:
            move = self._best_points(seat, builds, need=None)
            if move is not None:
                return move
            return self._take(seat, takes, view, {}, second=False) if takes else moves[0]
        missing, planned, serves = self._needs(seat)
        real_plan = bool(serves)
        late = seat.min_wheels <= self.late_wheels
        planned_builds = [m for m in builds if m["road"] in planned]
        if planned_builds:
            return self._best_planned(seat, planned_builds, serves, missing, late)
        if late and builds:
            move = self._best_points(seat, builds, need=missing if real_plan else None)
            if move is not None:
                return move
        remaining = sum(seat.board.roads[r].length for r in planned) if real_plan else 0
        if (
            draw is not None
            and remaining <= 2
            and not late
            and seat.wheels >= self.draw_destinations_wheels
        ):
            return draw
        if not real_plan and builds:
            long_builds = [m for m in builds if seat.board.roads[m["road"]].length >= 3]
            move = self._best_points(seat, long_builds, need=None)
            if move is not None:
                return move
        if takes:
            return self._take(seat, takes, view, missing, second=False)
        if builds:
            return self._best_points(seat, builds, need=None) or builds[0]
        return draw or moves[0]

    def _pay_key(self, seat: _Seat, move: dict, missing: dict[str, int]) -> tuple[int, int]:
        """How dear a payment is: jokers spent, then cards another planned road needs."""
        road = seat.board.roads[move["road"]]
        have = seat.hand[move["color"]]
        jokers = max(0, road.length - have)
        spent = min(have, road.length)
        needed_elsewhere = missing.get(move["color"], 0) > 0
        return jokers, spent if needed_elsewhere else 0

    def _best_planned(
        self, seat: _Seat, builds: list[dict], serves: dict, missing: dict, late: bool
    ) -> dict:
        def score(move: dict) -> tuple:
            road = seat.board.roads[move["road"]]
            card = serves.get(road.id)
            urgency = 0.0
            if card is not None:
                base, _ = seat.route(card["a"], card["b"], serves)
                without, _ = seat.route(card["a"], card["b"], set(serves) - {road.id}, road.id)
                urgency = min(without - base, 8) if without < INF else 10
            completes = sum(c["points"] for c in seat.connects_after(road.id))
            value = road.length + 0.5 * urgency + (2 * completes if late else 0.2 * completes)
            jokers, spent = self._pay_key(seat, move, missing)
            return (value - 0.5 * jokers, -spent, -road.id)

        return max(builds, key=score)

    def _best_points(self, seat: _Seat, builds: list[dict], need: dict | None) -> dict | None:
        """The build worth most points now, destinations it completes counted twice (R3.2)."""
        best, best_key = None, None
        network = _components(seat.board, seat.mine)
        for move in builds:
            road = seat.board.roads[move["road"]]
            gain = ROAD_POINTS[road.length]
            gain += 2 * sum(c["points"] for c in seat.connects_after(road.id))
            touches = road.a in network or road.b in network
            jokers, spent = self._pay_key(seat, move, need or {})
            key = (gain + (0.5 if touches else 0) - 0.3 * jokers - 0.2 * spent, -road.id)
            if best_key is None or key > best_key:
                best, best_key = move, key
        if best is None:
            return None
        if need is not None and best_key[0] < 2:
            return None
        return best

    # -- drawing wheel cards (R5)

    def _take(
        self, seat: _Seat, takes: list[dict], view: dict, missing: dict[str, int], *, second: bool
    ) -> dict:
        face_up = view["face_up"]
        wanted = [
            (missing.get(face_up[m["slot"]], 0), -m["slot"], m)
            for m in takes
            if m["source"] == "face_up" and missing.get(face_up[m["slot"]], 0) > 0
        ]
        if wanted:
            return max(wanted, key=lambda w: w[:2])[2]
        blind = next((m for m in takes if m["source"] == "deck"), None)
        if not second:
            joker = next(
                (m for m in takes if m["source"] == "face_up" and face_up[m["slot"]] == JOKER),
                None,
            )
            short_colors = sum(1 for count in missing.values() if count > 0)
            if joker is not None and (0 < short_colors <= 3 or blind is None):
                return joker
        if blind is not None:
            return blind
        plain = [m for m in takes if face_up[m["slot"]] != JOKER]
        if plain:
            return max(plain, key=lambda m: (seat.hand[face_up[m["slot"]]], -m["slot"]))
        return takes[0]
