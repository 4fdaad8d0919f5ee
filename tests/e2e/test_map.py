"""The Basel map in a real browser: every road easy to hit along its whole length, what a road
costs on hover and focus, the whole map in view at any size, the last move shown for a few
seconds, built roads told apart by more than colour, and a double road's other half."""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import call, game_against_a_bot, hand_size, wait_for_hand_size

pytestmark = pytest.mark.page(2)

MINE = re.compile(r"\bmine\b")


def open_game(page: Page, *, keep: bool = True) -> int:
    game_id = game_against_a_bot(page, start=True)
    page.goto(f"/games/{game_id}/")
    dialog = page.locator("#keep-dialog")
    expect(dialog).to_be_visible()
    if keep:
        dialog.locator("#keep-confirm").click()
    else:
        dialog.locator(".dialog-cancel").click()
    expect(dialog).to_be_hidden()
    return game_id


def draw_until_a_road_glows(page: Page, turns: int = 8) -> None:
    for _ in range(turns):
        expect(page.locator("#turn-line")).to_have_class(MINE, timeout=15_000)
        if page.locator("#board g.road.buildable").count():
            return
        for _ in range(2):
            before = hand_size(page)
            deck = page.locator("#deck-button")
            expect(deck).to_be_enabled()
            deck.click()
            wait_for_hand_size(page, before + 1)
    pytest.fail("no road could be built after drawing for several turns")


# Points on the map where the pointer must find one road: along each road's wheels (a double's
# own half) from 10% to 90% of their run, and beside the wheels where no other road runs
# near. In screen coordinates, with the road each should find.
PROBES = """() => {
    const board = document.getElementById("board");
    const matrix = board.getScreenCTM();
    const screen = (x, y) => {
        const s = new DOMPoint(x, y).matrixTransform(matrix);
        return [s.x, s.y];
    };
    const map = JSON.parse(document.getElementById("map-data").textContent);
    const places = new Map(map.locations.map((place) => [place.id, place]));
    const GAP = 8, DOUBLE = 5.7;
    const lines = map.roads.map((road) => {
        const a = places.get(road.a), b = places.get(road.b);
        const length = Math.hypot(b.x - a.x, b.y - a.y);
        const ux = (b.x - a.x) / length, uy = (b.y - a.y) / length;
        const double = road.double_of !== null && road.double_of !== undefined;
        const off = double ? (road.id < road.double_of ? -DOUBLE : DOUBLE) : 0;
        const at = (t, side) => [
            a.x + ux * t - uy * (off + side), a.y + uy * t + ux * (off + side)];
        return {road, length, at};
    });
    const distance = (x, y, line) => {
        const [x1, y1] = line.at(GAP, 0), [x2, y2] = line.at(line.length - GAP, 0);
        const dx = x2 - x1, dy = y2 - y1;
        const t = Math.max(0, Math.min(1, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)));
        return Math.hypot(x - x1 - t * dx, y - y1 - t * dy);
    };
    const probes = [];
    for (const line of lines) {
        for (const share of [0.1, 0.3, 0.5, 0.7, 0.9]) {
            const t = GAP + (line.length - 2 * GAP) * share;
            for (const side of [0, 7, -7]) {
                const [x, y] = line.at(t, side);
                const near = (other) => other !== line && distance(x, y, other) < 14;
                if (side && lines.some(near)) continue;
                const [sx, sy] = screen(x, y);
                probes.push({road: line.road.id, x: sx, y: sy, side});
            }
        }
    }
    return probes;
}"""


def hovered_road(page: Page) -> int | None:
    road = page.locator("#board g.road.hover")
    return int(road.get_attribute("data-road")) if road.count() == 1 else None


def test_every_road_is_found_by_the_pointer_along_its_whole_length(new_page):
    page = new_page("hilda", lang="en", width=1366, height=768)
    open_game(page, keep=False)
    page.locator("#board-scroll").scroll_into_view_if_needed()
    probes = page.evaluate(PROBES)
    roads = {probe["road"] for probe in probes}
    assert len(roads) == page.locator("#board g.road").count()
    assert sum(1 for probe in probes if probe["side"]) > len(roads)  # beside the wheels too
    wrong = []
    for probe in probes:
        page.mouse.move(probe["x"], probe["y"])
        found = hovered_road(page)
        if found != probe["road"]:
            wrong.append((probe, found))
    assert wrong == [], wrong[:10]
    page.mouse.move(2, 2)  # off the map: no road
    assert hovered_road(page) is None


def test_a_road_shows_what_it_costs_and_is_worth_on_hover_and_on_focus(new_page):
    page = new_page("ida", lang="en", width=1366, height=768)
    open_game(page, keep=False)  # no road is built while this player has not chosen
    page.locator("#board-scroll").scroll_into_view_if_needed()
    roads = page.evaluate(
        """() => JSON.parse(document.getElementById("map-data").textContent).roads"""
    )
    names = page.evaluate(
        """() => Object.fromEntries(JSON.parse(document.getElementById("map-data").textContent)
            .locations.map((place) => [place.id, place.name]))"""
    )
    probes = {probe["road"]: probe for probe in page.evaluate(PROBES) if not probe["side"]}
    tip = page.locator("#road-tip")
    coloured = next(road for road in roads if road["color"] not in ("grey",))
    grey = next(road for road in roads if road["color"] == "grey")
    wheels = "1 wheel" if coloured["length"] == 1 else f"{coloured['length']} wheels"
    for road, cost in ((coloured, f"{coloured['color']}, {wheels}"), (grey, "any one colour")):
        page.mouse.move(probes[road["id"]]["x"], probes[road["id"]]["y"])
        expect(tip).to_be_visible()
        expect(tip.locator(".road-tip-title")).to_have_text(
            f"{names[str(road['a'])]} – {names[str(road['b'])]}"
        )
        expect(tip.locator(".road-tip-kind")).to_contain_text(cost)
        points = "1 point" if road["points"] == 1 else f"{road['points']} points"
        expect(tip.locator(".road-tip-points")).to_have_text(points)
        box = tip.bounding_box()  # near the road, inside the window
        assert box["x"] >= 0 and box["x"] + box["width"] <= 1366
        assert abs(box["y"] + box["height"] / 2 - probes[road["id"]]["y"]) < 120
    page.mouse.move(1, 1)
    expect(tip).to_be_hidden()

    page.locator("#reopen-choice").click()
    page.locator("#keep-confirm").click()
    draw_until_a_road_glows(page)
    road = page.locator("#board g.road.buildable").first
    road.focus()
    expect(tip).to_be_visible()
    expect(tip.locator(".road-tip-status")).to_contain_text("press Enter")
    page.keyboard.press("Tab")  # away from the map's roads, or to the next road
    focused = page.evaluate("() => document.activeElement.getAttribute('data-road')")
    if focused is None:
        expect(tip).to_be_hidden()


@pytest.mark.parametrize("width,height", [(1366, 768), (375, 812)])
def test_the_whole_map_fits_the_window_and_the_fit_button_brings_it_back(new_page, width, height):
    page = new_page("jan", lang="en", width=width, height=height)
    open_game(page, keep=False)

    def every_place_in_view() -> bool:
        return page.evaluate(
            """() => {
                const frame = document.getElementById("board-scroll").getBoundingClientRect();
                return [...document.querySelectorAll("#board .place-dot")].every((dot) => {
                    const box = dot.getBoundingClientRect();
                    return box.left >= Math.max(0, frame.left)
                        && box.right <= Math.min(innerWidth, frame.right)
                        && box.top >= Math.max(0, frame.top)
                        && box.bottom <= Math.min(innerHeight, frame.bottom);
                });
            }"""
        )

    page.locator("#zoom-fit").click()
    assert every_place_in_view()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    page.locator("#zoom-in").click()
    page.locator("#zoom-in").click()
    assert not every_place_in_view()  # zoomed in, the map pans inside its frame
    page.locator("#zoom-fit").click()
    expect(page.locator("#zoom-out")).to_be_disabled()
    assert every_place_in_view()


def test_the_last_move_is_shown_for_a_few_seconds_with_who_made_it(new_page):
    page = new_page("kim", lang="en", width=1366, height=768)
    me = new_page.guest(page)["user"]["name"]
    open_game(page)
    draw_until_a_road_glows(page)
    # Every road ringed as the last move, with the name written beside it: the computer may
    # move (and ring its own road) before the test looks.
    page.evaluate(
        """() => {
            window.flashes = [];
            new MutationObserver(() => {
                const road = document.querySelector("#board g.road.last-move");
                const name = document.querySelector("#board .callout text");
                if (road && name) window.flashes.push([road.dataset.road, name.textContent]);
            }).observe(document.getElementById("board"),
                       {subtree: true, attributes: true, childList: true});
            window.captions = [];
            const caption = document.getElementById("last-move");
            new MutationObserver(() => window.captions.push(caption.textContent))
                .observe(caption, {subtree: true, childList: true, characterData: true});
        }"""
    )
    road = page.locator("#board g.road.buildable").first
    road_id = road.get_attribute("data-road")
    road.focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#pay-dialog")
    expect(dialog).to_be_visible()
    dialog.locator("#pay-confirm").click()
    expect(page.locator(f'#board g.road.built[data-road="{road_id}"]')).to_have_count(1)
    page.wait_for_function("(road) => window.flashes.some(([id]) => id === road)", arg=road_id)
    assert [road_id, me] in page.evaluate("() => window.flashes")
    caption = page.locator("#last-move")
    expect(caption).to_be_visible()
    # Then the computer's move replaces it: its name and what it did. An event of the rules
    # may follow its move at once (R5.5: three jokers face up) and be the caption after it.
    bot = page.locator("#players li.player:not(.me) .player-name").inner_text()
    page.wait_for_function(
        "(name) => window.captions.some((text) => text.includes(name))", arg=bot, timeout=15_000
    )
    # A turn of two wheel cards is one caption naming both (the feed has a line for each).
    last = page.locator("#feed li").last.inner_text()
    both = f"{re.escape(bot)} drew .+ and .+|{re.escape(bot)} drew two cards from the deck\\."
    expect(caption).to_have_text(re.compile(f"^({re.escape(last)}|{both})$"))
    # A few seconds later the highlight is gone.
    expect(caption).to_be_hidden(timeout=10_000)
    expect(page.locator("#board g.road.last-move")).to_have_count(0)


def with_roads_built_by_others(page: Page, roads: list[int]) -> None:
    """The game socket's STATEs as if the other players had built ``roads`` (one each, in
    the order of the seats after the viewer's): the map is drawn from STATE alone."""

    def route(socket) -> None:
        server = socket.connect_to_server()

        def from_server(message) -> None:
            data = json.loads(message)
            for item in data if isinstance(data, list) else [data]:
                if item.get("type") == "STATE":
                    state = item["state"]
                    me = (state.get("you") or {}).get("player_id")
                    others = [player["id"] for player in state["players"] if player["id"] != me]
                    built = zip(roads, others, strict=False)
                    state["roads"] = state.get("roads", []) + [
                        {"road": road, "owner": owner} for road, owner in built
                    ]
            socket.send(json.dumps(data))

        server.on_message(from_server)
        socket.on_message(server.send)

    page.route_web_socket(re.compile(r"/ws/games/\d+/$"), route)


def a_double(page: Page) -> tuple[int, int]:
    roads = page.evaluate(
        """() => JSON.parse(document.getElementById("map-data").textContent).roads"""
    )
    road = next(road for road in roads if road.get("double_of") is not None)
    return road["id"], road["double_of"]


def hover(page: Page, road: int) -> None:
    """The pointer on ``road``, moved there again while the layout still shifts the map
    under it (the hand's panel as a turn begins), as a person's hand follows the road."""
    deadline = time.monotonic() + 5
    while True:
        probe = next(p for p in page.evaluate(PROBES) if p["road"] == road and not p["side"])
        page.mouse.move(probe["x"], probe["y"])
        if hovered_road(page) == road or time.monotonic() > deadline:
            return
        page.wait_for_timeout(50)


def test_R6_4_with_two_players_the_other_road_of_a_built_double_shows_closed(new_page):
    page = new_page("lou", lang="en", width=1366, height=768)
    game_id = game_against_a_bot(page, start=True)
    page.goto(f"/games/{game_id}/")
    built, other = a_double(page)
    with_roads_built_by_others(page, [built])
    page.reload()
    page.locator("#keep-dialog .dialog-cancel").click()
    expect(page.locator(f'#board g.road.built[data-road="{built}"]')).to_have_count(1)
    closed = page.locator(f'#board g.road[data-road="{other}"]')
    expect(closed).to_have_class(re.compile(r"\bclosed\b"))
    expect(closed.locator(".road-strike")).to_be_visible()
    hover(page, other)
    expect(page.locator("#road-tip .road-tip-status")).to_contain_text("Closed")
    expect(page.locator("#road-tip .road-tip-status")).to_contain_text("Bot")

    # A screen reader hears every road by its name, the builder's too, never the wheels'
    # letters one by one.
    bot = page.locator("#players li.player:not(.me) .player-name").inner_text()
    expect(page.get_by_role("img", name=re.compile(f"built by {bot}$"))).to_have_count(1)
    expect(page.get_by_role("img", name=re.compile(r"^.+–.+: .*Closed"))).to_have_count(1)
    assert page.locator("#board g.road:not([aria-label])").count() == 0
    assert page.locator('#board .wheel-letter:not([aria-hidden="true"])').count() == 0
    assert re.search(r"\b[A-Z] [A-Z] [A-Z]\b", page.locator("#board").aria_snapshot()) is None


def test_R6_3_with_four_players_the_other_road_of_a_double_stays_open_and_owners_differ_by_pattern(
    new_page,
):
    page = new_page("max", lang="en", width=1366, height=768)
    answer = call(page, "POST", "/api/games/", {"name": "Vier", "max_players": 4, "bots": 3})
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    assert call(page, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    page.goto(f"/games/{game_id}/")
    built, other = a_double(page)
    single = page.evaluate(
        """(skip) => JSON.parse(document.getElementById("map-data").textContent).roads
            .find((road) => road.double_of === null && !skip.includes(road.id)).id""",
        [built, other],
    )
    with_roads_built_by_others(page, [built, single])
    page.reload()
    page.locator("#keep-dialog .dialog-cancel").click()
    expect(page.locator("#board g.road.built")).to_have_count(2, timeout=10_000)
    still_open = page.locator(f'#board g.road[data-road="{other}"]')
    expect(still_open).to_have_class(re.compile(r"\bdouble-open\b"))
    expect(still_open.locator(".road-strike")).to_be_hidden()
    hover(page, other)
    expect(page.locator("#road-tip .road-tip-status")).to_contain_text("Still open")

    # Two owners: their wheels differ in letter and in pattern, not only in colour.
    looks = page.evaluate(
        """(ids) => ids.map((id) => {
            const wheel = document.querySelector(`#board g.road[data-road="${id}"] .wheel`);
            const mark = wheel.querySelector(".wheel-mark");
            const pattern = document.querySelector(mark.getAttribute("fill").slice(4, -1));
            return [wheel.querySelector(".wheel-letter").textContent, pattern.innerHTML,
                    getComputedStyle(mark).display];
        })""",
        [built, single],
    )
    (letter_a, pattern_a, shown_a), (letter_b, pattern_b, shown_b) = looks
    assert letter_a != letter_b and pattern_a != pattern_b
    assert shown_a != "none" and shown_b != "none"
    swatches = page.evaluate(
        """() => [...document.querySelectorAll("#players .swatch")]
            .map((node) => getComputedStyle(node).backgroundImage)"""
    )
    assert len(set(swatches)) == 4 and "none" not in swatches  # the same patterns, per player


def test_tab_walks_the_roads_of_the_map_from_top_to_bottom_and_left_to_right(new_page):
    page = new_page("ole", lang="en", width=1366, height=768)
    open_game(page, keep=False)
    order = page.evaluate(
        """() => {
            const map = JSON.parse(document.getElementById("map-data").textContent);
            const places = new Map(map.locations.map((place) => [place.id, place]));
            const middle = new Map(map.roads.map((road) => {
                const a = places.get(road.a), b = places.get(road.b);
                return [road.id, [(a.x + b.x) / 2, (a.y + b.y) / 2]];
            }));
            return [...document.querySelectorAll("#board g.road")]
                .map((node) => middle.get(Number(node.dataset.road)));
        }"""
    )
    rows = [int(y // 60) for _, y in order]
    assert rows == sorted(rows)  # row by row from the top
    for row in set(rows):
        xs = [x for (x, y) in order if int(y // 60) == row]
        assert xs == sorted(xs)  # each row from the left


def tip_text(page: Page) -> str:
    tip = page.locator("#road-tip")
    expect(tip).to_be_visible()
    return " / ".join(tip.locator(":scope > *").all_inner_texts())


@pytest.mark.parametrize(
    "lang,words",
    [
        (
            "en",
            {
                "wheels": "wheels",
                "wheel": "wheel",
                "built": "Built by",
                "closed": "Closed",
                "waiting": "once the game has begun",
                "cards": "Not enough cards: it takes 6 orange cards",
                "second": "take your second wheel card first",
                "orange": "orange",
            },
        ),
        (
            "de",
            {
                "wheels": "Räder",
                "wheel": "Rad",
                "built": "Gebaut von",
                "closed": "Gesperrt",
                "waiting": "sobald das Spiel begonnen hat",
                "cards": "Zu wenige Karten: Sie braucht 6 Karten in orange",
                "second": "Nimm zuerst deine zweite Radkarte",
                "orange": "orange",
            },
        ),
    ],
)
def test_a_roads_card_tells_its_colour_and_length_and_why_it_cannot_be_built_now(
    new_page, screenshot, lang, words
):
    page = new_page("nora", lang=lang, width=1366, height=768)
    game_id = game_against_a_bot(page, start=True)
    page.goto(f"/games/{game_id}/")
    built, other = a_double(page)
    roads = {
        road["id"]: road
        for road in page.evaluate(
            """() => JSON.parse(document.getElementById("map-data").textContent).roads"""
        )
    }
    colors = page.evaluate(
        """() => JSON.parse(document.getElementById("ui-strings").textContent).colors"""
    )
    with_roads_built_by_others(page, [built])
    page.reload()
    page.locator("#keep-dialog .dialog-cancel").click()
    expect(page.locator(f'#board g.road.built[data-road="{built}"]')).to_have_count(1)
    bot = page.locator("#players li.player:not(.me) .player-name").inner_text()

    def kind(road: dict) -> str:
        unit = words["wheel"] if road["length"] == 1 else words["wheels"]
        return f"{colors[road['color']]}, {road['length']} {unit}"

    # Taken: its own colour and length (not its builder's), and who built it.
    hover(page, built)
    text = tip_text(page)
    assert kind(roads[built]) in text and f"{words['built']} {bot}" in text, text
    assert "null" not in text
    # The other road of the double: closed (R6.4).
    hover(page, other)
    text = tip_text(page)
    assert kind(roads[other]) in text and words["closed"] in text and "null" not in text, text
    # Before the game is under way, any free road says so. A six-wheel orange road is never
    # paid with the four cards of the deal.
    long = next(r for r in roads.values() if r["length"] == 6 and r["color"] == "orange")["id"]
    page.locator("#board-scroll").scroll_into_view_if_needed()
    hover(page, long)
    text = tip_text(page)
    assert kind(roads[long]) in text and words["waiting"] in text and "null" not in text, text
    screenshot(page, f"road-card-{lang}")

    page.locator("#reopen-choice").click()
    page.locator("#keep-confirm").click()
    page.mouse.move(1, 1)
    expect(page.locator("#turn-line")).to_have_class(re.compile(r"\bmine\b"), timeout=15_000)
    page.locator("#board-scroll").scroll_into_view_if_needed()
    hover(page, long)
    text = tip_text(page)
    assert words["cards"] in text and "null" not in text, text
    # One card taken: the second is still to take, so no road can be built now (R5.3).
    size = hand_size(page)
    page.locator("#deck-button").click()
    wait_for_hand_size(page, size + 1)
    page.mouse.move(1, 1)
    page.locator("#board-scroll").scroll_into_view_if_needed()
    hover(page, long)
    text = tip_text(page)
    assert words["second"] in text and "null" not in text, text


# The map point (in the map's own units) shown at a point of the screen; without one, at the
# middle of the map's frame.
MAP_POINT = """(at) => {
    const frame = document.getElementById("board-scroll").getBoundingClientRect();
    const [x, y] = at || [frame.left + frame.width / 2, frame.top + frame.height / 2];
    const matrix = document.getElementById("board").getScreenCTM().inverse();
    const point = new DOMPoint(x, y).matrixTransform(matrix);
    return [point.x, point.y];
}"""
# Screen pixels per map unit.
MAP_SCALE = """() => {
    const matrix = document.getElementById("board").getScreenCTM();
    return Math.hypot(matrix.a, matrix.b);
}"""


def frame_point(page: Page, share_x: float, share_y: float) -> tuple[float, float]:
    box = page.locator("#board-scroll").bounding_box()
    return box["x"] + box["width"] * share_x, box["y"] + box["height"] * share_y


def near(a: list[float], b: list[float], units: float = 1.5) -> bool:
    return abs(a[0] - b[0]) <= units and abs(a[1] - b[1]) <= units


@pytest.mark.parametrize("width,height", [(1366, 768), (375, 812)])
def test_the_zoom_buttons_keep_the_middle_of_the_view_in_the_middle(new_page, width, height):
    page = new_page("olga", lang="en", width=width, height=height)
    open_game(page, keep=False)
    page.locator("#zoom-fit").click()
    middle = page.evaluate(MAP_POINT, None)
    scale = page.evaluate(MAP_SCALE)
    page.locator("#zoom-in").click()
    page.locator("#zoom-in").click()
    assert page.evaluate(MAP_SCALE) > 2 * scale  # larger...
    assert near(page.evaluate(MAP_POINT, None), middle)  # ...about the same middle

    # Dragged elsewhere, both buttons keep that new middle.
    start = frame_point(page, 0.5, 0.5)
    page.mouse.move(*start)
    page.mouse.down()
    for step in range(1, 6):
        page.mouse.move(start[0] + 12 * step, start[1] + 8 * step)
    page.mouse.up()
    moved = page.evaluate(MAP_POINT, None)
    assert not near(moved, middle)
    page.locator("#zoom-in").click()
    assert near(page.evaluate(MAP_POINT, None), moved)
    page.locator("#zoom-out").click()
    assert near(page.evaluate(MAP_POINT, None), moved)


def test_the_wheel_zooms_about_the_point_under_the_pointer(new_page):
    page = new_page("pia", lang="en", width=1366, height=768)
    open_game(page, keep=False)
    page.locator("#board-scroll").scroll_into_view_if_needed()
    scroll = page.evaluate("() => window.scrollY")
    for share in ((0.35, 0.4), (0.6, 0.55)):
        at = frame_point(page, *share)
        under = page.evaluate(MAP_POINT, list(at))
        scale = page.evaluate(MAP_SCALE)
        page.mouse.move(*at)
        page.mouse.wheel(0, -240)
        page.wait_for_function(f"() => ({MAP_SCALE})() > {scale * 1.2}")
        assert near(page.evaluate(MAP_POINT, list(at)), under)
    assert page.evaluate("() => window.scrollY") == scroll  # the page stayed where it was
    page.mouse.wheel(0, 2400)  # back out to the whole map
    page.wait_for_function("() => document.getElementById('zoom-out').disabled")


def test_a_drag_moves_the_map_and_is_never_a_click_that_builds(new_page):
    page = new_page("quinn", lang="en", width=1366, height=768)
    open_game(page)
    draw_until_a_road_glows(page)
    page.locator("#board-scroll").scroll_into_view_if_needed()
    page.locator("#zoom-in").click()
    road = page.locator("#board g.road.buildable").first
    road.focus()  # brought into view
    road_id = int(road.get_attribute("data-road"))
    start = next(p for p in page.evaluate(PROBES) if p["road"] == road_id and not p["side"])
    start = (start["x"], start["y"])
    under = page.evaluate(MAP_POINT, list(start))
    page.mouse.move(*start)
    page.mouse.down()
    end = (start[0] - 60, start[1] - 40)
    for step in range(1, 11):
        page.mouse.move(start[0] - 6 * step, start[1] - 4 * step)
    page.mouse.up()
    # The map point that was under the pointer went with it.
    assert near(page.evaluate(MAP_POINT, list(end)), under)
    expect(page.locator("#pay-dialog")).to_be_hidden()
    # A click without moving still builds: on the road where it is now (a panel that appears
    # as the turn goes on may have moved the map since).
    now = next(p for p in page.evaluate(PROBES) if p["road"] == road_id and not p["side"])
    page.mouse.click(now["x"], now["y"])
    expect(page.locator("#pay-dialog")).to_be_visible()
    page.locator("#pay-dialog .dialog-cancel").click()


# The place names a person sees in the map's frame: their size on the screen and their boxes.
LABELS = """() => {
    const frame = document.getElementById("board-scroll").getBoundingClientRect();
    return [...document.querySelectorAll("#board .place-label")]
        .filter((label) => getComputedStyle(label).visibility !== "hidden")
        .map((label) => {
            const matrix = label.getScreenCTM();
            const box = label.getBoundingClientRect();
            return {
                name: label.textContent,
                size: parseFloat(getComputedStyle(label).fontSize) * Math.hypot(matrix.a, matrix.b),
                box: [box.left, box.top, box.right, box.bottom],
            };
        })
        .filter(({box}) => box[0] >= frame.left && box[2] <= frame.right
            && box[1] >= frame.top && box[3] <= frame.bottom);
}"""


# The places in the map's frame whose names are hidden.
UNNAMED_IN_VIEW = """() => {
    const frame = document.getElementById("board-scroll").getBoundingClientRect();
    return [...document.querySelectorAll("#board .place")].filter((place) => {
        const dot = place.querySelector(".place-dot").getBoundingClientRect();
        const x = dot.left + dot.width / 2, y = dot.top + dot.height / 2;
        const inside = x > frame.left && x < frame.right && y > frame.top && y < frame.bottom;
        const label = place.querySelector(".place-label");
        return inside && getComputedStyle(label).visibility === "hidden";
    }).map((place) => place.dataset.place);
}"""


def overlapping(labels: list[dict]) -> list[tuple[str, str]]:
    found = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            w = min(a["box"][2], b["box"][2]) - max(a["box"][0], b["box"][0])
            h = min(a["box"][3], b["box"][3]) - max(a["box"][1], b["box"][1])
            if w > 1 and h > 3:
                found.append((a["name"], b["name"]))
    return found


@pytest.mark.parametrize("width,height", [(1366, 768), (375, 812)])
def test_place_names_stay_legible_and_apart_at_every_zoom(new_page, screenshot, width, height):
    page = new_page("rosa", lang="de", width=width, height=height)
    open_game(page, keep=False)
    page.locator("#board-scroll").scroll_into_view_if_needed()
    page.locator("#zoom-fit").click()
    seen = []
    while True:
        labels = page.evaluate(LABELS)
        assert len(labels) >= (12 if not seen else 3), labels
        assert min(label["size"] for label in labels) >= 10.5, labels
        assert overlapping(labels) == []
        seen.append({label["name"] for label in labels})
        if page.locator("#zoom-in").is_disabled():
            hidden_at_max = page.evaluate(UNNAMED_IN_VIEW)
            break
        page.locator("#zoom-in").click()
    screenshot(page, f"map-zoomed-{width}")
    page.locator("#zoom-fit").click()
    screenshot(page, f"map-fit-{width}")
    # Zoomed in all the way, every place in view has its name (the crowd at the whole map's
    # size hides some on a phone).
    assert hidden_at_max == []
    if width < 600:
        assert set().union(*seen) > seen[0]


def test_on_a_phone_a_tap_shows_a_roads_card_and_a_tap_elsewhere_closes_it(new_page, screenshot):
    page = new_page("sven", lang="en", width=375, height=812, touch=True)
    open_game(page, keep=False)
    page.locator("#board-scroll").scroll_into_view_if_needed()
    for _ in range(3):
        page.locator("#zoom-in").tap()
    probe = next(iter(roads_in_view(page).values()))
    page.touchscreen.tap(probe["x"], probe["y"])
    tip = page.locator("#road-tip")
    expect(tip).to_be_visible()
    screenshot(page, "road-card-phone")
    # A finger that flicks the page, from below the map, closes the card.
    below = page.locator(".board-hint").bounding_box()
    swipe(page, (below["x"] + 40, below["y"] + 10), (below["x"] + 40, below["y"] - 40), 0.06)
    expect(tip).to_be_hidden()
    probe = next(iter(roads_in_view(page).values()))  # where the page came to rest
    page.touchscreen.tap(probe["x"], probe["y"])
    expect(tip).to_be_visible()
    # So does a tap elsewhere.
    page.locator("#destinations-heading").tap()
    expect(tip).to_be_hidden()


def swipe(
    page: Page, start: tuple[float, float], end: tuple[float, float], seconds: float = 0.3
) -> None:
    """One finger down at ``start``, moved to ``end`` in ``seconds`` and lifted: no tap, no
    click. The touches carry their times, so the speed is the same however busy the machine
    is: a quick one (a flick, 0.03 s) sends the page gliding on after the finger is lifted,
    as on a phone; a slow one (0.3 s) does not."""
    cdp = page.context.new_cdp_session(page)
    steps = 6
    begun = time.time() - seconds  # times in the past: the browser is never ahead of them
    cdp.send(
        "Input.dispatchTouchEvent",
        {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}], "timestamp": begun},
    )
    for step in range(1, steps + 1):
        x = start[0] + (end[0] - start[0]) * step / steps
        y = start[1] + (end[1] - start[1]) * step / steps
        cdp.send(
            "Input.dispatchTouchEvent",
            {
                "type": "touchMove",
                "touchPoints": [{"x": x, "y": y}],
                "timestamp": begun + seconds * step / steps,
            },
        )
    cdp.send(
        "Input.dispatchTouchEvent",
        {"type": "touchEnd", "touchPoints": [], "timestamp": begun + seconds},
    )
    cdp.detach()


# Resolves once the page and the map have stood still for several frames in a row. A flicked
# page glides on after the finger is lifted, as on a phone, and a tap while it still glides
# only stops it: the browser makes no click of it (as every phone's does). A person taps the
# road where they see it.
COME_TO_REST = """async () => {
    const frame = document.getElementById("board-scroll");
    const board = document.getElementById("board");
    let last = "";
    let still = 0;
    while (still < 8) {
        await new Promise((done) => requestAnimationFrame(done));
        const box = frame.getBoundingClientRect();
        const now = [window.scrollY, box.top, box.left, board.getAttribute("viewBox")].join();
        still = now === last ? still + 1 : 0;
        last = now;
    }
}"""


def come_to_rest(page: Page) -> None:
    page.evaluate(COME_TO_REST)


def roads_in_view(page: Page) -> dict[int, dict]:
    """Once the page is at rest, one point on the wheels of each road a finger can tap: inside
    the map's frame (clear of the zoom buttons) and inside the window. When the page glided
    the map out of the window, it is scrolled back first."""
    for attempt in range(2):
        come_to_rest(page)
        frame = page.locator("#board-scroll").bounding_box()
        window = page.viewport_size
        left = max(frame["x"], 0) + 20
        right = min(frame["x"] + frame["width"], window["width"]) - 20
        top = max(frame["y"], 0) + 60
        bottom = min(frame["y"] + frame["height"], window["height"]) - 20
        found: dict[int, dict] = {}
        for probe in page.evaluate(PROBES):
            if not probe["side"] and left < probe["x"] < right and top < probe["y"] < bottom:
                found.setdefault(probe["road"], probe)
        if found or attempt:
            return found
        page.locator("#board-scroll").scroll_into_view_if_needed()
    return {}


def test_on_a_phone_a_tap_after_any_swipe_opens_the_card_of_the_road_tapped(new_page, screenshot):
    """Flicks and slow swipes of the page, and of the map (which scroll the page, drag the
    map, or move nothing), each followed by a tap on another road: its card every time. A
    quick drag of the map used to leave the browser an unseen fling that ate the next tap."""
    page = new_page("wanda", lang="en", width=375, height=812, touch=True)
    open_game(page, keep=False)
    data = page.evaluate(
        """() => ({
            map: JSON.parse(document.getElementById("map-data").textContent),
            colors: JSON.parse(document.getElementById("ui-strings").textContent).colors,
        })"""
    )
    places = {place["id"]: place["name"] for place in data["map"]["locations"]}
    roads = {road["id"]: road for road in data["map"]["roads"]}
    tip = page.locator("#road-tip")
    board = page.locator("#board")
    taps = []

    def tap_a_road_and_read_its_card() -> None:
        in_view = roads_in_view(page)
        road_id = sorted(in_view)[len(taps) % len(in_view)]  # another road each time
        taps.append(road_id)
        page.touchscreen.tap(in_view[road_id]["x"], in_view[road_id]["y"])
        road = roads[road_id]
        expect(tip).to_be_visible()
        expect(tip.locator(".road-tip-title")).to_have_text(
            f"{places[road['a']]} – {places[road['b']]}"
        )
        unit = "wheel" if road["length"] == 1 else "wheels"
        expect(tip.locator(".road-tip-kind")).to_contain_text(
            f"{data['colors'][road['color']]}, {road['length']} {unit}"
        )
        card = tip.bounding_box()  # all of it in the window
        assert card["x"] >= 0 and card["x"] + card["width"] <= 375, card
        assert card["y"] >= 0 and card["y"] + card["height"] <= 812, card

    def where() -> tuple[int, str]:
        come_to_rest(page)
        return page.evaluate("() => window.scrollY"), board.get_attribute("viewBox")

    page.locator("#board-scroll").scroll_into_view_if_needed()
    for zoomed in (False, True):
        if zoomed:
            for _ in range(3):
                page.locator("#zoom-in").tap()
            expect(board).to_have_class(re.compile(r"\bzoomed\b"))
        for turn, seconds in enumerate((0.03, 0.3, 0.06)):  # flicks and a slow swipe
            # A finger scrolls the page from below the map: the card closes.
            tap_a_road_and_read_its_card()
            hint = page.locator(".board-hint")
            if hint.bounding_box()["y"] + 10 > 812:
                hint.scroll_into_view_if_needed()
            below = hint.bounding_box()
            start = (below["x"] + 40, below["y"] + 10)
            before = where()
            swipe(page, start, (start[0], start[1] - 50), seconds)
            expect(tip).to_be_hidden()
            assert where()[0] > before[0]
            tap_a_road_and_read_its_card()
            # A finger on the map: the card closes. While the whole map is in view, a finger
            # moving up or down scrolls the page and one moving sideways moves nothing; zoomed
            # in, it drags the map and the page stays.
            frame = page.locator("#board-scroll").bounding_box()
            start = (frame["x"] + frame["width"] / 2, max(frame["y"], 0) + 70)
            sideways = not zoomed and turn == 1
            end = (start[0] + 80, start[1]) if sideways else (start[0] + 10, start[1] + 60)
            before = where()
            swipe(page, start, end, seconds)
            expect(tip).to_be_hidden()
            after = where()
            if zoomed:
                assert after[1] != before[1] and after[0] == before[0], (before, after)
            elif sideways:
                assert after == before
            else:
                assert after[0] < before[0] and after[1] == before[1], (before, after)
    tap_a_road_and_read_its_card()
    screenshot(page, "road-card-phone-after-swipes")
    assert len(set(taps)) > 5
    # No swipe was taken for a tap: nothing asked to build a road.
    expect(page.locator("#pay-dialog")).to_be_hidden()


def test_the_last_move_caption_tells_both_cards_of_a_turn(new_page):
    page = new_page("tilda", lang="en", width=1366, height=768)
    me = new_page.guest(page)["user"]["name"]
    open_game(page)
    page.evaluate(
        """() => {
            window.captions = [];
            const caption = document.getElementById("last-move");
            new MutationObserver(() => window.captions.push(caption.textContent))
                .observe(caption, {subtree: true, childList: true, characterData: true});
        }"""
    )
    expect(page.locator("#turn-line")).to_have_class(MINE, timeout=15_000)
    card = page.locator("#face-up button:enabled:not(.c-joker)").first
    color = card.locator(".card-name").inner_text()
    size = hand_size(page)
    card.click()
    wait_for_hand_size(page, size + 1)
    # Read from the captions shown: a third face-up joker may replace the display (R5.5),
    # and its caption then follows at once.
    page.wait_for_function(
        "(text) => window.captions.includes(text)", arg=f"{me} took a face-up card: {color}."
    )
    page.locator("#deck-button").click()
    wait_for_hand_size(page, size + 2)
    # The deck's card stays unnamed: the others see this caption too.
    whole = f"{me} drew a face-up {color} card and a card from the deck."
    page.wait_for_function("(text) => window.captions.includes(text)", arg=whole)
    # The feed keeps one line per card.
    feed = page.locator("#feed li").all_inner_texts()
    assert f"{me} took a face-up card: {color}." in feed
    assert f"{me} took a card from the deck." in feed


def test_on_a_phone_two_fingers_zoom_about_the_point_between_them(new_page):
    page = new_page("uma", lang="en", width=375, height=812, touch=True)
    open_game(page, keep=False)
    page.locator("#board-scroll").scroll_into_view_if_needed()
    middle = frame_point(page, 0.4, 0.45)
    under = page.evaluate(MAP_POINT, list(middle))
    scale = page.evaluate(MAP_SCALE)
    cdp = page.context.new_cdp_session(page)

    def fingers(kind: str, apart: float) -> None:
        points = [
            {"x": middle[0] - apart, "y": middle[1], "id": 1},
            {"x": middle[0] + apart, "y": middle[1], "id": 2},
        ]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    fingers("touchStart", 20)
    for apart in range(25, 61, 5):
        fingers("touchMove", apart)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()
    assert page.evaluate(MAP_SCALE) > 2 * scale
    assert near(page.evaluate(MAP_POINT, list(middle)), under, units=3)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    expect(page.locator("#pay-dialog")).to_be_hidden()
