"""A turn-based game of Rat um Rad between two people in two browsers, through days that pass
in an instant: the clock moves past a turn's deadline by a sweep at that moment, made by a
second process of the site (tests/e2e/site_process.py) as a real site's sweeper does after
the hours go by. Lea (English) makes the game in the lobby, 24 hours a move; Bruno (German)
joins through the game's link. When Lea misses her turn, the computer plays that one turn
and gives her seat back, and Bruno's page tells so. Later, with his page closed, Bruno gets
a your-turn mail, and its link opens the game at his seat with his move to make.

The game's server is a second one on the e2e server's database: its mails go out through the
tasks' worker beside it to a real SMTP server, and their links lead back to it."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import SERVER_ENV, PageFactory, Watch
from tests.e2e.helpers import (
    game_id_of,
    hand_size,
    player_row,
    player_stat,
    wait_until_connected,
)
from tests.e2e.pagecheck import OVERLAPS, assert_page_sound
from tests.e2e.site_process import SiteProcess
from tests.e2e.test_two_players import (
    MINE,
    Player,
    choose_short_destination_cards,
    draw_from_the_deck,
    wait_for_my_turn,
)
from tests.real_server import ROOT, PrivateRedis, Server, _server_env
from tests.smtp_server import SMTPServer

pytestmark = pytest.mark.page(1)

DAY = 24 * 3600
WIDTH, HEIGHT = 1366, 768
MAIL_TIMEOUT = 15  # seconds for the your-turn mail to reach the SMTP server

TEXTS = {
    "en": {
        "pace": "turn-based, 24 hours a move",
        "ran_out": "{name} ran out of time: the computer plays this turn for them.",
        "played": "The computer played {name}'s turn; the next one is theirs again.",
        "you": "you",
        "time_left": "Time left for this turn: ",
        "waiting": "Waiting for {name} to start the game.",
    },
    "de": {
        "pace": "rundenbasiert, 24 Stunden pro Zug",
        "ran_out": (
            "{name} hat die Zeit überschritten: Der Computer spielt diesen Zug für sie oder ihn."
        ),
        "played": (
            "Der Computer hat den Zug von {name} gespielt; den nächsten spielt {name} wieder"
            " selbst."
        ),
        "you": "du",
        "time_left": "Restzeit für diesen Zug: ",
        "waiting": "Warten, bis {name} das Spiel startet.",
    },
}

# Every pair of these boxes that overlaps, as "a / b" (only the visible ones count).

# What the head of the table shows, one box each: none may cover another.
HEAD = ["#game h1", "#game-status", "#game-pace", ".game-rules", "#turn-line", "#deadline"]
TABLE = ["#hand-panel", "#draw-panel", "#board-scroll", "#destinations-panel", ".side"]


class MailingServer(Server):
    """A server whose mails' links lead back to it: SITE_URL is its own address."""

    def _spawn(self, port: int) -> None:
        self.env = {**self.env, "SITE_URL": f"http://127.0.0.1:{port}"}
        super()._spawn(port)


class Worker:
    """The background tasks' worker beside the server, as on the site (dev.py run): it sends
    the mails the server and the second process queue in the database."""

    def __init__(self, database_url: str, log_path: Path, env: dict[str, str]):
        self.log_path = log_path
        command = ["db_worker", "--no-reload", "--queue-name", "*", "--interval", "0.1"]
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "manage.py", *command, "--no-startup-delay"],
                cwd=ROOT,
                env=_server_env(database_url, env),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc_info) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


@pytest.fixture
def site(live_server, browser, tmp_path):
    """A second server on the e2e database that mails through a real SMTP server, with the
    tasks' worker beside it, a process of the site that sweeps when told, and pages of that
    server. The server and the sweeping process share a channel layer: the test run's Redis,
    or one of the test's own."""
    with contextlib.ExitStack() as stack:
        smtp = SMTPServer()
        smtp.start()
        stack.callback(smtp.stop)
        env = {**SERVER_ENV, "EMAIL_URL": f"smtp://127.0.0.1:{smtp.port}"}
        if not os.environ.get("REDIS_URL", "").strip():
            if shutil.which("redis-server") is None:
                pytest.skip("needs REDIS_URL or redis-server: two processes share its layer")
            env["REDIS_URL"] = stack.enter_context(PrivateRedis(tmp_path)).url
        server = stack.enter_context(MailingServer(live_server.database_url, tmp_path, env=env))
        # Django comes up in it while the browsers log in.
        process = stack.enter_context(
            SiteProcess(
                live_server.database_url,
                tmp_path / "site-process.log",
                {**env, "SITE_URL": server.base_url},
            )
        )
        worker = stack.enter_context(
            Worker(
                live_server.database_url,
                tmp_path / "worker.log",
                {**env, "SITE_URL": server.base_url},
            )
        )
        # Shown when the test fails.
        print(f"logs: {server.log_path}, {process.log_path}, {worker.log_path}")
        pages = PageFactory(browser, server.base_url)
        stack.callback(pages.close)
        yield Site(server, process, smtp, pages)
        problems = pages.problems()
        if problems:
            pytest.fail("\n".join(problems), pytrace=False)


class Site:
    def __init__(self, server: Server, process: SiteProcess, smtp: SMTPServer, pages):
        self.server, self.process, self.smtp, self.pages = server, process, smtp, pages

    def mails_to(self, address: str) -> list:
        return self.smtp.to(address)

    def your_turn_mails(self, game_id: int, after_seq: int) -> list[dict]:
        """The game's your-turn mail tasks queued after its move number ``after_seq``, once
        there is one and the worker has run every one of them."""
        deadline = time.monotonic() + MAIL_TIMEOUT
        while True:
            tasks = self.process.call("your_turn_mails", game=game_id)
            tasks = [task for task in tasks if task["seq"] > after_seq]
            done = all(task["status"] in ("SUCCESSFUL", "FAILED") for task in tasks)
            if tasks and done:
                return tasks
            assert time.monotonic() < deadline, f"the worker left tasks undone: {tasks}"
            time.sleep(0.1)

    def wait_for_mail(self, address: str):
        deadline = time.monotonic() + MAIL_TIMEOUT
        while not self.mails_to(address):
            assert time.monotonic() < deadline, f"no mail reached {address}"
            time.sleep(0.05)
        return self.mails_to(address)[-1]


def person(site: Site, name: str, lang: str) -> tuple[Player, str]:
    """A guest with a page of the site at 1366x768; returns them and their user id."""
    page = site.pages(name, lang=lang, width=WIDTH, height=HEIGHT)
    guest = site.pages.guest(page)
    page.goto("/")
    return Player(page, guest["user"]["name"], []), guest["user"]["id"]


def reopen(pages: PageFactory, context) -> Page:
    """A new page in a context whose pages were closed, watched as the factory's are."""
    page = context.new_page()
    watch = Watch()
    page.on("console", watch.on_console)
    page.on("pageerror", lambda error: watch.page_errors.append(str(error)))
    pages.watches[id(page)] = (page, watch)
    return page


def feed_line(player: Player, kind: str, text: str):
    return player.locator(f"#feed li.feed-{kind}").filter(has_text=text)


def assert_table_sound(player: Player, where: str, watch) -> None:
    """Nothing the page shows is unfilled, nothing scrolls sideways, and neither the boxes of
    the table's head nor its panels cover one another."""
    assert_page_sound(player.page, where, watch)
    assert player.page.evaluate(OVERLAPS, HEAD) == [], where
    assert player.page.evaluate(OVERLAPS, TABLE) == [], where
    # The pace stands in the game's head, on the line of its name, inside the window.
    head = player.locator("#game .game-head").bounding_box()
    title = player.locator("#game h1").bounding_box()
    badge = player.locator("#game-pace").bounding_box()
    assert badge["x"] >= 0 and badge["x"] + badge["width"] <= WIDTH, (where, badge)
    assert head["y"] <= badge["y"] and badge["y"] + badge["height"] <= head["y"] + head["height"]
    assert badge["x"] > title["x"] + title["width"], (where, title, badge)
    assert badge["y"] < title["y"] + title["height"] and title["y"] < badge["y"] + badge["height"]


def test_a_missed_turn_is_played_by_the_computer_and_the_mail_leads_back_to_the_seat(
    site, screenshot
):
    lea, lea_id = person(site, "Lea", "en")
    bruno, bruno_id = person(site, "Bruno", "de")
    texts = {lea.name: TEXTS["en"], bruno.name: TEXTS["de"]}
    addresses = {
        lea.name: f"lea-{secrets.token_hex(3)}@example.org",
        bruno.name: f"bruno-{secrets.token_hex(3)}@example.org",
    }
    site.process.call("address", user=lea_id, email=addresses[lea.name], lang="en")
    site.process.call("address", user=bruno_id, email=addresses[bruno.name], lang="de")

    # Lea makes a turn-based game in the lobby: 24 hours a move.
    game_name = f"Brieflich {lea.name}"
    form = lea.locator("#new-game-form")
    form.locator("input[name=name]").fill(game_name)
    form.locator("select[name=max_players]").select_option("2")
    form.locator("select[name=bots]").select_option("0")
    pace = form.locator("select[name=turn_seconds]")
    expect(pace.locator("optgroup").nth(1)).to_have_attribute("label", re.compile(r"^Turn-based"))
    expect(pace.locator("optgroup").nth(1).locator("option")).to_have_text(
        ["12 hours a move", "24 hours a move", "3 days a move"]
    )
    pace.select_option(str(DAY))
    with lea.page.expect_navigation():
        form.locator("button[type=submit]").click()
    game_id = game_id_of(lea.page)
    expect(lea.locator("#game h1")).to_have_text(game_name)
    expect(lea.locator("#game-pace")).to_have_text(TEXTS["en"]["pace"])

    # Bruno's lobby lists it with its pace; he opens the game's link and takes a seat.
    entry = bruno.locator("#games-waiting li.game-item").filter(
        has=bruno.page.get_by_role("link", name=game_name, exact=True)
    )
    expect(entry.locator(".badge-pace")).to_have_text(TEXTS["de"]["pace"])
    assert_page_sound(bruno.page, "the lobby", site.pages.watch(bruno.page))
    screenshot(bruno.page, "turn-based-lobby-bruno")
    bruno.page.goto(f"/games/{game_id}/")
    expect(bruno.locator("#game-pace")).to_have_text(TEXTS["de"]["pace"])
    bruno.locator("#join-button").click()
    expect(bruno.locator("#waiting-text")).to_have_text(
        TEXTS["de"]["waiting"].format(name=lea.name)
    )
    expect(lea.locator("#seats")).to_contain_text(bruno.name)
    lea.locator("#start-button").click()
    for me in (lea, bruno):
        wait_until_connected(me.page)
    choose_short_destination_cards(lea, keep=3)
    choose_short_destination_cards(bruno, keep=2)

    # A few turns through the page, until it is Lea's turn after each has moved.
    expect(lea.locator("#players li.current")).to_have_count(1)
    first = lea.locator("#players li.current .player-name").inner_text()
    mover, waiter = (lea, bruno) if first == lea.name else (bruno, lea)
    for _turn in range(2 if mover is lea else 3):
        wait_for_my_turn(mover)
        draw_from_the_deck(mover)
        draw_from_the_deck(mover)
        mover, waiter = waiter, mover
    wait_for_my_turn(lea)
    expect(bruno.locator("#turn-line")).not_to_have_class(MINE)
    hand = lea.locator("#hand").inner_text()
    clock = site.process.call("game", game=game_id)
    deadline = datetime.fromisoformat(clock["turn_deadline"])
    assert clock["turn_seconds"] == DAY
    assert deadline - datetime.now(deadline.tzinfo) > timedelta(hours=23, minutes=59)

    # Lea does not move. A day passes: the sweep at the deadline's next second.
    swept = site.process.call("sweep_after_deadline", game=game_id)
    assert swept["deadline"] == clock["turn_deadline"]
    assert swept["missed"] == {str(lea_id): 1, str(bruno_id): 0}
    for me in (lea, bruno):
        words = texts[me.name]
        ran_out = feed_line(me, "autopilot_on", words["ran_out"].format(name=lea.name))
        played = feed_line(me, "autopilot_off", words["played"].format(name=lea.name))
        expect(ran_out).to_have_count(1)
        expect(played).to_have_count(1)
        expect(me.locator("#game-pace")).to_have_text(words["pace"])
        # Bruno's turn has its full day, counted in hours.
        expect(me.locator("#deadline")).to_have_text(
            re.compile("^" + re.escape(words["time_left"]) + r"23:5\d:[0-5]\d$")
        )
        expect(me.locator("#autopilot-panel")).to_be_hidden()  # nobody plays for Lea now
        expect(player_row(me, lea.name).locator(".badge-autopilot")).to_have_count(0)
    wait_for_my_turn(bruno)
    expect(lea.locator("#turn-line")).to_have_text(f"{bruno.name}'s turn.")
    expect(lea.locator("#hand")).not_to_have_text(hand)  # the computer played from her hand
    now = site.process.call("game", game=game_id)
    assert datetime.fromisoformat(now["turn_deadline"]) > deadline  # Bruno's own full day
    # The worker asked whether to mail Bruno, and did not: his page is open on the game.
    mails = site.your_turn_mails(game_id, after_seq=clock["seq"])
    assert [(mail["user"], mail["answer"]) for mail in mails] == [(bruno_id, "connected")]
    assert site.mails_to(addresses[bruno.name]) == []
    for me in (lea, bruno):
        assert_table_sound(me, "after the computer played Lea's turn", site.pages.watch(me.page))
        screenshot(me.page, f"turn-based-{me.name.split()[0].lower()}-after-the-missed-turn")

    # Bruno moves, then closes his page; Lea's page sees him go. Lea moves: his turn again.
    draw_from_the_deck(bruno)
    draw_from_the_deck(bruno)
    wait_for_my_turn(lea)
    bruno_context = bruno.page.context
    bruno.page.close()
    expect(player_row(lea, bruno.name).locator(".badge-offline")).to_be_visible()
    draw_from_the_deck(lea)
    draw_from_the_deck(lea)
    expect(lea.locator("#turn-line")).to_have_text(f"{bruno.name}'s turn.")

    # The your-turn mail, in Bruno's language, leads to the game at his seat.
    mail = site.wait_for_mail(addresses[bruno.name])
    assert mail.message["Subject"] == f"Du bist am Zug in {game_name}"
    link = re.search(r"Zum Spiel: (\S+)", mail.body)
    assert link and link.group(1) == f"{site.server.base_url}/games/{game_id}/", mail.body
    # Lea's page was open whenever it was her turn: the worker mailed her never.
    answers = [
        task["answer"] for task in site.your_turn_mails(game_id, -1) if task["user"] == lea_id
    ]
    assert answers and set(answers) <= {"connected", "stale"}, answers
    assert site.mails_to(addresses[lea.name]) == []
    page = reopen(site.pages, bruno_context)
    page.goto(link.group(1))
    back = Player(page, bruno.name, [])
    wait_until_connected(page)
    expect(page.locator("html")).to_have_attribute("lang", "de")
    me = back.locator("#players li.player").filter(has=page.locator(".badge-you"))
    expect(me.locator(".player-name")).to_have_text(bruno.name)
    expect(me.locator(".badge-you")).to_have_text(TEXTS["de"]["you"])
    expect(page.locator("#hand-heading")).to_have_text("Deine Radkarten")
    expect(player_stat(page, bruno.name, "Radkarten")).to_have_text(str(hand_size(page)))
    assert hand_size(page) > 4  # the four dealt and those he drew
    wait_for_my_turn(back)
    expect(page.locator("#deck-button")).to_be_enabled()
    expect(page.locator("#spectator-badge")).to_be_hidden()
    expect(page.locator("#game-pace")).to_have_text(TEXTS["de"]["pace"])
    played = feed_line(back, "autopilot_off", TEXTS["de"]["played"].format(name=lea.name))
    expect(played).to_have_count(1)
    assert_table_sound(back, "the game opened from the mail", site.pages.watch(page))
    screenshot(page, "turn-based-bruno-from-the-mail")
