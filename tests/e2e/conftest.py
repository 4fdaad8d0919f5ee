"""Browser tests: Debian's Chromium driven through Playwright against a real daphne server.

Fixtures:

* ``live_server`` (session): a daphne subprocess (tests/real_server.py) on a database of its
  own, with the test process's ``REDIS_URL``; ``live_server.base_url`` is its address.
* ``browser`` (session): Chromium from ``/usr/bin/chromium``; no browser is ever downloaded.
  Without Chromium the browser tests are skipped, or fail when ``RATUMRAD_REQUIRE_BROWSER=1``.
* ``new_page(name=None, lang="de", width=1280, height=800, touch=False, timezone=None)``: a
  page in a browser context of its own (own cookies) with that language, viewport and time
  zone (None: the machine's), and a touch screen for ``page.touchscreen`` when ``touch``,
  logged in as a new guest ``name`` when one is given (``new_page.guest(page)`` holds its
  ``token`` and ``user``). It watches the page: a Content-Security-Policy violation or an
  uncaught script error fails the test when it ends; console errors are kept in
  ``new_page.watch(page).console_errors``. A failing test's report also carries the last
  frames each page's sockets sent and received.
* ``screenshot(page, name)``: saves ``artifacts/screenshots/<name>.png`` (not committed).
"""

from __future__ import annotations

import itertools
import os
import re
import tempfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Page,
    Playwright,
    WebSocket,
    expect,
    sync_playwright,
)

from tests.real_server import ROOT, Server, server_database

CHROMIUM = Path("/usr/bin/chromium")
# The features Playwright's launch turns off (its chromiumSwitches.ts, at the version pinned in
# pyproject.toml; tests/test_browser_switches.py checks they are the same). Chromium reads the
# last --disable-features switch only, so ours below must repeat them.
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
# Chromium draws the address bar's suggestions as a web page of its own, loaded in every
# window (a browser context is one) by a renderer process that no test ever shows: 12-15% of
# the browser tests' CPU.
OMNIBOX_POPUP_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + OMNIBOX_POPUP_FEATURES),
]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
# How long an action and an assertion may wait. CI runs two passes side by side, each with a
# browser, a server and computer players, on two cores: a page then takes seconds to answer.
ACTION_TIMEOUT_MS = 20_000
expect.set_options(timeout=10_000)
SERVER_LOG_CHARS = 6000
SOCKET_FRAMES = 40  # the last frames of each page's sockets a failing test's report shows
FRAME_CHARS = 300
# The server makes a new guest for every logged-in page: more than the default rate allows.
# Its computer players move after a short pause, whichever the channel layer (the default
# pause with Redis is as long as a person's), so a game they play to its end takes seconds.
SERVER_ENV = {
    "GUEST_RATE": "10000/min",
    "GAME_RATE": "10000/min",
    "GAMES_WAITING_PER_USER": "1000",
    "SOCKETS_PER_USER": "1000",
    "SOCKETS_PER_ADDRESS": "10000",
    "BOT_DELAY_SECONDS": "0.02",
}

# Reports every violation through the console, whatever Chromium's own wording is.
CSP_MARKER = "CSP violation:"
REPORT_VIOLATIONS = f"""
document.addEventListener("securitypolicyviolation", (event) => {{
    console.error("{CSP_MARKER} " + event.effectiveDirective + " blocked "
        + (event.blockedURI || "inline") + " at " + event.sourceFile + ":" + event.lineNumber);
}});
"""
CHROMIUM_CSP_TEXT = re.compile(r"Content Security Policy|^Refused to ")


def browser_required() -> bool:
    return os.environ.get("RATUMRAD_REQUIRE_BROWSER", "").strip().lower() in {"1", "true", "yes"}


@pytest.fixture(autouse=True)
def _live_server_helper():
    """Replaces pytest-django's helper, which sets up the test database for every test that
    uses a fixture named live_server: this one's server has a database of its own."""
    yield


@pytest.fixture(scope="session")
def live_server():
    with (
        server_database() as database_url,
        tempfile.TemporaryDirectory(prefix="ratumrad-e2e-") as log_dir,
        Server(database_url, log_dir, env=SERVER_ENV) as server,
    ):
        yield server


@pytest.fixture(autouse=True)
def _server_log_start(request):
    """Where the server's log stood when the test began (see pytest_runtest_makereport)."""
    if "live_server" in request.fixturenames:
        request.node.server_log_start = len(request.getfixturevalue("live_server").log())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing browser test's report carries what the server logged while it ran."""
    report = yield
    funcargs = getattr(item, "funcargs", {})
    server = funcargs.get("live_server")
    if report.failed and isinstance(server, Server):
        logged = server.log()[getattr(item, "server_log_start", 0) :]
        report.sections.append(("server log", logged[-SERVER_LOG_CHARS:] or "(nothing)"))
    if report.failed:
        # The pages of ``new_page``, or of a fixture that keeps its own factory as ``pages``.
        for value in funcargs.values():
            pages = value if isinstance(value, PageFactory) else getattr(value, "pages", None)
            if isinstance(pages, PageFactory):
                report.sections.append(("the pages' sockets", pages.socket_log()))
    return report


@pytest.fixture(scope="session")
def playwright_driver() -> Playwright:
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} not found (install Debian's chromium package)"
        if browser_required():
            pytest.fail(f"{reason} and RATUMRAD_REQUIRE_BROWSER is set", pytrace=False)
        pytest.skip(reason)
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright_driver: Playwright) -> Browser:
    browser = playwright_driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@dataclass
class Watch:
    """What went wrong in one page."""

    violations: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    # What the page's sockets sent (">") and received ("<"), the last SOCKET_FRAMES.
    frames: deque[str] = field(default_factory=lambda: deque(maxlen=SOCKET_FRAMES))

    def on_socket(self, socket: WebSocket) -> None:
        path = socket.url.split("/", 3)[-1]

        def note(direction: str, payload: str | bytes) -> None:
            text = payload if isinstance(payload, str) else repr(payload)
            self.frames.append(f"{direction} /{path} {text[:FRAME_CHARS]}")

        socket.on("framesent", lambda payload: note(">", payload))
        socket.on("framereceived", lambda payload: note("<", payload))
        socket.on("close", lambda _: self.frames.append(f"closed /{path}"))

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        text = message.text
        self.console_errors.append(text)
        if text.startswith(CSP_MARKER) or CHROMIUM_CSP_TEXT.search(text):
            self.violations.append(text)


class PageFactory:
    def __init__(self, browser: Browser, base_url: str):
        self.browser = browser
        self.base_url = base_url
        self.watches: dict[int, tuple[Page, Watch]] = {}
        self.guests: dict[int, dict] = {}

    def __call__(
        self,
        name: str | None = None,
        lang: str = "de",
        width: int = 1280,
        height: int = 800,
        touch: bool = False,
        timezone: str | None = None,
    ) -> Page:
        context = self.browser.new_context(
            base_url=self.base_url,
            locale=lang,
            viewport={"width": width, "height": height},
            has_touch=touch,
            timezone_id=timezone,
        )
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        context.add_init_script(REPORT_VIOLATIONS)
        page = context.new_page()
        watch = Watch()
        page.on("console", watch.on_console)
        page.on("pageerror", lambda error: watch.page_errors.append(str(error)))
        page.on("websocket", watch.on_socket)
        self.watches[id(page)] = (page, watch)
        if name is not None:
            self.guests[id(page)] = login_as_guest(page, name)
            watch.console_errors.clear()  # a taken name's 400, logged before any page of the site
        return page

    def watch(self, page: Page) -> Watch:
        return self.watches[id(page)][1]

    def guest(self, page: Page) -> dict:
        return self.guests[id(page)]

    def problems(self) -> list[str]:
        found = []
        for page, watch in self.watches.values():
            found += [f"{page.url}: CSP violation: {text}" for text in watch.violations]
            found += [f"{page.url}: uncaught error: {text}" for text in watch.page_errors]
        return found

    def socket_log(self) -> str:
        """Each page's last socket frames, for a failing test's report."""
        parts = []
        for page, watch in self.watches.values():
            parts.append(f"{page.url}:\n" + ("\n".join(watch.frames) or "(no frame)"))
        return "\n\n".join(parts) or "(no page)"

    def close(self) -> None:
        for page, _ in self.watches.values():
            page.context.close()


def login_as_guest(page: Page, name: str) -> dict:
    """Become a new guest the way the site's scripts do, so that the session cookie lands in
    the page's context: ``GET /api/auth/me/`` sets the csrftoken cookie the POST must echo.

    The server lives for the whole session: when an earlier test took ``name``, the guest is
    called "name 2", "name 3"... Returns the answer: ``{"token", "user": {"id", "name"}}``.
    """
    page.goto("/api/auth/me/")
    for candidate in itertools.chain([name], (f"{name} {n}" for n in itertools.count(2))):
        answer = page.evaluate(
            """async (name) => {
                const token = document.cookie.match(/(?:^|; )csrftoken=([^;]*)/)[1];
                const response = await fetch("/api/auth/guest/", {
                    method: "POST",
                    headers: {"Content-Type": "application/json", "X-CSRFToken": token},
                    body: JSON.stringify({name}),
                });
                return {status: response.status, body: await response.json()};
            }""",
            candidate,
        )
        if answer["status"] != 400 or answer["body"].get("code") != "name_taken":
            break
    assert answer["status"] == 201, answer
    return answer["body"]


@pytest.fixture
def new_page(browser: Browser, live_server: Server):
    factory = PageFactory(browser, live_server.base_url)
    yield factory
    problems = factory.problems()
    factory.close()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def save_screenshot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=path, full_page=True)
    return path


@pytest.fixture
def screenshot():
    return save_screenshot
