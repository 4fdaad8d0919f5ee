"""G4.4: a whole 10-round, 4-player RAGE game, every trick and every score checked by hand.

Everything below the line "the game, by hand" was written out by hand from ``rage-rules.md``
(G1-G5), not computed by running the engine: the hands, the stack's top cards, the bids, every
trick's cards in play order with its winner and the reason, and the score sheet. The test then
plays exactly those moves through the engine and compares.

Seats (clockwise): ava, ben, cleo, dan. Seed 2 draws ava as the first dealer (G1.2), so round k
is dealt by seat (k - 1) mod 4 and the player left of the dealer bids first and leads (G2.1,
G3.1). Options: open bids, Durchmarsch on (G4.2).

Each round is redealt from a deck of our choosing with ``engine.deal`` (after the engine has
moved the deal on by itself): the hands as written, then the stack's top cards as written (the
trump turned up, G1.3, and the cards that Change Trump / No Trump turn up later, G3.6, G3.7),
then the rest of the 112-card deck in the deck's own order (never reached).

A trick is written ``"ben blue-10, cleo blue-3, ..."`` in play order; a Joker is
``joker/red`` (the colour it names, G3.5). A sheet row is
``(player, bid, tricks, action points, bid points, round points, running total)`` (G4.1, G4.4).
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import pytest

from games.rage import cards, engine

pytestmark = pytest.mark.engine

PLAYERS = ["ava", "ben", "cleo", "dan"]
SEED = 2  # new_game(2, ...) draws seat 0 (ava) as the first dealer (G1.2)
OPTIONS = {"bids": "open", "durchmarsch": True}


class Round(NamedTuple):
    dealer: str
    stack: tuple[str, ...]  # the stack's top cards, top first (the rest of the deck follows)
    trump: str  # trump once the round is dealt (G1.3)
    hands: dict[str, str]  # seat order
    bids: dict[str, int]  # bid order: left of the dealer first (G2.1)
    tricks: list[tuple[str, str]]  # (cards in play order, winner)
    pile: tuple[str, ...]  # the turned-up pile before the round's last card, oldest first
    sheet: list[tuple[str, int, int, int, int, int, int]]


# ================================================================ the game, by hand

ROUNDS = [
    # ------------------------------------------------------------------ round 1: 10 cards
    # ava deals; ben bids first and leads. A No Trump turned up first is covered by green-4:
    # trump is green (G1.3). Dan holds no yellow: he trumps yellow twice (G3.2).
    Round(
        dealer="ava",
        stack=("no_trump", "green-4"),
        trump="green",
        hands={
            "ava": "blue-0 blue-12 blue-15 red-2 red-5 red-14 yellow-3 yellow-14 green-1 green-7",
            "ben": "blue-2 blue-10 blue-14 red-1 red-9 red-15 yellow-1 yellow-6 green-6 green-12",
            "cleo": "blue-3 blue-4 blue-6 red-3 red-8 red-13 yellow-10 yellow-15 green-5 green-8",
            "dan": "blue-1 blue-7 blue-9 red-0 red-6 red-12 green-0 green-2 green-3 green-9",
        },
        bids={"ben": 3, "cleo": 2, "dan": 2, "ava": 2},
        tricks=[
            # blue led, no trump played: ava's blue-12 is the highest blue
            ("ben blue-10, cleo blue-3, dan blue-7, ava blue-12", "ava"),
            # blue led, no trump: blue-15
            ("ava blue-15, ben blue-2, cleo blue-4, dan blue-1", "ava"),
            # red led, no trump: red-13
            ("ava red-5, ben red-9, cleo red-13, dan red-0", "cleo"),
            # red led, no trump: red-8 beats 6, 2, 1
            ("cleo red-8, dan red-6, ava red-2, ben red-1", "cleo"),
            # yellow led; dan has no yellow and plays green-3, the only trump
            ("cleo yellow-10, dan green-3, ava yellow-14, ben yellow-1", "dan"),
            # green (trump) led, all follow: green-12
            ("dan green-9, ava green-1, ben green-12, cleo green-5", "ben"),
            # blue led, no trump: blue-14
            ("ben blue-14, cleo blue-6, dan blue-9, ava blue-0", "ben"),
            # red led, no trump: red-15
            ("ben red-15, cleo red-3, dan red-12, ava red-14", "ben"),
            # yellow led; dan (no yellow) trumps with green-0: the only trump beats yellow-15
            ("ben yellow-6, cleo yellow-15, dan green-0, ava yellow-3", "dan"),
            # green (trump) led, all follow: green-8
            ("dan green-2, ava green-7, ben green-6, cleo green-8", "cleo"),
        ],
        pile=("no_trump", "green-4"),
        sheet=[
            # player  bid tricks action bid_pts points total
            ("ava", 2, 2, 0, 10, 12, 12),
            ("ben", 3, 3, 0, 10, 13, 13),
            ("cleo", 2, 3, 0, -5, -2, -2),  # missed bid: 3 tricks - 5
            ("dan", 2, 2, 0, 10, 12, 12),
        ],
    ),
    # ------------------------------------------------------------------ round 2: 9 cards
    # ben deals; cleo bids first and leads. Trump red; a No Trump in trick 1 (G3.6), then blue.
    Round(
        dealer="ben",
        stack=("red-4", "blue-11"),
        trump="red",
        hands={
            "ava": "no_trump blue-14 red-10 green-7 blue-2 cyan-3 red-1 blue-5 cyan-15",
            "ben": "yellow-9 blue-3 red-0 blue-0 yellow-2 cyan-9 red-7 blue-13 cyan-6",
            "cleo": "yellow-5 blue-8 red-6 green-15 yellow-11 cyan-1 red-3 blue-10 cyan-0",
            "dan": "red-2 blue-1 red-13 green-4 red-5 cyan-12 red-14 blue-9 cyan-2",
        },
        bids={"cleo": 0, "dan": 2, "ava": 3, "ben": 3},
        tricks=[
            # yellow led; dan (no yellow) trumps with red-2, then ava (no yellow) plays No Trump:
            # no trump for the rest of the trick, red-2 is an ordinary off-colour card, yellow-9
            # is the highest yellow. After the trick blue-11 is turned up: blue is trump (G3.6)
            ("cleo yellow-5, dan red-2, ava no_trump, ben yellow-9", "ben"),
            # blue (trump now) led, all follow: blue-14
            ("ben blue-3, cleo blue-8, dan blue-1, ava blue-14", "ava"),
            # red led, red is no longer trump, no blue: red-13
            ("ava red-10, ben red-0, cleo red-6, dan red-13", "dan"),
            # green led; ben (no green) trumps with blue-0, the only trump beats green-15
            ("dan green-4, ava green-7, ben blue-0, cleo green-15", "ben"),
            # yellow led; dan (no yellow) discards red-5, ava (no yellow) trumps with blue-2
            ("ben yellow-2, cleo yellow-11, dan red-5, ava blue-2", "ava"),
            # cyan led, no trump: cyan-12
            ("ava cyan-3, ben cyan-9, cleo cyan-1, dan cyan-12", "dan"),
            # red led, no trump: red-14
            ("dan red-14, ava red-1, ben red-7, cleo red-3", "dan"),
            # blue (trump) led, all follow: blue-13
            ("dan blue-9, ava blue-5, ben blue-13, cleo blue-10", "ben"),
            # cyan led, no trump: cyan-15
            ("ben cyan-6, cleo cyan-0, dan cyan-2, ava cyan-15", "ava"),
        ],
        pile=("red-4", "blue-11"),
        sheet=[
            ("ava", 3, 3, 0, 10, 13, 25),
            ("ben", 3, 3, 0, 10, 13, 26),
            ("cleo", 0, 0, 0, 10, 10, 8),  # zero bid made: 0 + 10
            ("dan", 2, 3, 0, -5, -2, 10),  # missed: 3 - 5
        ],
    ),
    # ------------------------------------------------------------------ round 3: 8 cards
    # cleo deals; dan bids first and leads. Trump yellow; a Change Trump in trick 1 (G3.7).
    Round(
        dealer="cleo",
        stack=("yellow-6", "violet-3"),
        trump="yellow",
        hands={
            "ava": "green-3 red-0 yellow-8 violet-1 green-6 cyan-2 red-5 yellow-2",
            "ben": "violet-2 red-9 yellow-15 violet-10 violet-9 cyan-4 red-3 yellow-4",
            "cleo": "change_trump red-12 yellow-1 violet-5 red-2 cyan-7 red-14 yellow-7",
            "dan": "green-10 red-4 yellow-13 violet-14 green-12 cyan-11 red-15 yellow-0",
        },
        bids={"dan": 3, "ava": 1, "ben": 2, "cleo": 2},
        tricks=[
            # green led; ben (no green) discards violet-2; cleo (no green) plays Change Trump:
            # violet-3 is turned up, violet is trump at once, the violet-2 already played
            # included: it is the only trump and beats green-10
            ("dan green-10, ava green-3, ben violet-2, cleo change_trump", "ben"),
            # red led, no violet: red-12
            ("ben red-9, cleo red-12, dan red-4, ava red-0", "cleo"),
            # yellow led (no longer trump), no violet: yellow-15
            ("cleo yellow-1, dan yellow-13, ava yellow-8, ben yellow-15", "ben"),
            # violet (trump) led, all follow: violet-14
            ("ben violet-10, cleo violet-5, dan violet-14, ava violet-1", "dan"),
            # green led; ben (no green) trumps with violet-9, cleo (no green) discards red-2
            ("dan green-12, ava green-6, ben violet-9, cleo red-2", "ben"),
            # cyan led, no trump: cyan-11
            ("ben cyan-4, cleo cyan-7, dan cyan-11, ava cyan-2", "dan"),
            # red led, no trump: red-15
            ("dan red-15, ava red-5, ben red-3, cleo red-14", "dan"),
            # yellow led, no trump: yellow-7
            ("dan yellow-0, ava yellow-2, ben yellow-4, cleo yellow-7", "cleo"),
        ],
        pile=("yellow-6", "violet-3"),
        sheet=[
            ("ava", 1, 0, 0, -5, -5, 20),
            ("ben", 2, 3, 0, -5, -2, 24),
            ("cleo", 2, 2, 0, 10, 12, 20),
            ("dan", 3, 3, 0, 10, 13, 23),
        ],
    ),
    # ------------------------------------------------------------------ round 4: 7 cards
    # dan deals; ava bids first and leads. Trump cyan; both Jokers in trick 1 (G3.5).
    Round(
        dealer="dan",
        stack=("cyan-8",),
        trump="cyan",
        hands={
            "ava": "joker blue-11 cyan-3 green-0 blue-1 cyan-12 green-13",
            "ben": "red-13 blue-4 cyan-10 green-5 blue-14 yellow-3 green-8",
            "cleo": "joker blue-6 cyan-0 green-9 blue-12 yellow-5 green-2",
            "dan": "red-15 blue-2 cyan-7 green-1 blue-8 yellow-9 green-6",
        },
        bids={"ava": 3, "ben": 2, "cleo": 1, "dan": 0},
        tricks=[
            # ava leads a Joker naming red: red is to follow; cleo (no red) plays the second
            # Joker naming red: the second Joker of the same colour beats the first, and a
            # Joker is the highest red, above red-15; no trump played
            ("ava joker/red, ben red-13, cleo joker/red, dan red-15", "cleo"),
            # blue led, no trump: blue-11
            ("cleo blue-6, dan blue-2, ava blue-11, ben blue-4", "ava"),
            # cyan (trump) led, all follow: cyan-10
            ("ava cyan-3, ben cyan-10, cleo cyan-0, dan cyan-7", "ben"),
            # green led, no trump: green-9
            ("ben green-5, cleo green-9, dan green-1, ava green-0", "cleo"),
            # blue led, no trump: blue-14
            ("cleo blue-12, dan blue-8, ava blue-1, ben blue-14", "ben"),
            # yellow led; ava (no yellow) trumps with cyan-12
            ("ben yellow-3, cleo yellow-5, dan yellow-9, ava cyan-12", "ava"),
            # green led, no trump: green-13
            ("ava green-13, ben green-8, cleo green-2, dan green-6", "ava"),
        ],
        pile=("cyan-8",),
        sheet=[
            ("ava", 3, 3, 0, 10, 13, 33),
            ("ben", 2, 2, 0, 10, 12, 36),
            ("cleo", 1, 2, 0, -5, -3, 17),
            ("dan", 0, 0, 0, 10, 10, 33),  # zero bid made
        ],
    ),
    # ------------------------------------------------------------------ round 5: 6 cards
    # ava deals; ben bids first and leads. Trump green; a +5 and a -5 (G3.8).
    Round(
        dealer="ava",
        stack=("green-11",),
        trump="green",
        hands={
            "ava": "red-2 blue-3 green-14 yellow-4 red-6 blue-15",
            "ben": "red-4 minus5 green-8 yellow-12 red-11 green-3",
            "cleo": "plus5 blue-10 green-6 yellow-0 green-1 blue-5",
            "dan": "red-9 blue-7 green-2 yellow-9 red-15 blue-13",
        },
        bids={"ben": 2, "cleo": 2, "dan": 1, "ava": 2},
        tricks=[
            # red led; cleo (no red) plays the +5; no trump: red-9 wins, and the +5 with it
            ("ben red-4, cleo plus5, dan red-9, ava red-2", "dan"),
            # blue led; ben (no blue) plays the -5; no trump: blue-10 wins, and the -5 with it
            ("dan blue-7, ava blue-3, ben minus5, cleo blue-10", "cleo"),
            # green (trump) led, all follow: green-14
            ("cleo green-6, dan green-2, ava green-14, ben green-8", "ava"),
            # yellow led, no trump: yellow-12
            ("ava yellow-4, ben yellow-12, cleo yellow-0, dan yellow-9", "ben"),
            # red led; cleo (no red) trumps with green-1, the only trump beats red-15
            ("ben red-11, cleo green-1, dan red-15, ava red-6", "cleo"),
            # blue led; ben (no blue) trumps with green-3, the only trump beats blue-15
            ("cleo blue-5, dan blue-13, ava blue-15, ben green-3", "ben"),
        ],
        pile=("green-11",),
        sheet=[
            ("ava", 2, 1, 0, -5, -4, 29),
            ("ben", 2, 2, 0, 10, 12, 48),
            ("cleo", 2, 2, -5, 10, 7, 24),  # 2 tricks - 5 + 10
            ("dan", 1, 1, 5, 10, 16, 49),  # 1 trick + 5 + 10
        ],
    ),
    # ------------------------------------------------------------------ round 6: 5 cards
    # ben deals; cleo bids first and leads. Trump violet; cleo wins every trick (G4.2).
    Round(
        dealer="ben",
        stack=("violet-7",),
        trump="violet",
        hands={
            "ava": "violet-4 violet-5 red-6 red-8 blue-9",
            "ben": "violet-9 violet-10 red-10 red-0 blue-11",
            "cleo": "violet-15 violet-13 red-14 red-15 blue-15",
            "dan": "violet-1 violet-2 red-3 red-1 blue-0",
        },
        bids={"cleo": 5, "dan": 0, "ava": 1, "ben": 0},
        tricks=[
            # violet (trump) led, all follow: violet-15
            ("cleo violet-15, dan violet-1, ava violet-4, ben violet-9", "cleo"),
            # violet (trump) led, all follow: violet-13
            ("cleo violet-13, dan violet-2, ava violet-5, ben violet-10", "cleo"),
            # red led, no trump: red-14
            ("cleo red-14, dan red-3, ava red-6, ben red-10", "cleo"),
            # red led, no trump: red-15
            ("cleo red-15, dan red-1, ava red-8, ben red-0", "cleo"),
            # blue led, no trump: blue-15
            ("cleo blue-15, dan blue-0, ava blue-9, ben blue-11", "cleo"),
        ],
        pile=("violet-7",),
        sheet=[
            ("ava", 1, 0, 0, -5, -5, 24),
            ("ben", 0, 0, 0, 10, 10, 58),
            ("cleo", 5, 5, 0, 10, 20, 44),  # Durchmarsch: 2 x 5 tricks + 10
            ("dan", 0, 0, 0, 10, 10, 59),
        ],
    ),
    # ------------------------------------------------------------------ round 7: 4 cards
    # cleo deals; dan bids first and leads. Trump blue; an action card leads (G3.3); a Joker
    # naming another colour than trump loses to a trump (G3.5).
    Round(
        dealer="cleo",
        stack=("blue-5",),
        trump="blue",
        hands={
            "ava": "yellow-3 red-12 green-9 blue-6",
            "ben": "yellow-8 red-6 green-4 blue-0",
            "cleo": "yellow-1 joker green-12 blue-14",
            "dan": "minus5 blue-2 green-7 cyan-3",
        },
        bids={"dan": 1, "ava": 0, "ben": 1, "cleo": 2},
        tricks=[
            # dan leads the -5: no colour yet; ava's yellow-3 sets yellow; no trump: yellow-8
            # wins, and the -5 with it
            ("dan minus5, ava yellow-3, ben yellow-8, cleo yellow-1", "ben"),
            # red led; cleo (no red) plays the Joker naming red, dan (no red) trumps with
            # blue-2: the Joker names another colour than trump and loses to every trump
            ("ben red-6, cleo joker/red, dan blue-2, ava red-12", "dan"),
            # green led, no trump: green-12
            ("dan green-7, ava green-9, ben green-4, cleo green-12", "cleo"),
            # blue (trump) led; dan (no blue left) discards cyan-3: blue-14
            ("cleo blue-14, dan cyan-3, ava blue-6, ben blue-0", "cleo"),
        ],
        pile=("blue-5",),
        sheet=[
            ("ava", 0, 0, 0, 10, 10, 34),
            ("ben", 1, 1, -5, 10, 6, 64),  # 1 trick - 5 + 10
            ("cleo", 2, 2, 0, 10, 12, 56),
            ("dan", 1, 1, 0, 10, 11, 70),
        ],
    ),
    # ------------------------------------------------------------------ round 8: 3 cards
    # dan deals; ava bids first and leads. Trump red; No Trump then Change Trump in one
    # trick (G3.7): green is trump and nothing more is turned up after the trick.
    Round(
        dealer="dan",
        stack=("red-9", "green-10"),
        trump="red",
        hands={
            "ava": "yellow-4 green-3 red-3",
            "ben": "red-2 green-1 red-14",
            "cleo": "no_trump green-8 red-5",
            "dan": "change_trump green-0 red-11",
        },
        bids={"ava": 1, "ben": 0, "cleo": 1, "dan": 1},
        tricks=[
            # yellow led; ben (no yellow) trumps with red-2; cleo's No Trump makes it ordinary;
            # dan's Change Trump ends the No Trump and turns up green-10: green is trump, nobody
            # played green, so yellow-4, the only card of the colour led, wins
            ("ava yellow-4, ben red-2, cleo no_trump, dan change_trump", "ava"),
            # green (trump) led, all follow: green-8
            ("ava green-3, ben green-1, cleo green-8, dan green-0", "cleo"),
            # red led (no longer trump), no green: red-14
            ("cleo red-5, dan red-11, ava red-3, ben red-14", "ben"),
        ],
        pile=("red-9", "green-10"),
        sheet=[
            ("ava", 1, 1, 0, 10, 11, 45),
            ("ben", 0, 1, 0, -5, -4, 60),
            ("cleo", 1, 1, 0, 10, 11, 67),
            ("dan", 1, 0, 0, -5, -5, 65),
        ],
    ),
    # ------------------------------------------------------------------ round 9: 2 cards
    # ava deals; ben bids first and leads. Trump cyan; a Joker naming trump (G3.5).
    Round(
        dealer="ava",
        stack=("cyan-10",),
        trump="cyan",
        hands={
            "ava": "joker plus5",
            "ben": "cyan-15 red-1",
            "cleo": "cyan-2 red-6",
            "dan": "cyan-4 red-3",
        },
        bids={"ben": 1, "cleo": 0, "dan": 0, "ava": 1},
        tricks=[
            # cyan (trump) led; ava (no cyan) plays the Joker naming cyan: the highest trump,
            # above cyan-15
            ("ben cyan-15, cleo cyan-2, dan cyan-4, ava joker/cyan", "ava"),
            # ava leads the +5; ben's red-1 sets red; no trump: red-6 wins, and the +5 with it
            ("ava plus5, ben red-1, cleo red-6, dan red-3", "cleo"),
        ],
        pile=("cyan-10",),
        sheet=[
            ("ava", 1, 1, 0, 10, 11, 56),
            ("ben", 1, 0, 0, -5, -5, 55),
            ("cleo", 0, 1, 5, -5, 1, 68),  # 1 trick + 5 - 5
            ("dan", 0, 0, 0, 10, 10, 75),
        ],
    ),
    # ------------------------------------------------------------------ round 10: 1 card
    # ben deals; cleo bids first and leads. Trump yellow. Ben wins the only trick: no
    # Durchmarsch in round 10 (G4.2), so his 1 trick counts 1.
    Round(
        dealer="ben",
        stack=("yellow-3",),
        trump="yellow",
        hands={"ava": "green-15", "ben": "yellow-0", "cleo": "green-12", "dan": "green-5"},
        bids={"cleo": 1, "dan": 0, "ava": 0, "ben": 1},
        tricks=[
            # green led; ben (no green) trumps with yellow-0, the only trump beats green-15
            ("cleo green-12, dan green-5, ava green-15, ben yellow-0", "ben"),
        ],
        pile=("yellow-3",),
        sheet=[
            ("ava", 0, 0, 0, 10, 10, 66),
            ("ben", 1, 1, 0, 10, 11, 66),  # not 2 x 1: round 10
            ("cleo", 1, 0, 0, -5, -5, 63),
            ("dan", 0, 0, 0, 10, 10, 85),
        ],
    ),
]

# G4.3: after round 10 the totals decide; ava and ben, 66 each, share second place.
RESULTS = [
    {"player": "dan", "total": 85, "place": 1, "won": True},
    {"player": "ava", "total": 66, "place": 2, "won": False},
    {"player": "ben", "total": 66, "place": 2, "won": False},
    {"player": "cleo", "total": 63, "place": 4, "won": False},
]


# ================================================================ helpers


def parse_trick(text: str) -> list[tuple[str, dict]]:
    """``"ava joker/red, ben red-13"`` -> ``[(player, move), ...]`` in play order."""
    plays = []
    for part in text.split(", "):
        player, card = part.split()
        move = {"type": "PLAY_CARD", "card": card}
        if "/" in card:
            move["card"], move["color"] = card.split("/")
        plays.append((player, move))
    return plays


def round_deck(state, spec: Round) -> list[str]:
    """The hands in dealing order (left of the dealer first), the stack's top cards, then the
    rest of the deck in the deck's order, so that the deck holds the 112 cards once each."""
    dealt = [card for seat in state.bid_order() for card in spec.hands[PLAYERS[seat]].split()]
    head = [*dealt, *spec.stack]
    rest = Counter(cards.DECK)
    rest.subtract(head)
    assert all(count >= 0 for count in rest.values()), f"a card twice: {head}"
    filler = [card for card in dict.fromkeys(cards.DECK) for _ in range(rest[card])]
    return head + filler


def check_round_data(spec: Round) -> None:
    """The hand-written data are self-consistent: every card played comes from its player's
    hand, each hand is played out, the leader is left of the dealer and each winner leads."""
    played: dict[str, list[str]] = {p: [] for p in PLAYERS}
    leader = PLAYERS[(PLAYERS.index(spec.dealer) + 1) % 4]
    assert next(iter(spec.bids)) == leader
    for text, winner in spec.tricks:
        plays = parse_trick(text)
        names = [player for player, _move in plays]
        start = PLAYERS.index(leader)
        assert names == [PLAYERS[(start + i) % 4] for i in range(4)], text
        for player, move in plays:
            played[player].append(move["card"])
        leader = winner
    for player in PLAYERS:
        assert sorted(played[player]) == sorted(spec.hands[player].split()), player


# ================================================================ the test


def test_G4_4_a_whole_ten_round_game_checked_by_hand():
    state = engine.new_game(SEED, PLAYERS, engine.check_options(OPTIONS))
    total_rows = []
    for number, spec in enumerate(ROUNDS, start=1):
        check_round_data(spec)
        size = 11 - number
        assert all(len(spec.hands[p].split()) == size for p in PLAYERS)
        # G1.2: the deal passes clockwise from the first dealer the seed drew.
        assert (state.round, state.players[state.dealer]) == (number, spec.dealer)
        engine.deal(state, round_deck(state, spec))
        seen = engine.view(state, None)
        assert (seen["trump"], seen["cards"], seen["phase"]) == (spec.trump, size, "bidding")
        for player, tricks in spec.bids.items():
            assert engine.to_move(state) == [player]
            engine.apply(state, player, {"type": "BID", "tricks": tricks})
        scored = None
        for t, (text, winner) in enumerate(spec.tricks, start=1):
            plays = parse_trick(text)
            events = []
            for i, (player, move) in enumerate(plays):
                if t == len(spec.tricks) and i == len(plays) - 1:
                    seen = engine.view(state, None)
                    assert tuple(seen["trump_pile"]) == spec.pile, f"round {number}"
                _state, new = engine.apply(state, player, move)
                events.extend(new)
            won = [e for e in events if e["kind"] == "trick_won"]
            assert [e["winner"] for e in won] == [winner], f"round {number}, trick {t}: {text}"
            assert [(e["player"], e["card"]) for e in won[0]["cards"]] == [
                (p, m["card"]) for p, m in plays
            ]
            if t < len(spec.tricks):
                seen = engine.view(state, None)
                assert seen["tricks"][-1]["winner"] == winner
                assert seen["leader"] == winner  # G3.1: the winner leads the next trick
            scored = [e for e in events if e["kind"] == "round_scored"] or scored
        assert scored is not None and scored[0]["round"] == number
        expected = [
            {
                "player": player,
                "cards": size,
                "bid": bid,
                "tricks": tricks,
                "action_points": action,
                "bid_points": bid_points,
                "points": points,
                "total": total,
            }
            for player, bid, tricks, action, bid_points, points, total in spec.sheet
        ]
        for row in expected:  # the hand-written row adds up (G4.1, G4.2)
            sweep = row["tricks"] == size and number < 10
            trick_points = (2 if sweep else 1) * row["tricks"]
            assert row["points"] == trick_points + row["action_points"] + row["bid_points"]
            assert row["bid_points"] == (10 if row["bid"] == row["tricks"] else -5)
        assert scored[0]["rows"] == expected, f"round {number}"
        total_rows.append(expected)
        assert engine.view(state, "ava")["sheet"] == total_rows, f"round {number}"
    assert engine.is_over(state)
    assert engine.results(state) == RESULTS
    seen = engine.view(state, None)
    assert seen["results"] == RESULTS and len(seen["sheet"]) == 10
