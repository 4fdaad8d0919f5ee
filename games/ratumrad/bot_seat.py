"""What a Rat um Rad bot reads from one seat's view: the move types, the board's roads per
place, and :class:`_Seat`, the facts a decision needs (routes, plans, what a road connects).

Shared by the computer players of ``bots``; a view (R9) and the public board are all it reads.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .board import Board

VOTE_END = "VOTE_END"
PREPARE = "SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION"
KEEP = "KEEP_DESTINATION_CARDS"
TAKE = "TAKE_WHEEL"
BUILD = "BUILD_ROAD"
DRAW_DESTINATIONS = "DRAW_DESTINATION_CARDS"
SECOND_CARD = "second_card"  # view["turn"] between the two cards of a draw (R5.1)
SMALL_GAME = 3  # R6.4: up to this many players only one road of a double can be built
INF = float("inf")


def _without_vote(legal: list[dict]) -> list[dict]:
    return [move for move in legal if move["type"] != VOTE_END]


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
