"""The Rat um Rad rules engine: pure Python, no Django.

The rules are in ``docs/rules.md``; every check below names the rule it enforces.

* :func:`new_game` deals a game from a seed (R2).
* :func:`legal_moves` lists what a player may send now, as protocol messages (``legal``).
* :func:`apply` validates a move, changes the state **in place** and returns
  ``(state, events)``; an illegal move raises an :class:`EngineError` and changes nothing.
* :func:`view` is the only way state leaves the engine: the public view (R9.1) plus the
  viewer's own secrets (R9.2), never anyone else's (R9.3) (``views``).
* :func:`results` scores a finished game (R8.3, ``scoring``); :func:`replay` rebuilds a game
  from its seed, players and moves (R2.5).

This module deals the game and applies the moves; it stands on ``state`` (the constants, the
state and its storage), ``legal``, ``turns`` (the wheel piles, the turn order and the end of
the game), ``scoring`` and ``views``, and hands on their names: ``engine.X`` is the whole rule
book.

Wheel cards are stored as colour indices (``COLORS``; the joker is the last), piles as lists
whose top is the last element.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from .board import CARD_COLORS, GREY, Board, basel
from .legal import (
    _can_draw_wheels,
    _can_take_second,
    _id_list,
    _int_field,
    _require_fresh_turn,
    _require_turn,
    _road_closed,
    legal_moves,
    turn_moves,
)
from .scoring import results
from .state import (
    CARDS_PER_COLOR,
    CHOOSE_DESTINATIONS,
    COLOR_INDEX,
    COLORS,
    DESTINATION_DRAW,
    DISPLAY_SIZE,
    FINAL_ROUND,
    FINAL_ROUND_WHEELS,
    FINISHED,
    LONGEST_PATH_BONUS,
    MAX_PLAYERS,
    MAX_WIPES_IN_ROW,
    MIN_PLAYERS,
    PLAYER_COLORS,
    PREPARATION,
    RUNNING,
    SECOND_CARD,
    START_HAND,
    START_SHORT,
    WHEELS,
    BadField,
    EngineError,
    GameOver,
    GameState,
    IllegalMove,
    J,
    NotSeated,
    NotYourTurn,
    Player,
    PlayerId,
    UnknownType,
    from_dict,
    scramble,
    to_dict,
)
from .turns import _begin_turn, _end_turn, _finish, _settle_cards, end_game
from .views import view

__all__ = [
    "CARDS_PER_COLOR",
    "CARD_COLORS",
    "CHOOSE_DESTINATIONS",
    "COLORS",
    "COLOR_INDEX",
    "DESTINATION_DRAW",
    "DISPLAY_SIZE",
    "FINAL_ROUND",
    "FINAL_ROUND_WHEELS",
    "FINISHED",
    "LONGEST_PATH_BONUS",
    "MAX_PLAYERS",
    "MAX_WIPES_IN_ROW",
    "MIN_PLAYERS",
    "MOVE_TYPES",
    "PLAYER_COLORS",
    "PREPARATION",
    "RUNNING",
    "SECOND_CARD",
    "START_HAND",
    "START_SHORT",
    "WHEELS",
    "BadField",
    "EngineError",
    "GameOver",
    "GameState",
    "IllegalMove",
    "J",
    "NotSeated",
    "NotYourTurn",
    "Player",
    "PlayerId",
    "UnknownType",
    "apply",
    "end_game",
    "from_dict",
    "legal_moves",
    "new_game",
    "replay",
    "results",
    "scramble",
    "to_dict",
    "turn_moves",
    "view",
]


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


# ---------------------------------------------------------------------------- replay


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
