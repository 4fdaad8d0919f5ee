"""Computer players: legal moves only, from their own view only, deterministic, and the
heuristic bot clearly beats the random one."""

from __future__ import annotations

import copy
import io
import random
from pathlib import Path

import pytest
from django.core.management import call_command

from games.ratumrad import bot_heuristic, bot_seat, bots, engine
from games.ratumrad.board import basel
from tests.engine_boards import TOY

pytestmark = pytest.mark.engine  # neither database nor channel layer

BOARDS = {"toy": TOY, "basel": basel()}


class Recording:
    """Wraps a bot and checks every answer against the view it was given."""

    def __init__(self, bot: bots.Bot):
        self.bot = bot
        self.name = bot.name
        self.calls = 0

    def choose(self, view: dict, board) -> dict:
        legal = copy.deepcopy(view["legal"])
        move = self.bot.choose(view, board)
        assert move in legal
        non_vote = [m for m in legal if m["type"] != "VOTE_END"]
        assert move["type"] != "VOTE_END" or not non_vote
        self.calls += 1
        return move


@pytest.mark.parametrize("board_name", sorted(BOARDS))
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("name", sorted(bots.BOTS))
def test_bots_only_choose_legal_moves(monkeypatch, board_name, players, name):
    made: list[Recording] = []
    real_make = bots.make_bot

    def recording_make(bot_name, seed=0):
        made.append(Recording(real_make(bot_name, seed)))
        return made[-1]

    monkeypatch.setattr(bots, "make_bot", recording_make)
    others = ["random", "heuristic"]
    for seed in range(3):
        names = [name] + [others[(seed + i) % 2] for i in range(players - 1)]
        result = bots.play_bot_game(seed, names, BOARDS[board_name], check=True)
        assert result.violations == []
        assert result.end_reason is not None
    assert all(r.calls > 0 for r in made)


def scrambled_others(view: dict, rng: random.Random) -> dict:
    """The view with what the bot has no business using changed: other players' scores and
    card counts and votes."""
    other = copy.deepcopy(view)
    me = view["you"]["player_id"]
    for row in other["players"]:
        if row["id"] != me:
            row["score"] = rng.randrange(-50, 100)
            row["wheel_cards"] = rng.randrange(0, 40)
            row["destination_cards"] = rng.randrange(1, 10)
            row["voted_end"] = not row["voted_end"]
    return other


@pytest.mark.parametrize("name", sorted(bots.BOTS))
def test_bots_decide_from_their_own_view_only(name):
    board = basel()
    rng = random.Random(5)
    state = engine.new_game(3, ("p1", "p2", "p3"), board)
    checked = 0
    while state.status != engine.FINISHED and checked < 150:
        if state.status == engine.PREPARATION:
            pid = next(p.id for p in state.players if not p.prepared)
        else:
            pid = state.players[state.current].id
        view = engine.view(state, pid)
        move = bots.make_bot(name, 1).choose(view, board)
        assert bots.make_bot(name, 1).choose(scrambled_others(view, rng), board) == move
        engine.apply(state, pid, move)
        checked += 1
    assert checked > 50


def test_the_bot_modules_never_touch_game_state():
    source = Path(bots.__file__).read_text(encoding="utf-8")
    bot_part = source.split("-- whole games")[0]  # the runner below it plays the engine
    assert "GameState" not in source
    assert "engine." not in bot_part
    assert "state" not in bot_part
    for family in (bot_heuristic, bot_seat):  # the heuristic bot and what it reads from a view
        source = Path(family.__file__).read_text(encoding="utf-8")
        assert "engine" not in source
        assert "state" not in source.lower()


@pytest.mark.parametrize("names", [("heuristic", "random"), ("heuristic",) * 3])
def test_bot_games_are_deterministic_per_seed(names):
    first = bots.play_bot_game(11, names)
    second = bots.play_bot_game(11, names)
    assert first.moves == second.moves
    assert [(s.total, s.place) for s in first.seats] == [(s.total, s.place) for s in second.seats]


def test_make_bot_knows_the_registry():
    assert isinstance(bots.make_bot("random", 1), bots.RandomBot)
    assert isinstance(bots.make_bot("heuristic", 1), bots.HeuristicBot)
    with pytest.raises(ValueError, match="unknown bot"):
        bots.make_bot("genius", 1)


def test_heuristic_beats_random_clearly():
    wins = 0
    for seed in range(100, 120):
        names = ("heuristic", "random") if seed % 2 else ("random", "heuristic")
        result = bots.play_bot_game(seed, names)
        heuristic = next(s for s in result.seats if s.bot == "heuristic")
        wins += heuristic.place == 1
    assert wins >= 18


def test_simulate_with_bots_prints_a_line_per_bot():
    out = io.StringIO()
    call_command("simulate", games=4, bots="heuristic,random", stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    assert "invariant violations: 0" in text
    for name in ("heuristic", "random"):
        line = next(line for line in text.splitlines() if line.startswith(f"bot {name}:"))
        assert "games 4," in line
        for figure in ("win rate", "mean score", "destinations completed", "p50", "p99"):
            assert figure in line
