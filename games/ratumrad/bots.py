"""Computer players for Rat um Rad, and a runner that lets them play full games.

A bot decides from one seat's view alone (R9: what that seat may see) and the public board;
it returns one of the dicts in ``view["legal"]``. Pure Python, no Django.

* :class:`RandomBot` picks uniformly among the legal moves (never the vote to end).
* :class:`HeuristicBot` plans shortest routes for its open destination cards, collects the
  colours they need, builds as soon as it can pay and plays for points near the end.
"""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from . import engine
from .board import CARD_COLORS, GREY, JOKER, ROAD_POINTS, Board, basel
from .invariants import check_invariants

VOTE_END = "VOTE_END"
PREPARE = "SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION"
KEEP = "KEEP_DESTINATION_CARDS"
TAKE = "TAKE_WHEEL"
BUILD = "BUILD_ROAD"
DRAW_DESTINATIONS = "DRAW_DESTINATION_CARDS"
SECOND_CARD = "second_card"  # view["turn"] between the two cards of a draw (R5.1)
SMALL_GAME = 3  # R6.4: up to this many players only one road of a double can be built
INF = float("inf")


class Bot(Protocol):
    name: str

    def choose(self, view: dict, board: Board) -> dict:
        """One move out of ``view["legal"]``."""
        ...


def _without_vote(legal: list[dict]) -> list[dict]:
    return [move for move in legal if move["type"] != VOTE_END]


class RandomBot:
    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(f"random-bot-{seed}")

    def choose(self, view: dict, board: Board) -> dict:
        legal = view["legal"]
        moves = _without_vote(legal) or legal
        return moves[self.rng.randrange(len(moves))]


# ---------------------------------------------------------------------------- board data


@dataclass(frozen=True)
class _BoardData:
    adjacency: dict[str, tuple[tuple[int, str, int], ...]]  # place -> (road, other, length)


_BOARD_DATA: dict[int, tuple[Board, _BoardData]] = {}


def _board_data(board: Board) -> _BoardData:
    cached = _BOARD_DATA.get(id(board))
    if cached is not None and cached[0] is board:
        return cached[1]
    adjacency: dict[str, list[tuple[int, str, int]]] = {loc.id: [] for loc in board.locations}
    for road in board.roads:
        adjacency[road.a].append((road.id, road.b, road.length))
        adjacency[road.b].append((road.id, road.a, road.length))
    data = _BoardData({place: tuple(edges) for place, edges in adjacency.items()})
    _BOARD_DATA[id(board)] = (board, data)
    return data


# ---------------------------------------------------------------------------- what a seat sees


@dataclass
class _Seat:
    """The facts a decision needs, all taken from one view."""

    board: Board
    data: _BoardData
    me: object
    hand: dict[str, int]
    wheels: int
    mine: set[int]
    open_roads: set[int]  # roads this seat may still build (R6.1, R6.3, R6.4)
    destinations: list[dict]
    min_wheels: int  # fewest wheels any player has left
    final_round: bool
    short_deck: int

    @classmethod
    def of(cls, view: dict, board: Board) -> _Seat:
        you = view["you"]
        me = you["player_id"]
        owner = {row["road"]: row["owner"] for row in view["roads"]}
        small = len(view["players"]) <= SMALL_GAME
        mine = {road for road, who in owner.items() if who == me}
        open_roads = set()
        for road in board.roads:
            if road.id in owner:
                continue
            twin = road.double_of
            if twin is not None and twin in owner and (owner[twin] == me or small):
                continue
            open_roads.add(road.id)
        wheels = next(p["wheels"] for p in view["players"] if p["id"] == me)
        return cls(
            board=board,
            data=_board_data(board),
            me=me,
            hand=dict(you["hand"]),
            wheels=wheels,
            mine=mine,
            open_roads=open_roads,
            destinations=you["destinations"],
            min_wheels=min(p["wheels"] for p in view["players"]),
            final_round=view["final_round"],
            short_deck=view["short_deck"],
        )

    def route(
        self, a: str, b: str, free: Iterable[int] = (), banned: int | None = None
    ) -> tuple[float, list[int]]:
        """Cheapest way in wheels from ``a`` to ``b``; own and ``free`` roads cost nothing."""
        free = self.mine.union(free)
        open_roads = self.open_roads
        best = {a: (0, 0)}
        back: dict[str, tuple[str, int]] = {}
        heap = [(0, 0, a)]
        while heap:
            cost, hops, here = heapq.heappop(heap)
            if here == b:
                break
            if best.get(here, (INF, 0)) < (cost, hops):
                continue
            for road, there, length in self.data.adjacency[here]:
                if road == banned:
                    continue
                if road in free:
                    step = 0
                elif road in open_roads:
                    step = length
                else:
                    continue
                candidate = (cost + step, hops + 1)
                if candidate < best.get(there, (INF, 0)):
                    best[there] = candidate
                    back[there] = (here, road)
                    heapq.heappush(heap, (cost + step, hops + 1, there))
        if b not in best:
            return INF, []
        roads = []
        here = b
        while here != a:
            here, road = back[here]
            if road not in free:
                roads.append(road)
        return best[b][0], roads

    def plan(self, cards: Sequence[dict]) -> tuple[set[int], list[dict], list[dict], dict]:
        """Greedy routes for ``cards`` within the wheels left, the cheapest card to add first.

        Returns the roads to build, the cards planned, the cards given up and, per planned
        road, the card it serves.
        """
        planned: set[int] = set()
        serves: dict[int, dict] = {}
        todo = list(cards)
        chosen: list[dict] = []
        budget = self.wheels
        while todo:
            options = []
            for card in todo:
                cost, roads = self.route(card["a"], card["b"], planned)
                options.append((cost, -card["points"], card["id"], card, roads))
            options.sort(key=lambda o: o[:3])
            cost, _, _, card, roads = options[0]
            if cost > budget:
                break
            todo.remove(card)
            chosen.append(card)
            budget -= cost
            for road in roads:
                planned.add(road)
                serves[road] = card
        return planned, chosen, todo, serves

    def connects_after(self, road_id: int) -> list[dict]:
        """Open cards that building ``road_id`` would complete."""
        road = self.board.roads[road_id]
        network = _components(self.board, [*self.mine, road_id])
        done = []
        for card in self.destinations:
            if card["complete"]:
                continue
            if road.a not in network and road.b not in network:
                continue
            if _joined(network, card["a"], card["b"]):
                done.append(card)
        return done


def _joined(network: dict[str, int], a: str, b: str) -> bool:
    return a in network and network.get(a) == network.get(b)


def _components(board: Board, road_ids: Iterable[int]) -> dict[str, int]:
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for road_id in road_ids:
        road = board.roads[road_id]
        parent.setdefault(road.a, road.a)
        parent.setdefault(road.b, road.b)
        parent[find(road.a)] = find(road.b)
    roots = {place: find(place) for place in parent}
    numbers: dict[str, int] = {}
    return {place: numbers.setdefault(root, len(numbers)) for place, root in roots.items()}


# ---------------------------------------------------------------------------- the heuristic bot


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
