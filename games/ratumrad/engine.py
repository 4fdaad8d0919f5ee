"""The Rat um Rad rules engine: pure Python, no Django.

The rules are in ``docs/rules.md``; every check below names the rule it enforces.

* :func:`new_game` deals a game from a seed (R2).
* :func:`legal_moves` lists what a player may send now, as protocol messages.
* :func:`apply` validates a move, changes the state **in place** and returns
  ``(state, events)``; an illegal move raises an :class:`EngineError` and changes nothing.
* :func:`view` is the only way state leaves the engine: the public view (R9.1) plus the
  viewer's own secrets (R9.2), never anyone else's (R9.3).
* :func:`results` scores a finished game (R8.3); :func:`replay` rebuilds a game from its
  seed, players and moves (R2.5).

Wheel cards are stored as colour indices (``COLORS``; the joker is the last), piles as lists
whose top is the last element.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from games import contract

from .board import CARD_COLORS, GREY, JOKER, Board, basel
from .paths import components, connected, longest_path_roads

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


# ---------------------------------------------------------------------------- setup (R2)


def new_game(seed: int, players: Sequence[PlayerId], board: Board | None = None) -> GameState:
    """Deal a new game: colours (R1.2), hands (R2.1), display (R2.2), destinations (R2.3)."""
    board = board or basel()
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise IllegalMove("a game needs 2 to 5 players, not {count}", "R1.1", count=len(players))
    if len(set(players)) != len(players):
        raise IllegalMove("every player takes one seat only", "R1.1")
    rng = random.Random(seed)
    colors = list(range(len(players)))
    rng.shuffle(colors)
    seated = sorted(zip(colors, players, strict=True), key=lambda pair: pair[0])
    state = GameState(
        board=board,
        seed=seed,
        rng=rng,
        players=[Player(id=pid, color=PLAYER_COLORS[c]) for c, pid in seated],
        deck=[c for c in range(len(COLORS)) for _ in range(CARDS_PER_COLOR)],
        road_owner=[None] * len(board.roads),
    )
    rng.shuffle(state.deck)
    for player in state.players:
        for _ in range(START_HAND):
            player.hand[state.deck.pop()] += 1
    _settle_cards(state, [])
    state.short_deck = [d.id for d in board.short_destinations]
    rng.shuffle(state.short_deck)
    long_cards = [d.id for d in board.long_destinations]
    rng.shuffle(long_cards)
    for player in state.players:
        player.pending = [state.short_deck.pop() for _ in range(START_SHORT)]
        player.destinations = [long_cards.pop()]
    state.out_of_game = long_cards
    return state


# ---------------------------------------------------------------------------- legal moves


def legal_moves(state: GameState, player_id: PlayerId) -> list[dict]:
    """Every move ``player_id`` may send now, exactly as it would be sent."""
    pi = state.index_of(player_id)
    if state.status == FINISHED:
        return []
    player = state.players[pi]
    moves = _turn_moves(state, pi)
    moves.append({"type": "VOTE_END", "end": not player.vote_end})
    return moves


def turn_moves(state: GameState, player_id: PlayerId) -> list[dict]:
    """Like :func:`legal_moves` without the vote to end: what moves the game forward."""
    if state.status == FINISHED:
        return []
    return _turn_moves(state, state.index_of(player_id))


def _turn_moves(state: GameState, pi: int) -> list[dict]:
    player = state.players[pi]
    if state.status == PREPARATION:
        if player.prepared:
            return []
        cards = player.pending
        keeps = [list(cards)] + [list(pair) for pair in combinations(cards, len(cards) - 1)]
        return [
            {"type": "SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION", "keep": keep}
            for keep in keeps
        ]
    if pi != state.current:
        return []
    if state.turn == CHOOSE_DESTINATIONS:
        cards = player.pending
        return [
            {"type": "KEEP_DESTINATION_CARDS", "keep": list(keep)}
            for size in range(1, len(cards) + 1)
            for keep in combinations(cards, size)
        ]
    if state.turn == SECOND_CARD:
        return _take_moves(state, second=True)
    moves = _take_moves(state, second=False) if _can_draw_wheels(state) else []
    moves.extend(_build_moves(state, pi))
    if state.short_deck:
        moves.append({"type": "DRAW_DESTINATION_CARDS"})
    return moves


def _take_moves(state: GameState, *, second: bool) -> list[dict]:
    moves = [{"type": "TAKE_WHEEL", "source": "deck"}] if state.deck else []
    for slot, card in enumerate(state.face_up):
        if card is not None and not (second and card == J):  # R5.4
            moves.append({"type": "TAKE_WHEEL", "source": "face_up", "slot": slot})
    return moves


def _can_take_second(state: GameState) -> bool:
    """R5.4/R5.7: a second card exists unless only face-up jokers (or nothing) are left."""
    if state.deck:
        return True
    return any(card is not None and card != J for card in state.face_up)


def _can_draw_wheels(state: GameState) -> bool:
    """R5.7: drawing is possible while the deck has cards or two or more are face up."""
    if state.deck:
        return True
    return sum(card is not None for card in state.face_up) >= 2


def _road_closed(state: GameState, pi: int, road_id: int) -> IllegalMove | None:
    """Why ``road_id`` cannot be built by player ``pi``, as the error to raise; or None."""
    if state.road_owner[road_id] is not None:
        return IllegalMove("that road is already built", "R6.1")
    twin = state.board.roads[road_id].double_of
    if twin is not None:
        twin_owner = state.road_owner[twin]
        if twin_owner == pi:
            return IllegalMove("you already built the other road of this double", "R6.3")
        if twin_owner is not None and len(state.players) <= 3:
            return IllegalMove("with 2 or 3 players only one road of a double can be built", "R6.4")
    return None


def _build_moves(state: GameState, pi: int) -> list[dict]:
    player = state.players[pi]
    hand = player.hand
    jokers = hand[J]
    wheels = player.wheels
    owner = state.road_owner
    small_game = len(state.players) <= 3
    # Which colours can pay how many wheels: hand[c] + jokers (R6.1).
    reach = [count + jokers for count in hand[:J]]
    longest = min(wheels, max(reach))
    moves = []
    for group in state.board.roads_by_length[1 : longest + 1]:
        for road_id, n, ci, twin in group:
            if owner[road_id] is not None:
                continue
            if twin >= 0 and (owner[twin] == pi or (small_game and owner[twin] is not None)):
                continue
            if ci < 0:
                for cj, color in enumerate(CARD_COLORS):
                    if reach[cj] >= n:
                        moves.append({"type": "BUILD_ROAD", "road": road_id, "color": color})
            elif reach[ci] >= n:
                moves.append({"type": "BUILD_ROAD", "road": road_id, "color": CARD_COLORS[ci]})
    return moves


def _has_turn_action(state: GameState, pi: int) -> bool:
    """R4.3: whether the player could do anything on a fresh turn."""
    if _can_draw_wheels(state) or state.short_deck:
        return True
    player = state.players[pi]
    jokers = player.hand[J]
    best_color = max(player.hand[:J])
    for road in state.board.roads:
        if road.length > player.wheels or _road_closed(state, pi, road.id):
            continue
        have = best_color if road.color == GREY else player.hand[COLOR_INDEX[road.color]]
        if have + jokers >= road.length:
            return True
    return False


# ---------------------------------------------------------------------------- applying moves


def apply(state: GameState, player_id: PlayerId, move: Any) -> tuple[GameState, list[dict]]:
    """Apply ``move`` by ``player_id`` to ``state`` in place; return the state and its events.

    Raises an :class:`EngineError` (with the protocol's code and the rule id in the message)
    and leaves the state untouched when the move is malformed or illegal.
    """
    if not isinstance(move, dict):
        raise BadField("a move is a JSON object with a 'type'")
    kind = move.get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise UnknownType("unknown move type {type}", type=repr(kind))
    pi = state.index_of(player_id)
    if state.status == FINISHED:
        raise GameOver("the game is over")
    events: list[dict] = []
    handler(state, pi, move, events)
    state.seq += 1
    return state, events


def _require_turn(state: GameState, pi: int) -> None:
    if state.status == PREPARATION:
        raise IllegalMove("everyone first chooses their short destination cards", "R2.4")
    if pi != state.current:
        raise NotYourTurn("it is not your turn", "R4.1")


def _require_fresh_turn(state: GameState, pi: int) -> None:
    _require_turn(state, pi)
    if state.turn == SECOND_CARD:
        raise IllegalMove("take your second wheel card first", "R5.1")
    if state.turn == CHOOSE_DESTINATIONS:
        raise IllegalMove("choose which destination cards to keep first", "R7.3")


def _int_field(move: dict, name: str, *, required: bool = True) -> int | None:
    value = move.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadField("'{name}' must be a whole number", name=name)
    return value


def _id_list(move: dict, name: str) -> list[int]:
    value = move.get(name)
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise BadField("'{name}' must be a list of card ids", name=name)
    if len(set(value)) != len(value):
        raise BadField("'{name}' names a card twice", name=name)
    return value


def _prepare(state: GameState, pi: int, move: dict, events: list[dict]) -> None:
    keep = _id_list(move, "keep")
    player = state.players[pi]
    if state.status != PREPARATION:
        raise IllegalMove("short cards are chosen in the preparation phase only", "R2.4")
    if player.prepared:
        raise IllegalMove("you have already chosen your short destination cards", "R2.4")
    if not set(keep) <= set(player.pending):
        raise IllegalMove("keep only short cards you were dealt", "R2.4")
    if len(keep) < len(player.pending) - 1:
        raise IllegalMove("keep all three short cards or reject exactly one", "R2.4")
    rejected = [card for card in player.pending if card not in keep]
    state.prep_returned.extend(rejected)
    player.destinations.extend(card for card in player.pending if card in keep)
    player.pending = []
    player.prepared = True
    events.append({"kind": "prepared", "player": player.id, "kept": len(keep)})
    if all(p.prepared for p in state.players):
        returned = state.prep_returned
        state.rng.shuffle(returned)
        state.short_deck[0:0] = returned  # R2.4: shuffled together, under the short deck
        state.prep_returned = []
        state.status = RUNNING
        state.current = 0
        state.turn = None
        events.append({"kind": "game_started", "player": state.players[0].id})
        _begin_turn(state, events)


def _take_wheel(state: GameState, pi: int, move: dict, events: list[dict]) -> None:
    source = move.get("source")
    if source not in ("deck", "face_up"):
        raise BadField("'source' must be 'deck' or 'face_up'")
    slot = _int_field(move, "slot") if source == "face_up" else None
    if slot is not None and not 0 <= slot < DISPLAY_SIZE:
        raise BadField("'slot' must be 0 to 4")
    _require_turn(state, pi)
    if state.turn == CHOOSE_DESTINATIONS:
        raise IllegalMove("choose which destination cards to keep first", "R7.3")
    second = state.turn == SECOND_CARD
    if not second and not _can_draw_wheels(state):
        raise IllegalMove(
            "the deck is empty and fewer than 2 cards are face up: no wheel cards can be drawn",
            "R5.7",
        )
    player = state.players[pi]
    if source == "deck":
        if not state.deck:
            raise IllegalMove("the deck is empty", "R5.7")
        card = state.deck.pop()
        player.hand[card] += 1
        events.append({"kind": "took_wheel", "player": player.id, "source": "deck"})
    else:
        card = state.face_up[slot]
        if card is None:
            raise IllegalMove("that face-up slot is empty", "R5.1")
        if second and card == J:
            raise IllegalMove("a face-up joker cannot be taken as the second card", "R5.4")
        state.face_up[slot] = None
        player.hand[card] += 1
        state.wipes_in_row = 0  # R5.5: a card taken from the display ends a run of wipes
        events.append(
            {
                "kind": "took_wheel",
                "player": player.id,
                "source": "face_up",
                "slot": slot,
                "color": COLORS[card],
            }
        )
    _settle_cards(state, events)  # R5.2 refill, R5.5, R5.6
    ends_draw = second or (source == "face_up" and card == J)  # R5.3
    if not ends_draw and not _can_take_second(state):
        ends_draw = True  # R5.7: nothing legal is left for the second card
    if ends_draw:
        _end_turn(state, events)
    else:
        state.turn = SECOND_CARD


def _payment(state: GameState, pi: int, move: dict) -> tuple[int, int, int]:
    """Validate a BUILD_ROAD; return (road id, colour index, jokers used)."""
    road_id = _int_field(move, "road")
    color = move.get("color")
    jokers = _int_field(move, "jokers", required=False)
    board = state.board
    if not 0 <= road_id < len(board.roads):
        raise BadField("there is no road {road}", road=road_id)
    if color is not None and color not in CARD_COLORS:
        raise BadField("'color' must be one of {colors}", colors=", ".join(CARD_COLORS))
    if jokers is not None and jokers < 0:
        raise BadField("'jokers' cannot be negative")
    _require_fresh_turn(state, pi)
    road = board.roads[road_id]
    closed = _road_closed(state, pi, road_id)
    if closed:
        raise closed
    player = state.players[pi]
    n = road.length
    if player.wheels < n:
        raise IllegalMove(
            "the road needs {n} wheels and you have {wheels}", "R6.1", n=n, wheels=player.wheels
        )
    if road.color == GREY:
        if color is None:
            raise IllegalMove("name the colour you pay a grey road with", "R6.1")
    elif color is None:
        color = road.color
    elif color != road.color:
        raise IllegalMove("this road is paid with {color} cards", "R6.1", color=road.color)
    ci = COLOR_INDEX[color]
    have, have_jokers = player.hand[ci], player.hand[J]
    if jokers is None:
        jokers = max(0, n - have)  # R6.5: the fewest jokers that cover the cost
    if jokers > n:
        raise IllegalMove("the road costs only {n} cards", "R6.5", n=n)
    if jokers > have_jokers or n - jokers > have:
        raise IllegalMove(
            "the road costs {n} cards of one colour ({color}) or jokers; "
            "you have {have} {color} and {jokers} jokers",
            "R6.1",
            n=n,
            color=color,
            have=have,
            jokers=have_jokers,
        )
    return road_id, ci, jokers


def _build_road(state: GameState, pi: int, move: dict, events: list[dict]) -> None:
    road_id, ci, jokers = _payment(state, pi, move)
    road = state.board.roads[road_id]
    player = state.players[pi]
    colored = road.length - jokers
    player.hand[ci] -= colored
    player.hand[J] -= jokers
    state.discard.extend([ci] * colored + [J] * jokers)  # R6.2
    state.road_owner[road_id] = pi
    player.roads.append(road_id)
    player.wheels -= road.length
    player.score += road.points  # R3.1
    events.append(
        {
            "kind": "built_road",
            "player": player.id,
            "road": road_id,
            "color": CARD_COLORS[ci],
            "jokers": jokers,
            "points": road.points,
            "wheels": player.wheels,
        }
    )
    if player.wheels <= 5:
        events.append({"kind": "few_wheels", "player": player.id, "wheels": player.wheels})
    if not any(player.hand):
        events.append({"kind": "no_wheel_cards", "player": player.id})
    _settle_cards(state, events)
    _end_turn(state, events)


def _draw_destinations(state: GameState, pi: int, move: dict, events: list[dict]) -> None:
    _require_fresh_turn(state, pi)
    if not state.short_deck:
        raise IllegalMove("the short destination deck is empty", "R7.1")
    player = state.players[pi]
    count = min(DESTINATION_DRAW, len(state.short_deck))
    player.pending = [state.short_deck.pop() for _ in range(count)]
    state.turn = CHOOSE_DESTINATIONS
    events.append({"kind": "drew_destinations", "player": player.id, "count": count})


def _keep_destinations(state: GameState, pi: int, move: dict, events: list[dict]) -> None:
    keep = _id_list(move, "keep")
    _require_turn(state, pi)
    if state.turn != CHOOSE_DESTINATIONS:
        raise IllegalMove("draw destination cards before choosing which to keep", "R7.1")
    player = state.players[pi]
    if not keep:
        raise IllegalMove("keep at least one of the drawn destination cards", "R7.1")
    if not set(keep) <= set(player.pending):
        raise IllegalMove("keep only destination cards you just drew", "R7.1")
    returned = [card for card in player.pending if card not in keep]
    state.rng.shuffle(returned)
    state.short_deck[0:0] = returned  # R7.2
    player.destinations.extend(card for card in player.pending if card in keep)
    player.pending = []
    events.append(
        {
            "kind": "kept_destinations",
            "player": player.id,
            "kept": len(keep),
            "returned": len(returned),
        }
    )
    _end_turn(state, events)


def _vote_end(state: GameState, pi: int, move: dict, events: list[dict]) -> None:
    end = move.get("end")
    if not isinstance(end, bool):
        raise BadField("'end' must be true or false")
    player = state.players[pi]
    if player.vote_end == end:
        if end:
            raise IllegalMove("you have already voted to end", "R8.2")
        raise IllegalMove("you have not voted to end", "R8.2")
    player.vote_end = end
    events.append({"kind": "voted_end", "player": player.id, "end": end})
    if all(p.vote_end for p in state.players):
        _finish(state, events, "vote")


_HANDLERS = {
    "SHORT_DESTINATION_CARDS_SELECTED_IN_PREPARATION": _prepare,
    "TAKE_WHEEL": _take_wheel,
    "BUILD_ROAD": _build_road,
    "DRAW_DESTINATION_CARDS": _draw_destinations,
    "KEEP_DESTINATION_CARDS": _keep_destinations,
    "VOTE_END": _vote_end,
}
MOVE_TYPES: tuple[str, ...] = tuple(_HANDLERS)


# ---------------------------------------------------------------------------- cards and turns


def _settle_cards(state: GameState, events: list[dict]) -> None:
    """Keep the wheel piles in order after any change: R5.6 reshuffle, R5.2 refill, R5.5."""
    _refill_display(state, events)
    face_up = state.face_up
    while state.wipes_in_row < MAX_WIPES_IN_ROW and face_up.count(J) >= 3:
        state.discard.extend(card for card in face_up if card is not None)
        state.face_up = face_up = [None] * DISPLAY_SIZE
        state.wipes_in_row += 1
        events.append(
            {
                "kind": "display_wiped",
                "locked": state.wipes_in_row >= MAX_WIPES_IN_ROW,
            }
        )
        _refill_display(state, events)
    _reshuffle_if_empty(state, events)


def _reshuffle_if_empty(state: GameState, events: list[dict]) -> None:
    if not state.deck and state.discard:
        state.deck, state.discard = state.discard, []
        state.rng.shuffle(state.deck)  # R5.6
        events.append({"kind": "deck_reshuffled", "cards": len(state.deck)})


def _refill_display(state: GameState, events: list[dict]) -> None:
    face_up = state.face_up
    if None not in face_up:
        return
    for slot in range(DISPLAY_SIZE):
        if face_up[slot] is None:
            _reshuffle_if_empty(state, events)
            if not state.deck:
                return
            face_up[slot] = state.deck.pop()


def _end_turn(state: GameState, events: list[dict], *, passed: bool = False) -> None:
    """Close the current player's turn: R8.1 final round, then the next player's turn."""
    if not passed:
        state.passes_in_row = 0
    state.turn = None
    player = state.players[state.current]
    if state.final_turns_left is None:
        if player.wheels <= FINAL_ROUND_WHEELS:
            # R8.1: everyone, the trigger included, takes exactly one more turn.
            state.final_turns_left = len(state.players)
            state.status = FINAL_ROUND
            events.append({"kind": "final_round", "player": player.id, "wheels": player.wheels})
    else:
        state.final_turns_left -= 1
        if state.final_turns_left == 0:
            _finish(state, events, "final_round")
            return
    state.current = (state.current + 1) % len(state.players)
    _begin_turn(state, events)


def _begin_turn(state: GameState, events: list[dict]) -> None:
    pi = state.current
    if _has_turn_action(state, pi):
        return
    # R4.3: no legal action, the player passes; R8.2: everyone passing in a row ends the game.
    events.append({"kind": "passed", "player": state.players[pi].id})
    state.passes_in_row += 1
    if state.passes_in_row >= len(state.players):
        _finish(state, events, "all_passed")
        return
    _end_turn(state, events, passed=True)


def _finish(state: GameState, events: list[dict], reason: str) -> None:
    for player in state.players:
        # Cards still being chosen never reached a hand: back under the short deck.
        state.short_deck[0:0] = player.pending
        player.pending = []
    state.short_deck[0:0] = state.prep_returned
    state.prep_returned = []
    state.status = FINISHED
    state.turn = None
    state.end_reason = reason
    state.results = results(state)
    winners = [row["player"] for row in state.results if row["place"] == 1]
    events.append({"kind": "game_over", "reason": reason, "winners": winners})


def end_game(state: GameState, reason: str) -> list[dict]:
    """End a running game now (an admin's decision), scored as usual (R8.3)."""
    if state.status == FINISHED:
        raise GameOver("the game is over")
    events: list[dict] = []
    _finish(state, events, reason)
    state.seq += 1
    return events


# ---------------------------------------------------------------------------- scoring (R3, R8.3)


def results(state: GameState) -> list[dict]:
    """R8.3: the final score sheet, best place first (R3.2–R3.4)."""
    board = state.board
    rows = []
    for player in state.players:
        component = components(board, player.roads)
        cards = []
        for card_id in player.destinations:
            card = board.destinations[card_id]
            cards.append(_card_dict(card, complete=connected(component, card.a, card.b)))
        reached = [c for c in cards if c["complete"]]
        missed = [c for c in cards if not c["complete"]]
        path = longest_path_roads(board, player.roads)
        rows.append(
            {
                "player": player.id,
                "color": player.color,
                "road_points": player.score,
                "destinations_reached": len(reached),
                "destinations_reached_points": sum(c["points"] for c in reached),
                "destinations_missed": len(missed),
                "destinations_missed_points": sum(c["points"] for c in missed),
                "longest_path": sum(board.roads[road_id].length for road_id in path),
                "longest_path_roads": path,
                "destinations": cards,
                "hand": _hand_dict(player.hand),
            }
        )
    best_path = max(row["longest_path"] for row in rows)
    holders = sum(row["longest_path"] == best_path for row in rows)
    for row in rows:
        # R3.3: a tie gives the bonus to every tied player; no road, no bonus.
        row["longest_path_bonus"] = best_path > 0 and row["longest_path"] == best_path
        row["longest_path_tie"] = row["longest_path_bonus"] and holders > 1
        row["total"] = (
            row["road_points"]
            + row["destinations_reached_points"]
            - row["destinations_missed_points"]
            + (LONGEST_PATH_BONUS if row["longest_path_bonus"] else 0)
        )

    def rank_key(row: dict) -> tuple[int, int, bool]:  # R3.4
        return (row["total"], row["destinations_reached"], row["longest_path_bonus"])

    rows.sort(key=rank_key, reverse=True)
    for i, row in enumerate(rows):
        tied_above = i > 0 and rank_key(rows[i - 1]) == rank_key(row)
        row["place"] = rows[i - 1]["place"] if tied_above else i + 1
    for row in rows:
        row["tied"] = sum(r["place"] == row["place"] for r in rows) > 1
        row["won"] = row["place"] == 1  # a shared first place wins too
    return rows


def _card_dict(card: Any, **extra: Any) -> dict:
    return {
        "id": card.id,
        "a": card.a,
        "b": card.b,
        "points": card.points,
        "long": card.long,
        **extra,
    }


def _hand_dict(hand: list[int]) -> dict[str, int]:
    return dict(zip(COLORS, hand, strict=True))


# ---------------------------------------------------------------------------- views (R9)


def view(state: GameState, player_id: PlayerId | None = None) -> dict:
    """What ``player_id`` may see (R9.1 + R9.2); ``None`` is a spectator (R9.1 only)."""
    pi = None if player_id is None else state.index_of(player_id)
    board = state.board
    in_play = state.status != PREPARATION and state.status != FINISHED
    data: dict[str, Any] = {
        "status": state.status,
        "seq": state.seq,
        "current_player": state.players[state.current].id if in_play else None,
        "turn": state.turn,
        "final_round": state.final_turns_left is not None,
        "final_turns_left": state.final_turns_left,
        "players": [
            {
                "id": p.id,
                "color": p.color,
                "score": p.score,
                "wheels": p.wheels,
                "wheel_cards": sum(p.hand),
                "destination_cards": len(p.destinations),
                "pending_destination_cards": len(p.pending),
                "prepared": p.prepared,
                "voted_end": p.vote_end,
            }
            for p in state.players
        ],
        "face_up": [None if card is None else COLORS[card] for card in state.face_up],
        "deck": len(state.deck),
        "discard": len(state.discard),
        "short_deck": len(state.short_deck),
        "roads": [
            {"road": road_id, "owner": state.players[owner].id}
            for road_id, owner in enumerate(state.road_owner)
            if owner is not None
        ],
        "legal": [],
    }
    if pi is not None:
        player = state.players[pi]
        component = components(board, player.roads)
        data["you"] = {
            "player_id": player.id,
            "color": player.color,
            "hand": _hand_dict(player.hand),
            "destinations": [
                _card_dict(card, complete=connected(component, card.a, card.b))
                for card in (board.destinations[d] for d in player.destinations)
            ],
            "pending_destinations": [_card_dict(board.destinations[d]) for d in player.pending],
        }
        data["legal"] = legal_moves(state, player.id)
    if state.status == FINISHED:
        data["end_reason"] = state.end_reason
        data["results"] = copy.deepcopy(state.results)
    return data


# ---------------------------------------------------------------------------- replay and storage


def replay(
    seed: int,
    players: Sequence[PlayerId],
    moves: Iterable[tuple[PlayerId, dict]],
    board: Board | None = None,
) -> GameState:
    """R2.5: rebuild a game exactly from its seed, its players and its moves."""
    state = new_game(seed, players, board)
    for player_id, move in moves:
        apply(state, player_id, move)
    return state


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
        "results": copy.deepcopy(state.results),
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
        results=copy.deepcopy(data["results"]),
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
