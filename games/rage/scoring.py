"""Tricks and scores in RAGE: who wins a trick (G3.4, G3.5), a round's points (G4.1, G4.2), the
next round or the end of the game (G4.3), and an admin's end of the game."""

from __future__ import annotations

from collections.abc import Sequence

from games.contract import GameOver

from .cards import ACTION_POINTS, JOKER, VALUE_OF
from .setup import deal
from .state import FINISHED, ROUND_OVER, ROUNDS, ROUNDS_PLAYED, GameState, is_over, results


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
