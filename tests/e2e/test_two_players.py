"""The whole site in two browsers: from the front page through the lobby into a game, every
kind of move, a reload mid-game, chat, the vote to end, the end screen and the rankings; names
and messages with markup; the language of the game page; leaving a game to the computer."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.helpers import (
    XSS_NAME,
    become_guest,
    call,
    game_against_a_bot,
    game_id_of,
    hand_size,
    player_row,
    player_stat,
    record_dialogs,
    say,
    switch_language,
    wait_for_hand_size,
    wait_until_connected,
)

SCRIPT_NAME = "<script>alert(1)</script>"
MINE = re.compile(r"\bmine\b")
PAY_SUMMARY = re.compile(r"^Length (\d+), worth (\d+)\.")
# A game the computer plays to the end by itself, one move after the other.
GAME_OVER_TIMEOUT = 60_000
# What the page shows again after a reload, compared as the visitor reads it.
RESTORED = ["#turn-line", "#players", "#hand", "#destinations", "#face-up", "#feed", "#chat"]


@dataclass
class Player:
    page: Page
    name: str
    dialogs: list[str]

    def locator(self, selector: str):
        return self.page.locator(selector)


def wait_for_my_turn(player: Player) -> None:
    expect(player.locator("#turn-line")).to_have_class(MINE)


def last_feed(player: Player, kind: str):
    return player.locator(f"#feed li.feed-{kind}").last


def draw_from_the_deck(player: Player) -> None:
    before = hand_size(player.page)
    deck = player.locator("#deck-button")
    expect(deck).to_be_enabled()
    deck.click()
    wait_for_hand_size(player.page, before + 1)


def take_a_face_up_card(player: Player) -> str:
    """Takes the first face-up card that is not a joker; returns its colour."""
    before = hand_size(player.page)
    card = player.locator("#face-up button.card-button:enabled:not(.c-joker)").first
    color = re.search(r"\bc-(\w+)", card.get_attribute("class")).group(1)
    card.click()
    wait_for_hand_size(player.page, before + 1)
    return color


def build_a_road(player: Player, *, keyboard: bool = False) -> tuple[str, int] | None:
    """Builds one of the glowing roads, chosen with a click or with the keyboard, through the
    payment picker with the last way to pay it offers; returns the road's id and length, or
    None when no road glows."""
    roads = player.locator("#board g.road.buildable")
    if not roads.count():
        return None
    road = roads.first
    road_id = road.get_attribute("data-road")
    hand_before = hand_size(player.page)
    if keyboard:
        road.focus()
        player.page.keyboard.press("Enter")
    else:
        road.click()
    dialog = player.locator("#pay-dialog")
    expect(dialog).to_be_visible()
    length = int(PAY_SUMMARY.match(dialog.locator("#pay-summary").inner_text()).group(1))
    options = dialog.locator("input[name=payment]")
    expect(options.first).to_be_checked()
    options.last.check()
    dialog.locator("#pay-confirm").click()
    expect(dialog).to_be_hidden()
    expect(player.locator(f'#board g.road.built[data-road="{road_id}"]')).to_have_count(1)
    wait_for_hand_size(player.page, hand_before - length)
    return road_id, length


def color_of(player: Player) -> str:
    swatch = player.locator("#players li.me .swatch")
    return re.search(r"\bc-(\w+)", swatch.get_attribute("class")).group(1)


def choose_short_destination_cards(player: Player, keep: int) -> None:
    dialog = player.locator("#keep-dialog")
    expect(dialog).to_be_visible()
    boxes = dialog.locator("input[type=checkbox]")
    expect(boxes).to_have_count(3)
    for box in boxes.all()[keep:]:
        box.uncheck()
    dialog.locator("#keep-confirm").click()
    expect(dialog).to_be_hidden()
    expect(player.locator("#destinations li")).to_have_count(1 + keep)  # and the long card


def vote_to_end(player: Player) -> None:
    player.locator("#vote-button").click()
    confirm = player.locator("#confirm-dialog")
    expect(confirm).to_be_visible()
    confirm.locator("#confirm-ok").click()
    expect(confirm).to_be_hidden()


def no_script_ran(player: Player) -> None:
    """No alert opened, and the body holds no script but the page's own JSON data."""
    assert player.dialogs == []
    scripts = player.page.evaluate(
        """() => document.querySelectorAll('body script:not([type="application/json"])')
            .length"""
    )
    assert scripts == 0


def test_two_people_play_from_the_front_page_to_the_end_and_the_ranking_updates(
    new_page, screenshot
):
    alice_page, bob_page = new_page(lang="en"), new_page(lang="en")
    alice = Player(alice_page, become_guest(alice_page, "Alice"), record_dialogs(alice_page))
    bob = Player(bob_page, become_guest(bob_page, "Bob"), record_dialogs(bob_page))

    # The lobby: each sees the other online.
    for me, other in [(alice, bob), (bob, alice)]:
        link = me.locator("#players").get_by_role("link", name=other.name, exact=True)
        expect(link).to_be_visible()
    screenshot(alice.page, "lobby")

    # Alice creates a game from the lobby's form and lands at its table.
    game_name = f"Rheinknie {alice.name}"
    form = alice.locator("#new-game-form")
    form.locator("input[name=name]").fill(game_name)
    form.locator("select[name=max_players]").select_option("2")
    form.locator("select[name=bots]").select_option("0")
    form.locator("select[name=turn_seconds]").select_option("0")
    with alice.page.expect_navigation():
        form.locator("button[type=submit]").click()
    game_id = game_id_of(alice.page)
    expect(alice.locator("#game h1")).to_have_text(game_name)
    expect(alice.locator("#start-button")).to_be_disabled()  # one player is not enough
    expect(player_row(alice, alice.name).locator(".badge-online")).to_be_visible()  # connected

    # Bob's lobby lists it without a reload; he joins with its button.
    entry = bob.locator("#games-waiting li.game-item").filter(
        has=bob.page.get_by_role("link", name=game_name, exact=True)
    )
    expect(entry).to_contain_text("1 of 2 seats")
    with bob.page.expect_navigation(url=f"**/games/{game_id}/"):
        entry.locator(".join-form button").click()
    expect(bob.locator("#waiting-text")).to_have_text(
        f"Waiting for {alice.name} to start the game."
    )

    # Alice sees him take the seat and starts; both choose their short destination cards.
    expect(alice.locator("#seats")).to_contain_text(bob.name)
    alice.locator("#start-button").click()
    for me in (alice, bob):  # the deal shows in both feeds as it happens
        wait_until_connected(me.page)
    choose_short_destination_cards(alice, keep=3)
    choose_short_destination_cards(bob, keep=2)
    for me in (alice, bob):
        expect(last_feed(me, "game_started")).to_have_text(re.compile(r"^The game begins: "))
        expect(player_stat(me, alice.name, "Destination cards")).to_have_text("4")
        expect(player_stat(me, bob.name, "Destination cards")).to_have_text("3")
        expect(player_stat(me, alice.name, "Wheel cards")).to_have_text("4")

    expect(alice.locator("#players li.current")).to_have_count(1)
    current = alice.locator("#players li.current .player-name").inner_text()
    first, second = (alice, bob) if current == alice.name else (bob, alice)

    # First turn: a card from the deck, then a face-up one.
    wait_for_my_turn(first)
    expect(second.locator("#turn-line")).to_have_text(f"{first.name}'s turn.")
    draw_from_the_deck(first)
    expect(first.locator("#turn-line")).to_have_text("Your turn: take your second wheel card.")
    expect(last_feed(second, "took_wheel")).to_have_text(f"{first.name} took a card from the deck.")
    expect(second.locator("#turn-line")).to_have_text(
        f"{first.name} is taking a second wheel card."
    )
    color = take_a_face_up_card(first)
    expect(last_feed(second, "took_wheel")).to_have_text(
        f"{first.name} took a face-up card: {color}."
    )
    expect(player_stat(second, first.name, "Wheel cards")).to_have_text("6")

    # Second turn: destination cards, keeping all but one of them.
    wait_for_my_turn(second)
    expect(first.locator("#turn-line")).to_have_text(f"{second.name}'s turn.")
    cards_before = second.locator("#destinations li").count()
    second.locator("#draw-destinations").click()
    dialog = second.locator("#keep-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#keep-title")).to_have_text("Keep destination cards")
    boxes = dialog.locator("input[type=checkbox]")
    drawn = boxes.count()
    assert drawn >= 2
    expect(first.locator("#turn-line")).to_have_text(
        f"{second.name} is choosing destination cards."
    )
    expect(last_feed(first, "drew_destinations")).to_have_text(
        f"{second.name} drew {drawn} destination cards."
    )
    expect(player_stat(first, second.name, "Destination cards")).to_have_text(
        f"{cards_before} (choosing {drawn})"
    )
    boxes.last.uncheck()
    dialog.locator("#keep-confirm").click()
    expect(dialog).to_be_hidden()
    kept = drawn - 1
    expect(second.locator("#destinations li")).to_have_count(cards_before + kept)
    expect(last_feed(first, "kept_destinations")).to_have_text(
        re.compile(rf"^{re.escape(second.name)} kept {kept} destination cards?\.$")
    )
    expect(player_stat(first, second.name, "Destination cards")).to_have_text(
        str(cards_before + kept)
    )

    # Then each builds a road as soon as one glows for them, drawing cards until then.
    built = {alice.name: None, bob.name: None}
    mover, waiter = first, second
    for _turn in range(16):
        if all(built.values()):
            break
        wait_for_my_turn(mover)
        keyboard = any(built.values())  # the second road is chosen with the keyboard
        road = None if built[mover.name] else build_a_road(mover, keyboard=keyboard)
        if road:
            road_id, length = road
            built[mover.name] = road_id
            owner = color_of(mover)
            wheels = waiter.locator(f'#board g.road[data-road="{road_id}"] .wheel.built.c-{owner}')
            expect(wheels).to_have_count(length)
            expect(last_feed(waiter, "built_road")).to_contain_text(f"{mover.name} built ")
            expect(player_stat(waiter, mover.name, "Wheels")).to_have_text(str(30 - length))
        else:
            draw_from_the_deck(mover)
            draw_from_the_deck(mover)
            cards = str(hand_size(mover.page))
            expect(player_stat(waiter, mover.name, "Wheel cards")).to_have_text(cards)
        mover, waiter = waiter, mover
    assert all(built.values()), built
    expect(alice.locator("#board g.road.built")).to_have_count(2)

    # Chat with markup in it is text in the other browser.
    say(bob, XSS_NAME)
    line = alice.locator("#chat li").last
    expect(line.locator(".chat-text")).to_have_text(XSS_NAME)
    expect(line.locator(".chat-name")).to_have_text(bob.name)
    alice.locator("#chat-text").fill("Gut gespielt!")
    alice.locator("#chat-form button[type=submit]").click()
    expect(bob.locator("#chat li .chat-text").last).to_have_text("Gut gespielt!")
    for me in (alice, bob):
        assert me.locator("#chat img").count() == 0
        assert me.page.locator('img[src="x"]').count() == 0

    # A reload brings back everything the page showed.
    screenshot(alice.page, "board-mid-game")
    shown = {selector: alice.locator(selector).inner_text() for selector in RESTORED}
    assert alice.name in shown["#feed"] and bob.name in shown["#feed"]
    alice.page.reload()
    for selector, text in shown.items():
        expect(alice.locator(selector)).to_have_text(text, use_inner_text=True)
    expect(alice.locator("#board g.road.built")).to_have_count(2)

    # Both vote to end the game (R8.2).
    vote_to_end(alice)
    expect(player_row(bob, alice.name).locator(".badge-vote")).to_have_text("votes to end")
    expect(bob.locator("#vote-button")).to_have_text("Vote to end the game")
    expect(alice.locator("#vote-button")).to_have_text("Take back my vote to end")
    vote_to_end(bob)

    # The end screen, in both browsers.
    for me in (alice, bob):
        expect(me.locator("#results")).to_be_visible()
        expect(me.locator("#results-reason")).to_have_text("All players voted to end the game.")
        expect(me.locator("#results-table thead th")).to_have_text(
            [
                "Place",
                "Player",
                "Road points",
                "Destinations reached",
                "Destinations missed",
                "Longest path",
                "Total",
                "Rating",
                "",
            ]
        )
        rows = me.locator("#results-table tbody tr")
        expect(rows).to_have_count(2)
        names = rows.locator(".player-name").all_inner_texts()
        assert sorted(names) == sorted([alice.name, bob.name])
        for row in rows.all():
            cells = row.locator("td")  # the player's name is the row's heading
            expect(cells.nth(0)).to_have_text(re.compile(r"^[12]\."))
            expect(cells.nth(1)).to_have_text(re.compile(r"^\+\d+$"))  # both built a road
            expect(cells.nth(2)).to_have_text(re.compile(r"^\d+ \((\+\d+|0)\)$"))
            expect(cells.nth(3)).to_have_text(re.compile(r"^\d+ \((\u2212\d+|0)\)$"))
            expect(cells.nth(4)).to_have_text(re.compile(r"^[1-9]\d*( · bonus \+10)?"))
            expect(cells.nth(5)).to_have_text(re.compile(r"^-?\d+$"))
            expect(cells.nth(6)).to_have_text(re.compile(r"^([+\u2212]\d+\.\d|0\.0)$"))
        expect(me.locator("#results-you")).to_have_text(re.compile(r"^You have -?\d+ points?\.$"))
        expect(me.locator("#results-winner")).to_have_text(re.compile(r"^Winners?: "))
        expect(me.locator("#vote-panel")).to_be_hidden()
        expect(me.locator("#draw-panel")).to_be_hidden()
    screenshot(bob.page, "end-screen")

    # The rankings list both players with this game, and rate them.
    alice.page.goto("/rankings/")
    scores = alice.locator("section[aria-labelledby=best-scores] tbody tr")
    ratings = alice.locator("section[aria-labelledby=ratings] tbody tr")
    for name in (alice.name, bob.name):
        player = alice.page.get_by_role("link", name=name, exact=True)
        row = scores.filter(has=player)
        expect(row).to_have_count(1)
        expect(row.get_by_role("link", name=f"Game {game_id}")).to_have_text(f"#{game_id}")
        expect(ratings.filter(has=player)).to_have_count(1)
    screenshot(alice.page, "rankings")

    no_script_ran(alice)
    no_script_ran(bob)


def test_a_name_with_markup_is_text_everywhere(new_page):
    guest_page, viewer_page = new_page(lang="en"), new_page(lang="en")
    guest = Player(guest_page, become_guest(guest_page, SCRIPT_NAME), record_dialogs(guest_page))
    viewer = Player(viewer_page, become_guest(viewer_page, "Mia"), record_dialogs(viewer_page))
    assert guest.name.startswith(SCRIPT_NAME)
    expect(guest.locator("header .site-user-name")).to_have_text(guest.name)

    # The lobby's list of who is online, in both browsers.
    for me in (guest, viewer):
        link = me.locator("#players").get_by_role("link", name=guest.name, exact=True)
        expect(link).to_be_visible()

    # The lobby chat: live in the other browser, and from the server after a reload.
    guest.locator("#chat-text").fill("Hallo zusammen")
    guest.locator("#chat-text").press("Enter")
    for me in (guest, viewer):
        line = me.locator("#chat-log .chat-line").last
        expect(line.locator(".chat-text")).to_have_text("Hallo zusammen")
        expect(line.locator(".chat-name")).to_have_text(guest.name)
    viewer.page.reload()
    expect(viewer.locator("#chat-log .chat-line .chat-name").last).to_have_text(guest.name)

    # A game named after the guest: the lobby's list, the table's heading and player list.
    with guest.page.expect_navigation():
        guest.locator("#new-game-form button[type=submit]").click()
    game_name = f"Game of {guest.name}"
    expect(guest.locator("#game h1")).to_have_text(game_name)
    expect(player_row(guest, guest.name)).to_have_count(1)
    entry = viewer.locator("#games-waiting li.game-item").filter(
        has=viewer.page.get_by_role("link", name=game_name, exact=True)
    )
    with viewer.page.expect_navigation():
        entry.locator(".join-form button").click()
    expect(viewer.locator("#game h1")).to_have_text(game_name)
    expect(viewer.locator("#seats .player-name").first).to_have_text(guest.name)
    expect(player_row(viewer, guest.name)).to_have_count(1)
    expect(player_row(guest, viewer.name)).to_have_count(1)
    expect(viewer.locator("#waiting-text")).to_have_text(
        f"Waiting for {guest.name} to start the game."
    )

    no_script_ran(guest)
    no_script_ran(viewer)


def test_the_site_switches_language_and_keeps_it(new_page):
    """The game page in either language: its own strings, and the feed's sentences, which
    the server writes in the language of each socket."""
    page = new_page("Emil", lang="de")
    game_id = game_against_a_bot(page, start=True)
    page.goto(f"/games/{game_id}/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    wait_until_connected(page)
    page.locator("#keep-confirm").click()  # all three short destination cards
    expect(page.locator("#feed li.feed-game_started")).to_have_count(1)

    switch_language(page, "en")
    assert game_id_of(page) == game_id
    for _ in range(2):  # and again after a reload: the choice is kept
        expect(page.locator("html")).to_have_attribute("lang", "en")
        expect(page.locator("select[name=language] option:checked")).to_have_text("English")
        expect(page.locator("#players-heading")).to_have_text("Players")
        expect(page.locator("#hand-heading")).to_have_text("Your wheel cards")
        expect(page.locator("#feed-heading")).to_have_text("Recent activity")
        expect(page.locator("#turn-line")).to_have_text(re.compile(r"^Your turn: |'s turn\.$"))
        expect(page.locator("#feed li.feed-dealt")).to_have_text(
            "The cards are dealt: everyone chooses their short destination cards."
        )
        expect(page.locator("#feed li.feed-game_started")).to_have_text(
            re.compile(r"^The game begins: .+ starts\.$")
        )
        page.reload()

    switch_language(page, "de")
    assert game_id_of(page) == game_id
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("select[name=language] option:checked")).to_have_text("Deutsch")
    expect(page.locator(".site-nav a[href='/rankings/']")).to_have_text(re.compile("^Rangliste"))
    expect(page.locator("#feed li.feed-game_started")).to_have_count(1)


def test_a_game_whose_only_person_leaves_is_called_off_not_played_out(new_page, screenshot):
    """Against a computer player alone: once Lea leaves, nobody is left to play for."""
    page = new_page("Lea", lang="en")
    lea = Player(page, new_page.guest(page)["user"]["name"], record_dialogs(page))
    game_id = game_against_a_bot(page, start=True)
    page.goto(f"/games/{game_id}/")
    wait_until_connected(page)
    choose_short_destination_cards(lea, keep=2)
    wait_for_my_turn(lea)
    draw_from_the_deck(lea)
    draw_from_the_deck(lea)

    page.locator("#leave-button").click()
    confirm = page.locator("#confirm-dialog")
    expect(confirm.locator("#confirm-text")).to_have_text(
        re.compile(r"^Leave this game for good\?")
    )
    confirm.locator("#confirm-ok").click()
    expect(page.locator("#aborted-banner")).to_be_visible()
    expect(page.locator("#leave-panel")).to_be_hidden()
    expect(page.locator("#results")).to_be_hidden()
    expect(page.locator("#feed li.feed-aborted")).to_have_count(1)
    screenshot(page, "called-off-after-leaving")
    no_script_ran(lea)


def test_a_choice_that_crosses_another_players_move_is_sent_again(new_page):
    """Bob's choice reaches the server first and its STATE reaches Alice's page only just
    after she sent hers: the server refuses hers as stale, and the page sends it again."""
    alice_page, bob_page = new_page("Alice", lang="en"), new_page("Bob", lang="en")
    alice = Player(alice_page, new_page.guest(alice_page)["user"]["name"], [])
    bob = Player(bob_page, new_page.guest(bob_page)["user"]["name"], [])
    refusals: list[str] = []
    held: list[str] = []

    def delay_news_until_alice_moves(route: WebSocketRoute) -> None:
        server = route.connect_to_server()

        def from_page(message: str) -> None:
            server.send(message)
            if "expect_seq" in json.loads(message):
                for news in held:
                    route.send(news)
                held.clear()

        def from_server(message: str) -> None:
            data = json.loads(message)
            if data["type"] == "ERROR":
                refusals.append(data["code"])
            if data["type"] in ("STATE", "EVENT") and data["seq"] > 0 and not refusals:
                held.append(message)
            else:
                route.send(message)

        route.on_message(from_page)
        server.on_message(from_server)

    alice.page.route_web_socket(re.compile(r"/ws/games/\d+/$"), delay_news_until_alice_moves)
    answer = call(alice.page, "POST", "/api/games/", {"name": "Kreuzung", "max_players": 2})
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    assert call(bob.page, "POST", f"/api/games/{game_id}/join/")["status"] == 200
    assert call(alice.page, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    for me in (alice, bob):
        me.page.goto(f"/games/{game_id}/")
        wait_until_connected(me.page)

    choose_short_destination_cards(bob, keep=3)
    expect(bob.locator("#turn-line")).to_have_text(
        "You have chosen. Waiting for the others to choose."
    )
    choose_short_destination_cards(alice, keep=2)
    expect(alice.locator("#feed li.feed-game_started")).to_have_count(1)
    expect(alice.locator("#feed li.feed-prepared")).to_have_count(2)
    assert refusals == ["stale"]
    for me in (alice, bob):
        expect(player_stat(me, alice.name, "Destination cards")).to_have_text("3")
