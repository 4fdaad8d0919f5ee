"""Every time on the site reads the same in the browser's time zone and the page's language
(the lobby and the player page agree on a game), and a daily challenge is named in the page's
language with its day written for that language."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import switch_language
from tests.e2e.test_road300_verdict import finished_game

pytestmark = pytest.mark.page(2)

MONTHS_DE = [
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
]


def plain(text: str) -> str:
    """Intl puts narrow and no-break spaces around "AM"/"PM": as plain spaces."""
    return text.replace("\u202f", " ").replace("\xa0", " ").strip()


def expected(moment: datetime, language: str) -> tuple[str, str]:
    """Intl's medium date and short time of ``moment`` (already in the zone) in ``language``."""
    if language == "de":
        return f"{moment:%d.%m.%Y}", f"{moment:%H:%M}"
    hour = moment.hour % 12 or 12
    return f"{moment:%b} {moment.day}, {moment.year}", f"{hour}:{moment:%M} {moment:%p}"


def games_frames(page: Page) -> list[dict]:
    """The GAMES lists the page's lobby socket receives."""
    found: list[dict] = []

    def on_frame(payload) -> None:
        message = json.loads(payload) if isinstance(payload, str) else {}
        if isinstance(message, dict) and message.get("type") == "GAMES":
            found.append(message)

    page.on("websocket", lambda socket: socket.on("framereceived", on_frame))
    return found


def wait_for_games(page: Page, frames: list[dict]) -> None:
    for _ in range(200):
        if frames:
            page.wait_for_timeout(100)  # the list is drawn right after the frame
            return
        page.wait_for_timeout(50)
    raise AssertionError("the lobby socket sent no GAMES")


@pytest.mark.parametrize(
    ("timezone", "language"), [("America/New_York", "en"), ("Europe/Zurich", "de")]
)
def test_a_game_ends_at_the_same_time_in_the_lobby_and_on_the_player_page(
    new_page, live_server, timezone, language
):
    # The browser speaks English; the German page is German by the site's own switch.
    page = new_page("Tim", lang="en-US", timezone=timezone)
    if language == "de":
        page.goto("/")
        switch_language(page, "de")
    user = new_page.guest(page)["user"]
    game_id = finished_game(live_server, user["id"], strong=False)

    frames = games_frames(page)
    page.goto("/")
    wait_for_games(page, frames)
    shown = page.locator(f'#games-finished a[href="/games/{game_id}/"]').locator("xpath=..")
    stamp = shown.locator("time.game-time")
    moment = datetime.fromisoformat(stamp.get_attribute("datetime"))
    day, clock = expected(moment.astimezone(ZoneInfo(timezone)), language)
    assert plain(stamp.inner_text()) == f"{day}, {clock}"

    page.goto(f"/players/{user['id']}/")
    row = page.locator(".history-table tbody tr", has=page.locator(f'a[href="/games/{game_id}/"]'))
    times = row.locator("time")
    assert {
        datetime.fromisoformat(t)
        for t in times.evaluate_all("nodes => nodes.map((node) => node.getAttribute('datetime'))")
    } == {moment}
    assert [plain(text) for text in times.all_inner_texts()] == [day, clock]


def test_the_daily_challenge_is_named_in_the_pages_language(new_page):
    page = new_page("Dora", lang="en")
    page.goto("/road300/daily/")
    with page.expect_navigation():
        page.locator("#daily-play-button").click()
    game_path = urlsplit(page.url).path
    today = datetime.now(UTC).date()  # a daily game's day is the day in UTC (T5.2)
    english = f"Daily challenge {today:%B} {today.day}, {today.year}"
    german = f"Tages-Challenge {today.day}. {MONTHS_DE[today.month - 1]} {today.year}"
    expect(page.locator("h1")).to_have_text(english)

    frames = games_frames(page)
    page.goto("/")
    name = page.locator(f'a.game-name[href="{game_path}"]')
    expect(name).to_have_text(english)
    wait_for_games(page, frames)  # drawn again from the socket's list
    expect(name).to_have_text(english)

    switch_language(page, "de")
    frames.clear()
    expect(name).to_have_text(german)
    wait_for_games(page, frames)
    expect(name).to_have_text(german)
    page.goto(game_path)
    expect(page.locator("h1")).to_have_text(german)
    assert german in page.title()
