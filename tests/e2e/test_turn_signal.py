"""The signal that it is your move, in a real browser against a computer player: the page
title's prefix while it is, a beep (WebAudio) when it becomes so once the visitor has
interacted with the page and unless the sound is off, the sound toggle remembered across a
reload, the turn timer on your move; and the end screen of that rated game with each
player's rating change, again after a reload."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import call, game_against_a_bot, record_dialogs, wait_until_connected
from tests.e2e.pagecheck import assert_page_sound
from tests.e2e.test_two_players import (
    Player,
    choose_short_destination_cards,
    draw_from_the_deck,
    vote_to_end,
    wait_for_my_turn,
)

pytestmark = pytest.mark.page(1)

PREFIX = "▶ Your turn · "
# While it is your move here, this game is also one of "My games" waiting for you: "(1) ".
MINE = "(1) " + PREFIX
# Counts the beeps the page tries (the oscillators it makes) and records every title it sets.
SPIES = """
(() => {
    window.__beeps = 0;
    window.__titles = [];
    const Real = window.AudioContext;
    if (Real) {
        window.AudioContext = class extends Real {
            createOscillator() {
                window.__beeps += 1;
                return super.createOscillator();
            }
        };
    }
    const title = Object.getOwnPropertyDescriptor(Document.prototype, "title");
    Object.defineProperty(Document.prototype, "title", {
        configurable: true,
        enumerable: title.enumerable,
        get() { return title.get.call(this); },
        set(value) { window.__titles.push(String(value)); title.set.call(this, value); },
    });
})();
"""
RATING_CHANGE = re.compile(r"^([+\u2212]\d+\.\d|0\.0)$")


def beeps(page: Page) -> int:
    return page.evaluate("() => window.__beeps")


def titles(page: Page) -> list[str]:
    return page.evaluate("() => window.__titles")


def pass_the_turn(player: Player) -> None:
    """Two cards from the deck: the turn goes to the computer, which moves at once."""
    draw_from_the_deck(player)
    draw_from_the_deck(player)


def test_your_turn_shows_in_the_title_beeps_and_the_sound_toggle_is_remembered(new_page):
    page = new_page("Tilda", lang="en")
    page.add_init_script(SPIES)
    tilda = Player(page, new_page.guest(page)["user"]["name"], record_dialogs(page))
    game_id = game_against_a_bot(page, start=True)
    page.goto(f"/games/{game_id}/")
    wait_until_connected(page)
    base = page.title()
    assert not base.startswith((PREFIX, "("))
    toggle = page.locator("#sound-toggle")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-pressed", "true")  # on by default
    expect(page.locator("#turn-line")).to_have_attribute("role", "status")

    # Choosing the short cards is the interaction that lets the page make a sound.
    choose_short_destination_cards(tilda, keep=2)
    wait_for_my_turn(tilda)
    expect(page).to_have_title(MINE + base)
    expect(page.locator("#turn-line")).to_be_visible()
    expect(page.locator("#deadline")).to_be_visible()  # the turn timer runs on your move
    expect(page.locator("#deadline")).to_have_text(re.compile(r"^Time left for this turn: "))
    page.wait_for_function("() => window.__beeps >= 1")
    assert beeps(page) == 1  # once, when the turn became yours

    # The computer's move takes the prefix away; your next move brings it and a beep back.
    seen = len(titles(page))
    pass_the_turn(tilda)
    wait_for_my_turn(tilda)
    expect(page).to_have_title(MINE + base)
    assert base in titles(page)[seen:], titles(page)
    page.wait_for_function("() => window.__beeps >= 2")

    # Sound off: the title still says it, the page stays silent.
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    silent = beeps(page)
    seen = len(titles(page))
    pass_the_turn(tilda)
    wait_for_my_turn(tilda)
    expect(page).to_have_title(MINE + base)
    assert base in titles(page)[seen:], titles(page)
    page.wait_for_timeout(300)
    assert beeps(page) == silent

    # The choice is remembered: still off after a reload, and on again with a click.
    page.reload()
    wait_until_connected(page)
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page).to_have_title(MINE + base)  # a page opened on your move says so
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    page.reload()
    wait_until_connected(page)
    expect(toggle).to_have_attribute("aria-pressed", "true")

    # The end: both vote (the computer agrees), the game is rated, the score sheet shows how.
    vote_to_end(tilda)
    results = page.locator("#results-table")
    expect(page.locator("#results")).to_be_visible()
    expect(page).to_have_title(base)
    headings = results.locator("thead th").all_inner_texts()
    assert headings[headings.index("Total") + 1] == "Rating", headings
    column = headings.index("Rating")
    rows = results.locator("tbody tr")
    expect(rows).to_have_count(2)

    def changes() -> list[str]:
        # The player's name is the row's heading (th), the other cells are td.
        return [row.locator("th, td").nth(column).inner_text() for row in rows.all()]

    shown = changes()
    assert all(RATING_CHANGE.match(text) for text in shown), shown
    page.reload()
    expect(page.locator("#results")).to_be_visible()
    assert changes() == shown
    assert tilda.dialogs == []


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (375, 812)])
def test_the_turn_timer_counts_hours_in_a_turn_based_game_and_minutes_in_a_live_one(
    new_page, screenshot, width, height
):
    page = new_page("Timo", lang="en", width=width, height=height)
    deadline = page.locator("#deadline")
    answer = call(
        page,
        "POST",
        "/api/games/",
        {"name": "Brieflich", "max_players": 2, "bots": 1, "pace": "turn_based",
         "turn_seconds": 12 * 3600},
    )  # fmt: skip
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    assert call(page, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    page.goto(f"/games/{game_id}/")
    wait_until_connected(page)  # choosing the short cards: the clock runs
    expect(deadline).to_have_text(re.compile(r"^Time left for this turn: 11:59:[0-5]\d$"))
    assert_page_sound(page, "a turn-based game's timer", new_page.watch(page))
    screenshot(page, f"turn-timer-hours-{width}x{height}")

    live = game_against_a_bot(page, start=True)  # minutes at most
    page.goto(f"/games/{live}/")
    wait_until_connected(page)
    expect(deadline).to_have_text(re.compile(r"^Time left for this turn: [1-9]?\d:[0-5]\d$"))
