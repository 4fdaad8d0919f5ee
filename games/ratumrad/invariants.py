"""Consistency checks on a game state: what must hold after every move, whatever was played.

:func:`check_invariants` returns human-readable violations (empty when all is well). It reads
the state directly and re-derives every figure from the board, so it also catches a state that
was stored, loaded or edited wrongly. Pure Python, no Django.
"""

from __future__ import annotations

from collections import Counter

from .board import ROAD_POINTS
from .engine import (
    CARDS_PER_COLOR,
    CHOOSE_DESTINATIONS,
    COLORS,
    DISPLAY_SIZE,
    FINAL_ROUND,
    FINAL_ROUND_WHEELS,
    FINISHED,
    MAX_PLAYERS,
    MAX_WIPES_IN_ROW,
    MIN_PLAYERS,
    PLAYER_COLORS,
    PREPARATION,
    RUNNING,
    SECOND_CARD,
    WHEELS,
    GameState,
    J,
    turn_moves,
)

STATUSES = (PREPARATION, RUNNING, FINAL_ROUND, FINISHED)


def check_invariants(state: GameState) -> list[str]:
    """Every broken invariant of ``state``, each as one sentence naming its rule."""
    problems: list[str] = []
    try:
        _check_players(state, problems)
        _check_wheel_cards(state, problems)
        _check_destinations(state, problems)
        _check_roads(state, problems)
        _check_flow(state, problems)
    except Exception as exc:  # a state too broken to inspect is a violation too
        problems.append(f"the state cannot be checked: {type(exc).__name__}: {exc}")
    return problems


def _check_players(state: GameState, problems: list[str]) -> None:
    n = len(state.players)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        problems.append(f"R1.1: {n} players, not 2 to 5")
    ids = [p.id for p in state.players]
    if len(set(ids)) != n:
        problems.append(f"R1.1: a player holds two seats: {ids}")
    colors = [p.color for p in state.players]
    if colors != list(PLAYER_COLORS[:n]):
        problems.append(f"R1.2/R4.1: seats are not in colour order from the start colour: {colors}")


def _check_wheel_cards(state: GameState, problems: list[str]) -> None:
    if len(state.face_up) != DISPLAY_SIZE:
        problems.append(f"R2.2: the display has {len(state.face_up)} slots, not {DISPLAY_SIZE}")
    kinds = range(len(COLORS))
    face_up = [card for card in state.face_up if card is not None]
    counts: Counter[int] = Counter()
    for pile_name, pile in (("deck", state.deck), ("discard", state.discard), ("display", face_up)):
        pile_counts = Counter(pile)
        for card in pile_counts:
            if not isinstance(card, int) or card not in kinds:
                problems.append(f"R1.4: the {pile_name} holds an unknown card {card!r}")
        counts.update(pile_counts)
    for player in state.players:
        if len(player.hand) != len(COLORS):
            problems.append(f"R1.4: {player.id!r} has a hand of {len(player.hand)} kinds")
            continue
        for ci, count in enumerate(player.hand):
            if count < 0:
                problems.append(f"R1.4: {player.id!r} holds {count} {COLORS[ci]} cards")
            counts[ci] += count
    total = sum(counts.values())
    if total != CARDS_PER_COLOR * len(COLORS):
        problems.append(
            f"R1.4: {total} wheel cards in deck, discard, display and hands, "
            f"not {CARDS_PER_COLOR * len(COLORS)}"
        )
    for ci, name in enumerate(COLORS):
        if counts[ci] != CARDS_PER_COLOR:
            problems.append(f"R1.4: {counts[ci]} {name} cards in the game, not {CARDS_PER_COLOR}")
    if state.discard and not state.deck:
        problems.append(f"R5.6: the deck is empty while the discard holds {len(state.discard)}")
    if state.deck and None in state.face_up:
        problems.append("R5.2: a face-up slot is empty while the deck has cards")
    if state.face_up.count(J) >= 3 and state.wipes_in_row < MAX_WIPES_IN_ROW:
        problems.append(
            f"R5.5: {state.face_up.count(J)} face-up jokers after {state.wipes_in_row} wipes"
        )
    if not 0 <= state.wipes_in_row <= MAX_WIPES_IN_ROW:
        problems.append(f"R5.5: {state.wipes_in_row} wipes in a row")


def _check_destinations(state: GameState, problems: list[str]) -> None:
    board = state.board
    # Where each card may lie: short cards never leave the game (R7.2, R2.4), long cards are
    # only dealt at setup (R1.5), so a long card is in a hand or out of the game.
    places: list[tuple[str, list[int], bool | None]] = [
        ("the short deck", state.short_deck, False),
        ("the cards rejected in preparation", state.prep_returned, False),
        ("the cards out of the game", state.out_of_game, True),
    ]
    for player in state.players:
        places.append((f"{player.id!r}'s destinations", player.destinations, None))
        places.append((f"{player.id!r}'s pending cards", player.pending, False))
    known = {card.id: card for card in board.destinations}
    seen: Counter[int] = Counter()
    for name, cards, long in places:
        seen.update(cards)
        for card_id in cards:
            card = known.get(card_id)
            if card is None:
                problems.append(f"R1.5: {name} hold an unknown destination card {card_id!r}")
            elif long is not None and card.long != long:
                kind = "long" if card.long else "short"
                problems.append(f"R1.5: {kind} card {card_id} is in {name}")
    for card in board.destinations:
        if seen[card.id] != 1:
            problems.append(
                f"R1.5: destination card {card.id} is in the game {seen[card.id]} times"
            )
    for player in state.players:
        longs = sum(known[c].long for c in player.destinations if c in known)
        if longs != 1:
            problems.append(f"R2.3: {player.id!r} holds {longs} long cards, not 1")


def _check_roads(state: GameState, problems: list[str]) -> None:
    board = state.board
    roads = board.roads
    if len(state.road_owner) != len(roads):
        problems.append(f"road_owner has {len(state.road_owner)} entries for {len(roads)} roads")
        return
    owned_by: dict[int, int] = {}
    lengths = [road.length for road in roads]
    for pi, player in enumerate(state.players):
        for road_id in player.roads:
            if not isinstance(road_id, int) or not 0 <= road_id < len(roads):
                problems.append(f"{player.id!r} owns an unknown road {road_id!r}")
                continue
            if road_id in owned_by:
                other = state.players[owned_by[road_id]].id
                problems.append(f"R6.1: road {road_id} is built by {other!r} and {player.id!r}")
            owned_by[road_id] = pi
            if state.road_owner[road_id] != pi:
                problems.append(
                    f"road {road_id} is in {player.id!r}'s roads but road_owner says "
                    f"{state.road_owner[road_id]!r}"
                )
        known = [lengths[r] for r in player.roads if isinstance(r, int) and 0 <= r < len(roads)]
        length = sum(known)
        if not 0 <= player.wheels <= WHEELS:
            problems.append(f"R1.3: {player.id!r} has {player.wheels} wheels")
        if player.wheels != WHEELS - length:
            problems.append(
                f"R6.1: {player.id!r} has {player.wheels} wheels but built {length} "
                f"wheels of road (expected {WHEELS - length})"
            )
        points = sum(ROAD_POINTS[n] for n in known)
        if player.score != points:
            problems.append(
                f"R3.1: {player.id!r} scores {player.score} but their roads are worth {points}"
            )
    for road_id, owner in enumerate(state.road_owner):
        if owner is not None and owned_by.get(road_id) != owner:
            problems.append(
                f"road_owner says road {road_id} belongs to seat {owner!r}, who lacks it"
            )
    small_game = len(state.players) <= 3
    for road in roads:
        twin = road.double_of
        if twin is None or twin < road.id:
            continue
        a, b = state.road_owner[road.id], state.road_owner[twin]
        if a is not None and a == b:
            problems.append(
                f"R6.3: {state.players[a].id!r} built both roads {road.id} and {twin} of a double"
            )
        elif a is not None and b is not None and small_game:
            problems.append(f"R6.4: both roads {road.id} and {twin} of a double are built")


def _check_flow(state: GameState, problems: list[str]) -> None:
    status, turn = state.status, state.turn
    players = state.players
    if status not in STATUSES:
        problems.append(f"unknown status {status!r}")
        return
    if turn not in (None, SECOND_CARD, CHOOSE_DESTINATIONS):
        problems.append(f"unknown turn step {turn!r}")
    in_play = status in (RUNNING, FINAL_ROUND)
    if not in_play and turn is not None:
        problems.append(f"turn is {turn!r} while the game is {status}")
    if not 0 <= state.current < len(players):
        problems.append(f"current seat {state.current} does not exist")
        return
    current = players[state.current]
    for pi, player in enumerate(players):
        if status == PREPARATION:
            expect_pending = not player.prepared
        else:
            expect_pending = in_play and pi == state.current and turn == CHOOSE_DESTINATIONS
            if in_play and not player.prepared:
                problems.append(f"R2.4: {player.id!r} never chose short cards, yet play is on")
        if bool(player.pending) != expect_pending:
            problems.append(
                f"R2.4/R7.3: {player.id!r} has {len(player.pending)} pending cards "
                f"(status {status}, turn {turn!r}, current {current.id!r})"
            )
        if status == PREPARATION and not player.prepared and len(player.pending) != 3:
            problems.append(f"R2.3: {player.id!r} was dealt {len(player.pending)} short cards")
        if pi == state.current and turn == CHOOSE_DESTINATIONS and len(player.pending) > 3:
            problems.append(f"R7.1: {player.id!r} drew {len(player.pending)} destination cards")
    if status != PREPARATION and state.prep_returned:
        problems.append("R2.4: cards rejected in preparation never went under the short deck")
    if status == PREPARATION and (state.current != 0 or state.final_turns_left is not None):
        problems.append("R2.4: the preparation phase has a current player or a final round")
    if status == RUNNING:
        if state.final_turns_left is not None:
            problems.append("R8.1: final turns are counted outside the final round")
        for player in players:
            if player.wheels <= FINAL_ROUND_WHEELS:
                problems.append(
                    f"R8.1: {player.id!r} has {player.wheels} wheels but no final round began"
                )
    if status == FINAL_ROUND and not (
        isinstance(state.final_turns_left, int) and 1 <= state.final_turns_left <= len(players)
    ):
        problems.append(f"R8.1: {state.final_turns_left!r} final turns left")
    if status != FINISHED:
        if all(p.vote_end for p in players):
            problems.append("R8.2: everyone voted to end, yet the game goes on")
        if not 0 <= state.passes_in_row < len(players):
            problems.append(f"R8.2: {state.passes_in_row} passes in a row, yet the game goes on")
        if state.results is not None or state.end_reason is not None:
            problems.append("R8.3: results exist before the game is over")
    else:
        if not isinstance(state.end_reason, str) or not state.end_reason:
            problems.append(f"R8.2: the game ended without a reason ({state.end_reason!r})")
        if not state.results or len(state.results) != len(players):
            problems.append("R8.3: a finished game has no full results")
    if in_play and not turn_moves(state, current.id):
        # R4.3: a player without an action passes, so whoever is to move can move.
        problems.append(f"R4.3: {current.id!r} is to move ({turn!r}) but has no legal move")
