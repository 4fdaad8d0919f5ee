"""Play again, in real browsers: two people end a Rat um Rad game, both press "Play again" and
both land at the new game's table; a decline shows in the other's end screen; a Road to 300
game's "Play again" opens a new game at once; the daily challenge's end screen links the
day's leaderboard instead. The offer sits inside the end screen, overlapping nothing, on a
laptop (1366 by 768) and on a phone (375 by 812)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.helpers import GAME_PATH, call, game_id_of, wait_until_connected

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 375, "height": 812}

# Where the offer sits: inside the end screen, overlapping none of its other parts, its
# buttons side by side or wrapped but never on top of each other, no sideways scroll.
LAYOUT = """() => {
    const box = (node) => node.getBoundingClientRect();
    const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
        && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const results = box(document.getElementById("results"));
    const rematch = document.getElementById("rematch");
    const offer = box(rematch);
    const problems = [];
    if (offer.left < results.left || offer.right > results.right
        || offer.top < results.top || offer.bottom > results.bottom) {
        problems.push("the offer is not inside the end screen");
    }
    for (const part of document.getElementById("results").children) {
        if (part === rematch || part.hidden || !part.getClientRects().length) continue;
        const name = part.id || part.className;
        if (meets(box(part), offer)) problems.push(`the offer overlaps ${name}`);
    }
    const actions = [...rematch.querySelectorAll(".rematch-actions > *")];
    for (const [i, a] of actions.entries()) {
        const rect = box(a);
        if (rect.left < offer.left || rect.right > offer.right) problems.push(`${a.id} sticks out`);
        for (const b of actions.slice(i + 1)) {
            if (meets(rect, box(b))) problems.push(`${a.id} overlaps ${b.id}`);
        }
    }
    if (document.documentElement.scrollWidth > window.innerWidth) problems.push("sideways scroll");
    return problems;
}"""

# Plays a game over a socket of its own, always the first legal move, until it is over.
PLAY_OUT = """async (gameId) => {
    const socket = new WebSocket(`${location.origin.replace(/^http/, "ws")}/ws/games/${gameId}/`);
    return await new Promise((resolve, reject) => {
        window.setTimeout(() => reject(new Error("the game did not end")), 60000);
        socket.onmessage = (frame) => {
            const message = JSON.parse(frame.data);
            if (message.type === "ERROR" && message.code !== "stale") reject(new Error(frame.data));
            if (message.type !== "STATE") return;
            const state = message.state;
            if (state.status === "FINISHED") {
                socket.close();
                resolve(state.seq);
            } else if (state.legal.length) {
                socket.send(JSON.stringify({ ...state.legal[0], expect_seq: state.seq }));
            }
        };
    });
}"""


def name_of(new_page, page: Page) -> str:
    return new_page.guest(page)["user"]["name"]


def offer(page: Page):
    return page.locator("#rematch")


def assert_laid_out(page: Page) -> None:
    expect(offer(page)).to_be_visible()
    offer(page).scroll_into_view_if_needed()
    assert page.evaluate(LAYOUT) == []


def rat_um_rad_ended_by_vote(new_page) -> tuple[Page, Page, int]:
    """Alice on a laptop, Bob on a phone: a game of two, both vote to end it at once."""
    alice = new_page("Alice", lang="en", **LAPTOP)
    bob = new_page("Bob", lang="en", **PHONE)
    answer = call(alice, "POST", "/api/games/", {"name": "Nochmal", "max_players": 2})
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    assert call(bob, "POST", f"/api/games/{game_id}/join/")["status"] == 200
    assert call(alice, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    for page in (alice, bob):
        page.goto(f"/games/{game_id}/")
        wait_until_connected(page)
        page.locator("#keep-confirm").click()  # all three short destination cards
        expect(page.locator("#keep-dialog")).to_be_hidden()
    for page in (alice, bob):
        page.locator("#vote-button").click()
        page.locator("#confirm-ok").click()
    for page in (alice, bob):
        expect(page.locator("#results-reason")).to_have_text("All players voted to end the game.")
    return alice, bob, game_id


def test_two_people_both_press_play_again_and_both_land_at_the_new_games_table(
    new_page, screenshot
):
    alice, bob, game_id = rat_um_rad_ended_by_vote(new_page)
    alice_name, bob_name = name_of(new_page, alice), name_of(new_page, bob)

    # Both end screens ask, with the same two buttons, inside the end screen.
    for page, size in ((alice, "1366x768"), (bob, "375x812")):
        expect(offer(page).locator(".rematch-text")).to_have_text(
            ["Play again with the same players?"]
        )
        expect(page.locator("#rematch-accept")).to_have_text("Play again")
        expect(page.locator("#rematch-decline")).to_have_text("No, thanks")
        assert_laid_out(page)
        screenshot(page, f"rematch-offer-{size}")

    # Alice accepts: she waits for Bob, and Bob's end screen shows it at once.
    alice.locator("#rematch-accept").click()
    expect(offer(alice).locator(".rematch-text")).to_have_text(
        [
            "You are in: the new game starts once everyone has accepted.",
            f"Waiting for: {bob_name}",
        ]
    )
    expect(alice.locator("#rematch-accept")).to_have_count(0)
    expect(offer(bob).locator(".rematch-text")).to_have_text([f"Wants to play again: {alice_name}"])
    expect(bob.locator("#feed li.feed-rematch")).to_have_text(
        [f"{alice_name} wants to play again."]
    )
    assert_laid_out(alice)
    assert_laid_out(bob)
    screenshot(alice, "rematch-waiting-1366x768")
    screenshot(bob, "rematch-asked-375x812")

    # Bob accepts too: both are taken to the new game's table, dealt for the two of them.
    with alice.expect_navigation(url=GAME_PATH), bob.expect_navigation(url=GAME_PATH):
        bob.locator("#rematch-accept").click()
    new_id = game_id_of(alice)
    assert new_id != game_id and game_id_of(bob) == new_id
    for page in (alice, bob):
        expect(page.locator("#game h1")).to_have_text("Nochmal")
        wait_until_connected(page)
        expect(page.locator("#keep-dialog")).to_be_visible()  # the new deal's first choice
        names = page.locator("#players .player-name")
        expect(names).to_have_count(2)
        assert sorted(names.all_inner_texts()) == sorted([alice_name, bob_name])
        expect(page.locator("#results")).to_be_hidden()
    screenshot(bob, "rematch-new-game-375x812")

    # The finished game's page, opened again, names the new game and stays where it is.
    alice.goto(f"/games/{game_id}/")
    expect(offer(alice).locator(".rematch-text")).to_have_text(["The new game has begun."])
    expect(alice.locator("#rematch-go")).to_have_attribute("href", f"/games/{new_id}/")
    alice.wait_for_timeout(500)
    assert game_id_of(alice) == game_id


def test_a_decline_shows_in_the_other_end_screen_with_the_way_to_the_lobby(new_page, screenshot):
    alice, bob, _ = rat_um_rad_ended_by_vote(new_page)
    alice_name, bob_name = name_of(new_page, alice), name_of(new_page, bob)
    alice.locator("#rematch-accept").click()
    expect(offer(bob).locator(".rematch-text")).to_have_text([f"Wants to play again: {alice_name}"])
    bob.locator("#rematch-decline").click()
    declined = f"Declined: {bob_name}. No new game this time; you can start one from the lobby."
    for page in (alice, bob):
        expect(offer(page).locator(".rematch-text")).to_have_text([declined])
        expect(page.locator("#rematch-lobby")).to_have_text("To the lobby")
        expect(page.locator("#rematch-accept")).to_have_count(0)
        assert_laid_out(page)
    screenshot(alice, "rematch-declined-1366x768")
    with alice.expect_navigation():
        alice.locator("#rematch-lobby").click()
    expect(alice.locator("#new-game-form")).to_be_visible()


def test_play_again_after_a_road_to_300_game_opens_a_new_game_at_once(new_page, screenshot):
    page = new_page("Rosa", lang="en", **LAPTOP)
    answer = call(page, "POST", "/api/games/", {"kind": "road300", "name": "Solo", "options": {}})
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    page.goto(f"/games/{game_id}/")
    page.evaluate(PLAY_OUT, game_id)
    expect(page.locator("#results")).to_be_visible()
    expect(offer(page).locator(".rematch-text")).to_have_text(
        ["Another game with the same options?"]
    )
    expect(page.locator("#rematch-accept")).to_have_text("Play again")
    expect(page.locator("#rematch-decline")).to_have_count(0)
    assert_laid_out(page)
    screenshot(page, "rematch-road300-1366x768")
    page.set_viewport_size(PHONE)
    assert_laid_out(page)
    screenshot(page, "rematch-road300-375x812")

    with page.expect_navigation(url=GAME_PATH):
        page.locator("#rematch-accept").click()
    assert game_id_of(page) != game_id
    expect(page.locator("#game h1")).to_have_text("Solo")
    expect(page.locator("#r3-round")).to_have_text("1")
    expect(page.locator("#r3-grid .r3-cell.r3-lit").first).to_be_visible()
    expect(page.locator("#results")).to_be_hidden()


def test_the_daily_challenges_end_screen_offers_the_days_leaderboard_instead(new_page, screenshot):
    page = new_page("Dario", lang="en", **PHONE)
    page.goto("/road300/daily/")
    with page.expect_navigation(url=GAME_PATH):
        page.locator("#daily-play-button").click()
    game_id = game_id_of(page)
    page.evaluate(PLAY_OUT, game_id)
    expect(page.locator("#results")).to_be_visible()
    expect(offer(page).locator(".rematch-text")).to_have_text(
        ["The daily challenge counts one attempt: see how you did today."]
    )
    link = page.locator("#rematch-leaderboard")
    expect(link).to_have_text("See the day's leaderboard")
    expect(link).to_have_attribute(
        "href", re.compile(r"^/road300/daily/\?day=[\d-]{10}#daily-table$")
    )
    expect(page.locator("#rematch-accept")).to_have_count(0)
    assert_laid_out(page)
    screenshot(page, "rematch-daily-375x812")
    page.set_viewport_size(LAPTOP)
    assert_laid_out(page)
    screenshot(page, "rematch-daily-1366x768")

    with page.expect_navigation():
        link.click()
    expect(page.locator("#daily-table")).to_be_in_viewport()
    expect(
        page.locator("#daily-scores tbody tr").filter(has_text=name_of(new_page, page))
    ).to_have_count(1)
