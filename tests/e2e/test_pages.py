"""What a newcomer sees: the front page with every game, the rules' index and each kind's
rules, the game pages' own rules link, and a language that stays; in German and English, on a
laptop (1366x768) and a phone (375x812), with no sideways scrolling and nothing overlapping."""

from __future__ import annotations

import itertools
import re
import time

import pytest
from django.utils import translation
from playwright.sync_api import Page, expect

from games import registry
from tests.e2e.helpers import call, switch_language

pytestmark = pytest.mark.page(1)

SIZES = [(1366, 768), (375, 812)]
LANGUAGES = ["de", "en"]
PLAYERS = {
    "de": {
        "ratumrad": "2 bis 5 Personen",
        "rage": "3 bis 8 Personen",
        "road300": "solo: für eine Person",
    },
    "en": {"ratumrad": "2 to 5 players", "rage": "3 to 8 players", "road300": "solo: one player"},
}
PLAY = {"de": "{} spielen", "en": "Play {}"}
RULES_OF = {"de": "Regeln von {}", "en": "Rules of {}"}
RULES_TITLE = {"de": re.compile(r"^Die (Spiel)?[Rr]egeln"), "en": re.compile(r"^The rules of")}
NAV_RULES = {"de": "Regeln", "en": "Rules"}
YEAR = 365 * 24 * 3600


def summary(key: str, language: str) -> str:
    with translation.override(language):
        return str(registry.get(key).summary)


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def overlap(a: dict, b: dict) -> bool:
    return (
        min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"]) > 0.5
        and min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"]) > 0.5
    )


def assert_apart(boxes: dict[str, dict]) -> None:
    for (one, a), (other, b) in itertools.combinations(boxes.items(), 2):
        assert not overlap(a, b), f"{one} overlaps {other}: {a} {b}"


def assert_in_view_sideways(box: dict, width: int, what: str) -> None:
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, f"{what}: {box}"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_front_page_shows_every_game_with_picture_players_and_a_play_button(
    new_page, screenshot, language, width, height
):
    page = new_page(lang=language, width=width, height=height)
    page.goto("/")
    cards = page.locator(".kind-card")
    expect(cards).to_have_count(len(registry.KINDS))
    boxes = {}
    for key, kind in registry.KINDS.items():
        card = page.locator(f'.kind-card[data-kind="{key}"]')
        with translation.override(language):
            name = str(kind.name)
        parts = {
            "title": card.locator(".kind-title"),
            "line": card.locator(".kind-line"),
            "players": card.locator(".kind-players"),
            "play": card.get_by_role("button", name=PLAY[language].format(name)),
            "picture": card.locator("img.kind-picture"),
        }
        expect(parts["title"]).to_have_text(name)
        expect(parts["line"]).to_have_text(summary(key, language))
        expect(parts["players"]).to_contain_text(PLAYERS[language][key])
        for part in parts.values():
            expect(part).to_be_visible()
        assert parts["picture"].evaluate("(image) => image.complete && image.naturalWidth > 0")
        card_box = card.bounding_box()
        assert_in_view_sideways(card_box, width, key)
        inner = {what: part.bounding_box() for what, part in parts.items()}
        assert_apart(inner)
        for what, box in inner.items():
            assert_in_view_sideways(box, width, f"{key} {what}")
            assert box["x"] >= card_box["x"] - 0.5, f"{key} {what} leaves its card"
            assert box["x"] + box["width"] <= card_box["x"] + card_box["width"] + 0.5
        boxes[key] = card_box
    boxes["name form"] = page.locator(".home-play").bounding_box()
    boxes["account"] = page.locator(".home-account").bounding_box()
    assert_apart(boxes)
    no_sideways_scroll(page)
    screenshot(page, f"home-{language}-{width}x{height}")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_games_play_button_takes_the_new_player_to_the_lobby_with_that_game_chosen(
    new_page, width, height
):
    page = new_page(lang="en", width=width, height=height)
    page.goto("/")
    name = f"dora {time.monotonic_ns() % 1_000_000}"  # a name nobody has taken
    page.get_by_role("textbox", name="Your name").fill(name)
    with page.expect_navigation():
        page.get_by_role("button", name="Play RAGE").click()
    assert page.url.endswith("/?kind=rage#new-game")
    expect(page.locator('#new-game-form input[name=kind][value="rage"]')).to_be_checked()
    expect(page.locator('.kind-options[data-kind="rage"]')).to_be_visible()
    expect(page.locator('.kind-options[data-kind="ratumrad"]')).to_be_hidden()
    heading = page.locator("#new-game-heading").bounding_box()
    assert 0 <= heading["y"] < height, "the new game's form is scrolled into view"
    no_sideways_scroll(page)


def test_an_empty_name_keeps_the_chosen_game_on_the_button(new_page):
    page = new_page(lang="de", width=375, height=812)
    page.goto("/")
    with page.expect_navigation():
        page.get_by_role("button", name="Road to 300 spielen").click()
    expect(page.locator("#id_name_error")).to_be_visible()
    expect(page.locator("#play-form button[type=submit]")).to_have_text("Road to 300 spielen")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_rules_index_lists_every_game_and_leads_to_its_rules(
    new_page, screenshot, language, width, height
):
    page = new_page(lang=language, width=width, height=height)
    page.goto("/")
    with page.expect_navigation():
        page.locator(".site-nav").get_by_role("link", name=NAV_RULES[language]).click()
    assert page.url.endswith("/rules/")
    cards = page.locator(".kind-card")
    expect(cards).to_have_count(len(registry.KINDS))
    boxes = {}
    for key, kind in registry.KINDS.items():
        with translation.override(language):
            name = str(kind.name)
        card = page.locator(f'.kind-card[data-kind="{key}"]')
        expect(card.locator(".kind-title")).to_have_text(name)
        expect(card.locator(".kind-line")).to_have_text(summary(key, language))
        expect(card.get_by_role("link", name=RULES_OF[language].format(name))).to_be_visible()
        boxes[key] = card.bounding_box()
        assert_in_view_sideways(boxes[key], width, key)
    assert_apart(boxes)
    no_sideways_scroll(page)
    screenshot(page, f"rules-index-{language}-{width}x{height}")
    with page.expect_navigation():
        page.get_by_role("link", name=RULES_OF[language].format("RAGE")).click()
    assert page.url.endswith("/rules/rage/")
    expect(page.locator("h1")).to_contain_text(RULES_TITLE[language])


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("key", list(registry.KINDS))
def test_each_kinds_rules_page_fits_the_screen(new_page, screenshot, key, language, width, height):
    page = new_page(lang=language, width=width, height=height)
    page.goto(f"/rules/{key}/")
    expect(page.locator("h1")).to_contain_text(RULES_TITLE[language])
    page.wait_for_load_state("networkidle")
    no_sideways_scroll(page)
    screenshot(page, f"rules-{key}-{language}-{width}x{height}")


@pytest.mark.parametrize(
    ("language", "letters"),
    [
        ("en", {"green": "G", "yellow": "Y", "black": "K", "red": "R", "white": "W"}),
        ("de", {"grün": "G", "schwarz": "S", "rot": "R", "weiss": "W"}),
    ],
)
def test_rat_um_rads_card_legend_shows_every_colour_with_its_letter(new_page, language, letters):
    page = new_page(lang=language, width=375, height=812)
    page.goto("/rules/ratumrad/")
    legend = page.locator(".card-legend li")
    expect(legend).to_have_count(10)  # eight colours, the joker, the grey road
    for name, letter in letters.items():
        entry = legend.filter(has_text=name).first
        expect(entry.locator(".swatch")).to_have_text(letter)
        expect(entry).to_be_visible()


def game_page(page: Page, kind: str) -> None:
    body = {"kind": kind, "name": "Tisch", "options": {}}
    if kind == "rage":
        body |= {"max_players": 3, "bots": 2, "turn_seconds": 0}
    answer = call(page, "POST", "/api/games/", body)
    assert answer["status"] == 201, answer
    game_id = answer["body"]["id"]
    if kind == "rage":
        assert call(page, "POST", f"/api/games/{game_id}/start/")["status"] == 200
    page.goto(f"/games/{game_id}/")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize(("kind", "name"), [("rage", "RAGE"), ("road300", "Road to 300")])
def test_a_game_page_links_the_rules_of_its_own_game(
    new_page, screenshot, kind, name, language, width, height
):
    page = new_page("Pia", lang=language, width=width, height=height)
    game_page(page, kind)
    link = page.locator(".game-head").get_by_role("link", name=RULES_OF[language].format(name))
    expect(link).to_be_visible()
    box = link.bounding_box()
    assert_in_view_sideways(box, width, "the rules link")
    assert box["y"] < height, "the rules link is in the first screen"
    assert_apart({"link": box, "title": page.locator(".game-head h1").bounding_box()})
    page.wait_for_load_state("networkidle")
    no_sideways_scroll(page)
    screenshot(page, f"game-{kind}-{language}-{width}x{height}")
    with page.expect_popup() as opened:
        link.click()
    rules = opened.value
    rules.wait_for_load_state()
    assert rules.url.endswith(f"/rules/{kind}/")
    expect(rules.locator("h1")).to_contain_text(name)
    expect(page.locator(".game-head h1")).to_have_text("Tisch")  # the game stays open


def test_a_players_language_follows_them_into_another_browser(new_page, live_server):
    laptop = new_page("Lou", lang="de", width=1366, height=768)
    name = new_page.guest(laptop)["user"]["name"]
    laptop.goto("/")
    switch_language(laptop, "en")
    expect(laptop.locator("html")).to_have_attribute("lang", "en")
    cookie = next(c for c in laptop.context.cookies() if c["name"] == "django_language")
    assert cookie["value"] == "en"
    assert abs(cookie["expires"] - time.time() - YEAR) < 3600, "the choice lasts a year"
    # Lou keeps the name with a password, then signs in on a phone that speaks German.
    laptop.goto("/keep-name/")
    password = "Velo-im-Regen-42"
    laptop.locator("input[name=new_password1]").fill(password)
    laptop.locator("input[name=new_password2]").fill(password)
    with laptop.expect_navigation():
        laptop.locator("form:has(input[name=new_password1]) button[type=submit]").click()

    phone = new_page(lang="de", width=375, height=812)
    phone.goto("/login/")
    expect(phone.locator("html")).to_have_attribute("lang", "de")
    phone.locator("input[name=username]").fill(name)
    phone.locator("input[name=password]").fill(password)
    with phone.expect_navigation():
        phone.locator("form:has(input[name=password]) button[type=submit]").click()
    expect(phone.locator("html")).to_have_attribute("lang", "en")
    expect(phone.locator("h2#new-game-heading")).to_have_text("New game")
    cookie = next(c for c in phone.context.cookies() if c["name"] == "django_language")
    assert cookie["value"] == "en" and cookie["expires"] - time.time() > YEAR - 3600
    phone.reload()
    expect(phone.locator("html")).to_have_attribute("lang", "en")
