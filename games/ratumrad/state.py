"""The Rat um Rad game state: its constants, the players and the table, and its storage.

:func:`to_dict` and :func:`from_dict` store and load the whole state (secrets included: for
storage only, never a client); :func:`scramble` redraws what a seat may not know.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass, field

from games import contract

from .board import CARD_COLORS, JOKER, Board, basel

COLORS: tuple[str, ...] = (*CARD_COLORS, JOKER)
J = len(CARD_COLORS)  # index of the joker in a hand
COLOR_INDEX = {name: i for i, name in enumerate(COLORS)}
CARDS_PER_COLOR = 10  # R1.4
PLAYER_COLORS: tuple[str, ...] = ("red", "blue", "green", "yellow", "black")  # R1.2, start first
MIN_PLAYERS, MAX_PLAYERS = 2, 5  # R1.1
WHEELS = 30  # R1.3
START_HAND = 4  # R2.1
DISPLAY_SIZE = 5  # R2.2
START_SHORT = 3  # R2.3
DESTINATION_DRAW = 3  # R7.1
MAX_WIPES_IN_ROW = 3  # R5.5
FINAL_ROUND_WHEELS = 2  # R8.1
LONGEST_PATH_BONUS = 10  # R1.6, R3.3

PREPARATION = "PREPARATION"
RUNNING = "RUNNING"
FINAL_ROUND = "FINAL_ROUND"
FINISHED = "FINISHED"

SECOND_CARD = "second_card"
CHOOSE_DESTINATIONS = "choose_destinations"

PlayerId = Hashable


# The refusals every kind shares (``games.contract``), under the names this engine has always used.
EngineError = contract.EngineError
IllegalMove = contract.IllegalMove
BadField = contract.BadField
UnknownType = contract.UnknownType
NotYourTurn = contract.NotYourTurn
NotSeated = contract.NotSeated
GameOver = contract.GameOver


@dataclass(slots=True)
class Player:
    id: PlayerId
    color: str
    score: int = 0  # points of the roads built (R3.1); the final total is in results
    wheels: int = WHEELS
    hand: list[int] = field(default_factory=lambda: [0] * len(COLORS))
    destinations: list[int] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)  # drawn, not yet chosen (R2.4, R7.1)
    roads: list[int] = field(default_factory=list)
    prepared: bool = False
    vote_end: bool = False


@dataclass(slots=True)
class GameState:
    board: Board
    seed: int
    rng: random.Random
    players: list[Player]  # in turn order, which is the colour order (R4.1)
    deck: list[int]
    discard: list[int] = field(default_factory=list)
    face_up: list[int | None] = field(default_factory=lambda: [None] * DISPLAY_SIZE)
    wipes_in_row: int = 0  # R5.5
    short_deck: list[int] = field(default_factory=list)
    out_of_game: list[int] = field(default_factory=list)  # undealt long cards (R1.5)
    prep_returned: list[int] = field(default_factory=list)  # rejected in R2.4, not yet under
    road_owner: list[int | None] = field(default_factory=list)  # player index per road
    status: str = PREPARATION
    current: int = 0
    turn: str | None = None
    final_turns_left: int | None = None  # R8.1
    passes_in_row: int = 0  # R8.2
    end_reason: str | None = None
    seq: int = 0  # moves applied
    results: list[dict] | None = None
    seats: dict[PlayerId, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.seats = {player.id: i for i, player in enumerate(self.players)}

    def index_of(self, player_id: PlayerId) -> int:
        try:
            return self.seats[player_id]
        except (KeyError, TypeError):
            raise NotSeated(
                "player {player} has no seat in this game", player=repr(player_id)
            ) from None


# ---------------------------------------------------------------------------- storage


def to_dict(state: GameState) -> dict:
    """The whole state as JSON-able data (secrets included: for storage only, never a client)."""
    return {
        "board": state.board.name,
        "seed": state.seed,
        "rng": contract.dump_rng(state.rng),
        "players": [
            {
                "id": p.id,
                "color": p.color,
                "score": p.score,
                "wheels": p.wheels,
                "hand": list(p.hand),
                "destinations": list(p.destinations),
                "pending": list(p.pending),
                "roads": list(p.roads),
                "prepared": p.prepared,
                "vote_end": p.vote_end,
            }
            for p in state.players
        ],
        "deck": list(state.deck),
        "discard": list(state.discard),
        "face_up": list(state.face_up),
        "wipes_in_row": state.wipes_in_row,
        "short_deck": list(state.short_deck),
        "out_of_game": list(state.out_of_game),
        "prep_returned": list(state.prep_returned),
        "road_owner": list(state.road_owner),
        "status": state.status,
        "current": state.current,
        "turn": state.turn,
        "final_turns_left": state.final_turns_left,
        "passes_in_row": state.passes_in_row,
        "end_reason": state.end_reason,
        "seq": state.seq,
        "results": contract.plain_copy(state.results),
    }


def from_dict(data: dict, board: Board | None = None) -> GameState:
    """Rebuild a state saved by :func:`to_dict`; the state shares nothing with ``data``."""
    board = board or basel()
    if data["board"] != board.name:
        raise ValueError(f"state is for board {data['board']!r}, not {board.name!r}")
    rng = contract.load_rng(data["rng"])
    piles = (
        "deck",
        "discard",
        "face_up",
        "short_deck",
        "out_of_game",
        "prep_returned",
        "road_owner",
    )
    scalars = (
        "seed",
        "wipes_in_row",
        "status",
        "current",
        "turn",
        "final_turns_left",
        "passes_in_row",
        "end_reason",
        "seq",
    )
    player_lists = ("hand", "destinations", "pending", "roads")
    return GameState(
        board=board,
        rng=rng,
        players=[
            Player(**{**p, **{name: list(p[name]) for name in player_lists}})
            for p in data["players"]
        ],
        results=contract.plain_copy(data["results"]),
        **{name: list(data[name]) for name in piles},
        **{name: data[name] for name in scalars},
    )


def scramble(state: GameState, player_id: PlayerId | None, rng: random.Random) -> GameState:
    """A copy of ``state`` that differs only in what ``player_id`` (None: a spectator) may not
    know: deck and discard order, the generator, the other players' wheel cards (same count),
    their destination and pending cards (same counts, long for long, short for short) and the
    order of the short deck and of the long cards out of the game."""
    viewer = None if player_id is None else state.index_of(player_id)
    s = from_dict(to_dict(state), state.board)
    s.rng = random.Random(rng.getrandbits(64))
    rng.shuffle(s.deck)
    rng.shuffle(s.discard)
    if s.status == FINISHED:
        return s  # R8.3: every hand is revealed at the end
    others = [p for i, p in enumerate(s.players) if i != viewer]
    pool = list(s.deck)
    for p in others:
        pool.extend(c for c, count in enumerate(p.hand) for _ in range(count))
    rng.shuffle(pool)
    for p in others:
        size = sum(p.hand)
        p.hand = [0] * len(COLORS)
        for _ in range(size):
            p.hand[pool.pop()] += 1
    s.deck = pool
    piles = [s.short_deck, s.out_of_game]
    piles += [p.destinations for p in others] + [p.pending for p in others]
    for long in (False, True):
        spots = [
            (pile, i)
            for pile in piles
            for i, card in enumerate(pile)
            if s.board.destinations[card].long == long
        ]
        cards = [pile[i] for pile, i in spots]
        rng.shuffle(cards)
        for (pile, i), card in zip(spots, cards, strict=True):
            pile[i] = card
    return s
