"""Rat um Rad's rules page: German by default, English on request, every rule id, tricky rules
drawn, the card legend."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.urls import reverse
from django.utils import translation

from games.ratumrad.board import CARD_COLORS
from games.views import color_letters, color_names
from tests.csp_helpers import assert_page_keeps_policy

pytestmark = pytest.mark.django_db

RULE_IDS = re.findall(
    r"^- (R\d+\.\d+) ", (Path(settings.BASE_DIR) / "docs" / "rules.md").read_text(), re.M
)
# The tricky rules the pictures explain: R5 drawing and face-up jokers, R6 building and
# double roads, R3.3 the longest path, R3.2 destination cards.
PICTURES = {
    "draw",
    "face-up-joker",
    "three-jokers",
    "build",
    "double",
    "longest-path",
    "destinations",
}


def rules_page(client, language: str | None = None) -> str:
    if language:
        client.cookies["django_language"] = language
    response = client.get(reverse("rules-kind", kwargs={"kind": "ratumrad"}))
    assert response.status_code == 200
    assert_page_keeps_policy(response)
    return response.content.decode()


def images(html: str) -> dict[str, str]:
    """The rules pictures on the page: name -> alt text."""
    found = re.findall(r'<img src="/static/img/rules/([\w-]+)\.svg"[^>]*?alt="([^"]*)"', html, re.S)
    return dict(found)


def test_rat_um_rads_rules_are_public_at_rules_ratumrad():
    assert reverse("rules-kind", kwargs={"kind": "ratumrad"}) == "/rules/ratumrad/"


def test_the_rules_are_german_by_default(client):
    html = rules_page(client)
    assert '<html lang="de">' in html
    assert "Die Spielregeln von Rat um Rad" in html and "The rules of Rat um Rad" not in html


def test_the_rules_are_english_with_the_english_language_cookie(client):
    html = rules_page(client, "en")
    assert '<html lang="en">' in html
    assert "The rules of Rat um Rad" in html and "Die Spielregeln" not in html


def test_switching_the_language_switches_the_rules(client):
    client.post("/i18n/setlang/", {"language": "en", "next": "/rules/ratumrad/"})
    assert "The rules of Rat um Rad" in rules_page(client)
    client.post("/i18n/setlang/", {"language": "de", "next": "/rules/ratumrad/"})
    assert "Die Spielregeln von Rat um Rad" in rules_page(client)


@pytest.mark.parametrize("language", ["de", "en"])
def test_every_rule_has_its_own_anchored_entry(client, language):
    assert len(RULE_IDS) > 40
    html = rules_page(client, language)
    for rule in RULE_IDS:
        anchor = rule.lower().replace(".", "-")
        assert re.search(rf'<li id="{anchor}"><span class="rule-id">{rule}</span> \S', html), rule
    for section in range(1, 10):
        assert f'<section id="r{section}"' in html


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_tricky_rules_have_pictures_with_alt_texts(client, language):
    pictures = images(rules_page(client, language))
    assert set(pictures) == PICTURES
    assert all(len(alt) > 40 for alt in pictures.values())


def test_the_alt_texts_follow_the_language(client):
    german = images(rules_page(client, "de"))
    english = images(rules_page(client, "en"))
    assert "Joker" in german["face-up-joker"] and "joker" in english["face-up-joker"]
    assert all(german[name] != english[name] for name in PICTURES)


@pytest.mark.parametrize("name", sorted(PICTURES))
def test_each_picture_is_a_plain_svg_with_letters_on_its_colours(name):
    path = finders.find(f"img/rules/{name}.svg")
    assert path, name
    root = ElementTree.parse(path).getroot()
    svg = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{svg}svg" and root.get("viewBox")
    tags = {element.tag.removeprefix(svg) for element in root.iter()}
    assert not tags & {"script", "style", "foreignObject", "image"}
    assert not any(
        key.startswith("on") or key == "style" or value.startswith(("http:", "https:"))
        for element in root.iter()
        for key, value in element.attrib.items()
    )
    # Colour is never the only sign: cards and roads carry letters, players' roads names.
    texts = {element.text for element in root.iter(f"{svg}text")}
    assert texts & {"R", "B", "O", "P", "W", "J", "Lea", "Noah"}, name


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            {"green": ("G", "green"), "yellow": ("Y", "yellow"), "black": ("K", "black")},
        ),
        ("de", {"green": ("G", "grün"), "black": ("S", "schwarz")}),
    ],
)
def test_the_card_legend_names_every_colour_with_the_letter_the_table_shows(
    client, language, expected
):
    html = rules_page(client, language)
    legend = re.search(r'<ul class="card-legend">(.*?)</ul>', html, re.S).group(1)
    found = dict(
        (color, (letter, name))
        for color, letter, name in re.findall(
            r'<span class="swatch swatch-(\w+)" aria-hidden="true">(\w*)</span> ([^<]+?)</li>',
            legend,
        )
    )
    with translation.override(language):
        letters, names = color_letters(), color_names()
    for color in CARD_COLORS:
        assert found[color] == (letters[color], names[color]), color
    for color, pair in expected.items():
        assert found[color] == pair
    # Each letter stands for one colour only.
    assert len({letter for letter, _ in found.values()}) == len(found)
