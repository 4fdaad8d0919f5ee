"""Computer players of Road to 300 (T5.1): ``random`` (the floor) and ``strong`` (the hint).

A bot decides from the player's own view alone: it rebuilds the sheet from ``grid``,
``crossed``, ``circled`` and ``position`` and returns one of ``view["legal"]``.

The strong bot is an expectimax search one round deep. For every legal turn it takes the
value of the cell it ends on plus the expected value of the next round over the 56 distinct
rolls of three dice (each with its probability out of 216): for each roll the best next turn
(the value of its end cell plus a static estimate of what is left, :meth:`StrongBot.estimate`,
less a penalty for crossing a cell the player could still walk to), no turn at all when the
roll cannot move (the game ends by T2.8 and the standing cell counts), and failed rolls
folded in exactly: with ``p`` the chance that a roll fails and ``A`` the expected gain of the
rolls that can cross, the next round is worth ``A * (1 + p + p**2) - p**3 * value(standing)`` (after
three failed rolls the standing cell does not count, T4.2).

Which end cells a move can reach when a cell is crossed is read from the self-avoiding walks of
:mod:`.board`: an end cell stays reachable after crossing ``c`` unless ``c`` lies on every
walk to it, so one pass over the walks per die serves every crossing of every roll.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement, permutations

from games.contract import RandomBot

from . import engine
from .board import (
    CELL_COUNT,
    FULL,
    MAX_STEPS,
    NEIGHBORS,
    bit,
    index,
    region,
    splits,
    walks_by_end,
)

# The 56 distinct rolls of three dice with their probabilities (T1.2), and for each the cells
# it can cross as (cell index, moving die), a cell named once (T2.2).
ROLLS: tuple[tuple[float, tuple[tuple[int, int], ...]], ...] = tuple(
    (
        len(set(permutations(roll))) / 216,
        tuple(
            {
                index((x, y)): roll[k]
                for i, j, k in ((0, 1, 2), (0, 2, 1), (1, 2, 0))
                for x, y in ((roll[i], roll[j]), (roll[j], roll[i]))
            }.items()
        ),
    )
    for roll in combinations_with_replacement(range(1, 7), 3)
)


@cache
def _byte_tables(values: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Per byte of a 36-bit mask, the sum of the values of the cells of each byte value."""
    tables = []
    for start in range(0, CELL_COUNT, 8):
        cells = values[start : start + 8]
        tables.append(
            tuple(
                sum(v for k, v in enumerate(cells) if byte >> k & 1)
                for byte in range(1 << len(cells))
            )
        )
    return tuple(tables)


class StrongBot:
    """Expectimax over the next two rolls with a static estimate behind them (see the module).

    Every legal turn is scored one roll deep (:meth:`future`); the ``refine`` best are then
    scored two rolls deep (:meth:`deep`), where each next roll keeps its ``alternatives`` best
    next turns by their one-roll-deep score. Ties go to the turn listed first, so the bot is
    deterministic (T4.3 compares a player with it on the same seed).
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        weight: float = 0.1,
        cross_weight: float = 0.5,
        refine: int = 4,
        alternatives: int = 3,
    ):
        self.weight = weight  # what a free value still reachable is worth in the estimate
        self.cross_weight = cross_weight  # the share of that lost by crossing such a cell
        self.refine = refine
        self.alternatives = alternatives
        self.values: tuple[int, ...] = ()
        self.tables: tuple[tuple[int, ...], ...] = ()

    def choose(self, view: dict) -> dict:
        legal = view["legal"]
        if not legal:
            raise ValueError("there is no legal turn to choose")
        values = tuple(view["grid"][i // 6][i % 6] for i in range(CELL_COUNT))
        self.values = values
        self.tables = _byte_tables(values)
        blocked = 0
        for cell in (*view["crossed"], *view["circled"]):
            blocked |= bit(tuple(cell))
        scored = []
        for k, move in enumerate(legal):
            to = index(tuple(move["to"]))
            after = blocked | bit(tuple(move["cross"])) | (1 << to)
            scored.append((-(values[to] + self.future(after, to)), k, after, to))
        scored.sort()
        best, best_value = scored[0][1], None
        for _, k, after, to in sorted(scored[: self.refine], key=lambda entry: entry[1]):
            worth = values[to] + self.deep(after, to)
            if best_value is None or worth > best_value + 1e-9:
                best, best_value = k, worth
        return legal[best]

    def mask_value(self, mask: int) -> int:
        t = self.tables
        return (
            t[0][mask & 255]
            + t[1][mask >> 8 & 255]
            + t[2][mask >> 16 & 255]
            + t[3][mask >> 24 & 255]
            + t[4][mask >> 32]
        )

    def estimate(self, blocked: int, position: int) -> float:
        """What standing on ``position`` with ``blocked`` crossed or circled is still worth
        beyond the search: a share of the values of the free cells connected to it."""
        return self.weight * self.mask_value(region(1 << position, FULL & ~blocked))

    def _options(self, blocked: int, position: int) -> tuple[list[list[tuple]], int]:
        """Per die, the cells a move from ``position`` can end on, best estimate first, each as
        ``(value + estimate, cells on every walk to it, end)``; and the free cells the player
        can still reach."""
        values = self.values
        weight = self.weight
        free = FULL & ~blocked
        parts = []  # the free regions next to the position (it is blocked: they may be several)
        for cell in NEIGHBORS[position]:
            b = 1 << cell
            if b & free and not any(b & part for part, _ in parts):
                part = region(b, free) | b
                parts.append((part, self.mask_value(part)))
        near = 0
        for part, _ in parts:
            near |= part
        options: list[list[tuple]] = [[] for _ in range(MAX_STEPS + 1)]
        leaves: dict[int, float] = {}
        for die in range(1, MAX_STEPS + 1):
            ranked = []
            for end, union, common, masks in walks_by_end(position, die):
                b = 1 << end
                if b & blocked:
                    continue
                if union & blocked:
                    common = -1
                    for mask in masks:
                        if not mask & blocked:
                            common &= mask
                    if common == -1:
                        continue  # every walk to it is blocked
                leaf = leaves.get(end)
                if leaf is None:
                    rest = free & ~b
                    if splits(end, rest):
                        left = self.mask_value(region(b, rest))
                    else:  # its region less the cell itself
                        left = next(value for part, value in parts if part & b) - values[end]
                    leaf = values[end] + weight * left
                    leaves[end] = leaf
                ranked.append((leaf, common, end))
            ranked.sort(key=lambda option: option[0], reverse=True)
            options[die] = ranked
        return options, near

    def _fold(self, gain: float, failed: float, position: int) -> float:
        """Failed rolls folded in (T2.3): with ``failed`` the chance a roll fails, the round is
        rolled again up to three times, and the standing cell is lost after the third."""
        return gain * (1 + failed + failed * failed) - failed**3 * self.values[position]

    def future(self, blocked: int, position: int) -> float:
        """The expected gain of the next round, each roll answered by its best next turn with
        the estimate behind it. ``blocked`` holds every crossed or circled cell, the position
        included."""
        values = self.values
        options, near = self._options(blocked, position)
        loss = self.weight * self.cross_weight
        gain = failed = 0.0
        for probability, cells in ROLLS:
            best = None
            crossable = False
            for cell, die in cells:
                b = 1 << cell
                if b & blocked:
                    continue
                crossable = True
                for leaf, on_every_walk, _end in options[die]:
                    if not on_every_walk & b:  # T2.6: crossing b leaves this end reachable
                        if b & near:
                            leaf -= loss * values[cell]
                        if best is None or leaf > best:
                            best = leaf
                        break
            if not crossable:
                failed += probability
            elif best is not None:
                gain += probability * best
            # else: the roll crosses but cannot move: the game ends by T2.8 (gain 0)
        return self._fold(gain, failed, position)

    def deep(self, blocked: int, position: int) -> float:
        """Like :meth:`future`, with each roll's best next turns scored by :meth:`future`."""
        values = self.values
        options, near = self._options(blocked, position)
        loss = self.weight * self.cross_weight
        keep = self.alternatives
        seen: dict[tuple[int, int], float] = {}
        gain = failed = 0.0
        for probability, cells in ROLLS:
            found = []
            crossable = False
            for cell, die in cells:
                b = 1 << cell
                if b & blocked:
                    continue
                crossable = True
                penalty = loss * values[cell] if b & near else 0.0
                taken = 0
                for leaf, on_every_walk, end in options[die]:
                    if not on_every_walk & b:
                        found.append((leaf - penalty, cell, end))
                        taken += 1
                        if taken == keep:
                            break
            if not crossable:
                failed += probability
                continue
            if not found:
                continue  # T2.8: the game ends, gain 0
            found.sort(key=lambda option: option[0], reverse=True)
            best = None
            for _, cell, end in found[:keep]:
                worth = seen.get((cell, end))
                if worth is None:  # several rolls can cross the same cell and end alike
                    worth = values[end] + self.future(blocked | (1 << cell) | (1 << end), end)
                    seen[cell, end] = worth
                if best is None or worth > best:
                    best = worth
            gain += probability * best
        return self._fold(gain, failed, position)


BOTS = {"random": RandomBot, "strong": StrongBot}


def make_bot(name: str, seed: int = 0) -> RandomBot | StrongBot:
    try:
        factory = BOTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(BOTS)}") from None
    return factory(seed)


def play(name: str, seed, options: dict | None = None, bot_seed: int = 0) -> dict:
    """Play one game of ``seed`` with bot ``name``; its result row."""
    state = engine.new_game(seed, [name], options)
    bot = make_bot(name, bot_seed)
    while not engine.is_over(state):
        engine.apply(state, name, bot.choose(engine.view(state, name)))
    return engine.results(state)[0]


def strong_bot_score(seed, options: dict | None = None) -> int:
    """T4.3: the strong bot's total on the dice of ``seed`` (deterministic)."""
    return play("strong", seed, options)["total"]
