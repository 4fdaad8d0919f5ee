"""``manage.py simulate`` plays random games on the Basel map and finds no broken invariant."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.ratumrad import simulation

pytestmark = pytest.mark.engine  # neither database nor channel layer

FIGURE = re.compile(r"^(?P<name>[a-z ]+): (?P<value>-?\d+(\.\d+)?)$")


def run(**options: object) -> dict[str, float]:
    out = io.StringIO()
    call_command("simulate", stdout=out, stderr=io.StringIO(), **options)
    figures = {}
    for line in out.getvalue().splitlines():
        match = FIGURE.match(line)
        if match:
            figures[match["name"]] = float(match["value"])
    return figures


def test_simulate_plays_the_games_and_reports_no_violation():
    figures = run(games=3, players=4, seed=1)
    assert figures["games played"] == 3
    assert figures["invariant violations"] == 0
    assert figures["mean moves per game"] > 20
    assert "mean winning score" in figures
    assert figures["games per second"] > 0


def test_simulate_is_deterministic_per_seed():
    first, second = run(games=2, players=3, seed=7), run(games=2, players=3, seed=7)
    assert first["mean moves per game"] == second["mean moves per game"]
    assert first["mean winning score"] == second["mean winning score"]


def test_simulate_refuses_a_player_count_outside_the_rules():
    with pytest.raises(CommandError, match="--players"):
        run(games=1, players=6, seed=1)


def test_simulate_fails_when_an_invariant_breaks(monkeypatch):
    monkeypatch.setattr(simulation, "check_invariants", lambda state: ["R1.4: a card is lost"])
    with pytest.raises(CommandError, match="invariant violations"):
        run(games=1, players=2, seed=1)


def test_simulate_plays_the_kind_it_is_told_and_rat_um_rad_by_default():
    default, told = (
        run(games=2, players=3, seed=7),
        run(games=2, players=3, seed=7, kind="ratumrad"),
    )
    del default["games per second"], told["games per second"]
    assert default == told


def test_simulate_refuses_an_unknown_kind_and_options_the_kind_does_not_take():
    with pytest.raises(CommandError, match="--kind"):
        run(games=1, kind="chess")
    with pytest.raises(CommandError, match="--options"):
        run(games=1, kind="ratumrad", options='{"fast": true}')
    with pytest.raises(CommandError, match="--options"):
        run(games=1, kind="ratumrad", options="{not json")


def bot_lines(**options: object) -> dict[str, str]:
    out = io.StringIO()
    call_command("simulate", stdout=out, stderr=io.StringIO(), **options)
    return {
        line.split(":")[0].removeprefix("bot "): line
        for line in out.getvalue().splitlines()
        if line.startswith("bot ")
    }


def test_simulate_road300_prints_per_bot_its_mean_its_share_reaching_300_and_p99():
    lines = bot_lines(kind="road300", games=2, bots="strong,random", seed=3)
    assert set(lines) == {"strong", "random"}
    for line in lines.values():
        assert re.search(r"mean score \d+\.\d, reached 300 in \d+\.\d%", line), line
        assert re.search(r"p99 \d+\.\d+ ms", line), line


@pytest.mark.parametrize(
    ("players", "options"),
    [(3, "{}"), (5, '{"bids": "hidden"}'), (8, '{"bids": "secret", "durchmarsch": true}')],
)
def test_simulate_rage_prints_per_bot_its_mean_and_share_of_games_won(players, options):
    lines = bot_lines(
        kind="rage", games=3, players=players, bots="heuristic,random", options=options, seed=2
    )
    assert set(lines) == {"heuristic", "random"}
    for line in lines.values():
        assert re.search(r"mean -?\d+\.\d per game, won \d+\.\d%", line), line


def test_simulate_refuses_rage_options_g2_2_forbids_and_player_counts_outside_g1_1():
    with pytest.raises(CommandError, match="--options"):
        run(games=1, kind="rage", options='{"bids": "hidden", "plus_minus_one": true}')
    with pytest.raises(CommandError, match="--players"):
        run(games=1, kind="rage", players=9)
