"""The Rat um Rad table's layout in a real browser: on a phone (nothing overlaps, nothing
scrolls sideways, the activity feed and the chat fold away), by keyboard (the Tab order, a
visible focus ring, Enter draws) and the choice of destination cards, beside the map on a
laptop's screen and a sheet at the bottom of a phone's."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import call, game_against_a_bot, hand_size, say, wait_for_hand_size
from tests.e2e.pagecheck import OVERLAPS

pytestmark = pytest.mark.page(1)

BUILDABLE = '#board g.road.buildable[tabindex="0"]'

# Every pair of these boxes that overlaps, as "a / b" (only the visible ones count).


# What has the focus, in a word: a road, a face-up card, a destination card or an element's id.
FOCUSED = """() => {
    const node = document.activeElement;
    if (!node || node === document.body) return "body";
    if (node.matches("g.road")) return node.matches(".buildable") ? "road" : "other road";
    if (node.closest("#face-up")) return "face-up";
    if (node.closest("#destinations")) return "destination";
    if (node.matches("summary")) return `summary:${node.parentElement.id}`;
    return node.id || node.tagName.toLowerCase();
}"""

FOCUS_RING = """() => {
    const style = getComputedStyle(document.activeElement);
    const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
    return outline || style.boxShadow !== "none";
}"""


def open_game(page: Page) -> int:
    """A started game against a computer player, its page open with the choice of cards."""
    game_id = game_against_a_bot(page, start=True)
    page.goto(f"/games/{game_id}/")
    expect(page.locator("#keep-dialog")).to_be_visible()
    return game_id


def keep_all_cards(page: Page) -> None:
    dialog = page.locator("#keep-dialog")
    dialog.locator("#keep-confirm").click()
    expect(dialog).to_be_hidden()


def my_move(page: Page) -> None:
    """Until it is the player's move (its start: no card taken yet)."""
    expect(page.locator("#turn-line.mine")).to_contain_text("build a road")
    expect(page.locator("#deck-button")).to_be_enabled()


def draw_until_a_road_is_buildable(page: Page) -> None:
    """Two cards from the deck a turn until some road is buildable at the start of a turn."""
    for _ in range(12):
        my_move(page)
        if page.locator(BUILDABLE).count():
            return
        size = hand_size(page)
        page.locator("#deck-button").click()
        wait_for_hand_size(page, size + 1)
        page.locator("#deck-button").click()
        wait_for_hand_size(page, size + 2)
    raise AssertionError("no road became buildable")


def is_open(page: Page, panel: str) -> bool:
    return page.locator(panel).evaluate("(node) => node.open")


def test_on_a_phone_nothing_overlaps_nothing_scrolls_sideways_and_feed_and_chat_fold(
    new_page, screenshot
):
    page = new_page("Nina", lang="en", width=375, height=812)
    open_game(page)
    keep_all_cards(page)
    my_move(page)
    expect(page.locator("#feed li.feed-dealt")).to_have_count(1)

    # The table first, in one column: the hand, the draw, the map, the destination cards.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    panels = ["#hand-panel", "#draw-panel", "#board-scroll", "#destinations-panel", ".side"]
    assert page.evaluate(OVERLAPS, panels) == []
    tops = [page.locator(selector).bounding_box()["y"] for selector in panels]
    assert tops == sorted(tops)
    for selector in panels:
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 375, selector
    controls = [
        "#hand li",
        "#face-up button",
        "#deck-button",
        "#discard-count",
        "#short-deck-count",
        "#draw-destinations",
        "#destinations button",
        ".zoom button",
    ]
    assert page.evaluate(OVERLAPS, controls) == []
    outside = page.eval_on_selector_all(
        ", ".join(controls),
        """(nodes) => nodes.filter((node) => {
            const box = node.getBoundingClientRect();
            return box.width && (box.left < 0 || box.right > 375);
        }).map((node) => node.id || node.className)""",
    )
    assert outside == []

    # The whole map is in sight, as wide as the screen allows, without scrolling sideways.
    board = page.locator("#board").bounding_box()
    assert board["x"] >= 0 and board["x"] + board["width"] <= 375
    assert board["width"] >= 300
    page.locator("#board-scroll").scroll_into_view_if_needed()
    expect(page.locator("#board")).to_be_in_viewport()
    assert page.evaluate("() => window.scrollX") == 0
    screenshot(page, "table-phone")

    # The feed and the chat start folded; a tap (click) on the heading opens and closes each.
    for panel, content in (("#feed-panel", "#feed"), ("#chat-panel", "#chat-form")):
        assert not is_open(page, panel)
        expect(page.locator(content)).to_be_hidden()
        summary = page.locator(f"{panel} > summary")
        summary.click()
        expect(page.locator(content)).to_be_visible()
        assert is_open(page, panel)
        summary.click()
        expect(page.locator(content)).to_be_hidden()
        assert not is_open(page, panel)
    expect(page.locator("#feed-heading")).to_have_text("Recent activity")
    expect(page.locator("#chat-heading")).to_have_text("Chat")

    # An open chat works as before, and still nothing scrolls sideways.
    page.locator("#chat-panel > summary").click()
    say(page, "Hoi zäme")
    expect(page.locator("#chat li .chat-text").last).to_have_text("Hoi zäme")
    page.locator("#feed-panel > summary").click()
    expect(page.locator("#feed li.feed-dealt")).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    folds = [*panels[:-1], "#players", "#feed-panel", "#chat-panel"]
    assert page.evaluate(OVERLAPS, folds) == []


def test_a_folded_chat_counts_other_peoples_new_lines_until_it_is_opened(new_page):
    page = new_page("Pia", lang="en", width=375, height=812)
    game_id = open_game(page)
    keep_all_cards(page)
    assert not is_open(page, "#chat-panel")
    unread = page.locator("#chat-unread")
    expect(unread).to_be_hidden()

    guest = new_page("Quirin", lang="en")  # watching the same game, with the chat open
    guest.goto(f"/games/{game_id}/")
    for text in ("Hoi", "Wie gohts?"):
        say(guest, text)
        expect(guest.locator("#chat li .chat-text").last).to_have_text(text)
    expect(unread).to_have_text("2 new")
    expect(page.locator("#chat-panel > summary")).to_contain_text("Chat 2 new")

    page.locator("#chat-panel > summary").click()  # opened: read
    expect(page.locator("#chat li .chat-text")).to_have_text(["Hoi", "Wie gohts?"])
    expect(unread).to_be_hidden()
    page.locator("#chat-panel > summary").click()  # folded again: the count starts afresh
    say(guest, "Super")
    expect(unread).to_have_text("1 new")


def test_on_a_wide_screen_the_feed_and_chat_start_open(new_page):
    page = new_page("Olga", lang="en", width=1280, height=800)
    open_game(page)
    assert is_open(page, "#feed-panel") and is_open(page, "#chat-panel")
    expect(page.locator("#chat-text")).to_be_visible()
    # Beside the map: the hand, the draw and the destination cards, then the shared panels.
    board = page.locator("#board-scroll").bounding_box()
    for selector in ("#hand-panel", "#draw-panel", "#destinations-panel", "#players"):
        assert page.locator(selector).bounding_box()["x"] >= board["x"] + board["width"]


def test_a_solo_game_of_road_to_300_shows_no_chat(new_page, screenshot):
    page = new_page("Sola", lang="en", width=1366, height=768)
    answer = call(page, "POST", "/api/games/", {"kind": "road300", "name": "Allein"})
    assert answer["status"] == 201, answer
    page.goto(f"/games/{answer['body']['id']}/")
    expect(page.locator("#r3-grid .r3-cell.r3-lit").first).to_be_visible()  # the table is live
    expect(page.locator("#feed-heading")).to_have_text("Recent activity")
    expect(page.get_by_role("heading", name="Chat")).to_have_count(0)
    expect(page.get_by_role("textbox", name="Message")).to_have_count(0)
    expect(page.get_by_role("button", name="Send")).to_have_count(0)
    screenshot(page, "road300-no-chat")


def test_every_move_is_reachable_by_keyboard_in_the_tables_order(new_page, screenshot):
    page = new_page("Paul", lang="en")
    open_game(page)
    keep_all_cards(page)
    draw_until_a_road_is_buildable(page)

    # The page's order: the turn line, the hand, the draw, the map, the destination cards,
    # the shared side panels; no positive tabindex reorders it.
    order = ["#turn-line", "#hand-panel", "#draw-panel", "#board", "#destinations-panel"]
    order += ["#players", "#feed-panel", "#chat-panel"]
    assert page.evaluate(
        """(order) => order.slice(1).every((selector, index) => {
            const before = document.querySelector(order[index]);
            const node = document.querySelector(selector);
            return Boolean(before.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING);
        })""",
        order,
    )
    assert (
        page.eval_on_selector_all(
            "[tabindex]", "(nodes) => nodes.filter((node) => node.tabIndex > 0).length"
        )
        == 0
    )

    # Tab from the top of the page to the chat: the draw, the roads, the cards, the panels.
    page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
    seen = []
    for _ in range(300):
        page.keyboard.press("Tab")
        seen.append(page.evaluate(FOCUSED))
        if seen[-1] == "chat-text":
            break
    assert seen[-1] == "chat-text", seen
    first = {name: seen.index(name) for name in set(seen)}
    assert first["face-up"] < first["deck-button"] < first["road"] < first["destination"]
    assert first["destination"] < first["summary:feed-panel"] < first["summary:chat-panel"]
    last_road = len(seen) - 1 - seen[::-1].index("road")
    assert last_road < first["destination"]  # the roads one after another

    # Back to the deck with Shift+Tab: a visible focus ring; Enter takes a card.
    back = [seen[-1]]
    for _ in range(len(seen)):
        if back[-1] == "deck-button":
            break
        page.keyboard.press("Shift+Tab")
        back.append(page.evaluate(FOCUSED))
    assert back[-1] == "deck-button", (seen, back)
    assert page.evaluate(FOCUS_RING)
    assert page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") != "none"
    size = hand_size(page)
    page.keyboard.press("Enter")
    wait_for_hand_size(page, size + 1)
    expect(page.locator("#turn-line.mine")).to_contain_text("your second wheel card")
    # The focus stays on the deck for the second card, its ring still showing.
    assert page.evaluate(FOCUSED) == "deck-button"
    assert page.evaluate("() => document.activeElement.matches(':focus-visible')")
    screenshot(page, "table-keyboard-deck")

    # A face-up card has the ring too.
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUSED) == "face-up"
    assert page.evaluate(FOCUS_RING)


def test_the_choice_of_cards_leaves_the_map_and_the_long_card_in_sight(new_page, screenshot):
    # A laptop: beside the map, the long card among its rows, nothing to scroll.
    page = new_page("Rita", lang="en", width=1366, height=768)
    open_game(page)
    dialog = page.locator("#keep-dialog")
    long_card = dialog.locator("#keep-held-list li")
    expect(long_card).to_have_count(1)
    expect(long_card).to_contain_text("long")
    box = dialog.bounding_box()
    board = page.locator("#board").bounding_box()
    centre = (board["x"] + board["width"] / 2, board["y"] + board["height"] / 2)
    assert not (box["x"] <= centre[0] <= box["x"] + box["width"]), (box, board)
    assert box["x"] >= board["x"] + board["width"] - 1  # beside the map, not over it
    row = long_card.bounding_box()
    assert box["y"] <= row["y"] and row["y"] + row["height"] <= box["y"] + box["height"]
    assert row["y"] >= 0 and row["y"] + row["height"] <= 768
    assert dialog.evaluate("(node) => node.scrollHeight <= node.clientHeight")
    assert page.evaluate("() => window.scrollY") == 0
    screenshot(page, "choice-laptop")

    # A phone: a sheet at the bottom, the top of the map in sight above it.
    phone = new_page("Sara", lang="en", width=375, height=812)
    open_game(phone)
    dialog = phone.locator("#keep-dialog")
    sheet = dialog.bounding_box()
    assert sheet["x"] <= 0.5 and sheet["width"] >= 374
    assert abs(sheet["y"] + sheet["height"] - 812) <= 1
    board = phone.locator("#board-scroll").bounding_box()
    assert board["y"] >= 0 and board["y"] + 120 <= sheet["y"], (board, sheet)
    row = dialog.locator("#keep-held-list li").bounding_box()
    assert sheet["y"] <= row["y"] and row["y"] + row["height"] <= 812
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 375
    assert phone.locator("#board .place.highlight").count() >= 2
    screenshot(phone, "choice-phone")


def test_on_a_phone_the_last_move_caption_sits_below_the_map_not_on_it(new_page, screenshot):
    page = new_page("Rita", lang="en", width=375, height=812)
    open_game(page)
    keep_all_cards(page)
    my_move(page)
    size = hand_size(page)
    page.locator("#deck-button").click()
    wait_for_hand_size(page, size + 1)
    caption = page.locator("#last-move")
    expect(caption).to_be_visible()
    expect(caption).to_contain_text("took a card from the deck")
    page.locator("#board-scroll").scroll_into_view_if_needed()
    screenshot(page, "last-move-phone")
    assert page.evaluate(OVERLAPS, ["#board-scroll", "#last-move"]) == []
    board = page.locator("#board-scroll").bounding_box()
    box = caption.bounding_box()
    assert box["y"] >= board["y"] + board["height"]  # just below the map, as wide as it
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
