"""The system notification when it becomes your move while the game's tab is hidden, in a real
browser: exactly one, titled with the game's name, saying "Your move in <kind>" in the page's
language, tagged with the game's id, bringing the tab to the front when clicked (a live game
against the computer, a turn-based one between two people, RAGE in German); none while
the tab is visible, none with the head's toggle off (remembered across a reload); the head's
button that asks the browser for its permission, shown only while it has not been asked, and
the note once it refused; none of it on a solo game's page; the head still fits a laptop and a
phone.

A headless Chromium page is always visible (document.visibilityState stays "visible", even
with another page of its context brought to the front; CDP's Emulation.setFocusEmulationEnabled
changes focus, not visibility; freezing the page's lifecycle would stop its scripts, and so the
socket's news, altogether). So the spies below replace the document's
visibilityState and hidden getters with ones a test switches, dispatching visibilitychange as
a browser does: the page's scripts see a hidden tab while the socket and the clicks work on."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import call, game_against_a_bot, wait_until_connected
from tests.e2e.pagecheck import assert_page_sound
from tests.e2e.test_rage import act, rage_against_computers
from tests.e2e.test_turn_signal import pass_the_turn
from tests.e2e.test_two_players import Player, choose_short_destination_cards, wait_for_my_turn

pytestmark = pytest.mark.page(1)

# A tab the test hides and shows (window.__setHidden), every Notification the page makes
# (window.__notifications: title, body, tag; and how many it closed), and window.focus calls.
SPIES = """
(() => {
    window.__hidden = false;
    window.__notifications = [];
    window.__closed = 0;
    window.__focused = 0;
    Object.defineProperty(Document.prototype, "visibilityState", {
        configurable: true,
        get() { return window.__hidden ? "hidden" : "visible"; },
    });
    Object.defineProperty(Document.prototype, "hidden", {
        configurable: true,
        get() { return window.__hidden; },
    });
    window.__setHidden = (hidden) => {
        window.__hidden = hidden;
        document.dispatchEvent(new Event("visibilitychange"));
    };
    const focus = window.focus.bind(window);
    window.focus = () => { window.__focused += 1; focus(); };
    const Real = window.Notification;
    if (!Real) return;
    class Recorded extends Real {
        constructor(title, options = {}) {
            super(title, options);
            window.__notifications.push({title, body: options.body, tag: options.tag});
            window.__lastNotification = this;
        }
        close() {
            window.__closed += 1;
            super.close();
        }
        static get permission() { return Real.permission; }
        static requestPermission(...args) { return Real.requestPermission(...args); }
    }
    window.Notification = Recorded;
})();
"""
# The browser's permission as the test sets it (window.__permission, "default" at first);
# Notification.requestPermission counts its calls (window.__asked) and answers
# window.__answer, as a person does in the browser's prompt.
PERMISSION = """
(() => {
    window.__permission = "default";
    window.__answer = "granted";
    window.__asked = 0;
    const Real = window.Notification;
    if (!Real) return;
    Object.defineProperty(Real, "permission", {
        configurable: true,
        get() { return window.__permission; },
    });
    Real.requestPermission = () => {
        window.__asked += 1;
        window.__permission = window.__answer;
        return Promise.resolve(window.__permission);
    };
})();
"""
# Counts the calls of the browser's own Notification.requestPermission (window.__asked) and
# lets it answer: headless Chromium shows no prompt and answers "denied" at once.
COUNT_REQUESTS = """
(() => {
    window.__asked = 0;
    const request = Notification.requestPermission.bind(Notification);
    Notification.requestPermission = (...args) => {
        window.__asked += 1;
        return request(...args);
    };
})();
"""
ASK = "#notify-ask"
TOGGLE = "#notify-toggle"
DENIED = "#notify-denied"
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 375, "height": 812}


def notifications(page: Page) -> list[dict]:
    return page.evaluate("() => window.__notifications")


def hide(page: Page, hidden: bool = True) -> None:
    page.evaluate("(hidden) => window.__setHidden(hidden)", hidden)
    assert page.evaluate("() => document.visibilityState") == ("hidden" if hidden else "visible")


def allowed_page(new_page, name: str, lang: str) -> Page:
    """A page of a guest whose browser allows the site's notifications, with the spies."""
    page = new_page(name, lang=lang)
    page.context.grant_permissions(["notifications"], origin=page.url.split("/api/")[0])
    page.add_init_script(SPIES)
    return page


def rat_um_rad_on_my_turn(new_page, name: str) -> tuple[Page, Player, int]:
    """A started Rat um Rad game against the computer, its page open on the guest's move."""
    page = allowed_page(new_page, name, "en")
    player = Player(page, new_page.guest(page)["user"]["name"], [])
    game_id = game_against_a_bot(page, start=True)
    page.goto(f"/games/{game_id}/")
    wait_until_connected(page)
    assert page.evaluate("() => Notification.permission") == "granted"
    choose_short_destination_cards(player, keep=2)
    wait_for_my_turn(player)
    return page, player, game_id


def test_a_hidden_tab_gets_one_notification_when_the_move_becomes_yours(new_page):
    page, tilda, game_id = rat_um_rad_on_my_turn(new_page, "Nora")
    expect(page.locator(ASK)).to_be_hidden()  # the browser allows it already: nothing to ask
    expect(page.locator(TOGGLE)).to_be_visible()
    expect(page.locator(TOGGLE)).to_have_attribute("aria-pressed", "true")  # on by default
    assert notifications(page) == []  # the move became hers on a visible tab

    hide(page)
    pass_the_turn(tilda)  # the computer moves at once: the move is hers again
    wait_for_my_turn(tilda)
    page.wait_for_function("() => window.__notifications.length >= 1")
    assert notifications(page) == [
        {"title": "Rheinufer", "body": "Your move in Rat um Rad", "tag": str(game_id)}
    ]

    # A click on it brings the tab to the front; the tab in front closes it.
    page.evaluate("() => window.__lastNotification.dispatchEvent(new Event('click'))")
    assert page.evaluate("() => window.__focused") == 1
    closed = page.evaluate("() => window.__closed")
    assert closed >= 1
    hide(page, False)
    assert len(notifications(page)) == 1


def test_a_visible_tab_gets_no_notification(new_page):
    page, tilda, _ = rat_um_rad_on_my_turn(new_page, "Vera")
    for _ in range(2):
        pass_the_turn(tilda)
        wait_for_my_turn(tilda)  # the notifier runs in the same task that marks the turn line
    assert notifications(page) == []
    assert not page.evaluate("() => document.hidden")


def test_no_notification_with_the_toggle_off_and_the_choice_is_remembered(new_page):
    page, tilda, _ = rat_um_rad_on_my_turn(new_page, "Olga")
    toggle = page.locator(TOGGLE)
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    hide(page)
    pass_the_turn(tilda)
    wait_for_my_turn(tilda)
    assert notifications(page) == []

    page.reload()
    wait_until_connected(page)
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()  # on again: the next move that becomes hers on a hidden tab says so
    expect(toggle).to_have_attribute("aria-pressed", "true")
    hide(page)
    pass_the_turn(tilda)
    wait_for_my_turn(tilda)
    assert [item["body"] for item in notifications(page)] == ["Your move in Rat um Rad"]


def test_a_turn_based_game_notifies_the_hidden_tab_when_the_other_person_has_moved(new_page):
    alma = allowed_page(new_page, "Alma", "en")
    ben = new_page("Ben", lang="en")
    body = {"name": "Fernpartie", "max_players": 2, "bots": 0, "pace": "turn_based"}
    answer = call(alma, "POST", "/api/games/", {**body, "turn_seconds": 43200})
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    assert call(ben, "POST", f"/api/games/{game_id}/join/")["status"] == 200
    assert call(alma, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    players = []
    for page in (alma, ben):
        page.goto(f"/games/{game_id}/")
        wait_until_connected(page)
        expect(page.locator("#game-pace")).to_be_visible()
        player = Player(page, new_page.guest(page)["user"]["name"], [])
        choose_short_destination_cards(player, keep=2)
        players.append(player)
    first, second = players
    deadline = time.monotonic() + 10
    while not (mover := [p for p in players if p.locator("#turn-line.mine").count()]):
        assert time.monotonic() < deadline, "nobody's move after the cards were chosen"
        alma.wait_for_timeout(40)
    if mover[0] is first:  # Alma moves first: she passes on a hidden tab
        hide(alma)
        pass_the_turn(first)
    else:
        hide(alma)
    wait_for_my_turn(second)
    assert notifications(alma) == []
    pass_the_turn(second)  # Ben's two cards: the move becomes Alma's
    wait_for_my_turn(first)
    assert notifications(alma) == [
        {"title": "Fernpartie", "body": "Your move in Rat um Rad", "tag": str(game_id)}
    ]


def test_the_button_asks_for_the_permission_once_and_then_gives_way_to_the_toggle(new_page):
    page = new_page("Paula", lang="en")
    page.add_init_script(PERMISSION)
    game_id = game_against_a_bot(page)  # the waiting room: a seat, no dialog in front
    page.goto(f"/games/{game_id}/")
    expect(page.locator("#start-button")).to_be_visible()  # the shell has rendered
    ask = page.locator(ASK)
    expect(ask).to_be_visible()
    expect(ask).to_have_text("Notify me")
    expect(page.locator(TOGGLE)).to_be_hidden()
    expect(page.locator(DENIED)).to_be_hidden()
    assert page.evaluate("() => window.__asked") == 0  # only a click asks

    ask.click()
    expect(ask).to_be_hidden()
    assert page.evaluate("() => window.__asked") == 1
    expect(page.locator(TOGGLE)).to_be_visible()
    expect(page.locator(TOGGLE)).to_have_attribute("aria-pressed", "true")
    expect(page.locator(DENIED)).to_be_hidden()


def test_a_refused_permission_leaves_a_short_note_in_german(new_page):
    """The browser's own permission, not a stand-in: a new context has not been asked."""
    page = new_page("Greta", lang="de")
    page.add_init_script(COUNT_REQUESTS)
    game_id = game_against_a_bot(page)
    page.goto(f"/games/{game_id}/")
    expect(page.locator("#start-button")).to_be_visible()  # the shell has rendered
    assert page.evaluate("() => Notification.permission") == "default"
    ask = page.locator(ASK)
    expect(ask).to_have_text("Benachrichtigen")
    ask.click()
    expect(ask).to_be_hidden()
    assert page.evaluate("() => window.__asked") == 1
    expect(page.locator(DENIED)).to_be_visible()
    expect(page.locator(DENIED)).to_have_text("Benachrichtigungen blockiert")
    expect(page.locator(TOGGLE)).to_be_hidden()
    page.reload()  # the browser keeps the refusal: the note, never the button again
    expect(page.locator("#start-button")).to_be_visible()
    expect(page.locator(DENIED)).to_be_visible()
    expect(ask).to_be_hidden()
    assert page.evaluate("() => window.__asked") == 0


def test_a_hidden_rage_tab_is_notified_in_german(new_page):
    page = allowed_page(new_page, "Hanne", "de")
    game_id = rage_against_computers(page, 3)
    hide(page)
    seen = {"moves": 0, "bids": 0, "cards": 0, "jokers": 0, "forbidden": 0, "keyboard": 2}
    deadline = time.monotonic() + 30
    # The move becomes hers after the computer's (her first, on opening, is no news).
    while not notifications(page):
        assert time.monotonic() < deadline, f"no notification in time: {seen}"
        if not act(page, seen):
            page.wait_for_timeout(40)
    found = notifications(page)
    assert found[0] == {"title": "Stiche", "body": "Du bist am Zug in RAGE", "tag": str(game_id)}
    assert all(item["tag"] == str(game_id) for item in found)


def test_a_solo_game_has_no_notification_controls(new_page):
    page = new_page("Solveig", lang="en")
    page.add_init_script(PERMISSION)
    answer = call(page, "POST", "/api/games/", {"kind": "road300", "name": "Allein", "options": {}})
    assert answer["status"] == 201, answer
    page.goto(f"/games/{answer['body']['id']}/")
    expect(page.locator("#turn-line")).to_be_visible()  # the shell has rendered
    expect(page.locator("#sound-toggle")).to_be_visible()
    assert page.locator(f"{ASK}, {TOGGLE}, {DENIED}").count() == 0


def head_fits(page: Page, where: str) -> None:
    """The head's parts are inside the window and none covers another (each line box of an
    inline part that wraps is compared on its own)."""
    boxes = page.evaluate(
        """() => [...document.querySelectorAll(
            ".game-head h1, .game-status > *:not([hidden])")].flatMap((element) =>
                [...element.getClientRects()].map((box) => ({
                    id: element.id || element.className, left: box.left, right: box.right,
                    top: box.top, bottom: box.bottom})))"""
    )
    width = page.viewport_size["width"]
    for box in boxes:
        assert box["left"] >= 0 and box["right"] <= width, (where, box)
    for i, one in enumerate(boxes):
        for other in boxes[i + 1 :]:
            apart = (
                one["id"] == other["id"]
                or one["right"] <= other["left"] + 0.5
                or other["right"] <= one["left"] + 0.5
                or one["bottom"] <= other["top"] + 0.5
                or other["bottom"] <= one["top"] + 0.5
            )
            assert apart, (where, one, other)
    assert_page_sound(page, where)


def test_the_head_with_the_notification_controls_fits_a_laptop_and_a_phone(new_page, screenshot):
    for lang in ("de", "en"):
        page = new_page(f"Lang{lang}", lang=lang)
        page.add_init_script(PERMISSION)
        player = Player(page, new_page.guest(page)["user"]["name"], [])
        game_id = game_against_a_bot(page, start=True)
        page.goto(f"/games/{game_id}/")
        wait_until_connected(page)
        choose_short_destination_cards(player, keep=2)
        wait_for_my_turn(player)
        for size in (LAPTOP, PHONE):
            page.set_viewport_size(size)
            page.goto(f"/games/{game_id}/")
            wait_until_connected(page)
            for state in ("default", "granted", "denied"):
                page.evaluate(
                    "(state) => { window.__permission = state;"
                    " document.dispatchEvent(new Event('visibilitychange')); }",
                    state,
                )
                shown = {"default": ASK, "granted": TOGGLE, "denied": DENIED}[state]
                expect(page.locator(shown)).to_be_visible()
                where = f"{lang} {size['width']}x{size['height']} {state}"
                head_fits(page, where)
                screenshot(page, f"notify-head-{lang}-{size['width']}-{state}")
