"""Road to 300 in a real browser: a guest creates the solo game in the lobby's form, plays it
to the end on the grid's lit cells (T3.1: the cell to cross, the end cell, the confirm), with
the keyboard too, reloads mid-game, asks for a hint, steps through the history (T3.2) and sees
the score and the strong bot's score (T4.3); and the table on a phone."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import (
    GAME_PATH,
    become_guest,
    call,
    game_over,
    wait_for_history,
    watch_socket,
)

pytestmark = pytest.mark.page(1)

MAX_TURNS = 60  # a game is about 10 to 25 turns
LIT = "#r3-grid .r3-cell.r3-lit"
OVER_OR_LIT = f"""() => !document.getElementById("results").hidden
    || document.querySelector("{LIT}") !== null"""


def marked_cells(page: Page, mark: str) -> list[tuple[int, int]]:
    return sorted(
        (int(x), int(y))
        for x, y in page.eval_on_selector_all(
            f"#r3-grid .r3-cell.{mark}", "cells => cells.map(c => [c.dataset.x, c.dataset.y])"
        )
    )


def wait_for_next_round(page: Page, before: str) -> None:
    page.wait_for_function(
        """(before) => !document.getElementById("results").hidden
            || document.getElementById("r3-round").textContent !== before""",
        arg=before,
    )


def play_turn_with_clicks(page: Page, other_way: bool = False) -> None:
    """Cross the first lit cell, move to the last lit end cell (``other_way``: the last cell,
    to the first end cell), confirm with the button."""
    before = page.locator("#r3-round").inner_text()
    lit = page.locator(LIT)
    (lit.last if other_way else lit.first).click()
    expect(page.locator("#r3-grid .r3-chosen")).to_have_count(1)
    end = lit.first if other_way else lit.last
    end.hover()
    expect(page.locator("#r3-overlay polyline.r3-path-live")).to_have_count(1)  # its path
    end.click()
    expect(page.locator("#r3-grid .r3-target")).to_have_count(1)
    page.locator("#r3-confirm").click()
    wait_for_next_round(page, before)


def test_a_guest_plays_road_to_300_from_the_lobby_to_the_end(new_page, screenshot):
    page = new_page(lang="en")
    frames = watch_socket(page)
    become_guest(page, "Rosa")

    form = page.locator("#new-game-form")
    form.locator("input[name=kind][value=road300]").check()
    form.locator("input[name=name]").fill("Road trip")
    with page.expect_navigation(url=GAME_PATH):
        form.locator("button[type=submit]").click()
    expect(page.locator("#game h1")).to_have_text("Road trip")
    wait_for_history(page, frames)

    # The table: the grid, three dice, round 1, every legal crossing lit.
    expect(page.locator("#r3-grid .r3-cell")).to_have_count(36)
    expect(page.locator("#r3-dice .r3-die")).to_have_count(3)
    expect(page.locator("#r3-round")).to_have_text("1")
    expect(page.locator("#r3-score")).to_have_text("0")
    expect(page.locator("#turn-line")).to_contain_text("Your turn: cross a cell (dice ")
    expect(page.locator("#spectator-badge")).to_be_hidden()
    expect(page.locator(LIT).first).to_be_visible()
    screenshot(page, "road300-start")

    # Escape and "Back" undo the choice of the cell to cross.
    lit = page.locator(LIT)
    crosses = lit.count()
    lit.first.click()
    expect(page.locator("#r3-grid .r3-chosen")).to_have_count(1)
    expect(page.locator("#r3-back")).to_be_visible()
    expect(page.locator("#r3-confirm")).to_be_disabled()
    screenshot(page, "road300-cross-chosen")
    page.keyboard.press("Escape")
    expect(page.locator("#r3-grid .r3-chosen")).to_have_count(0)
    expect(lit).to_have_count(crosses)
    lit.first.click()
    page.locator("#r3-back").click()
    expect(page.locator("#r3-grid .r3-chosen")).to_have_count(0)

    # The first turn by keyboard: Enter on a lit cell to cross, Space on an end cell, and
    # Enter on the same end cell again plays the turn.
    lit.first.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#r3-grid .r3-chosen")).to_have_count(1)
    page.keyboard.press("ArrowRight")  # the arrow keys move between the cells
    end = lit.first
    end.focus()
    page.keyboard.press("Space")
    expect(page.locator("#r3-grid .r3-target")).to_have_count(1)
    expect(page.locator("#r3-confirm")).to_be_enabled()
    expect(page.locator("#r3-overlay polyline.r3-path-live")).to_have_count(1)
    screenshot(page, "road300-end-chosen")
    page.keyboard.press("Enter")
    wait_for_next_round(page, "1")
    expect(page.locator("#r3-history li")).not_to_have_count(0)
    if not game_over(page):  # (the next roll may end the game at once, rarely)
        expect(page.locator("#r3-grid .r3-circled")).to_have_count(1)
        expect(page.locator("#r3-grid .r3-crossed")).to_have_count(1)
        expect(page.locator("#r3-history li")).to_have_count(1)

    # A hint: the suggested cell to cross and its end light up, its path is drawn.
    page.wait_for_function(OVER_OR_LIT)
    if not game_over(page):
        page.locator("#r3-hint-button").click()
        expect(page.locator("#r3-hint-text")).to_contain_text("Hint: cross (")
        expect(page.locator("#r3-grid .r3-hint")).not_to_have_count(0)
        screenshot(page, "road300-hint")

    # Two more turns, then a reload shows the same round and the same crosses.
    for _ in range(2):
        page.wait_for_function(OVER_OR_LIT)
        if game_over(page):
            break
        play_turn_with_clicks(page)
    if not game_over(page):
        round_before = page.locator("#r3-round").inner_text()
        crossed = marked_cells(page, "r3-crossed")
        circled = marked_cells(page, "r3-circled")
        score = page.locator("#r3-score").inner_text()
        page.reload()
        wait_for_history(page, frames, times=2)
        expect(page.locator("#r3-round")).to_have_text(round_before)
        expect(page.locator("#r3-score")).to_have_text(score)
        assert marked_cells(page, "r3-crossed") == crossed
        assert marked_cells(page, "r3-circled") == circled

    # To the end.
    for _ in range(MAX_TURNS):
        page.wait_for_function(OVER_OR_LIT)
        if game_over(page):
            break
        play_turn_with_clicks(page)
    assert game_over(page), "the game did not end"

    # The results: the total, the strong bot's score on the same dice, 300 reached or not.
    results = page.locator("#results-table")
    expect(results.locator("thead")).to_contain_text("Strong bot")
    expect(results.locator("thead")).to_contain_text("300 reached")
    total = int(results.locator("tbody td.total").inner_text())
    assert re.fullmatch(r"\d+", results.locator("tbody td.r3-bot-score").inner_text())
    expect(page.locator("#results-you")).to_have_text(f"You have {total} points.")
    expect(page.locator("#r3-score")).to_have_text(str(total))
    expect(page.locator("#results-reason")).to_contain_text(re.compile(r"T2\.[38]"))
    expect(page.locator("#turn-line")).to_contain_text(f"The game is over: {total} points")
    if total:
        expect(page.locator("#r3-grid .r3-scored")).not_to_have_count(0)
    expect(page.locator(LIT)).to_have_count(0)
    expect(page.locator("#r3-hint-panel")).to_be_hidden()
    screenshot(page, "road300-over")

    # The finished game replayed from its history: back to round 1 and forward again.
    rounds = page.locator("#r3-history li").count()
    assert rounds >= 2
    page.locator("#r3-history li button").first.click()
    expect(page.locator("#r3-round")).to_have_text("1")
    expect(page.locator("#r3-grid .r3-circled")).to_have_count(1)
    expect(page.locator("#r3-overlay polyline.r3-path-past")).to_have_count(1)
    expect(page.locator("#r3-history-where")).to_contain_text(f"after round 1 of {rounds}")
    page.locator("#r3-history-prev").click()
    expect(page.locator("#r3-grid .r3-circled")).to_have_count(0)  # before the first round
    page.locator("#r3-history-next").click()
    page.locator("#r3-history-next").click()
    expect(page.locator("#r3-round")).to_have_text("2")
    screenshot(page, "road300-replay")
    page.locator("#r3-history-now").click()
    expect(page.locator("#r3-history-where")).to_be_hidden()
    expect(page.locator("#r3-score")).to_have_text(str(total))

    # The replay plays the rounds from the start; pressed again, it stops where it is.
    play = page.locator("#r3-history-play")
    play.click()
    expect(play).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#r3-history-where")).to_contain_text("after round 1 of")
    play.click()
    expect(play).to_have_attribute("aria-pressed", "false")
    page.locator("#r3-history-now").click()
    expect(page.locator("#r3-score")).to_have_text(str(total))


def play_to_the_end(page: Page, other_way: bool = False) -> int:
    for _ in range(MAX_TURNS):
        page.wait_for_function(OVER_OR_LIT)
        if game_over(page):
            break
        play_turn_with_clicks(page, other_way)
    assert game_over(page), "the game did not end"
    return int(page.locator("#results-table tbody td.total").inner_text())


def test_the_daily_challenge_counts_the_first_game_of_the_day_only(new_page, screenshot):
    page = new_page("Dana", lang="en")
    frames = watch_socket(page)
    page.goto("/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Daily challenge").click()
    expect(page.locator("h1")).to_contain_text("the daily challenge")
    with page.expect_navigation(url=GAME_PATH):
        page.locator("#daily-play-button").click()
    first_game = page.url
    wait_for_history(page, frames)
    expect(page.locator("#r3-hint-panel")).to_be_hidden()  # no hints in the daily challenge
    achievement = page.locator("#achievements-panel li[data-key=daily]")
    expect(achievement).not_to_have_class(re.compile(r"\bis-earned\b"))
    first = play_to_the_end(page)

    # The side panel shows at once what the game earned: the daily player, new, on top with
    # whatever else is new (on some days' dice the clicks beat the strong player too).
    expect(achievement).to_have_class(re.compile(r"\bis-earned\b.*\bis-new\b"))
    expect(achievement.locator(".achievement-star")).to_have_text("★")
    expect(achievement.locator(".badge-new")).to_have_text("new")
    expect(achievement.locator(".achievement-status")).to_have_text("earned")
    new_first = page.locator("#achievements-panel li").evaluate_all(
        "items => items.map((item) => item.classList.contains('is-new'))"
    )
    assert new_first == sorted(new_first, reverse=True), new_first

    page.goto("/road300/daily/")
    expect(page.locator("#daily-counted")).to_contain_text(f"Your score of today: {first} points")
    # Dana's rows: other tests may have finished today's game too.
    rows = page.locator("#daily-scores tbody tr").filter(
        has=page.get_by_role("link", name=new_page.guest(page)["user"]["name"], exact=True)
    )
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Dana")
    expect(rows.first.locator("td").nth(2)).to_have_text(str(first))
    screenshot(page, "road300-daily")

    # A second game of the day, played otherwise: it does not replace the first score.
    with page.expect_navigation(url=GAME_PATH):
        page.locator("#daily-play-button").click()
    assert page.url != first_game
    wait_for_history(page, frames, times=2)
    expect(achievement).to_have_class(re.compile(r"\bis-earned\b"))  # from before
    play_to_the_end(page, other_way=True)
    expect(achievement).not_to_have_class(re.compile(r"\bis-new\b"))  # not earned again
    page.goto("/road300/daily/")
    expect(rows).to_have_count(1)
    expect(rows.first.locator("td").nth(2)).to_have_text(str(first))
    expect(rows.first.locator("a[href^='/games/']")).to_have_attribute(
        "href", urlparse(first_game).path
    )
    page.goto("/rankings/?kind=road300")  # the all-time best scores list both games
    best = page.locator("section[aria-labelledby=best-scores] tbody tr")
    expect(best.filter(has_text="Dana")).to_have_count(2)


def test_the_road_to_300_table_fits_a_phone(new_page, screenshot):
    page = new_page("Pia", lang="en", width=375, height=800)
    answer = call(page, "POST", "/api/games/", {"kind": "road300", "name": "Phone", "options": {}})
    assert answer["status"] == 201, answer
    page.goto(f"/games/{answer['body']['id']}/")
    expect(page.locator(LIT).first).to_be_visible()
    board = page.locator("#r3-board").bounding_box()
    assert board["x"] >= 0 and board["x"] + board["width"] <= 375
    cell = page.locator("#r3-grid .r3-cell").first.bounding_box()
    assert cell["width"] >= 40  # big enough for a finger
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    page.locator(LIT).first.click()
    expect(page.locator("#r3-grid .r3-chosen")).to_have_count(1)
    screenshot(page, "road300-phone")
