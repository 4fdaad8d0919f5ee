"""RAGE's strong bot (G6.1): legal moves from its own view in every phase and variant, the same
move for the same view (whatever the hidden cards are), samples of the hidden cards consistent
with everything public (voids shown by not following included), and a playout simulator that
follows the engine's rules. Its strength and speed are measured by ``bench/rage_league.py``
(G6.2), never here.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

from games import rage
from games.rage import bots, engine
from games.rage.bot_world import _policy, _World
from games.rage.bots import StrongBot
from games.rage.cards import COLOR_OF, DECK

pytestmark = pytest.mark.engine

NAMES = ["ava", "liam", "ethan", "zoe", "p5", "p6", "p7", "p8"]
VARIANTS = [
    {},
    {"bids": "hidden"},
    {"bids": "secret"},
    {"plus_minus_one": True},
    {"durchmarsch": True},
]


def start(players: int, options: dict, seed: int = 1, round_: int = 1):
    """A game of ``players`` in round ``round_`` (dealt by the game's generator)."""
    state = engine.new_game(seed, NAMES[:players], engine.check_options(options))
    if round_ != 1:
        state.round = round_
        engine.deal(state)
    return state


def views_of_a_round(state, chooser, limit: int = 400):
    """Play the state's round (and no further) with ``chooser(view) -> move`` for every seat;
    yield every view a seat to move got, before its move is applied."""
    current = state.round
    for _ in range(limit):
        if engine.is_over(state) or state.round != current:
            return
        player = engine.to_move(state)[0]
        view = engine.view(state, player)
        yield state, player, view
        engine.apply(state, player, chooser(view))


def test_strong_is_a_bot_of_the_kind():
    assert "strong" in rage.BOTS and "strong" in bots.BOTS
    assert isinstance(rage.make_bot("strong", 3), StrongBot)
    assert isinstance(bots.make_bot("strong", 3), StrongBot)


@pytest.mark.parametrize("options", VARIANTS, ids=["open", "hidden", "secret", "pm1", "durch"])
@pytest.mark.parametrize("players", [3, 8])
def test_strong_plays_legal_moves_in_every_phase_and_variant(players, options):
    """Heuristic bots play the rounds; the strong bot answers every bid and every few cards
    (leading, following, after action cards) of a long, a middle and the last round."""
    strong = StrongBot(7)
    heuristic = bots.HeuristicBot(7)
    phases = Counter()
    for round_ in (1, 8 if players == 8 else 6, 10):
        state = start(players, options, seed=players * 10 + round_, round_=round_)
        for i, (_state, _player, view) in enumerate(views_of_a_round(state, heuristic.choose)):
            if view["phase"] == "playing" and i % (players // 2) and round_ != 10:
                continue
            move = strong.choose(view)
            assert move in view["legal"], (options, view["round"], move)
            if view["phase"] == "bidding":
                phases["bid"] += 1
            else:
                phases["lead" if not view["trick"] else "follow"] += 1
    assert phases["bid"] and phases["lead"] and phases["follow"]


def test_strong_respects_the_forbidden_bid_of_plus_minus_one():
    for seed in range(12):
        state = engine.new_game(seed, NAMES[:4], engine.check_options({"plus_minus_one": True}))
        for seat in state.bid_order()[:-1]:
            engine.apply(state, state.players[seat], {"type": "BID", "tricks": 3})
        dealer = state.players[state.dealer]
        view = engine.view(state, dealer)
        assert {"type": "BID", "tricks": 1} not in view["legal"]
        assert StrongBot(seed).choose(view) in view["legal"]


def test_strong_plays_a_whole_game_among_other_bots():
    names = NAMES[:4]
    state = engine.new_game(5, names, engine.check_options({"bids": "secret"}))
    players = {
        p: bots.make_bot(kind, i)
        for i, (p, kind) in enumerate(
            zip(names, ["strong", "heuristic", "random", "strong"], strict=True)
        )
    }
    while not engine.is_over(state):
        player = engine.to_move(state)[0]
        view = engine.view(state, player)
        move = players[player].choose(view)
        assert move in view["legal"]
        engine.apply(state, player, move)
    assert len(engine.results(state)) == 4


def sample_views(players: int = 4, options: dict | None = None, seed: int = 2, rounds=(1, 5)):
    """``(state, player, view)`` for every decision of a few rounds played by heuristic bots."""
    heuristic = bots.HeuristicBot(seed)
    out = []
    for round_ in rounds:
        state = start(players, options or {}, seed=seed + round_, round_=round_)
        for state_now, player, view in views_of_a_round(state, heuristic.choose):
            out.append((engine.to_dict(state_now), player, view))
    return out


@pytest.mark.parametrize("options", [{}, {"bids": "secret"}, {"bids": "hidden"}])
def test_strong_is_deterministic_and_reads_only_its_view(options):
    rng = random.Random(4)
    decisions = sample_views(4, options, seed=3)
    for saved, player, view in decisions[:: max(1, len(decisions) // 16)]:
        pristine = copy.deepcopy(view)
        move = StrongBot(11).choose(view)
        assert view == pristine, "choose changed the view"
        assert StrongBot(11).choose(copy.deepcopy(view)) == move
        bot = StrongBot(11)
        assert bot.choose(view) == bot.choose(view) == move  # no state carried over
        state = engine.from_dict(saved)
        for _ in range(2):
            other = engine.scramble(state, player, rng)
            seen = engine.view(other, player)
            assert seen == view  # the hidden parts differ, the view does not
            assert StrongBot(11).choose(seen) == move


def test_strong_answers_do_not_depend_on_the_hidden_hands_8_players():
    rng = random.Random(9)
    decisions = sample_views(8, {}, seed=5, rounds=(7,))
    for saved, player, view in decisions[::9]:
        move = StrongBot(2).choose(view)
        other = engine.scramble(engine.from_dict(saved), player, rng)
        assert StrongBot(2).choose(engine.view(other, player)) == move


# ---------------------------------------------------------------------------- what it samples


def hand_game(hands, stack, *, bids, options=None):
    """A game whose round dealt ``hands`` (seat order), the last seat dealing (seat 0 leads)."""
    n = len(hands)
    state = engine.new_game(1, NAMES[:n], engine.check_options(options or {}))
    state.round = engine.ROUNDS + 1 - len(hands[0])
    state.dealer = n - 1
    engine.deal(state, [card for seat in state.bid_order() for card in hands[seat]] + list(stack))
    for seat in state.bid_order():
        engine.apply(state, state.players[seat], {"type": "BID", "tricks": bids[seat]})
    return state


def play(state, seat, card, color=None):
    move = {"type": "PLAY_CARD", "card": card}
    if color is not None:
        move["color"] = color
    engine.apply(state, state.players[seat], move)


def test_samples_keep_the_voids_shown_by_not_following():
    hands = [
        ["red-3", "blue-1", "green-4"],
        ["yellow-9", "red-11", "blue-2"],  # can't follow blue later? holds blue-2: follows
        ["plus5", "green-7", "cyan-1"],  # no red: plays an action card on red
        ["joker", "violet-2", "red-1"],
    ]
    state = hand_game(hands, ["green-0", *[f"cyan-{v}" for v in range(2, 14)]], bids=[1] * 4)
    play(state, 0, "red-3")
    play(state, 1, "red-11")
    play(state, 2, "plus5")  # shows: seat 2 holds no red (G3.2)
    play(state, 3, "red-1")
    # seat 1 won and leads blue; seat 2 plays green: no blue either
    play(state, 1, "blue-2")
    play(state, 2, "green-7")
    view = engine.view(state, "zoe")
    bot = StrongBot(1)
    voids = bot.voids(view)
    assert voids[2] == {"red", "blue"} and voids[1] == set() and voids[0] == set()
    rng = random.Random(3)
    unseen = Counter(bot.unseen(view))
    for _ in range(300):
        hands_seen, stack = bot.sample_hands(view, rng)
        assert set(hands_seen) == {"ava", "liam", "ethan"}
        assert not any(COLOR_OF.get(card) in ("red", "blue") for card in hands_seen["ethan"])
        for player in hands_seen:
            row = next(r for r in view["players"] if r["id"] == player)
            assert len(hands_seen[player]) == row["hand_size"]
        dealt = Counter(stack) + sum((Counter(h) for h in hands_seen.values()), Counter())
        assert dealt == unseen


def test_a_joker_or_action_card_on_a_colour_shows_a_void():
    hands = [["green-3", "blue-1"], ["joker", "green-9"], ["change_trump", "cyan-4"]]
    hands[1] = ["joker", "red-9"]
    state = hand_game(hands, ["yellow-0", *[f"violet-{v}" for v in range(14)]], bids=[0] * 3)
    play(state, 0, "green-3")
    play(state, 1, "joker", "yellow")
    view = engine.view(state, "ethan")
    assert StrongBot(1).voids(view)[1] == {"green"}
    rng = random.Random(5)
    for _ in range(100):
        hands_seen, _stack = StrongBot(1).sample_hands(view, rng)
        assert all(COLOR_OF.get(card) != "green" for card in hands_seen["liam"])


@pytest.mark.parametrize("players", [3, 5, 8])
def test_voids_and_samples_agree_with_the_truth_in_played_rounds(players):
    rng = random.Random(players)
    bot = StrongBot(0)
    checked = 0
    for saved, player, view in sample_views(players, {}, seed=players, rounds=(1, 4)):
        if view["phase"] != "playing":
            continue
        state = engine.from_dict(saved)
        voids = bot.voids(view)
        for seat, lacking in enumerate(voids):  # sound: the real hand has none of it
            assert not any(COLOR_OF.get(card) in lacking for card in state.hands[seat])
        hands_seen, stack = bot.sample_hands(view, rng)
        ids = [row["id"] for row in view["players"]]
        for other, hand in hands_seen.items():
            assert len(hand) == len(state.hands[ids.index(other)])
            assert not any(COLOR_OF.get(card) in voids[ids.index(other)] for card in hand)
        assert len(stack) == len(state.stack)
        assert Counter(stack) + sum(map(Counter, hands_seen.values()), Counter()) == Counter(
            state.stack + [c for s, h in enumerate(state.hands) if ids[s] != player for c in h]
        )
        checked += 1
    assert checked > 20


# ---------------------------------------------------------------------------- its simulator


def test_the_playout_simulator_follows_the_engine():
    """Random and policy moves played in the engine and in a world built from the true hands:
    same trump, stack, tricks and round points (G3, G4, durchmarsch included)."""
    for seed in range(120):
        rng = random.Random(seed)
        n = rng.randint(3, 8)
        state = engine.new_game(seed, NAMES[:n], {"durchmarsch": seed % 2 == 0})
        state.round = rng.randint(1, 10)
        state.dealer = rng.randrange(n)
        engine.deal(state)
        for seat in state.bid_order():
            tricks = rng.randint(0, state.hand_size)
            engine.apply(state, state.players[seat], {"type": "BID", "tricks": tricks})
        world = _World()
        world.n = n
        world.hands = [list(hand) for hand in state.hands]
        world.stack = list(state.stack)
        world.trump, world.no_trump, world.trick, world.lead = state.trump, False, [], None
        world.leader, world.won, world.action = state.leader, [0] * n, [0] * n
        world.bids = list(state.bids)
        current = state.round
        while state.round == current and not engine.is_over(state):
            seat = state.current
            assert world.current == seat
            if rng.random() < 0.5:
                card, color = _policy(world, seat)
                move = {"type": "PLAY_CARD", "card": card}
                if card == "joker":
                    move["color"] = color
                assert move in engine.legal_moves(state, state.players[seat])
            else:
                move = rng.choice(engine.legal_moves(state, state.players[seat]))
                card, color = move["card"], move.get("color", COLOR_OF.get(move["card"]))
            engine.apply(state, state.players[seat], move)
            world.play(seat, card, color)
            if state.round == current:
                assert (world.trump, world.stack, world.won) == (
                    state.trump,
                    state.stack,
                    state.tricks_won,
                )
        durchmarsch = state.options["durchmarsch"] and current < engine.ROUNDS
        assert [world.points(seat, durchmarsch) for seat in range(n)] == [
            row["points"] for row in state.sheet[-1]
        ]


def test_unseen_cards_are_the_deck_less_what_the_seat_saw():
    saved, player, view = sample_views(4, {}, seed=8, rounds=(3,))[-1]
    pool = StrongBot(0).unseen(view)
    state = engine.from_dict(saved)
    seat = state.players.index(player)
    hidden = [c for s, hand in enumerate(state.hands) if s != seat for c in hand] + state.stack
    assert Counter(pool) == Counter(hidden)
    assert len(pool) + len(view["you"]["hand"]) <= len(DECK)
