"""The stored rows of a game checked against a replay of its log, after every move.

``Replayed(game_id).check()`` replays the game from its seed, its players and its Move log
(the engine's ``new_game`` and ``apply``; ``engine.replay`` once more at the end) and compares
what the database holds with what the replayed state says, projected from scratch:

- the game row: ``state`` (``engine.to_dict``), ``seq`` and ``status``;
- each seat's projected columns (the kind's ``SEAT_FIELDS``);
- Rat um Rad's built roads (road, seat, the move that built it) and destination cards (card,
  seat, status, completion).

The glue keeps these rows in step with each change from the rows before it
(``games.kinds.<kind>.project``); this is the same rows worked out from the whole game at
once, by pure functions of the state, so a projection that went wrong along the way shows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from games import registry
from games.models import BuiltRoad, DestinationCard, Game, Move, Seat
from games.ratumrad import engine as ratumrad_engine
from games.road300 import engine as road300_engine

# The projected seat columns of each kind.
SEAT_COLUMNS = {
    "ratumrad": ("turn_order", "color", "score", "wheels", "hand", "total", "place", "won"),
    "rage": ("turn_order", "score", "total", "place", "won"),
    "road300": ("turn_order", "score", "total", "place", "won"),
}


@dataclass
class Rows:
    """A game's rows as the check compares them."""

    state: dict
    seq: int
    status: str
    seats: dict[int, dict]  # user id -> projected columns
    roads: set[tuple[int, int, int]]  # (road, user id, seq)
    cards: set[tuple[int, int, str, bool | None]]  # (card, user id, status, complete)


def _results_by_player(results) -> dict:
    return {row["player"]: (row["total"], row["place"], row["won"]) for row in results or []}


def ratumrad_seats(state) -> dict[int, dict]:
    results = _results_by_player(state.results)
    return {
        player.id: dict(
            zip(
                SEAT_COLUMNS["ratumrad"],
                (
                    order,
                    player.color,
                    player.score,
                    player.wheels,
                    dict(zip(ratumrad_engine.COLORS, player.hand, strict=True)),
                    *results.get(player.id, (None, None, None)),
                ),
                strict=True,
            )
        )
        for order, player in enumerate(state.players)
    }


def rage_seats(state) -> dict[int, dict]:
    results = _results_by_player(registry.get("rage").engine.results(state))
    return {
        player: dict(
            zip(
                SEAT_COLUMNS["rage"],
                (order, state.scores[order], *results.get(player, (None, None, None))),
                strict=True,
            )
        )
        for order, player in enumerate(state.players)
    }


def road300_seats(state) -> dict[int, dict]:
    over = road300_engine.is_over(state)
    score = road300_engine.score(state)
    (player,) = state.players
    won = state.results[0]["won"] if over else None
    values = (0, score, score if over else None, 1 if over else None, won)
    return {player: dict(zip(SEAT_COLUMNS["road300"], values, strict=True))}


SEATS = {"ratumrad": ratumrad_seats, "rage": rage_seats, "road300": road300_seats}


def ratumrad_cards(state) -> set[tuple[int, int, str, bool | None]]:
    complete = {}
    for row in state.results or []:
        complete.update({card["id"]: card["complete"] for card in row["destinations"]})
    cards = set()
    for player in state.players:
        kept = DestinationCard.Status.KEPT.value
        cards |= {(card, player.id, kept, complete.get(card)) for card in player.destinations}
        pending = DestinationCard.Status.PENDING.value
        cards |= {(card, player.id, pending, None) for card in player.pending}
    return cards


def expected_rows(kind: str, state, built_at: dict[int, int]) -> Rows:
    """The rows of a game in ``state``, projected from scratch; ``built_at``: the move (seq)
    that built each road (Rat um Rad)."""
    engine = registry.get(kind).engine
    roads, cards = set(), set()
    if kind == "ratumrad":
        roads = {
            (road, state.players[owner].id, built_at[road])
            for road, owner in enumerate(state.road_owner)
            if owner is not None
        }
        cards = ratumrad_cards(state)
    return Rows(
        state=json.loads(json.dumps(engine.to_dict(state))),  # as the JSON column holds it
        seq=state.seq,
        status=engine.phase(state),
        seats=SEATS[kind](state),
        roads=roads,
        cards=cards,
    )


def stored_rows(game: Game) -> Rows:
    """What the database holds for ``game``."""
    columns = SEAT_COLUMNS[game.kind]
    seats = {
        seat.user_id: {name: getattr(seat, name) for name in columns}
        for seat in Seat.objects.filter(game=game)
    }
    roads = set(
        BuiltRoad.objects.filter(game=game).values_list("road", "seat__user_id", "seq").iterator()
    )
    cards = set(
        DestinationCard.objects.filter(game=game)
        .values_list("card", "seat__user_id", "status", "complete")
        .iterator()
    )
    return Rows(game.state, game.seq, game.status, seats, roads, cards)


class Replayed:
    """A game replayed from its log as it grows (``check`` after each move). Sync: call it
    from a thread (``database_sync_to_async``)."""

    def __init__(self, game_id: int) -> None:
        game = Game.objects.get(pk=game_id)
        self.game_id = game_id
        self.kind = game.kind
        self.engine = registry.get(game.kind).engine
        self.seed, self.options = game.seed, game.options
        # In seat order, as the deal had them (``selectors.game_log``).
        self.players = list(game.seats.order_by("joined", "id").values_list("user_id", flat=True))
        self.state = self.engine.new_game(self.seed, self.players, self.options)
        self.log: list[tuple[int, dict]] = []
        self.built_at: dict[int, int] = {}
        self.checks = 0

    def catch_up(self, game: Game) -> None:
        """Apply the moves logged since the last check; a game over gets what the site adds
        to its results (the kind's ``complete_results``, as ``record`` does)."""
        moves = Move.objects.filter(game_id=self.game_id, seq__gt=self.state.seq).order_by("seq")
        for move in moves:
            assert move.seq == self.state.seq + 1, (move.seq, self.state.seq)
            _, events = self.engine.apply(self.state, move.user_id, move.payload)
            self.log.append((move.user_id, move.payload))
            for event in events:
                if event["kind"] == "built_road":
                    self.built_at[event["road"]] = self.state.seq
            if self.engine.is_over(self.state):
                registry.get(self.kind).glue.complete_results(game, self.state)

    def check(self) -> Rows:
        """The stored rows equal the replay's projection (AssertionError naming the first
        difference otherwise); returns them."""
        game = Game.objects.get(pk=self.game_id)
        stored = stored_rows(game)
        self.catch_up(game)
        expected = expected_rows(self.kind, self.state, self.built_at)
        where = f"game {self.game_id} at move {expected.seq}"
        assert stored.seq == expected.seq, (where, "seq", stored.seq)
        assert stored.status == expected.status, (where, "status", stored.status)
        assert stored.state == expected.state, (where, "state")
        assert stored.seats == expected.seats, (where, "seats", stored.seats, expected.seats)
        assert stored.roads == expected.roads, (where, "roads", stored.roads ^ expected.roads)
        assert stored.cards == expected.cards, (where, "cards", stored.cards ^ expected.cards)
        self.checks += 1
        return stored

    def check_whole(self) -> None:
        """``check``, and the engine's ``replay`` of the whole log gives the same state."""
        self.check()
        again = self.engine.replay(self.seed, self.players, self.options, self.log)
        if self.engine.is_over(again):
            registry.get(self.kind).glue.complete_results(Game.objects.get(pk=self.game_id), again)
        assert json.dumps(self.engine.to_dict(again)) == json.dumps(self.engine.to_dict(self.state))
