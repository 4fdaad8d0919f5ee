"""The account page's mail section as a person sees it, in German and English, on a laptop and
a phone: no address yet, then the address waiting for its confirmation, then confirmed by the
mailed link, and the two toggles saved."""

from __future__ import annotations

import secrets

import pytest
from playwright.sync_api import Page, expect

from notifications import tokens
from tests.conftest import PASSWORD
from tests.e2e.helpers import call
from tests.e2e.pagecheck import assert_page_sound

pytestmark = pytest.mark.page(1)

TEXTS = {
    "en": {
        "account": "Account",
        "none": "No address yet: you get no mails.",
        "add": "Add the address",
        "waiting": "not confirmed yet",
        "resend": "Send the link again",
        "confirmed_heading": "Address confirmed",
        "confirmed": "confirmed",
        "your_turn": "A mail when it is my turn",
        "game_ended": "A mail with the results when a game ends",
        "save": "Save",
        "saved": "Your mail settings are saved.",
        "settings": "Your mail settings",
    },
    "de": {
        "account": "Konto",
        "none": "Noch keine Adresse: Du erhältst keine E-Mails.",
        "add": "Adresse hinzufügen",
        "waiting": "noch nicht bestätigt",
        "resend": "Link nochmals senden",
        "confirmed_heading": "Adresse bestätigt",
        "confirmed": "bestätigt",
        "your_turn": "Eine E-Mail, wenn ich am Zug bin",
        "game_ended": "Eine E-Mail mit den Ergebnissen, wenn ein Spiel endet",
        "save": "Speichern",
        "saved": "Deine E-Mail-Einstellungen sind gespeichert.",
        "settings": "Deine E-Mail-Einstellungen",
    },
}


def register(page: Page) -> str:
    name = f"Velo{secrets.token_hex(3)}"
    page.goto("/register/")
    page.fill("#id_username", name)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    with page.expect_navigation():
        page.locator("main form button[type=submit]").click()
    expect(page.locator("header .site-user-name")).to_have_text(name)
    return name


@pytest.mark.parametrize(
    ("lang", "width", "height"),
    [("en", 1366, 768), ("de", 375, 812), ("de", 1366, 768), ("en", 375, 812)],
)
def test_a_person_adds_an_address_sees_it_confirmed_and_chooses_their_mails(
    new_page, screenshot, lang, width, height
):
    text = TEXTS[lang]
    page = new_page(lang=lang, width=width, height=height)
    watch = new_page.watch(page)
    register(page)
    size = f"{lang}-{width}x{height}"

    page.locator("header").get_by_role("link", name=text["account"]).click()
    section = page.locator("section.mail-settings")
    expect(section).to_contain_text(text["none"])
    assert_page_sound(page, "no address yet", watch)
    screenshot(page, f"account-mail-empty-{size}")

    email = f"velo-{secrets.token_hex(3)}@example.org"
    section.get_by_label("E-Mail-Adresse" if lang == "de" else "Email address").fill(email)
    with page.expect_navigation():
        section.get_by_role("button", name=text["add"]).click()
    expect(section.locator(".mail-address-value")).to_have_text(email)
    expect(section.locator(".badge-waiting")).to_have_text(text["waiting"])
    expect(section.get_by_role("button", name=text["resend"])).to_be_visible()
    for label in (text["your_turn"], text["game_ended"]):
        expect(section.get_by_label(label)).to_be_checked()
    assert_page_sound(page, "address waiting", watch)
    screenshot(page, f"account-mail-waiting-{size}")

    # The link of the confirmation mail (the server and the tests share the signing key).
    user_id = call(page, "GET", "/api/auth/me/")["body"]["user"]["id"]
    page.goto(f"/mail/confirm/{tokens.confirm_token(user_id, email)}/")
    expect(page.get_by_role("heading", name=text["confirmed_heading"])).to_be_visible()
    assert_page_sound(page, "confirmed page", watch)
    page.get_by_role("link", name=text["settings"]).click()

    expect(section.locator(".badge-confirmed")).to_have_text(text["confirmed"])
    expect(section.get_by_role("button", name=text["resend"])).to_have_count(0)
    section.get_by_label(text["your_turn"]).uncheck()
    with page.expect_navigation():
        section.get_by_role("button", name=text["save"]).click()
    expect(page.locator(".messages")).to_contain_text(text["saved"])
    page.reload()
    expect(section.get_by_label(text["your_turn"])).not_to_be_checked()
    expect(section.get_by_label(text["game_ended"])).to_be_checked()
    expect(section.locator(".mail-address-value")).to_have_text(email)
    assert_page_sound(page, "confirmed, your-turn mails off", watch)
    screenshot(page, f"account-mail-confirmed-{size}")
