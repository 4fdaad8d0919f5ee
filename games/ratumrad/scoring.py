"""The scores of a finished Rat um Rad game (R3, R8.3) and the cards as the views show them."""

from __future__ import annotations

from typing import Any

from .paths import components, connected, longest_path_roads
from .state import COLORS, LONGEST_PATH_BONUS, GameState


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
