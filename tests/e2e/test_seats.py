"""Who sits at the table, in a real browser: computer players carry a name and a badge, and
the computer that stands in for a person whose time ran out gives the seat back."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import call, player_row, wait_until_connected

pytestmark = pytest.mark.page(2)

# The shortest turn the API allows; the server looks for run-out turns every 2 seconds.
TURN_SECONDS = 10


def test_computer_players_have_names_and_a_badge_and_give_a_timed_out_seat_back(new_page):
    page = new_page("nora", lang="en")
    me = new_page.guest(page)["user"]["name"]
    answer = call(
        page,
        "POST",
        "/api/games/",
        {"name": "Uhr", "max_players": 4, "bots": 2, "turn_seconds": TURN_SECONDS},
    )
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    # Otto chooses his cards in time and then lets his turns run out: the game waits for him
    # a whole turn each round. Without a person who does, the computer would play every seat
    # and could finish the game before Nora takes hers back.
    otto = new_page("otto", lang="en")
    assert call(otto, "POST", f"/api/games/{game_id}/join/")["status"] == 200
    assert call(page, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    otto.goto(f"/games/{game_id}/")
    wait_until_connected(otto)
    otto.locator("#keep-confirm").click()  # all three short destination cards
    expect(otto.locator("#keep-dialog")).to_be_hidden()
    page.goto(f"/games/{game_id}/")

    bots = page.locator("#players li.player:has(.badge-bot)")
    expect(bots).to_have_count(2)
    for name in bots.locator(".player-name").all_inner_texts():
        assert name.strip() and name != me  # a name of its own
    expect(bots.first.locator(".badge-bot")).to_have_text("computer")
    expect(player_row(page, me).locator(".badge-bot")).to_have_count(0)

    # Nora does not choose: when the time is up the computer chooses for her seat, and stands in.
    expect(page.locator("#autopilot-panel")).to_be_visible(timeout=(TURN_SECONDS + 10) * 1000)
    expect(player_row(page, me).locator(".badge-autopilot")).to_be_visible()
    expect(page.locator("#keep-dialog")).to_be_hidden()
    # The computers play on meanwhile, each STATE laying the table out anew: the button is
    # pressed where it is, without waiting for two frames in which it did not move.
    page.locator("#take-back-button").click(force=True)
    expect(page.locator("#autopilot-panel")).to_be_hidden()
    expect(player_row(page, me).locator(".badge-autopilot")).to_have_count(0)
    expect(page.locator("#turn-line")).not_to_be_empty()
    assert re.search(r"\bme\b", player_row(page, me).get_attribute("class"))
