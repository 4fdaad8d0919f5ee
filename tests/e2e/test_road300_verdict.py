"""Road to 300's end screen says plainly whether 300 was reached (T4.3), and only then is the
game a win: on the end screen and on the player's page."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from playwright.sync_api import Page, expect

from tests.real_server import ROOT

pytestmark = pytest.mark.page(2)

# A game on the dice of seed 1, played to its end through the services in a process of its
# own on the server's database: by the strong bot's choices (exactly 300) or always by the
# first legal turn (far less). It prints the game's id.
PLAY = """

from games.moves import play
from games.services.lifecycle import game_create
from games.models import Game
from games.road300 import bots, engine
from django.contrib.auth import get_user_model
user = get_user_model().objects.get(pk={user})
game = game_create(user=user, name="Solo", kind="road300")
dealt = engine.new_game(1, [user.pk], {{}})
Game.objects.filter(pk=game.pk).update(seed=1, state=engine.to_dict(dealt))
bot = bots.make_bot("strong", 0)
while True:
    game.refresh_from_db()
    state = engine.from_dict(game.state)
    if engine.is_over(state):
        break
    view = engine.view(state, user.pk)
    move = bot.choose(view) if {strong} else view["legal"][0]
    play.move_apply(game_id=game.pk, user=user, move=move, expect_seq=state.seq)
print(game.pk)
"""


def finished_game(live_server, user_id: int, *, strong: bool) -> int:
    played = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", PLAY.format(user=user_id, strong=strong)],
        cwd=ROOT,
        env=os.environ | {"DATABASE_URL": live_server.database_url},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert played.returncode == 0, played.stderr
    return int(played.stdout.split()[-1])


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def shot(page: Page, screenshot, name: str) -> None:
    for width, height in ((1366, 768), (375, 812)):
        page.set_viewport_size({"width": width, "height": height})
        page.locator("#results").scroll_into_view_if_needed()
        no_sideways_scroll(page)
        screenshot(page, f"{name}-{width}x{height}")


def test_T4_3_a_game_below_300_is_told_as_no_win_and_not_counted(new_page, live_server, screenshot):
    page = new_page("Lea", lang="en")
    guest = new_page.guest(page)["user"]
    game_id = finished_game(live_server, guest["id"], strong=False)
    page.goto(f"/games/{game_id}/")
    expect(page.locator("#results")).to_be_visible()
    total = int(page.locator("#results-table tbody td.total").inner_text())
    assert total < 300
    verdict = page.locator("#results-winner")
    expect(verdict).to_have_text(
        f"300 not reached: {guest['name']} ends with {total} points, which is no win."
    )
    expect(page.locator("#results-you")).to_have_text(f"You have {total} points.")
    expect(page.locator("#results-table tbody tr.winner")).to_have_count(0)
    expect(page.locator("#results-table tbody td.r3-not-won")).to_have_text("no")
    shot(page, screenshot, "road300-verdict-lost")

    page.goto(f"/players/{guest['id']}/")
    stats = page.locator(".player-stats")
    expect(stats.locator("div", has_text="Wins").locator("dd")).to_have_text("0")
    expect(page.locator(".history-table .winner")).to_have_count(0)


def test_T4_3_a_game_of_300_is_told_as_a_win_and_counted(new_page, live_server, screenshot):
    page = new_page("Mia", lang="en")
    guest = new_page.guest(page)["user"]
    game_id = finished_game(live_server, guest["id"], strong=True)
    page.goto(f"/games/{game_id}/")
    expect(page.locator("#results")).to_be_visible()
    expect(page.locator("#results-winner")).to_have_text(
        f"300 reached: {guest['name']} wins with 300 points."
    )
    expect(page.locator("#results-you")).to_have_text("You have 300 points.")
    expect(page.locator("#results-table tbody tr.winner")).to_have_count(1)
    shot(page, screenshot, "road300-verdict-won")

    page.goto(f"/players/{guest['id']}/")
    expect(page.locator(".player-stats div", has_text="Wins").locator("dd")).to_have_text("1")


def test_the_verdict_speaks_german_on_a_german_page(new_page, live_server):
    page = new_page("Noe", lang="de")
    guest = new_page.guest(page)["user"]
    game_id = finished_game(live_server, guest["id"], strong=False)
    page.goto(f"/games/{game_id}/")
    total = int(page.locator("#results-table tbody td.total").inner_text())
    expect(page.locator("#results-winner")).to_have_text(
        re.compile(rf"^300 nicht erreicht: {re.escape(guest['name'])} kommt auf {total} Punkte")
    )
    expect(page.locator("#results-you")).to_have_text(f"Du hast {total} Punkte.")
