"""The wheel piles and the turn order of Rat um Rad: refill and reshuffle (R5.2, R5.5, R5.6),
the end of a turn and the next one (R4.3, R8.1, R8.2) and the end of the game (R8.3)."""

from __future__ import annotations

from .legal import _has_turn_action
from .scoring import results
from .state import (
    DISPLAY_SIZE,
    FINAL_ROUND,
    FINAL_ROUND_WHEELS,
    FINISHED,
    MAX_WIPES_IN_ROW,
    GameOver,
    GameState,
    J,
)


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
