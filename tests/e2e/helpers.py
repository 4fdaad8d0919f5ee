"""Steps the browser tests share: becoming a guest, the REST calls a page makes, the language
switch, the hand and the player list of the game page, watching for script dialogs, and the
game socket's frames (for tables that have no deal event to wait for)."""

from __future__ import annotations

import itertools
import json
import re

from playwright.sync_api import Locator, Page, expect

XSS_NAME = "<img src=x onerror=alert(1)>"
GAME_PATH = re.compile(r"/games/(\d+)/$")


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


def game_against_a_bot(page: Page, *, start: bool = False) -> int:
    answer = call(page, "POST", "/api/games/", {"name": "Rheinufer", "max_players": 2, "bots": 1})
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    if start:
        assert call(page, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    return game_id


def become_guest(page: Page, name: str) -> str:
    """Choose a name in the front page's form, as a visitor does; returns the name taken.

    The server lives for the whole session: when an earlier test took ``name``, the guest is
    called "name 2", "name 3"...
    """
    page.goto("/")
    for candidate in itertools.chain([name], (f"{name} {n}" for n in itertools.count(2))):
        form = page.locator("form:has(input[name=name])")
        form.locator("input[name=name]").fill(candidate)
        with page.expect_navigation():
            form.locator("button[type=submit]").click()
        if page.locator("#new-game-form").count():
            break
        expect(page.locator("#id_name_error")).to_be_visible()  # the name is taken
    expect(page.locator("header .site-user-name")).to_have_text(candidate)
    return candidate


def switch_language(page: Page, code: str) -> None:
    """Through the header's language form, with or without its submit button."""
    form = page.locator("form:has(select[name=language])")
    button = form.locator("button[type=submit]")
    with page.expect_navigation():
        form.locator("select[name=language]").select_option(code)
        if button.is_visible():
            button.click()


def record_dialogs(page: Page) -> list[str]:
    """The messages of every alert, confirm or prompt the page opens (each is dismissed)."""
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    return dialogs


def game_id_of(page: Page) -> int:
    match = GAME_PATH.search(page.url)
    assert match, page.url
    return int(match.group(1))


def wait_until_connected(page: Page) -> None:
    """A started game's page has its socket open: the feed's history came through it (the
    page's buttons wait for the socket, this waits for the feed too)."""
    expect(page.locator("#feed li.feed-dealt")).to_have_count(1)


def say(page: Page, text: str) -> None:
    """A line in the game's chat, once the page's socket is open (the button waits for it)."""
    expect(page.locator("#chat-send")).to_be_enabled()
    page.locator("#chat-text").fill(text)
    page.locator("#chat-text").press("Enter")


def hand_size(page: Page) -> int:
    return sum(int(text) for text in page.locator("#hand .hand-count").all_inner_texts())


def wait_for_hand_size(page: Page, size: int) -> None:
    page.wait_for_function(
        """(size) => [...document.querySelectorAll("#hand .hand-count")]
            .reduce((sum, node) => sum + Number(node.textContent), 0) === size""",
        arg=size,
    )


def player_row(page: Page, name: str) -> Locator:
    """The game page's entry for the player called ``name``."""
    return page.locator("#players li.player").filter(
        has=page.locator(".player-name").get_by_text(name, exact=True)
    )


def player_stat(page: Page, name: str, label: str) -> Locator:
    """One number of a player's entry (Score, Wheels, Wheel cards, Destination cards)."""
    stat = (
        player_row(page, name)
        .locator(".stat")
        .filter(has=page.locator("dt").get_by_text(label, exact=True))
    )
    return stat.locator("dd")


def watch_socket(page: Page) -> list[str]:
    """The text of every frame the page's game socket receives, in order."""
    frames: list[str] = []
    page.on(
        "websocket",
        lambda socket: socket.on("framereceived", lambda payload: frames.append(str(payload))),
    )
    return frames


def message_type(frame: str) -> str | None:
    try:
        message = json.loads(frame)
    except ValueError:
        return None
    return message.get("type") if isinstance(message, dict) else None


def wait_for_history(page: Page, frames: list[str], times: int = 1) -> None:
    """The socket is open once its HISTORY came; ``times``: the how-manieth page load this is."""
    for _ in range(200):
        if sum(message_type(frame) == "HISTORY" for frame in frames) >= times:
            return
        page.wait_for_timeout(50)
    raise AssertionError("the game socket sent no HISTORY")


def game_over(page: Page) -> bool:
    return page.locator("#results").is_visible()
