"""The RAGE rules engine: pure Python, no Django (the contract of ``games.contract``).

The rules are ``rage-rules.md`` (ids G1.1 ... G6.2); every refusal names the rule it enforces.
Two moves: ``{"type": "BID", "tricks": n}`` (G2) and ``{"type": "PLAY_CARD", "card": "red-7"}``
(a Joker names its colour: ``{"type": "PLAY_CARD", "card": "joker", "color": "red"}``, G3.5).
The last card of a round scores it (G4) and deals the next one (G1.2) in the same move.

Decisions where the rules leave room:

* The shuffled deck is dealt in blocks, starting left of the dealer; the rest is the stack, its
  top first (``stack[0]``).
* An action card (the Joker included) may be played only by the leader or by a player who can't
  follow (G3.2); a Joker played then may name any colour.
* Under hidden and secret bids a player always sees their own bid; ``has_bid`` is public.
* A No Trump in the last trick of a round turns nothing up after it (the round is over).
* While a No Trump holds, ``trump`` is ``null`` and ``no_trump`` is true; the face-down card
  stays in ``trump_pile`` (everybody saw it).
* Once the game is over the round phase is ``"round_over"``. :func:`end_game` keeps the totals
  of the rounds scored so far; the round being played does not count.
* Durchmarsch (G4.2) doubles only the trick points, not the action points.

Events (public feed entries; each has ``kind`` and ``player``, ``None`` for the table):
``bid`` (``tricks`` only under open bids), ``bids_revealed`` (hidden bids, ``bids``),
``card_played`` (``card``, ``color`` for a Joker), ``trump_suspended`` (a No Trump),
``trump_turned`` (``cards``, ``trump``), ``trick_won`` (``winner``, ``cards``),
``round_scored`` (``round``, ``rows``), ``round_dealt`` (``round``, ``dealer``, ``trump``),
``game_over`` (``reason``, ``results``).

The rules' modules: ``state`` (constants, options, the state and its storage), ``setup`` (the
deal), ``legal`` (who may move and what), ``scoring`` (tricks, rounds, the end) and ``views``;
this module applies the moves and hands on their names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from games.contract import (
    BadField,
    EngineError,
    GameOver,
    IllegalMove,
    NotYourTurn,
    PlayerId,
    UnknownType,
)

from .cards import CARD_NAMES, CHANGE_TRUMP, COLOR_OF, COLORS, JOKER, NO_TRUMP, sorted_hand
from .legal import _bidders, _can_follow, _forbidden_bid, legal_moves, to_move
from .scoring import _score_round, end_game, round_points, trick_winner
from .setup import _turn_up, deal, new_game
from .state import (
    BID_MODES,
    BIDDING,
    FINISHED,
    KIND,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MOVE_TYPES,
    OPTIONS,
    PLAYING,
    ROUND_OVER,
    ROUNDS,
    ROUNDS_PLAYED,
    RUNNING,
    GameState,
    _entry,
    _seat,
    check_options,
    from_dict,
    is_over,
    phase,
    results,
    to_dict,
)
from .views import scramble, view

__all__ = [
    "BIDDING",
    "BID_MODES",
    "FINISHED",
    "KIND",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MOVE_TYPES",
    "OPTIONS",
    "PLAYING",
    "ROUNDS",
    "ROUNDS_PLAYED",
    "ROUND_OVER",
    "RUNNING",
    "EngineError",
    "GameState",
    "apply",
    "check_options",
    "deal",
    "end_game",
    "from_dict",
    "is_over",
    "legal_moves",
    "new_game",
    "phase",
    "replay",
    "results",
    "round_points",
    "scramble",
    "to_dict",
    "to_move",
    "trick_winner",
    "view",
]


# ---------------------------------------------------------------------------- applying moves


def apply(state: GameState, player: PlayerId, move: Any) -> tuple[GameState, list[dict]]:
    """Apply one move; ``(state, events)``. A refused move raises an :class:`EngineError`
    naming the rule and changes nothing."""
    if not isinstance(move, dict):
        raise BadField("a move is a JSON object with a 'type'")
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in MOVE_TYPES:
        raise UnknownType("unknown move type {type}", type=repr(kind))
    seat = _seat(state, player)
    if is_over(state):
        raise GameOver("the game is over")
    events = _bid(state, seat, move) if kind == "BID" else _play(state, seat, move)
    state.seq += 1
    return state, events


def _field_error(message: str, name: str, **params: object) -> BadField:
    error = BadField(message, **params)
    error.field = name
    return error


def _bid(state: GameState, seat: int, move: dict) -> list[dict]:
    tricks = move.get("tricks")
    if type(tricks) is not int:
        raise _field_error("tricks is a whole number", "tricks")
    if state.phase != BIDDING:
        raise IllegalMove("every bid of this round is in", "G2.3")
    if state.bids[seat] is not None:
        raise IllegalMove("you have already bid {tricks}", "G2.1", tricks=state.bids[seat])
    if seat not in _bidders(state):
        raise NotYourTurn(
            "bids go in order from left of the dealer: it is {player}'s turn to bid",
            "G2.1",
            player=str(state.players[_bidders(state)[0]]),
        )
    if not 0 <= tricks <= state.hand_size:
        raise IllegalMove(
            "a bid is 0 to {cards} tricks, not {tricks}",
            "G2.1",
            cards=state.hand_size,
            tricks=tricks,
        )
    if tricks == _forbidden_bid(state, seat):
        raise IllegalMove(
            "plus/minus one: the bids may not add up to {cards}, so the dealer may not bid "
            "{tricks}",
            "G2.2",
            cards=state.hand_size,
            tricks=tricks,
        )
    state.bids[seat] = tricks
    mode = state.options["bids"]
    event: dict[str, Any] = {"kind": "bid", "player": state.players[seat]}
    if mode == "open":
        event["tricks"] = tricks
    events = [event]
    if all(bid is not None for bid in state.bids):
        state.phase = PLAYING  # G2.3
        if mode == "hidden":
            events.append(
                {
                    "kind": "bids_revealed",
                    "player": None,
                    "bids": [
                        {"player": p, "tricks": b}
                        for p, b in zip(state.players, state.bids, strict=True)
                    ],
                }
            )
    return events


def _play(state: GameState, seat: int, move: dict) -> list[dict]:
    card = move.get("card")
    if not isinstance(card, str) or card not in CARD_NAMES:
        raise _field_error("card names a RAGE card, such as red-7 or joker", "card")
    color = COLOR_OF.get(card)
    if card == JOKER:
        color = move.get("color")
        if not isinstance(color, str) or color not in COLORS:
            raise _field_error(
                "a Joker names its colour: one of {colors}", "color", colors=", ".join(COLORS)
            )
    if state.phase != PLAYING:
        raise IllegalMove("no card is played before every bid is in", "G2.3")
    if seat != state.current:
        raise NotYourTurn(
            "it is {player}'s turn to play", "G3.1", player=str(state.players[state.current])
        )
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalMove("you do not hold {card}", "G3.2", card=card)
    lead = state.lead_color
    if COLOR_OF.get(card) != lead and _can_follow(hand, lead):
        follow = next(c for c in sorted_hand(hand) if COLOR_OF.get(c) == lead)
        raise IllegalMove(
            "you must follow {color}: you hold {card}", "G3.2", color=lead, card=follow
        )
    hand.remove(card)
    player = state.players[seat]
    state.trick.append([seat, card, color])
    if state.lead_color is None and color is not None:
        state.lead_color = color  # G3.3, G3.5
    played: dict[str, Any] = {"kind": "card_played", "player": player, "card": card}
    if card == JOKER:
        played["color"] = color
    events = [played]
    if card == NO_TRUMP:  # G3.6
        state.no_trump = True
        state.trump = None
        events.append({"kind": "trump_suspended", "player": player})
    elif card == CHANGE_TRUMP:  # G3.7: also ends a No Trump of this trick
        state.no_trump = False
        turned = _turn_up(state)
        events.append(
            {"kind": "trump_turned", "player": player, "cards": turned, "trump": state.trump}
        )
    if len(state.trick) == len(state.players):
        events.extend(_finish_trick(state))
    return events


def _finish_trick(state: GameState) -> list[dict]:
    winner = state.trick[trick_winner(state.trick, state.trump)][0]
    state.tricks_won[winner] += 1
    state.tricks.append({"cards": state.trick, "winner": winner})
    events: list[dict] = [
        {
            "kind": "trick_won",
            "player": state.players[winner],
            "winner": state.players[winner],
            "cards": [_entry(state, entry) for entry in state.trick],
        }
    ]
    state.trick = []
    state.lead_color = None
    state.leader = winner  # G3.1
    round_over = not any(state.hands)
    if state.no_trump:  # G3.6: one card after the trick, however many No Trumps
        state.no_trump = False
        if not round_over:
            turned = _turn_up(state)
            events.append(
                {"kind": "trump_turned", "player": None, "cards": turned, "trump": state.trump}
            )
    if round_over:
        events.extend(_score_round(state))
    return events


# ---------------------------------------------------------------------------- replay


def replay(
    seed: Any,
    players: Sequence[PlayerId],
    options: dict | None,
    moves: Iterable[tuple[PlayerId, dict]],
) -> GameState:
    state = new_game(seed, players, options)
    for player, move in moves:
        apply(state, player, move)
    return state
