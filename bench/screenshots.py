"""Screenshots of a Rat um Rad game in progress, for the documentation.

    .venv/bin/python bench/screenshots.py [--out docs/screenshots] [--turns 4]
                                          [--lang en] [--full-page] [--preparation]

Starts the real daphne server the browser tests use (tests/real_server.py) on a throwaway
database, opens Debian's Chromium (/usr/bin/chromium) through Playwright, becomes a guest,
creates a game against one computer player, keeps the destination cards it is dealt and
plays ``--turns`` turns (it builds a road when one is buildable, else it draws two cards
from the deck), so that the page shows a real table in the middle of a game. Then it writes

    <out>/game-1366x768.png   the page on a laptop's screen (the viewport only)
    <out>/game-375x812.png    the same table on a phone

and with ``--full-page`` also ``game-1366x768-full.png`` and ``game-375x812-full.png``, the
whole page. ``--preparation`` adds ``game-preparation-1366x768.png`` and
``game-preparation-375x812.png``: the choice of destination cards at the start. The page's
language is ``--lang`` (English by default, as the documentation is).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
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
SERVER_ENV = {"GUEST_RATE": "10000/min", "BOT_DELAY_SECONDS": "0.05"}
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


def new_game(page: Page) -> int:
    body = {"name": "Rheinufer", "max_players": 2, "bots": 1}
    answer = call(page, "POST", "/api/games/", body)
    if answer["status"] != 201:
        raise SystemExit(f"could not create a game: {answer}")
    return answer["body"]["id"]


def my_move(page: Page) -> None:
    """Until it is this player's move and the page takes one."""
    page.wait_for_selector("#turn-line.mine")
    expect(page.locator("#deck-button")).to_be_enabled()


def play_turn(page: Page) -> str:
    """One turn: a road when one is buildable, else two cards from the deck."""
    my_move(page)
    roads = page.locator("#board g.road.buildable")
    if roads.count():
        built = page.locator("#board g.road.built").count()
        roads.first.focus()
        page.keyboard.press("Enter")
        dialog = page.locator("#pay-dialog")
        expect(dialog).to_be_visible()
        dialog.locator("#pay-confirm").click()
        expect(dialog).to_be_hidden()
        expect(page.locator("#board g.road.built")).not_to_have_count(built)
        return "built a road"
    for _ in range(2):
        deck = page.locator("#deck-button")
        expect(deck).to_be_enabled()
        before = deck.get_attribute("aria-label")
        deck.click()
        page.wait_for_function(
            """(before) => document.getElementById("deck-button").getAttribute("aria-label")
                !== before""",
            arg=before,
        )
    return "drew two cards"


def keep_destinations(page: Page) -> None:
    dialog = page.locator("#keep-dialog")
    expect(dialog).to_be_visible()
    dialog.locator("#keep-confirm").click()
    expect(dialog).to_be_hidden()


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


def run(out: Path, turns: int, lang: str, full_page: bool, preparation: bool) -> list[Path]:
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
            game_id = new_game(page)
            assert call(page, "POST", f"/api/games/{game_id}/start/")["status"] == 200
            url = f"/games/{game_id}/"
            page.goto(url)
            expect(page.locator("#keep-dialog")).to_be_visible()
            if preparation:
                state = page.context.storage_state()
                for size in SIZES:
                    other = new_page(browser, server.base_url, size, lang, state)
                    other.goto(url)
                    expect(other.locator("#keep-dialog")).to_be_visible()
                    name = f"game-preparation-{size[0]}x{size[1]}"
                    written += shoot(other, out, name, full_page)
                    other.context.close()
            keep_destinations(page)
            for number in range(turns):
                print(f"turn {number + 1}: {play_turn(page)}", flush=True)
            my_move(page)
            state = page.context.storage_state()
            for size in SIZES:
                other = new_page(browser, server.base_url, size, lang, state)
                other.goto(url)
                my_move(other)
                written += shoot(other, out, f"game-{size[0]}x{size[1]}", full_page)
                other.context.close()
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
    args = parser.parse_args(argv)
    for path in run(args.out, args.turns, args.lang, args.full_page, args.preparation):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
