"""What leaves the Rat um Rad engine: the view of a seat or a spectator (R9)."""

from __future__ import annotations

from typing import Any

from games import contract

from .legal import legal_moves
from .paths import components, connected
from .scoring import _card_dict, _hand_dict
from .state import COLORS, FINISHED, PREPARATION, GameState, PlayerId


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
        data["results"] = contract.plain_copy(state.results)
    return data
