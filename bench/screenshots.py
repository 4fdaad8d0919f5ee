"""Screenshots of every kind of game, for the documentation.

    .venv/bin/python bench/screenshots.py [--out docs/screenshots] [--turns 4]
                                          [--lang en] [--full-page] [--preparation]
                                          [--kinds ratumrad,rage,road300]

Starts the real daphne server the browser tests use (tests/real_server.py) on a throwaway
database, opens Debian's Chromium (/usr/bin/chromium) through Playwright, becomes a guest and
plays one game of each kind through the page's own buttons, so that the pictures show real
tables:

* Rat um Rad against one computer player: keeps the destination cards it is dealt, plays
  ``--turns`` turns (the longest road it can build, else two cards from the deck), then on to
  the end;
* RAGE with three computer players: the lowest bids and the first card it may play, to the
  end of the tenth round (the picture in play is from the second round);
* Road to 300, solo: the first lit cell to cross and the last end cell, to the end.

For each kind ``<kind>`` (ratumrad, rage, road300) it writes, at 1366x768 (a laptop's screen)
and 375x812 (a phone), the viewport only:

    <out>/<kind>-lobby-<size>.png   the lobby's form for a new game of that kind
    <out>/<kind>-play-<size>.png    a game in play, when it is the player's move
    <out>/<kind>-end-<size>.png     the end screen with the results

``--full-page`` adds ``-full`` pictures of the whole page, ``--preparation`` Rat um Rad's
choice of destination cards at the start (``ratumrad-preparation-<size>.png``). The pages'
language is ``--lang`` (English by default, as the documentation is). It takes about two
minutes on two cores.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

from tests.real_server import Server, server_database  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
# As tests/e2e/conftest.py launches it (that module is a pytest plugin, not imported here).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Guests without the rate limit; the computer player moves after a short pause.
SERVER_ENV = {"GUEST_RATE": "10000/min", "BOT_DELAY_SECONDS": "0.02"}
SIZES = [(1366, 768), (375, 812)]
TIMEOUT_MS = 15_000


def call(page: Page, method: str, path: str, body: dict | None = None) -> dict:
    """A REST call from inside the page, with its session and CSRF token."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const token = document.cookie.match(/(?:^|; )csrftoken=([^;]*)/)[1];
            const response = await fetch(path, {
                method,
                headers: {"Content-Type": "application/json", "X-CSRFToken": token},
                body: body === null ? undefined : JSON.stringify(body),
            });
            return {status: response.status, body: await response.json()};
        }""",
        [method, path, body],
    )


def new_page(browser: Browser, base_url: str, size: tuple[int, int], lang: str, state=None):
    width, height = size
    context = browser.new_context(
        base_url=base_url,
        locale=lang,
        viewport={"width": width, "height": height},
        storage_state=state,
        is_mobile=width < 600,
        has_touch=width < 600,
    )
    context.set_default_timeout(TIMEOUT_MS)
    return context.new_page()


def become_guest(page: Page, name: str) -> None:
    page.goto("/api/auth/me/")  # sets the csrftoken cookie
    answer = call(page, "POST", "/api/auth/guest/", {"name": name})
    if answer["status"] != 201:
        raise SystemExit(f"could not become a guest: {answer}")


KINDS = ("ratumrad", "rage", "road300")
GAME_TIMEOUT_S = 120


def new_game(page: Page, body: dict, start: bool = True) -> str:
    answer = call(page, "POST", "/api/games/", body)
    if answer["status"] != 201:
        raise SystemExit(f"could not create a game: {answer}")
    game_id = answer["body"]["id"]
    if start and call(page, "POST", f"/api/games/{game_id}/start/")["status"] != 200:
        raise SystemExit(f"could not start game {game_id}")
    return f"/games/{game_id}/"


def over(page: Page) -> bool:
    return page.locator("#results").is_visible()


def hand_size(page: Page) -> int:
    return page.evaluate(
        """() => [...document.querySelectorAll("#hand .hand-count")]
            .reduce((sum, node) => sum + Number(node.textContent), 0)"""
    )


def wait_for_hand(page: Page, changed_from: int) -> None:
    page.wait_for_function(
        """(before) => [...document.querySelectorAll("#hand .hand-count")]
            .reduce((sum, node) => sum + Number(node.textContent), 0) !== before""",
        arg=changed_from,
    )


# ------------------------------------------------------------------------------ Rat um Rad

RATUMRAD_MINE_OR_OVER = """() => !document.getElementById("results").hidden
    || document.getElementById("turn-line").classList.contains("mine")"""


def my_move(page: Page) -> None:
    """Until it is this player's move and the page takes one."""
    page.wait_for_selector("#turn-line.mine")
    expect(page.locator("#deck-button")).to_be_enabled()


def keep_destinations(page: Page) -> None:
    dialog = page.locator("#keep-dialog")
    expect(dialog).to_be_visible()
    dialog.locator("#keep-confirm").click()
    expect(dialog).to_be_hidden()


def play_turn(page: Page) -> str:
    """One turn: the longest road that can be built, else two wheel cards (from the deck, else
    a face-up one), else destination cards."""
    page.wait_for_function(RATUMRAD_MINE_OR_OVER)
    if over(page):
        return "over"
    roads = page.locator("#board g.road.buildable")
    if roads.count():
        lengths = page.evaluate(
            """() => Object.fromEntries(JSON.parse(document.getElementById("map-data")
                .textContent).roads.map((road) => [road.id, road.length]))"""
        )
        ids = roads.evaluate_all("groups => groups.map((group) => group.dataset.road)")
        longest = max(ids, key=lambda road: lengths[road])
        before = hand_size(page)
        page.locator(f'#board g.road[data-road="{longest}"]').focus()
        page.keyboard.press("Enter")
        dialog = page.locator("#pay-dialog")
        expect(dialog).to_be_visible()
        dialog.locator("#pay-confirm").click()
        expect(dialog).to_be_hidden()
        wait_for_hand(page, before)
        return "built a road"
    for draw in range(2):
        if draw and not page.locator("#turn-line.mine").count():
            break  # a face-up joker is the whole turn
        before = hand_size(page)
        deck = page.locator("#deck-button")
        cards = page.locator("#face-up button.card-button:enabled:not(.c-joker)")
        if deck.is_enabled():
            deck.click()
        elif cards.count():
            cards.first.click()
        else:
            page.locator("#draw-destinations").click()
            keep_destinations(page)
            return "drew destination cards"
        wait_for_hand(page, before)
    return "drew cards"


def ratumrad(page: Page, shoot, turns: int, preparation: bool) -> None:
    url = new_game(page, {"name": "Rheinufer", "max_players": 2, "bots": 1})
    page.goto(url)
    expect(page.locator("#keep-dialog")).to_be_visible()
    if preparation:
        shoot(
            "ratumrad-preparation",
            url,
            lambda other: expect(other.locator("#keep-dialog")).to_be_visible(),
        )
    keep_destinations(page)
    for number in range(turns):
        print(f"  turn {number + 1}: {play_turn(page)}", flush=True)
    my_move(page)
    shoot("ratumrad-play", url, my_move)
    deadline = time.monotonic() + GAME_TIMEOUT_S
    while play_turn(page) != "over":
        if time.monotonic() > deadline:
            raise SystemExit("the game of Rat um Rad did not end in time")


# ------------------------------------------------------------------------------ RAGE

RAGE_READY = """() => !document.getElementById("results").hidden
    || document.querySelector("#rg-bids button.rg-bid-button:enabled, "
        + "#rg-hand button.rg-card.rg-lit:enabled") !== null"""


def rage_move(page: Page) -> bool:
    """The lowest bid, else the first card it may play (a Joker names the first colour);
    False once the game is over."""
    page.wait_for_function(RAGE_READY)
    if over(page):
        return False
    bid = page.locator("#rg-bids button.rg-bid-button:enabled")
    if bid.count():
        bid.first.click()
        expect(page.locator("#rg-bid-area")).to_be_hidden()
        return True
    card = page.locator("#rg-hand button.rg-card.rg-lit:enabled").first
    count = page.locator("#rg-hand button.rg-card").count()
    before_round = page.locator("#rg-round").text_content()
    name = card.get_attribute("data-card")
    card.click()
    if name == "joker":
        dialog = page.locator("#rg-joker-dialog")
        expect(dialog).to_be_visible()
        dialog.locator("button.rg-joker-color").first.click()
        expect(dialog).to_be_hidden()
    page.wait_for_function(
        """([count, round]) => !document.getElementById("results").hidden
            || document.querySelectorAll("#rg-hand button.rg-card").length !== count
            || document.getElementById("rg-round").textContent !== round""",
        arg=[count, before_round],
    )
    return True


def rage_card_to_play(page: Page) -> None:
    expect(page.locator("#rg-hand button.rg-card.rg-lit:enabled").first).to_be_visible()


def rage(page: Page, shoot) -> None:
    body = {"kind": "rage", "name": "Vier Farben", "max_players": 4, "bots": 3}
    url = new_game(page, {**body, "turn_seconds": 0})
    page.goto(url)
    deadline = time.monotonic() + GAME_TIMEOUT_S
    # In play: from the second round's second trick on, a card to play, cards on the table.
    while True:
        page.wait_for_function(RAGE_READY)
        if over(page) or time.monotonic() > deadline:
            raise SystemExit("RAGE did not come to the second round's second trick")
        round_number = int(page.locator("#rg-round").inner_text().split()[0] or 0)
        lit = page.locator("#rg-hand button.rg-card.rg-lit:enabled").count()
        held = page.locator("#rg-hand button.rg-card").count()
        played = page.locator("#rg-trick .rg-played .rg-card").count()
        if lit and (round_number >= 3 or (round_number == 2 and held <= 8 and played)):
            break
        rage_move(page)
    shoot("rage-play", url, rage_card_to_play)
    while rage_move(page):
        if time.monotonic() > deadline:
            raise SystemExit("the game of RAGE did not end in time")


# ------------------------------------------------------------------------------ Road to 300

ROAD300_LIT = "#r3-grid .r3-cell.r3-lit"
ROAD300_READY = f"""() => !document.getElementById("results").hidden
    || document.querySelector("{ROAD300_LIT}") !== null"""


def road300_move(page: Page) -> bool:
    """Cross the first lit cell, end on the last one; False once the game is over."""
    page.wait_for_function(ROAD300_READY)
    if over(page):
        return False
    before = page.locator("#r3-round").inner_text()
    lit = page.locator(ROAD300_LIT)
    lit.first.click()
    expect(page.locator("#r3-grid .r3-chosen")).to_have_count(1)
    lit.last.click()
    page.locator("#r3-confirm").click()
    page.wait_for_function(
        """(before) => !document.getElementById("results").hidden
            || document.getElementById("r3-round").textContent !== before""",
        arg=before,
    )
    return True


def road300(page: Page, shoot) -> None:
    url = new_game(page, {"kind": "road300", "name": "Road trip", "options": {}}, start=False)
    page.goto(url)
    for _ in range(4):
        if not road300_move(page):
            break
    shoot("road300-play", url, lambda other: other.wait_for_function(ROAD300_READY))
    for _ in range(60):
        if not road300_move(page):
            return
    raise SystemExit("the game of Road to 300 did not end")


# ------------------------------------------------------------------------------ pictures


def shoot(page: Page, out: Path, name: str, full_page: bool) -> list[Path]:
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.mouse.move(0, 0)
    page.wait_for_timeout(300)  # the glow of buildable roads and fonts settle
    paths = [out / f"{name}.png"]
    page.screenshot(path=paths[0])
    if full_page:
        paths.append(out / f"{name}-full.png")
        page.screenshot(path=paths[1], full_page=True)
    return paths


def show_results(page: Page) -> None:
    expect(page.locator("#results")).to_be_visible()


def lobby_with(kind: str):
    """The lobby from its top, the kind chosen in its form for a new game."""

    def ready(page: Page) -> None:
        page.locator(f"#new-game-form input[name=kind][value={kind}]").check()
        expect(page.locator("#players li:not(.muted)").first).to_be_visible()
        page.evaluate("() => window.scrollTo(0, 0)")

    return ready


def run(
    out: Path,
    turns: int,
    lang: str,
    full_page: bool,
    preparation: bool,
    kinds: tuple[str, ...] = KINDS,
) -> list[Path]:
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} not found (install Debian's chromium package)")
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with (
        server_database() as database_url,
        tempfile.TemporaryDirectory(prefix="ratumrad-screenshots-") as log_dir,
        Server(database_url, log_dir, env=SERVER_ENV) as server,
        sync_playwright() as driver,
    ):
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = new_page(browser, server.base_url, SIZES[0], lang)
            become_guest(page, "Lea")

            def each_size(name: str, url: str, ready) -> None:
                """The page at ``url`` in a window of each size, once ``ready(page)``."""
                state = page.context.storage_state()
                for size in SIZES:
                    other = new_page(browser, server.base_url, size, lang, state)
                    other.goto(url)
                    ready(other)
                    written.extend(shoot(other, out, f"{name}-{size[0]}x{size[1]}", full_page))
                    other.context.close()

            # A game waiting for players in the lobby's list, opened by someone else.
            host = new_page(browser, server.base_url, SIZES[0], lang)
            become_guest(host, "Ben")
            new_game(host, {"kind": "rage", "name": "Stiche am Rhein", "max_players": 5}, False)
            host.context.close()

            play = {
                "ratumrad": lambda: ratumrad(page, each_size, turns, preparation),
                "rage": lambda: rage(page, each_size),
                "road300": lambda: road300(page, each_size),
            }
            for kind in kinds:
                started = time.monotonic()
                play[kind]()
                each_size(f"{kind}-end", page.url, show_results)
                each_size(f"{kind}-lobby", "/", lobby_with(kind))
                print(f"{kind}: {time.monotonic() - started:.0f} s", flush=True)
        finally:
            browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--full-page", action="store_true")
    parser.add_argument("--preparation", action="store_true")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated")
    args = parser.parse_args(argv)
    kinds = tuple(kind for kind in args.kinds.split(",") if kind)
    unknown = set(kinds) - set(KINDS)
    if unknown:
        parser.error(f"unknown kinds: {', '.join(sorted(unknown))}")
    started = time.monotonic()
    paths = run(args.out, args.turns, args.lang, args.full_page, args.preparation, kinds)
    for path in paths:
        print(path)
    print(f"{len(paths)} pictures in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
