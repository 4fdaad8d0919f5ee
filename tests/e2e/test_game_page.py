"""The game page in a real browser: starting, choosing cards and drawing against a computer
player, watching as a spectator, and the table on a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import XSS_NAME, game_against_a_bot, hand_size, wait_for_hand_size

pytestmark = pytest.mark.page(2)


def test_a_player_starts_chooses_destination_cards_and_draws_two_cards(new_page, screenshot):
    page = new_page("alice", lang="en")
    game_id = game_against_a_bot(page)
    page.goto(f"/games/{game_id}/")
    page.locator("#start-button").click()

    dialog = page.locator("#keep-dialog")
    expect(dialog).to_be_visible()
    boxes = dialog.locator("input[type=checkbox]")
    expect(boxes).to_have_count(3)
    assert page.locator("#board .place.highlight").count() >= 2  # the cards' places light up
    screenshot(page, "game-preparation")
    boxes.nth(0).uncheck()
    boxes.nth(1).uncheck()
    dialog.locator("#keep-confirm").click()
    expect(page.locator("#keep-error")).to_be_visible()  # one card is not enough (R2.4)
    boxes.nth(1).check()
    dialog.locator("#keep-confirm").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#destinations li")).to_have_count(3)  # the long card and two short

    deck = page.locator("#deck-button")
    expect(deck).to_be_enabled()  # the computer player moves at once when it starts
    assert hand_size(page) == 4
    deck.click()
    wait_for_hand_size(page, 5)
    expect(deck).to_be_enabled()  # the second card of the draw (R5.1)
    deck.click()
    wait_for_hand_size(page, 6)
    assert page.locator("#feed li.feed-took_wheel").count() >= 2
    screenshot(page, "game-after-drawing")

    # After a reload the feed comes back from the history, each entry once.
    page.reload()
    expect(page.locator("#feed li.feed-dealt")).to_have_count(1)
    expect(page.locator("#feed li.feed-game_started")).to_have_count(1)


# Every WebSocket the page makes stays CONNECTING until the test calls window.openSockets():
# a stand-in that makes the real socket then and passes its events on.
HOLD_SOCKETS = """(() => {
    const Real = window.WebSocket;
    const held = [];
    window.heldSockets = () => held.length;
    window.openSockets = () => held.splice(0).forEach((open) => open());
    class HeldSocket extends EventTarget {
        constructor(url) {
            super();
            this.real = null;
            held.push(() => {
                this.real = new Real(url);
                for (const type of ["open", "message", "close", "error"]) {
                    this.real.addEventListener(type, (event) =>
                        this.dispatchEvent(new event.constructor(type, event)));
                }
            });
        }
        get readyState() { return this.real ? this.real.readyState : Real.CONNECTING; }
        send(data) { this.real.send(data); }
        close(...args) { if (this.real) this.real.close(...args); }
    }
    for (const name of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) HeldSocket[name] = Real[name];
    window.WebSocket = HeldSocket;
})();"""


def test_the_table_waits_for_its_socket_before_it_offers_a_move(new_page):
    page = new_page("Nora", lang="en")
    game_id = game_against_a_bot(page, start=True)
    page.add_init_script(HOLD_SOCKETS)
    page.goto(f"/games/{game_id}/")
    # The page has drawn its table (it does so right after it asked for the socket).
    page.wait_for_function("() => window.heldSockets() > 0")
    expect(page.locator("#hand li").first).to_be_visible()
    # A click now would be lost: the choice of cards waits, and so does the deck.
    expect(page.locator("#keep-dialog")).to_be_hidden()
    expect(page.locator("#deck-button")).to_be_disabled()
    expect(page.locator("#chat-send")).to_be_disabled()  # a line of chat waits too
    assert page.locator("#notice").is_hidden()

    page.evaluate("() => window.openSockets()")
    expect(page.locator("#chat-send")).to_be_enabled()
    dialog = page.locator("#keep-dialog")
    expect(dialog).to_be_visible()
    dialog.locator("#keep-confirm").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#destinations li")).to_have_count(4)  # the long card and three short
    assert page.locator("#notice").is_hidden()


def test_a_spectator_sees_the_public_table_and_player_names_as_text(new_page):
    host = new_page(XSS_NAME, lang="en")
    name = new_page.guest(host)["user"]["name"]
    game_id = game_against_a_bot(host, start=True)

    page = new_page("bob", lang="en")
    alerts = []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    page.goto(f"/games/{game_id}/")
    expect(page.locator("#spectator-badge")).to_be_visible()
    expect(page.locator("#players").get_by_text(name, exact=True)).to_be_visible()
    expect(page.locator("#hand-panel")).to_be_hidden()
    expect(page.locator("#keep-dialog")).to_be_hidden()
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator("#face-up button:enabled").count() == 0
    assert alerts == []


def test_on_a_phone_the_panels_go_below_the_board_and_nothing_scrolls_sideways(
    new_page, screenshot
):
    page = new_page("carla", width=375, height=800)
    game_id = game_against_a_bot(page, start=True)
    page.goto(f"/games/{game_id}/")
    page.locator("#keep-dialog .dialog-cancel").click()
    board = page.locator("#board").bounding_box()
    players = page.locator("#players").bounding_box()
    assert board["width"] <= 375 and board["x"] >= 0
    assert players["y"] >= board["y"] + board["height"]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    screenshot(page, "game-phone")
    spread = """() => {
        const [a, b] = [...document.querySelectorAll("#board .place-dot")]
            .map((dot) => dot.getBoundingClientRect());
        return Math.hypot(a.x - b.x, a.y - b.y);
    }"""
    before = page.evaluate(spread)
    page.locator("#zoom-in").click()  # a larger map, inside its frame only
    assert page.evaluate(spread) > 1.5 * before
    assert page.locator("#board").bounding_box()["width"] <= 375
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
