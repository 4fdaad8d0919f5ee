"""Random players and a game runner, for the ``simulate`` command, the benchmark and tests.

Everything is deterministic per seed: the game is dealt from ``seed`` (R2.5) and the random
players draw their choices from a separate generator seeded from the same number.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from .board import Board
from .engine import (
    FINISHED,
    PREPARATION,
    EngineError,
    GameState,
    PlayerId,
    apply,
    new_game,
    turn_moves,
)
from .invariants import check_invariants

PLAYER_NAMES = ("p1", "p2", "p3", "p4", "p5")
MAX_MOVES = 20_000  # far beyond any real game; reaching it means the game failed to end
MAX_REPORTED = 50  # violations kept per game


@dataclass
class GameStats:
    seed: int
    players: tuple[PlayerId, ...]
    moves: int = 0
    end_reason: str | None = None
    winner_total: int | None = None
    results: list[dict] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    history: list[tuple[PlayerId, dict]] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.end_reason is not None


def movers(state: GameState) -> list[PlayerId]:
    """Who may move the game forward now: every unprepared player, else the current one."""
    if state.status == FINISHED:
        return []
    if state.status == PREPARATION:
        return [p.id for p in state.players if not p.prepared]
    return [state.players[state.current].id]


def options(state: GameState) -> list[tuple[PlayerId, dict]]:
    """Every (player, move) that moves the game forward now (votes to end excluded)."""
    return [(pid, move) for pid in movers(state) for move in turn_moves(state, pid)]


def random_move(state: GameState, rng: random.Random) -> tuple[PlayerId, dict]:
    """A move chosen uniformly among the turn moves of everyone who may move now."""
    if state.status == PREPARATION or state.status == FINISHED:
        choices = options(state)
        if not choices:
            raise ValueError(f"nobody can move in a game that is {state.status}")
        return choices[rng.randrange(len(choices))]
    player_id = state.players[state.current].id
    moves = turn_moves(state, player_id)
    if not moves:
        raise ValueError(f"{player_id!r} is to move but has no move")
    return player_id, moves[rng.randrange(len(moves))]


def move_rng(seed: int) -> random.Random:
    """The random players' generator for game ``seed``, apart from the game's own."""
    return random.Random(f"ratumrad-random-players-{seed}")


def play_random_game(
    seed: int,
    players: int | Sequence[PlayerId],
    board: Board | None = None,
    *,
    check: bool = False,
    max_moves: int = MAX_MOVES,
) -> GameStats:
    """Play one game of random moves to its end; with ``check``, test every invariant.

    With ``check`` a refused legal move or a broken invariant is reported in ``violations``
    (the game stops at a refused move); without it, a refused move raises.
    """
    ids = tuple(PLAYER_NAMES[:players]) if isinstance(players, int) else tuple(players)
    stats = GameStats(seed=seed, players=ids)
    state = new_game(seed, ids, board)
    rng = move_rng(seed)
    if check:
        _record(stats, "after the deal", check_invariants(state))
    while state.status != FINISHED:
        if stats.moves >= max_moves:
            stats.violations.append(f"seed {seed}: the game did not end within {max_moves} moves")
            break
        player_id, move = random_move(state, rng)
        try:
            apply(state, player_id, move)
        except EngineError as exc:
            if not check:
                raise
            stats.violations.append(
                f"seed {seed}, move {stats.moves + 1}: legal move {move} by {player_id!r} "
                f"was refused: {exc}"
            )
            break
        stats.moves += 1
        stats.history.append((player_id, move))
        if check:
            where = f"move {stats.moves} ({player_id!r} {move['type']})"
            _record(stats, where, check_invariants(state))
    stats.end_reason = state.end_reason
    stats.results = state.results or []
    if stats.results:
        stats.winner_total = max(row["total"] for row in stats.results)
    return stats


def _record(stats: GameStats, where: str, problems: list[str]) -> None:
    room = MAX_REPORTED - len(stats.violations)
    for problem in problems[: max(room, 0)]:
        stats.violations.append(f"seed {stats.seed}, {where}: {problem}")
