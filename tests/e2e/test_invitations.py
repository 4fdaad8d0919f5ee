"""A private game's invitation link in real browsers: the creator copies it, someone in
another browser (not logged in) opens it, chooses a name and sits at the table, and both
see each other; a renewed link's old one shows the refusal; all of it fits a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import call
from tests.e2e.pagecheck import assert_page_sound

pytestmark = pytest.mark.page(1)

PHONE = {"width": 375, "height": 812}


def private_game(page: Page, seats: int = 3) -> int:
    answer = call(
        page, "POST", "/api/games/", {"name": "Stammtisch", "max_players": seats, "private": True}
    )
    assert answer["status"] == 201, answer
    return answer["body"]["id"]


def boxes_apart(page: Page, *selectors: str) -> None:
    """Each element lies within the window, and none covers another."""
    boxes = [page.locator(selector).bounding_box() for selector in selectors]
    width = page.evaluate("window.innerWidth")
    for selector, box in zip(selectors, boxes, strict=True):
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, selector
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["x"] + a["width"] <= b["x"]
                or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"]
                or b["y"] + b["height"] <= a["y"]
            )
            assert apart, (selectors, boxes)


def test_the_creator_copies_the_link_and_a_newcomer_takes_a_seat_by_it(new_page, screenshot):
    host = new_page("Wirtin", lang="en", width=1366, height=768)
    host_name = new_page.guest(host)["user"]["name"]
    host.context.grant_permissions(["clipboard-read", "clipboard-write"])
    game_id = private_game(host)
    host.goto(f"/games/{game_id}/")
    field = host.locator("#invitation-link")
    expect(field).to_be_visible()
    link = field.input_value()
    assert re.fullmatch(rf"{re.escape(host.url.split('/games/')[0])}/invite/[\w\-:]+/", link)
    host.locator("#invitation-copy-button").click()
    expect(host.locator("#invitation-status")).to_have_text("Copied")
    assert host.evaluate("navigator.clipboard.readText()") == link
    screenshot(host, "invitation-creator-1366")

    guest = new_page(lang="de", **PHONE)  # nobody logged in, on a phone
    guest.goto(link)
    expect(guest.locator("#invitation-heading")).to_have_text("Du bist eingeladen")
    assert_page_sound(guest, "the invitation on a phone", new_page.watch(guest))
    boxes_apart(guest, "#id_name", "#invitation-accept")
    screenshot(guest, "invitation-newcomer-375")
    guest.locator("#id_name").fill("Gast vom Link")
    with guest.expect_navigation():
        guest.locator("#invitation-accept").click()
    assert guest.url.endswith(f"/games/{game_id}/")
    guest_seats = guest.locator("#seats")
    expect(guest_seats.locator("li.me .player-name")).to_have_text("Gast vom Link")
    expect(guest_seats).to_contain_text(host_name)
    expect(guest.locator("#invitation-link")).to_have_count(0)  # not the creator: no link
    expect(host.locator("#seats")).to_contain_text("Gast vom Link")  # live, over the socket
    assert_page_sound(guest, "the table on a phone", new_page.watch(guest))
    screenshot(guest, "invitation-seated-375")

    response = host.goto(link[:-3] + "/")  # a cut link
    assert response.status == 404
    expect(host.locator("#invitation-refused")).to_have_attribute("data-code", "invitation_invalid")
    expect(host.locator("#invitation-refused")).to_contain_text("copied whole")
    screenshot(host, "invitation-tampered-1366")


def test_the_link_fits_a_phone_and_a_renewed_link_shows_the_refusal(new_page, screenshot):
    host = new_page("Gastgeber", lang="de", **PHONE)
    game_id = private_game(host)
    host.goto("/")  # the lobby's entry of the game leads to the link
    invite = host.locator(f'#games-waiting a[href="/games/{game_id}/#invitation"]')
    expect(invite).to_have_text("Einladen")
    assert_page_sound(host, "the lobby on a phone", new_page.watch(host))
    with host.expect_navigation():
        invite.click()
    expect(host.locator("#invitation-link")).to_be_in_viewport()
    old = host.locator("#invitation-link").input_value()
    boxes_apart(host, "#invitation-link", "#invitation-copy-button")
    assert_page_sound(host, "the creator's waiting room on a phone", new_page.watch(host))
    screenshot(host, "invitation-creator-375")

    with host.expect_navigation():
        host.locator("#invitation-renew-button").click()
    new = host.locator("#invitation-link").input_value()
    assert new != old
    expect(host.locator(".messages")).to_contain_text("Ein neuer Einladungslink ist bereit")

    other = new_page("Zu spät", lang="en", **PHONE)
    response = other.goto(old)
    assert response.status == 410
    expect(other.locator("#invitation-refused")).to_contain_text(
        "This invitation link no longer works"
    )
    expect(other.locator("#invitation-accept")).to_have_count(0)
    screenshot(other, "invitation-revoked-375")
    response = other.goto(new)
    assert response.status == 200
    with other.expect_navigation():
        other.locator("#invitation-accept").click()
    assert other.url.endswith(f"/games/{game_id}/")
    expect(other.locator("#seats li.me")).to_have_count(1)
