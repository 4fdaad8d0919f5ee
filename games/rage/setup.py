"""Dealing RAGE: a new game, each round's deal (G1.2) and turning up trump (G1.3)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.contract import IllegalMove, PlayerId

from .cards import COLOR_OF, DECK
from .state import BIDDING, MAX_PLAYERS, MIN_PLAYERS, GameState, check_options


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
