"""Every page a newcomer sees, checked whole (tests/e2e/pagecheck.py): no unfilled value
(``null``, ``undefined``, ``NaN``, ``[object Object]``) in any text, tooltip or label, no
sideways scrolling, no console error or CSP violation. A whole game of each kind is played,
and both a laptop's window (1366x768) and a phone's (375x812) of the same player are checked
after each of the player's moves (the computers' moves in between show at the next check);
the two windows take turns making the moves. Then the site's other pages, in German and
English, at both sizes."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import call, game_against_a_bot, game_over, hand_size, wait_for_hand_size
from tests.e2e.pagecheck import assert_page_sound
from tests.e2e.test_rage import STALL_S, act
from tests.e2e.test_road300 import LIT, OVER_OR_LIT, wait_for_next_round

pytestmark = pytest.mark.page(1)

LAPTOP = (1366, 768)
PHONE = (375, 812)
# A whole game's length is bounded in moves, not seconds: a busy machine makes each check
# slower, not the game longer. Rat um Rad: 30 wheels each (R1.3), and the player builds
# whenever a road can be built; its games here end in about 30 of its turns.
MAX_TURNS = 80
OVER_OR_MINE = """() => !document.getElementById("results").hidden
    || document.getElementById("turn-line").classList.contains("mine")"""


class Twins:
    """One player in two windows, a laptop's and a phone's, checked together."""

    def __init__(self, new_page, name: str, lang: str):
        self.laptop = new_page(name, lang=lang, width=LAPTOP[0], height=LAPTOP[1])
        self.phone = new_page(lang=lang, width=PHONE[0], height=PHONE[1])
        self.phone.context.add_cookies(self.laptop.context.cookies())
        self.pages = (self.laptop, self.phone)
        self.watches = {id(page): new_page.watch(page) for page in self.pages}
        self.checks = 0

    def goto(self, path: str) -> None:
        for page in self.pages:
            page.goto(path)

    def other(self, page: Page) -> Page:
        return self.phone if page is self.laptop else self.laptop

    def check(self, where: str, pages: tuple[Page, ...] | None = None) -> None:
        for page in pages or self.pages:
            assert_page_sound(page, where, self.watches[id(page)])
            self.checks += 1


# ------------------------------------------------------------------------------ Rat um Rad

# Where on the screen a road's wheels run at their middle (a double's own half).
ROAD_MIDDLE = """(id) => {
    const map = JSON.parse(document.getElementById("map-data").textContent);
    const road = map.roads.find((road) => road.id === id);
    const places = new Map(map.locations.map((place) => [place.id, place]));
    const a = places.get(road.a), b = places.get(road.b);
    const length = Math.hypot(b.x - a.x, b.y - a.y);
    const ux = (b.x - a.x) / length, uy = (b.y - a.y) / length;
    const double = road.double_of !== null && road.double_of !== undefined;
    const off = double ? (road.id < road.double_of ? -5.7 : 5.7) : 0;
    const middle = new DOMPoint((a.x + b.x) / 2 - uy * off, (a.y + b.y) / 2 + ux * off);
    const screen = middle.matrixTransform(document.getElementById("board").getScreenCTM());
    return [screen.x, screen.y];
}"""


def hover_roads_and_check(twins: Twins, page: Page, step: int, where: str) -> int:
    """Point at a built road, a road that cannot be built and an open or closed double's
    half; each time the road's info box shows, check the page. Returns how many showed."""
    tip = page.locator("#road-tip")
    shown = 0
    for kind, selector in (
        ("a built road", "#board g.road.built"),
        ("a road that cannot be built", "#board g.road:not(.built):not(.buildable)"),
        ("a double's other half", "#board g.road.double-open, #board g.road.closed"),
    ):
        roads = page.locator(selector)
        count = roads.count()
        if not count:
            continue
        road = roads.nth((step * 7) % count)
        road_id = int(road.get_attribute("data-road"))
        road.scroll_into_view_if_needed()
        x, y = page.evaluate(ROAD_MIDDLE, road_id)
        page.mouse.move(x, y)
        if page.locator(f'#board g.road.hover[data-road="{road_id}"]').count() and tip.is_visible():
            assert_page_sound(page, f"{where}, the info box of {kind}", twins.watches[id(page)])
            shown += 1
    page.mouse.move(1, 1)
    return shown


def build_or_draw(twins: Twins, page: Page, where: str) -> str:
    """One turn through the page's own controls: the longest road that can be built (the
    payment dialog checked too), else two wheel cards; the page checked after each move and
    the other window once it shows the same hand."""
    roads = page.locator("#board g.road.buildable")
    if roads.count():
        lengths = page.evaluate(
            """() => Object.fromEntries(JSON.parse(document.getElementById("map-data")
                .textContent).roads.map((road) => [road.id, road.length]))"""
        )
        ids = [int(road) for road in roads.evaluate_all("gs => gs.map(g => g.dataset.road)")]
        longest = max(ids, key=lambda road: lengths[str(road)])
        before = hand_size(page)
        group = page.locator(f'#board g.road[data-road="{longest}"]')
        group.focus()
        page.keyboard.press("Enter")
        dialog = page.locator("#pay-dialog")
        expect(dialog).to_be_visible()
        twins.check(f"{where}, paying for a road", (page,))
        dialog.locator("#pay-confirm").click()
        expect(dialog).to_be_hidden()
        page.wait_for_function(
            """(before) => [...document.querySelectorAll("#hand .hand-count")]
                .reduce((sum, node) => sum + Number(node.textContent), 0) < before""",
            arg=before,
        )
        wait_for_hand_size(twins.other(page), hand_size(page))
        twins.check(f"{where}, road built")
        return "built"
    for draw in range(2):
        if draw and not page.locator("#turn-line.mine").count():
            break  # a face-up joker is a whole turn
        before = hand_size(page)
        deck = page.locator("#deck-button")
        cards = page.locator("#face-up button.card-button:enabled:not(.c-joker)")
        if deck.is_enabled():
            deck.click()
        elif cards.count():
            cards.first.click()
        else:
            page.locator("#draw-destinations").click()
            keep = page.locator("#keep-dialog")
            expect(keep).to_be_visible()
            twins.check(f"{where}, new destination cards", (page,))
            keep.locator("#keep-confirm").click()
            expect(keep).to_be_hidden()
            return "destinations"
        wait_for_hand_size(page, before + 1)
        wait_for_hand_size(twins.other(page), before + 1)
        twins.check(f"{where}, card {draw + 1} drawn")
    return "drew"


def test_a_whole_game_of_rat_um_rad_against_a_computer_shows_a_sound_page(new_page):
    twins = Twins(new_page, "alice", "de")
    game_id = game_against_a_bot(twins.laptop, start=True)
    twins.goto(f"/games/{game_id}/")
    for page in twins.pages:
        expect(page.locator("#keep-dialog")).to_be_visible()
    twins.check("the choice of destination cards")
    twins.laptop.locator("#keep-confirm").click()
    expect(twins.laptop.locator("#keep-dialog")).to_be_hidden()

    turns, tips, moves = 0, 0, []
    while True:
        page = twins.pages[turns % 2]
        page.wait_for_function(OVER_OR_MINE, timeout=30_000)
        if game_over(page):
            break
        assert turns < MAX_TURNS, f"the game did not end in {MAX_TURNS} turns: {moves}"
        where = f"turn {turns + 1}"
        twins.check(f"{where}, my move")
        tips += hover_roads_and_check(twins, page, turns, where)
        moves.append(build_or_draw(twins, page, where))
        turns += 1

    for page in twins.pages:
        expect(page.locator("#results")).to_be_visible()
    twins.check("the end of the game")
    for each in twins.pages:
        tips += hover_roads_and_check(twins, each, turns, "the end of the game")
    assert moves.count("built") >= 3, moves
    assert tips >= turns, f"the road info box showed only {tips} times in {turns} turns"
    print(f"Rat um Rad: {turns} turns {moves}, {tips} info boxes, {twins.checks} checks")


# ------------------------------------------------------------------------------ RAGE

# How far this player is in the game: the round, whether its bid is in, the cards it holds
# (fewer is further); a finished game is furthest.
RAGE_PROGRESS = """() => {
    if (!document.getElementById("results").hidden) return [99, 0, 0];
    const round = parseInt(document.getElementById("rg-round").textContent, 10) || 0;
    const bid = document.querySelector("#rg-seats .rg-me .rg-seat-bid dd");
    const bidIn = bid && /\\d/.test(bid.textContent) ? 1 : 0;
    return [round, bidIn, -document.querySelectorAll("#rg-hand button.rg-card").length];
}"""
RAGE_AT_LEAST = f"""([goal, strictly]) => {{
    const now = ({RAGE_PROGRESS})();
    for (let i = 0; i < 3; i++) if (now[i] !== goal[i]) return now[i] > goal[i];
    return !strictly;
}}"""


def test_rage_with_three_computers_shows_a_sound_page_to_its_end(new_page):
    twins = Twins(new_page, "bob", "en")
    body = {"kind": "rage", "name": "Vier", "max_players": 4, "bots": 3, "turn_seconds": 0}
    answer = call(twins.laptop, "POST", "/api/games/", body)
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    assert call(twins.laptop, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    twins.goto(f"/games/{game_id}/")
    for page in twins.pages:
        expect(page.locator("#rg-hand button.rg-card")).to_have_count(10)
    twins.check("the first deal")

    seen = {"moves": 0, "bids": 0, "cards": 0, "jokers": 0, "forbidden": 0, "keyboard": 2}
    deadline = time.monotonic() + STALL_S
    while not game_over(twins.laptop):
        assert time.monotonic() < deadline, f"no move in {STALL_S} s: {seen}"
        page = twins.pages[seen["moves"] % 2]
        before = page.evaluate(RAGE_PROGRESS)
        if not act(page, seen):
            page.wait_for_timeout(30)
            continue
        deadline = time.monotonic() + STALL_S
        page.wait_for_function(RAGE_AT_LEAST, arg=[before, True])
        now = page.evaluate(RAGE_PROGRESS)
        twins.other(page).wait_for_function(RAGE_AT_LEAST, arg=[now, False])
        twins.check(f"round {now[0]}, move {seen['moves']}")
    for page in twins.pages:
        expect(page.locator("#rg-final-sheet tbody tr.rg-sheet-round")).to_have_count(10)
    twins.check("the end of the game")
    # Every bid and card of bob's came from these pages. The game's log counts them: a click
    # that the table redrew under (counted in ``seen``, then made again) is not a move.
    log = call(twins.laptop, "GET", f"/api/games/{game_id}/log/")["body"]
    me = call(twins.laptop, "GET", "/api/auth/me/")["body"]["user"]["id"]
    mine = [entry["move"]["type"] for entry in log["moves"] if entry["player"] == me]
    assert (mine.count("BID"), mine.count("PLAY_CARD")) == (10, 55), seen
    assert seen["bids"] >= 10 and seen["cards"] >= 55, seen
    print(f"RAGE: {seen}, {twins.checks} checks")


# ------------------------------------------------------------------------------ Road to 300


def test_road_to_300_shows_a_sound_page_to_its_end(new_page):
    twins = Twins(new_page, "charlie", "de")
    answer = call(twins.laptop, "POST", "/api/games/", {"kind": "road300", "name": "Solo"})
    assert answer["status"] == 201, answer
    twins.goto(f"/games/{answer['body']['id']}/")
    for page in twins.pages:
        expect(page.locator(LIT).first).to_be_visible()
    twins.check("the first roll")

    turns = 0
    while True:
        page = twins.pages[turns % 2]
        page.wait_for_function(OVER_OR_LIT)
        if game_over(page):
            break
        assert turns < 60, "the game did not end"
        where = f"round {turns + 1}"
        before = page.locator("#r3-round").inner_text()
        lit = page.locator(LIT)
        lit.first.click()
        expect(page.locator("#r3-grid .r3-chosen")).to_have_count(1)
        twins.check(f"{where}, the cell to cross chosen", (page,))
        lit.last.click()
        expect(page.locator("#r3-confirm")).to_be_enabled()
        twins.check(f"{where}, the end cell chosen", (page,))
        page.locator("#r3-confirm").click()
        wait_for_next_round(page, before)
        wait_for_next_round(twins.other(page), before)
        turns += 1
        twins.check(f"{where} played")

    for page in twins.pages:
        expect(page.locator("#results")).to_be_visible()
    twins.check("the end of the game")
    history = twins.laptop.locator("#r3-history li button")
    history.first.click()
    twins.check("the first round replayed", (twins.laptop,))
    print(f"Road to 300: {turns} rounds, {twins.checks} checks")


# ------------------------------------------------------------------------------ other pages

PAGES = [
    "/",
    "/rankings/",
    "/rankings/?kind=rage",
    "/rankings/?kind=road300",
    "/rules/",
    "/rules/ratumrad/",
    "/rules/rage/",
    "/rules/road300/",
    "/road300/daily/",
    "/games/mine/",
]


def check_at_both_sizes(page: Page, where: str, watch) -> None:
    for width, height in (LAPTOP, PHONE):
        page.set_viewport_size({"width": width, "height": height})
        assert_page_sound(page, where, watch)


@pytest.mark.page(2)  # (in CI's other pass, whose browser tests take less time)
def test_the_site_s_other_pages_are_sound_in_german_and_english(new_page):
    for lang in ("de", "en"):
        visitor = new_page(lang=lang)
        for path in ("/", "/rules/", "/rules/rage/", "/rankings/"):
            visitor.goto(path)
            check_at_both_sizes(visitor, f"{path} for a visitor in {lang}", new_page.watch(visitor))

        page = new_page("dora", lang=lang)
        watch = new_page.watch(page)
        me = new_page.guest(page)["user"]["id"]
        page.goto("/rankings/")
        players = {me} | {
            int(re.search(r"/players/(\d+)/", href).group(1))
            for href in page.eval_on_selector_all(
                "main a[href^='/players/']", "links => links.map(a => a.getAttribute('href'))"
            )[:2]
        }
        paths = PAGES + [f"/players/{player}/" for player in sorted(players)]
        for path in paths:
            page.goto(path)
            check_at_both_sizes(page, f"{path} in {lang}", watch)

        # The lobby's form shows each kind's options.
        page.goto("/")
        for kind in page.eval_on_selector_all(
            "#new-game-form input[name=kind]", "inputs => inputs.map(i => i.value)"
        ):
            page.locator(f"#new-game-form input[name=kind][value={kind}]").check()
            check_at_both_sizes(page, f"the lobby's form for {kind} in {lang}", watch)


# ------------------------------------------------------------------------------ the check itself


def test_the_page_check_names_each_defect_it_guards_and_passes_a_sound_page(new_page):
    page = new_page(lang="en", width=PHONE[0], height=PHONE[1])
    watch = new_page.watch(page)
    page.goto("/rules/")
    assert_page_sound(page, "the rules", watch)
    # Words and hidden values that are no defect.
    page.evaluate(
        """() => {
            const main = document.querySelector("main");
            main.insertAdjacentHTML("beforeend", `<p>Null Stiche, nullified, NaNa</p>
                <p hidden>null</p><span title="Nullrunde">x</span>`);
        }"""
    )
    assert_page_sound(page, "the rules with harmless words", watch)

    defects = {
        "text": ("<p id=d1>Score: undefined</p>", "shows 'Score: undefined' in p#d1"),
        "tooltip": ("<span id=d2 title='NaN points'>x</span>", "'NaN points' in span#d2 [title]"),
        "label": ("<button id=d3 aria-label='[object Object]'>x</button>", "button#d3 [aria-"),
        "option": ("<select id=d4><option>a</option><option>null</option></select>", "select#d4"),
        "svg title": ("<svg id=d5><g><title>null</title><circle r=5 /></g></svg>", "svg#d5"),
        "wide": ("<div id=d6>wide</div>", "sticking out: div#d6 (right edge at 5"),
    }
    for kind, (html, named) in defects.items():
        page.goto("/rules/")
        page.evaluate(
            """(html) => {
                const main = document.querySelector("main");
                const holder = document.createElement("div");
                holder.innerHTML = html;
                const node = holder.firstElementChild;
                main.append(node);
                if (node.id === "d6") node.style.width = "500px";  // no inline style: CSP
            }""",
            html,
        )
        with pytest.raises(AssertionError, match=re.escape(named)):
            assert_page_sound(page, kind, watch)

    page.goto("/rules/")
    page.evaluate("() => console.error('the table has no seat 9')")
    with pytest.raises(AssertionError, match="console error: the table has no seat 9"):
        assert_page_sound(page, "a console error", watch)
    watch.console_errors.clear()
    page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "1";
            document.body.append(script);
        }"""
    )
    with pytest.raises(AssertionError, match="CSP violation: "):
        assert_page_sound(page, "an inline script", watch)
    watch.violations.clear()
    watch.console_errors.clear()
    page.evaluate("() => setTimeout(() => { throw new Error('no such card'); })")
    page.wait_for_timeout(100)
    with pytest.raises(AssertionError, match=r"uncaught error: .*no such card"):
        assert_page_sound(page, "an uncaught error", watch)
    watch.page_errors.clear()
