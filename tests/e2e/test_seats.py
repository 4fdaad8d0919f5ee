"""Who sits at the table, in a real browser: computer players carry a name and a badge, and
the computer that stands in for a person whose time ran out gives the seat back."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.helpers import call, player_row

# The shortest turn the API allows; the server looks for run-out turns every 2 seconds.
TURN_SECONDS = 10


def test_computer_players_have_names_and_a_badge_and_give_a_timed_out_seat_back(new_page):
    page = new_page("nora", lang="en")
    me = new_page.guest(page)["user"]["name"]
    answer = call(
        page,
        "POST",
        "/api/games/",
        {"name": "Uhr", "max_players": 3, "bots": 2, "turn_seconds": TURN_SECONDS},
    )
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    assert call(page, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    page.goto(f"/games/{game_id}/")

    bots = page.locator("#players li.player:has(.badge-bot)")
    expect(bots).to_have_count(2)
    for name in bots.locator(".player-name").all_inner_texts():
        assert name.strip() and name != me  # a name of its own
    expect(bots.first.locator(".badge-bot")).to_have_text("computer")
    expect(player_row(page, me).locator(".badge-bot")).to_have_count(0)

    # Nobody chooses: when the time is up the computer chooses for this seat, and stands in.
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
