"""What a Rat um Rad player may send now: the legal moves of every phase, as protocol messages.

:func:`legal_moves` lists them with the vote to end (R8.2), :func:`turn_moves` without it;
:func:`_has_turn_action` tells whether a fresh turn has any action at all (R4.3). The checks
every move handler shares (whose turn it is, R2.4/R4.1/R5.1/R7.3; a move's fields) are here too.
"""

from __future__ import annotations

from itertools import combinations

from .board import CARD_COLORS, GREY
from .state import (
    CHOOSE_DESTINATIONS,
    COLOR_INDEX,
    FINISHED,
    PREPARATION,
    SECOND_CARD,
    BadField,
    GameState,
    IllegalMove,
    J,
    NotYourTurn,
    PlayerId,
)


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


# ---------------------------------------------------------------------------- checks of a move


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
