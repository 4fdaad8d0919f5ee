"""Graph questions about one player's roads: connections (R3.2) and the longest path (R3.3)."""

from __future__ import annotations

from collections.abc import Iterable

from .board import Board


def _adjacency(board: Board, road_ids: Iterable[int]) -> dict[str, list[tuple[str, int, int]]]:
    """For each place: ``(other place, wheels, road id)`` of every road touching it."""
    adjacency: dict[str, list[tuple[str, int, int]]] = {}
    for road_id in road_ids:
        road = board.roads[road_id]
        adjacency.setdefault(road.a, []).append((road.b, road.length, road_id))
        adjacency.setdefault(road.b, []).append((road.a, road.length, road_id))
    return adjacency


def components(board: Board, road_ids: Iterable[int]) -> dict[str, int]:
    """Map each place touched by the roads to a component number (R3.2 connections)."""
    adjacency = _adjacency(board, road_ids)
    component: dict[str, int] = {}
    for start in adjacency:
        if start in component:
            continue
        number = len(component)
        component[start] = number
        stack = [start]
        while stack:
            here = stack.pop()
            for there, _, _ in adjacency[here]:
                if there not in component:
                    component[there] = number
                    stack.append(there)
    return component


def connected(component: dict[str, int], a: str, b: str) -> bool:
    return a in component and component.get(a) == component.get(b)


def longest_path(board: Board, road_ids: Iterable[int]) -> int:
    """R3.3: the most wheels on a simple path (no place twice) over the given roads; 0 if none."""
    return sum(board.roads[road_id].length for road_id in longest_path_roads(board, road_ids))


def longest_path_roads(board: Board, road_ids: Iterable[int]) -> list[int]:
    """R3.3: the roads of one longest simple path, from one end to the other; [] if none.

    An exhaustive depth-first search from every place: a player owns at most 30 roads, and
    real networks are sparse, so this stays small; branches and cycles are handled because
    only places, not roads, are marked as visited. Of equally long paths the first found wins.
    """
    adjacency = _adjacency(board, road_ids)
    best_length = 0
    best: list[int] = []
    path: list[int] = []

    def walk(here: str, visited: set[str], length: int) -> None:
        nonlocal best_length, best
        if length > best_length:
            best_length, best = length, list(path)
        for there, wheels, road_id in adjacency[here]:
            if there not in visited:
                visited.add(there)
                path.append(road_id)
                walk(there, visited, length + wheels)
                path.pop()
                visited.discard(there)

    for start in adjacency:
        walk(start, {start}, 0)
    return best
