"""The lobby page keeps its lists as the games change elsewhere: it asks for changes
(``GAMES_CHANGED``) and moves each game to the list its status belongs in, without a reload,
at a desktop's size and a phone's."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import call
from tests.e2e.pagecheck import OVERLAPS, assert_page_sound

pytestmark = pytest.mark.page(1)

SIZES = [(1366, 768), (375, 812)]


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_lobby_moves_a_game_from_list_to_list_as_it_changes(
    new_page, screenshot, width, height
):
    watcher = new_page("Zaungast", lang="en", width=width, height=height)
    watcher.goto("/")
    expect(watcher.locator("#players-count")).not_to_have_text("")  # the socket is open
    host = new_page("Gastgeberin", lang="en")
    player = new_page("Mitspieler", lang="en")
    name = f"Spalentor {time.monotonic_ns() % 1_000_000}"

    def entries(group: str):
        return watcher.locator(f"#games-{group} li.game-item").filter(
            has=watcher.get_by_role("link", name=name, exact=True)
        )

    created = call(host, "POST", "/api/games/", {"name": name, "max_players": 2})
    assert created["status"] == 201, created
    game_id = created["body"]["id"]
    expect(entries("waiting")).to_have_count(1)
    expect(entries("waiting")).to_contain_text("1 of 2 seats")
    expect(entries("waiting").locator(".join-form button")).to_be_visible()

    assert call(player, "POST", f"/api/games/{game_id}/join/")["status"] == 200
    expect(entries("waiting")).to_contain_text("2 of 2 seats")
    expect(entries("waiting").locator(".join-form")).to_have_count(0)  # full: no button

    assert call(host, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    expect(entries("running")).to_have_count(1)
    expect(entries("waiting")).to_have_count(0)
    assert watcher.get_by_role("link", name=name, exact=True).count() == 1
    assert watcher.evaluate(OVERLAPS, ["#games-running li.game-item", "#new-game-form"]) == []
    assert_page_sound(watcher, "the lobby after the game moved", new_page.watch(watcher))
    screenshot(watcher, f"lobby-live-{width}x{height}")
