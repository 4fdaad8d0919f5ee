"""Count to three: two players take turns adding 1 to a count from 0; whoever says 3 wins.

A pure engine of the contract (``games.contract``); nothing in it is secret.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field

from games.contract import BadOption, GameOver, NotSeated, NotYourTurn, RandomBot, UnknownType

KIND = "toy"
MIN_PLAYERS = 2
MAX_PLAYERS = 2
MOVE_TYPES = frozenset({"COUNT"})
GOAL = 3
BOTS = {"random": RandomBot}


@dataclass
class GameState:
    players: list
    count: int = 0
    seq: int = 0
    status: str = "RUNNING"
    winner: int | None = None
    end_reason: str | None = None
    said: list = field(default_factory=list)  # who said each number


def check_options(options: dict) -> dict:
    for name in options:
        raise BadOption(f"options.{name}", "Count to three takes no option {name}.", name=name)
    return {}


def new_game(seed: int, players: list, options: dict | None = None) -> GameState:
    return GameState(players=list(players))


def is_over(state: GameState) -> bool:
    return state.status == "FINISHED"


def to_move(state: GameState) -> list:
    return [] if is_over(state) else [state.players[state.count % 2]]


def legal_moves(state: GameState, player) -> list[dict]:
    return [{"type": "COUNT"}] if player in to_move(state) else []


def apply(state: GameState, player, move: dict) -> tuple[GameState, list[dict]]:
    if move.get("type") not in MOVE_TYPES:
        raise UnknownType("Unknown move type {type}.", type=move.get("type"))
    if player not in state.players:
        raise NotSeated("You have no seat in this game.")
    if is_over(state):
        raise GameOver("The game is over.")
    if player not in to_move(state):
        raise NotYourTurn("It is not your turn.")
    state.count += 1
    state.said.append(player)
    state.seq += 1
    if state.count == GOAL:
        state.status = "FINISHED"
        state.winner = player
    return state, [{"kind": "counted", "player": player, "count": state.count}]


def end_game(state: GameState, reason: str) -> list[dict]:
    state.status = "FINISHED"
    state.end_reason = reason
    state.seq += 1
    return []


def phase(state: GameState) -> str:
    return state.status


def results(state: GameState) -> list[dict]:
    if not is_over(state):
        return []
    rows = [
        {
            "player": player,
            "total": state.said.count(player),
            "place": 1 if player == state.winner else 2,
            "won": player == state.winner,
        }
        for player in state.players
    ]
    return sorted(rows, key=lambda row: row["place"])


def view(state: GameState, player) -> dict:
    shown = {
        "status": phase(state),
        "seq": state.seq,
        "count": state.count,
        "players": [{"id": seat} for seat in state.players],
        "to_move": to_move(state),
        "legal": legal_moves(state, player) if player is not None else [],
    }
    if is_over(state):
        shown["results"] = results(state)
    return shown


def replay(seed: int, players: list, options: dict, moves: list) -> GameState:
    state = new_game(seed, players, options)
    for player, move in moves:
        apply(state, player, move)
    return state


def to_dict(state: GameState) -> dict:
    return asdict(state)


def from_dict(data: dict) -> GameState:
    return GameState(**data)


def scramble(state: GameState, player, rng) -> GameState:
    return copy.deepcopy(state)  # nothing to hide


def simulate_report(games, players, bots, options, seed):
    return [], []


def make_bot(name: str, seed: int = 0):
    return BOTS[name](seed)
