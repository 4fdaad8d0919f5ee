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
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.contract import (
    BadField,
    BadOption,
    EngineError,
    GameOver,
    IllegalMove,
    NotSeated,
    NotYourTurn,
    PlayerId,
    UnknownType,
    dump_rng,
    load_rng,
)

from .cards import (
    ACTION_POINTS,
    CARD_NAMES,
    CHANGE_TRUMP,
    COLOR_OF,
    COLORS,
    DECK,
    JOKER,
    NO_TRUMP,
    VALUE_OF,
    sorted_hand,
)

KIND = "rage"
MIN_PLAYERS = 3
MAX_PLAYERS = 8
MOVE_TYPES = frozenset({"BID", "PLAY_CARD"})
BID_MODES = ("open", "hidden", "secret")
OPTIONS = {"bids": "open", "plus_minus_one": False, "durchmarsch": False}
ROUNDS = 10  # G1.2

RUNNING = "RUNNING"
FINISHED = "FINISHED"
BIDDING = "bidding"
PLAYING = "playing"
ROUND_OVER = "round_over"
ROUNDS_PLAYED = "rounds_played"

__all__ = [
    "KIND",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MOVE_TYPES",
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


@dataclass(slots=True)
class GameState:
    """A game. Per-seat data are lists in seat order; a trick entry is ``[seat, card, color]``
    (``color``: a colour card's colour, a Joker's named colour, else ``None``)."""

    players: list[PlayerId]
    seed: Any = 0
    options: dict = field(default_factory=lambda: dict(OPTIONS))
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    round: int = 1
    dealer: int = 0
    phase: str = BIDDING
    status: str = RUNNING
    hands: list[list[str]] = field(default_factory=list)
    stack: list[str] = field(default_factory=list)  # stack[0] is the top (G1.3)
    trump_pile: list[str] = field(default_factory=list)  # turned up, oldest first
    trump: str | None = None
    no_trump: bool = False  # a No Trump holds for the rest of this trick (G3.6)
    bids: list[int | None] = field(default_factory=list)
    leader: int = 0  # who led (or leads) the current trick
    trick: list[list] = field(default_factory=list)
    lead_color: str | None = None
    tricks: list[dict] = field(default_factory=list)  # {"cards": [entry...], "winner": seat}
    tricks_won: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    sheet: list[list[dict]] = field(default_factory=list)  # per scored round, rows per seat
    seq: int = 0
    end_reason: str | None = None
    results: list[dict] | None = None

    @property
    def hand_size(self) -> int:
        """G1.2: round k deals 11 - k cards."""
        return ROUNDS + 1 - self.round

    @property
    def current(self) -> int:
        """The seat to play a card."""
        return (self.leader + len(self.trick)) % len(self.players)

    def bid_order(self) -> list[int]:
        """G2.1: left of the dealer first, the dealer last."""
        n = len(self.players)
        return [(self.dealer + 1 + i) % n for i in range(n)]


# ---------------------------------------------------------------------------- options and setup


def check_options(options: object) -> dict:
    """``bids`` (open, hidden or secret), ``plus_minus_one`` and ``durchmarsch`` (G2.2)."""
    if not isinstance(options, dict):
        raise BadOption("options", "options are a JSON object")
    for name, value in options.items():
        if name not in OPTIONS:
            raise BadOption(f"options.{name}", "RAGE has no option {name}", name=repr(name))
        if name == "bids":
            if _names_both(value):
                raise BadOption("options.bids", "hidden and secret bids exclude each other", "G2.2")
            if not isinstance(value, str) or value not in BID_MODES:
                raise BadOption(
                    "options.bids",
                    "bids are {choices}",
                    "G2.2",
                    choices=", ".join(BID_MODES),
                )
        elif not isinstance(value, bool):
            raise BadOption(f"options.{name}", "option {name} is true or false", name=name)
    checked = {**OPTIONS, **options}
    if checked["plus_minus_one"] and checked["bids"] != "open":
        raise BadOption(
            "options.plus_minus_one",
            "plus/minus one needs open bids: with {bids} bids nobody could enforce it",
            "G2.2",
            bids=checked["bids"],
        )
    return checked


def _names_both(value: object) -> bool:
    """``bids`` asking for hidden and secret at once (a list, or one string naming both)."""
    return isinstance(value, str | list | tuple) and "hidden" in value and "secret" in value


def new_game(seed: Any, players: Sequence[PlayerId], options: dict | None = None) -> GameState:
    """A new game: the first dealer drawn from the game's generator (G1.2), round 1 dealt."""
    options = check_options({} if options is None else options)
    players = list(players)
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise IllegalMove(
            "RAGE is played by 3 to 8 players, not by {count}", "G1.1", count=len(players)
        )
    n = len(players)
    state = GameState(
        players=players,
        seed=seed,
        options=options,
        rng=random.Random(seed),
        tricks_won=[0] * n,
        scores=[0] * n,
    )
    state.dealer = state.rng.randrange(n)
    deal(state)
    return state


def deal(state: GameState, deck: Sequence[str] | None = None) -> list[dict]:
    """Deal the current round (G1.2) and turn up trump (G1.3). ``deck``: the cards in order
    (tests), else the whole deck shuffled by the game's generator. The first
    ``players x hand size`` cards go to the hands in blocks, left of the dealer first; the rest
    is the stack, its top first."""
    n = len(state.players)
    if deck is None:
        cards = list(DECK)
        state.rng.shuffle(cards)
    else:
        cards = list(deck)
    size = state.hand_size
    state.hands = [[] for _ in range(n)]
    for i, seat in enumerate(state.bid_order()):
        state.hands[seat] = cards[i * size : (i + 1) * size]
    state.stack = cards[n * size :]
    state.trump_pile = []
    state.trump = None
    state.no_trump = False
    state.bids = [None] * n
    state.tricks_won = [0] * n
    state.trick = []
    state.tricks = []
    state.lead_color = None
    state.leader = (state.dealer + 1) % n  # G3.1
    state.phase = BIDDING
    turned = _turn_up(state)
    return [
        {
            "kind": "round_dealt",
            "player": state.players[state.dealer],
            "round": state.round,
            "dealer": state.players[state.dealer],
            "cards": state.hand_size,
            "trump": state.trump,
        },
        {"kind": "trump_turned", "player": None, "cards": turned, "trump": state.trump},
    ]


def _turn_up(state: GameState) -> list[str]:
    """G1.3: turn up stack cards onto the pile until a colour card shows; it is trump."""
    turned = []
    while state.stack:
        card = state.stack.pop(0)
        turned.append(card)
        state.trump_pile.append(card)
        color = COLOR_OF.get(card)
        if color is not None:
            state.trump = color
            break
    return turned


# ---------------------------------------------------------------------------- the rules


def trick_winner(entries: Sequence[Sequence], trump: str | None) -> int:
    """G3.4/G3.5: the index of the winning entry among ``(..., card, color)`` entries (the last
    two items are used). The highest trump; else the highest card of the colour to follow (the
    first colour of the trick, G3.3); a Joker is the highest of its colour, a later Joker beats
    an earlier one; only action cards without a Joker: the first card."""
    lead = None
    best = -1
    best_rank = (0, 0)
    for i, entry in enumerate(entries):
        card, color = entry[-2], entry[-1]
        if color is None:
            continue
        if lead is None:
            lead = color
        value = 100 + i if card == JOKER else VALUE_OF[card]
        if trump is not None and color == trump:
            rank = (2, value)
        elif color == lead:
            rank = (1, value)
        else:
            continue
        if rank > best_rank:
            best, best_rank = i, rank
    return 0 if best < 0 else best


def round_points(
    bid: int, tricks: int, action_points: int, *, all_tricks: bool, durchmarsch: bool
) -> tuple[int, int]:
    """G4.1/G4.2: ``(bid_points, points)`` of one player's round."""
    bid_points = 10 if bid == tricks else -5
    trick_points = 2 * tricks if durchmarsch and all_tricks else tricks
    return bid_points, trick_points + action_points + bid_points


def _can_follow(hand: list[str], color: str | None) -> bool:
    return color is not None and any(COLOR_OF.get(card) == color for card in hand)


def _card_moves(state: GameState, seat: int) -> list[dict]:
    hand = state.hands[seat]
    if _can_follow(hand, state.lead_color):
        cards = [card for card in hand if COLOR_OF.get(card) == state.lead_color]
    else:
        cards = hand
    moves = []
    for card in sorted_hand(set(cards)):
        if card == JOKER:
            moves.extend({"type": "PLAY_CARD", "card": JOKER, "color": c} for c in COLORS)
        else:
            moves.append({"type": "PLAY_CARD", "card": card})
    return moves


def _forbidden_bid(state: GameState, seat: int) -> int | None:
    """G2.2 plus/minus one: the bid the dealer, bidding last, may not make."""
    if not state.options["plus_minus_one"] or seat != state.dealer:
        return None
    others = [bid for s, bid in enumerate(state.bids) if s != seat]
    if any(bid is None for bid in others):
        return None
    forbidden = state.hand_size - sum(others)
    return forbidden if 0 <= forbidden <= state.hand_size else None


def _bidders(state: GameState) -> list[int]:
    """The seats that may bid now."""
    if state.phase != BIDDING:
        return []
    if state.options["bids"] == "open":
        for seat in state.bid_order():
            if state.bids[seat] is None:
                return [seat]
        return []
    return [seat for seat, bid in enumerate(state.bids) if bid is None]


def _seat(state: GameState, player: PlayerId) -> int:
    try:
        return state.players.index(player)
    except (ValueError, TypeError):
        raise NotSeated("player {player} has no seat in this game", player=repr(player)) from None


# ---------------------------------------------------------------------------- the contract


def phase(state: GameState) -> str:
    return state.status


def is_over(state: GameState) -> bool:
    return state.status == FINISHED


def results(state: GameState) -> list[dict]:
    # ``won`` is worked out here: states stored before it was part of the rows lack it.
    return [{**row, "won": row["place"] == 1} for row in state.results or []]


def to_move(state: GameState) -> list[PlayerId]:
    if is_over(state):
        return []
    if state.phase == BIDDING:
        return [state.players[seat] for seat in _bidders(state)]
    return [state.players[state.current]]


def legal_moves(state: GameState, player: PlayerId) -> list[dict]:
    seat = _seat(state, player)
    return _legal(state, seat)


def _legal(state: GameState, seat: int) -> list[dict]:
    if is_over(state):
        return []
    if state.phase == BIDDING:
        if seat not in _bidders(state):
            return []
        forbidden = _forbidden_bid(state, seat)
        return [{"type": "BID", "tricks": n} for n in range(state.hand_size + 1) if n != forbidden]
    if seat != state.current:
        return []
    return _card_moves(state, seat)


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


def _score_round(state: GameState) -> list[dict]:
    """G4.1/G4.2, then the next round (G1.2) or the end (G4.3)."""
    n = len(state.players)
    action = [0] * n
    for trick in state.tricks:
        for entry in trick["cards"]:
            action[trick["winner"]] += ACTION_POINTS.get(entry[1], 0)
    durchmarsch = state.options["durchmarsch"] and state.round < ROUNDS
    total_tricks = len(state.tricks)
    rows = []
    for seat in range(n):
        bid, won = state.bids[seat], state.tricks_won[seat]
        bid_points, points = round_points(
            bid, won, action[seat], all_tricks=won == total_tricks, durchmarsch=durchmarsch
        )
        state.scores[seat] += points
        rows.append(
            {
                "player": state.players[seat],
                "cards": state.hand_size,
                "bid": bid,
                "tricks": won,
                "action_points": action[seat],
                "bid_points": bid_points,
                "points": points,
                "total": state.scores[seat],
            }
        )
    state.sheet.append(rows)
    events: list[dict] = [
        {
            "kind": "round_scored",
            "player": None,
            "round": state.round,
            "rows": [dict(row) for row in rows],
        }
    ]
    if state.round >= ROUNDS:
        state.phase = ROUND_OVER
        events.extend(_finish(state, ROUNDS_PLAYED))
        return events
    state.round += 1
    state.dealer = (state.dealer + 1) % n
    events.extend(deal(state))
    return events


def _finish(state: GameState, reason: str) -> list[dict]:
    state.status = FINISHED
    state.end_reason = reason
    state.results = _results(state)
    return [{"kind": "game_over", "player": None, "reason": reason, "results": results(state)}]


def _results(state: GameState) -> list[dict]:
    """G4.3: best total first; equal totals share the place."""
    totals = state.scores
    rows = [
        {"player": player, "total": total, "place": 1 + sum(t > total for t in totals)}
        for player, total in zip(state.players, totals, strict=True)
    ]
    rows.sort(key=lambda row: row["place"])
    return rows


def end_game(state: GameState, reason: str) -> list[dict]:
    """End the game now (an admin's decision): the totals of the rounds scored so far decide."""
    if is_over(state):
        raise GameOver("the game is over")
    events = _finish(state, reason)
    state.seq += 1
    return events


# ------------------------------------------------------------------ what leaves the engine


def _bid_visible(state: GameState, seat: int, viewer: int | None) -> bool:
    mode = state.options["bids"]
    if mode == "open" or seat == viewer:
        return True
    if mode == "hidden":
        return state.phase != BIDDING
    return False  # secret: the sheet shows them once the round is scored


def _entry(state: GameState, entry: Sequence) -> dict:
    seat, card, color = entry
    return {"player": state.players[seat], "card": card, "color": color}


def view(state: GameState, player: PlayerId | None = None) -> dict:
    """What ``player`` (``None``: a spectator) may see (G5)."""
    viewer = None if player is None else _seat(state, player)
    over = is_over(state)
    data: dict[str, Any] = {
        "kind": KIND,
        "status": state.status,
        "seq": state.seq,
        "round": state.round,
        "rounds": ROUNDS,
        "cards": state.hand_size,
        "dealer": state.players[state.dealer],
        "phase": state.phase,
        "trump": state.trump,
        "no_trump": state.no_trump,
        "trump_pile": list(state.trump_pile),
        "stack_size": len(state.stack),
        "lead_color": state.lead_color,
        "leader": state.players[state.leader],
        "trick": [_entry(state, entry) for entry in state.trick],
        "tricks": [
            {
                "cards": [_entry(state, entry) for entry in trick["cards"]],
                "winner": state.players[trick["winner"]],
            }
            for trick in state.tricks
        ],
        "players": [
            {
                "id": p,
                "bid": state.bids[seat] if _bid_visible(state, seat, viewer) else None,
                "has_bid": state.bids[seat] is not None,
                "tricks_won": state.tricks_won[seat],
                "hand_size": len(state.hands[seat]),
                "score": state.scores[seat],
            }
            for seat, p in enumerate(state.players)
        ],
        "to_move": to_move(state),
        "sheet": [[dict(row) for row in rows] for rows in state.sheet],
        "legal": [],
        "options": dict(state.options),
    }
    if viewer is not None:
        data["you"] = {"player_id": player, "hand": sorted_hand(state.hands[viewer])}
        data["legal"] = _legal(state, viewer)
    if over:
        data["end_reason"] = state.end_reason
        data["results"] = results(state)
    return data


# ---------------------------------------------------------------------------- replay and storage


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


def to_dict(state: GameState) -> dict:
    """The whole state, the generator included (storage only, never a client)."""
    return {
        "kind": KIND,
        "seed": state.seed,
        "players": list(state.players),
        "options": dict(state.options),
        "rng": dump_rng(state.rng),
        "round": state.round,
        "dealer": state.dealer,
        "phase": state.phase,
        "status": state.status,
        "hands": [list(hand) for hand in state.hands],
        "stack": list(state.stack),
        "trump_pile": list(state.trump_pile),
        "trump": state.trump,
        "no_trump": state.no_trump,
        "bids": list(state.bids),
        "leader": state.leader,
        "trick": [list(entry) for entry in state.trick],
        "lead_color": state.lead_color,
        "tricks": [
            {"cards": [list(e) for e in t["cards"]], "winner": t["winner"]} for t in state.tricks
        ],
        "tricks_won": list(state.tricks_won),
        "scores": list(state.scores),
        "sheet": [[dict(row) for row in rows] for rows in state.sheet],
        "seq": state.seq,
        "end_reason": state.end_reason,
        "results": results(state) if state.results else None,
    }


def from_dict(data: dict) -> GameState:
    """Rebuild a state saved by :func:`to_dict`; it shares nothing with ``data``."""
    rng = load_rng(data["rng"])
    return GameState(
        players=list(data["players"]),
        seed=data["seed"],
        options=dict(data["options"]),
        rng=rng,
        round=data["round"],
        dealer=data["dealer"],
        phase=data["phase"],
        status=data["status"],
        hands=[list(hand) for hand in data["hands"]],
        stack=list(data["stack"]),
        trump_pile=list(data["trump_pile"]),
        trump=data["trump"],
        no_trump=data["no_trump"],
        bids=list(data["bids"]),
        leader=data["leader"],
        trick=[list(entry) for entry in data["trick"]],
        lead_color=data["lead_color"],
        tricks=[
            {"cards": [list(e) for e in t["cards"]], "winner": t["winner"]} for t in data["tricks"]
        ],
        tricks_won=list(data["tricks_won"]),
        scores=list(data["scores"]),
        sheet=[[dict(row) for row in rows] for rows in data["sheet"]],
        seq=data["seq"],
        end_reason=data["end_reason"],
        results=None if data["results"] is None else [dict(r) for r in data["results"]],
    )


def scramble(state: GameState, player: PlayerId | None, rng: random.Random) -> GameState:
    """A copy in which what ``player`` can't see is redrawn: the other hands and the stack are
    reshuffled among themselves (sizes kept), bids hidden from them redrawn, the generator
    reseeded."""
    viewer = None if player is None else _seat(state, player)
    other = from_dict(to_dict(state))
    seats = [seat for seat in range(len(other.players)) if seat != viewer]
    pool = [card for seat in seats for card in other.hands[seat]] + other.stack
    rng.shuffle(pool)
    for seat in seats:
        size = len(other.hands[seat])
        other.hands[seat], pool = pool[:size], pool[size:]
    other.stack = pool
    for seat, bid in enumerate(other.bids):
        if bid is not None and not _bid_visible(other, seat, viewer):
            other.bids[seat] = rng.randint(0, other.hand_size)
    other.rng = random.Random(rng.getrandbits(64))
    return other
