"""RAGE in real browsers: two people and two computer players play a whole game (10 rounds) by
clicking bid buttons and lit cards (a Joker asks for its colour), one of them reloads in the
middle of a trick and the table resumes, and both see the score sheet of all 10 rounds at the
end; the table of 8 seats on a phone fits without scrolling sideways; the score sheet of 4 or 8
seats scrolls in its own box, never the page."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.helpers import GAME_PATH, call, game_over, wait_for_history, watch_socket

pytestmark = pytest.mark.page(2)

# The longest the table may go without a move before the game counts as stuck. A whole game
# is bounded by its moves (20 bids and 110 cards), not by a time: it takes 20-40 s, and 150 s
# and more on a busy machine.
STALL_S = 60
MOVES = 2 * (10 + 55)  # Ana's and Ben's: a bid in each of the 10 rounds, and 55 cards
BID = "#rg-bids button.rg-bid-button:enabled"
LIT = "#rg-hand button.rg-card.rg-lit:enabled"
TRICK_CARDS = "#rg-trick .rg-played .rg-card"
PHONE = {"width": 375, "height": 812}
LAPTOP = {"width": 1366, "height": 768}

# The score sheet's column headings that cannot be brought into sight by scrolling the sheet's
# own box (each in turn is scrolled to): outside the box or outside the window.
SHEET_HEADINGS_OUT_OF_REACH = """() => {
    const box = document.querySelector("#rg-sheet-panel .rg-sheet-scroll");
    const out = [];
    for (const heading of box.querySelectorAll("thead th")) {
        heading.scrollIntoView({block: "nearest", inline: "nearest"});
        const frame = box.getBoundingClientRect();
        const cell = heading.getBoundingClientRect();
        if (cell.left < frame.left - 0.5 || cell.right > frame.right + 0.5
            || cell.left < 0 || cell.right > window.innerWidth) out.push(heading.textContent);
    }
    box.scrollLeft = 0;
    return out;
}"""
PAGE_WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"


def hand(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        "#rg-hand button.rg-card", "cards => cards.map(c => c.dataset.card)"
    )


def trick(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        TRICK_CARDS, "cards => cards.map(c => c.getAttribute('aria-label'))"
    )


def act(page: Page, seen: dict) -> bool:
    """Bid or play when it is this page's move: the first allowed bid button, else a lit card
    (the first; every third time the last), a Joker with the first colour offered. Returns
    whether it clicked."""
    try:
        bids = page.locator(BID)
        if bids.count():
            forbidden = page.locator("#rg-bids button.rg-forbidden")
            if forbidden.count():  # G2.2 plus/minus one: the dealer's forbidden bid
                expect(forbidden).to_have_count(1)
                expect(forbidden).to_be_disabled()
                tricks = forbidden.get_attribute("data-tricks")
                expect(page.locator("#rg-bid-note")).to_contain_text(f"you may not bid {tricks} ")
                if not seen["forbidden"]:
                    page.screenshot(path=str(SCREENSHOTS / "rage-forbidden-bid.png"))
                seen["forbidden"] += 1
            else:
                expect(page.locator("#rg-bid-note")).to_be_hidden()
            button = bids.nth(seen["moves"] % min(2, bids.count()))  # low bids: 0 or 1
            if not seen["keyboard"]:
                button.focus(timeout=1500)
                page.keyboard.press("Enter")
                seen["keyboard"] += 1
            else:
                button.click(timeout=1500)
            seen["bids"] += 1
            seen["moves"] += 1
            return True
        lit = page.locator(LIT)
        if lit.count():
            card = lit.last if seen["moves"] % 3 == 2 else lit.first
            name = card.get_attribute("data-card", timeout=1500)
            if seen["keyboard"] == 1 and name != "joker":
                card.focus(timeout=1500)
                page.keyboard.press("Enter")
                seen["keyboard"] += 1
            else:
                card.click(timeout=1500)
            if name == "joker":
                dialog = page.locator("#rg-joker-dialog")
                expect(dialog).to_be_visible()
                colours = dialog.locator("button.rg-joker-color")
                expect(colours).to_have_count(6)
                if not seen["jokers"]:
                    page.screenshot(path=str(SCREENSHOTS / "rage-joker-colour.png"))
                colours.first.click()
                expect(dialog).to_be_hidden()
                seen["jokers"] += 1
            seen["cards"] += 1
            seen["moves"] += 1
            return True
    except PlaywrightError:
        return False  # the table changed under the click: look again
    return False


def reload_mid_trick(page: Page, frames: list[str], loads: int, screenshot) -> None:
    """Reload while it is this page's card to play and the trick holds a card (nobody moves
    meanwhile): the same hand and the same trick come back."""
    before_hand, before_trick = hand(page), trick(page)
    before_turn = page.locator("#turn-line").inner_text()
    screenshot(page, "rage-before-reload")
    page.reload()
    wait_for_history(page, frames, loads)
    expect(page.locator("#rg-hand button.rg-card")).to_have_count(len(before_hand))
    expect(page.locator(TRICK_CARDS)).to_have_count(len(before_trick))
    assert hand(page) == before_hand
    assert trick(page) == before_trick
    expect(page.locator("#turn-line")).to_have_text(before_turn)
    expect(page.locator(LIT).first).to_be_visible()


def rage_against_computers(page: Page, seats: int, options: dict | None = None) -> int:
    """A started game of ``seats`` seats, the page's guest and computers in the others, its page
    open with the history in."""
    frames = watch_socket(page)
    body = {"kind": "rage", "name": "Stiche", "max_players": seats, "bots": seats - 1}
    body.update(turn_seconds=0, options=options or {})
    answer = call(page, "POST", "/api/games/", body)
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    assert call(page, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    page.goto(f"/games/{game_id}/")
    wait_for_history(page, frames)
    return game_id


def play_until_a_round_is_scored(page: Page) -> None:
    seen = {"moves": 0, "bids": 0, "cards": 0, "jokers": 0, "forbidden": 0, "keyboard": 2}
    deadline = time.monotonic() + 30
    while not page.locator("#rg-sheet tbody tr.rg-sheet-round").count():
        assert time.monotonic() < deadline, f"no round was scored in time: {seen}"
        if not act(page, seen):
            page.wait_for_timeout(40)


def test_two_people_and_two_computers_play_a_whole_game_of_rage(new_page, screenshot):
    ana = new_page("Ana", lang="en")
    ben = new_page("Ben", lang="en")
    frames = {id(ana): watch_socket(ana), id(ben): watch_socket(ben)}
    ana_name = new_page.guest(ana)["user"]["name"]
    ben_name = new_page.guest(ben)["user"]["name"]

    # Ana creates the game in the lobby's form: 4 seats, 2 computer players, plus/minus one.
    ana.goto("/")
    form = ana.locator("#new-game-form")
    form.locator("input[name=kind][value=rage]").check()
    form.locator("input[name=name]").fill(f"Stiche {ana_name}")
    form.locator("select[name=max_players]").select_option("4")
    form.locator("select[name=bots]").select_option("2")
    form.locator("select[name=turn_seconds]").select_option("0")
    form.locator("select[name=rage__bids]").select_option("open")
    form.locator("input[name=rage__plus_minus_one]").check()
    with ana.expect_navigation(url=GAME_PATH):
        form.locator("button[type=submit]").click()
    game_id = int(GAME_PATH.search(ana.url).group(1))
    expect(ana.locator("#game h1")).to_have_text(f"Stiche {ana_name}")

    # Ben takes the last seat; Ana starts.
    ben.goto("/api/auth/me/")
    assert call(ben, "POST", f"/api/games/{game_id}/join/")["status"] == 200
    ben.goto(f"/games/{game_id}/")
    expect(ana.locator("#seats")).to_contain_text(ben_name)
    ana.locator("#start-button").click()
    loads = {id(ana): 1, id(ben): 1}
    for page in (ana, ben):
        wait_for_history(page, frames[id(page)])
        expect(page.locator("#rg-seats .rg-seat")).to_have_count(4)
        expect(page.locator("#rg-hand button.rg-card")).to_have_count(10)
        expect(page.locator("#rg-round")).to_have_text("1 of 10")
        expect(page.locator("#rg-variant")).to_have_text("Variant: Open bids · Plus/minus one")
        expect(page.locator("#rg-pile .rg-card").last).to_be_visible()
        expect(page.locator("#rg-seats .rg-dealer")).to_have_count(1)
    screenshot(ana, "rage-start")

    seen = {"moves": 0, "bids": 0, "cards": 0, "jokers": 0, "forbidden": 0, "keyboard": 0}
    reloaded = False
    shots = set()
    deadline = time.monotonic() + STALL_S
    while not (game_over(ana) and game_over(ben)):
        assert time.monotonic() < deadline, f"no move in {STALL_S} s: {seen}"
        assert seen["moves"] <= MOVES, f"more clicks than the game has moves: {seen}"
        moved = False
        for page in (ana, ben):
            if game_over(page):
                continue
            if "bid" not in shots and page.locator(BID).count():
                shots.add("bid")
                screenshot(page, "rage-bidding")
            if (
                not reloaded
                and page is ben
                and page.locator(LIT).count()
                and page.locator(TRICK_CARDS).count() >= 1
            ):
                reloaded = True
                loads[id(page)] += 1
                reload_mid_trick(page, frames[id(page)], loads[id(page)], screenshot)
                screenshot(page, "rage-after-reload")
            if "play" not in shots and page.locator(TRICK_CARDS).count() >= 2:
                shots.add("play")
                screenshot(page, "rage-trick")
            moved = act(page, seen) or moved
        if moved:
            deadline = time.monotonic() + STALL_S
        else:
            ana.wait_for_timeout(40)

    assert reloaded, "Ben never had a card to play in a trick with cards in it"
    assert seen["bids"] == 20 and seen["cards"] == 2 * 55 and seen["moves"] == MOVES, seen
    assert seen["forbidden"] >= 1, seen  # Ana and Ben each dealt at least twice
    print(f"RAGE e2e moves: {seen}")
    for page in (ana, ben):
        expect(page.locator("#results-table tbody tr")).to_have_count(4)
        expect(page.locator("#rg-final-sheet tbody tr.rg-sheet-round")).to_have_count(10)
        expect(page.locator("#rg-sheet tbody tr.rg-sheet-round")).to_have_count(10)
        expect(page.locator("#rg-final-sheet thead th")).to_have_count(2 + 4)
        expect(page.locator("#results-reason")).to_have_text("All 10 rounds have been played.")
        expect(page.locator("#turn-line")).to_contain_text("The game is over")
        expect(page.locator("#rg-hand-area")).to_be_hidden()
    # The last round's tricks stay on demand.
    ana.locator("#rg-last-toggle").click()
    expect(ana.locator("#rg-last-cards .rg-played")).to_have_count(4)
    expect(ana.locator("#rg-last-winner")).to_contain_text("Trick 1 was won by ")
    expect(ana.locator("#rg-sheet-panel")).to_be_hidden()  # the results show the sheet
    screenshot(ana, "rage-over")


def test_the_rage_table_of_eight_seats_fits_a_phone(new_page, screenshot):
    page = new_page("Pia", lang="en", width=375, height=800)
    frames = watch_socket(page)
    body = {"kind": "rage", "name": "Handy", "max_players": 8, "bots": 7, "turn_seconds": 0}
    body["options"] = {"bids": "hidden", "durchmarsch": True}
    answer = call(page, "POST", "/api/games/", body)
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    assert call(page, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    page.goto(f"/games/{game_id}/")
    wait_for_history(page, frames)
    expect(page.locator("#rg-seats .rg-seat")).to_have_count(8)
    expect(page.locator("#rg-hand button.rg-card")).to_have_count(10)
    expect(page.locator("#rg-variant")).to_have_text("Variant: Hidden bids · Durchmarsch")

    # Hidden bids: everyone bids at once; Pia's bid buttons 0..10.
    expect(page.locator("#rg-bids button")).to_have_count(11)
    expect(page.locator("#turn-line")).to_have_text("Your bid: how many tricks will you win?")
    # The computers' bids are in but hidden until every bid is (G2.2): a tick, "bid made".
    expect(page.locator("#rg-seats .rg-seat-bid .rg-bid-in")).to_have_count(7)
    expect(page.locator("#rg-seats .rg-me .rg-seat-bid dd")).to_have_text("–")
    expect(page.locator("#rg-seats .rg-seat-bid .rg-bid-in").first).to_contain_text("bid made")
    screenshot(page, "rage-phone-bidding")
    page.locator(BID).nth(2).click()
    expect(page.locator("#rg-bid-area")).to_be_hidden()
    expect(page.locator("#rg-seats .rg-me .rg-seat-bid dd")).to_have_text("2")

    # Play until the trick shows cards (the computers lead and follow by themselves).
    seen = {"moves": 0, "bids": 0, "cards": 0, "jokers": 0, "forbidden": 0, "keyboard": 0}
    deadline = time.monotonic() + 20
    while page.locator(TRICK_CARDS).count() < 3:
        assert time.monotonic() < deadline, "no trick with cards came"
        if not act(page, seen):
            page.wait_for_timeout(40)
    screenshot(page, "rage-phone-trick")

    width = page.evaluate("() => document.documentElement.clientWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    for selector in ("#rg-hand", "#rg-trick", "#rg-seats", "#rg-bar"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, selector
    outside = page.eval_on_selector_all(
        "#rg-hand button.rg-card, #rg-trick .rg-card",
        """(cards, width) => cards.filter((card) => {
            const box = card.getBoundingClientRect();
            return box.left < 0 || box.right > width;
        }).length""",
        width,
    )
    assert outside == 0


@pytest.mark.parametrize("seats", [4, 8])
def test_G4_4_the_score_sheet_scrolls_in_its_own_box_and_the_page_never_sideways(new_page, seats):
    page = new_page("Alice", lang="en", **LAPTOP)
    rage_against_computers(page, seats)
    play_until_a_round_is_scored(page)
    for size in (LAPTOP, PHONE):
        page.set_viewport_size(size)
        expect(page.locator("#rg-sheet-panel")).to_be_visible()
        expect(page.locator("#rg-sheet thead th")).to_have_count(2 + seats)
        expect(page.locator("#rg-sheet tbody tr.rg-sheet-round")).to_have_count(1)
        page.locator("#rg-sheet-panel").scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"rage-sheet-{seats}-seats-{size['width']}.png"))
        scroll_width, width = page.evaluate(PAGE_WIDTH)
        assert scroll_width <= width, f"the page scrolls sideways at {size}"
        box = page.locator("#rg-sheet-panel .rg-sheet-scroll").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
        assert page.evaluate(SHEET_HEADINGS_OUT_OF_REACH) == [], size
        assert page.evaluate("() => window.scrollX") == 0


# What of these lies outside the window (or has text cut off: wider inside than its box).
OUTSIDE_OR_CUT = """(nodes) => nodes.filter((node) => {
    const box = node.getBoundingClientRect();
    const outside = box.top < 0 || box.left < 0
        || box.bottom > window.innerHeight || box.right > window.innerWidth;
    return outside || node.scrollWidth > node.clientWidth;
}).map((node) => node.id || node.textContent)"""

# Seat labels cut off or sticking out of their seat.
CUT_LABELS = """(labels) => labels.filter((label) => {
    const seat = label.closest(".rg-seat").getBoundingClientRect();
    const box = label.getBoundingClientRect();
    return label.scrollWidth > label.clientWidth || box.left < seat.left || box.right > seat.right;
}).map((label) => label.textContent)"""

BID_WORDS = {
    "de": ("Deine Voraussage: Wie viele Stiche machst du?", "Voraussage"),
    "en": ("Your bid: how many tricks will you win?", "Bid"),
}


@pytest.mark.parametrize("lang", ["de", "en"])
def test_G2_on_a_phone_the_bids_and_the_hand_are_in_the_first_screen_with_whole_labels(
    new_page, lang
):
    heading, label = BID_WORDS[lang]
    page = new_page("Alice", lang=lang, **PHONE)
    rage_against_computers(page, 4)
    expect(page.locator(BID)).to_have_count(11)  # open bids: Alice's turn comes at once
    expect(page.locator("#rg-hand button.rg-card")).to_have_count(10)
    expect(page.locator("#rg-bid-heading")).to_have_text(heading)
    page.screenshot(path=str(SCREENSHOTS / f"rage-phone-bidding-{lang}.png"))
    assert page.evaluate("() => [window.scrollX, window.scrollY]") == [0, 0]
    shown = "#rg-bid-heading, #rg-bids, #rg-bids button, #rg-hand-heading, #rg-hand, #rg-hand li"
    assert page.eval_on_selector_all(shown, OUTSIDE_OR_CUT) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]

    # Each seat's labels whole, on a phone and on a laptop's screen.
    for size in (PHONE, LAPTOP):
        page.set_viewport_size(size)
        expect(page.locator("#rg-seats .rg-seat-bid dt")).to_have_text([label] * 4)
        assert page.eval_on_selector_all("#rg-seats .rg-seat-stat dt", CUT_LABELS) == []
    page.screenshot(path=str(SCREENSHOTS / f"rage-bidding-{lang}.png"))
