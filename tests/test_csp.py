"""Every page carries the Content-Security-Policy and needs nothing that it forbids.

The pages are found in the URL resolver: every named URL without parameters, fetched as an
anonymous visitor, as a guest and as a staff user; each HTML answer must keep to the policy
(tests/csp_helpers.py). Pages added later are checked without touching this file; pages
with parameters (a game, a player) are checked by their own tests with the same helper.
"""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils.regex_helper import normalize

from games.services.lifecycle import game_create, game_join, game_start
from lobby.models import Guest
from tests.csp_helpers import assert_page_keeps_policy, html_problems, policy_problems

pytestmark = pytest.mark.django_db


def parameterless_urls(patterns=None, prefix: str = "", namespace: str = "") -> dict[str, str]:
    """``{path: name}`` for every named URL pattern that takes no parameters."""
    found = {}
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route, parameters = normalize(pattern.pattern.regex.pattern)[0]
        if parameters:
            continue
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            found |= parameterless_urls(pattern.url_patterns, prefix + route, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            found.setdefault("/" + prefix + route, f"{namespace}{pattern.name}")
    return found


@pytest.fixture
def users():
    alice = Guest.objects.create_guest(name="alice").user
    alice.is_staff = alice.is_superuser = True
    alice.save()
    bob = Guest.objects.create_guest(name="bob").user
    charlie = Guest.objects.create_guest(name="charlie").user
    game = game_create(user=bob, name="Rheinufer", max_players=2)
    game_join(game_id=game.pk, user=charlie)
    game_start(game_id=game.pk, user=bob)
    return {"anonymous": None, "guest": bob, "staff": alice}


def fetch_pages(client, user, urls) -> dict[str, object]:
    """``{path: response}`` for the pages among ``urls`` that answer 200 with HTML."""
    pages = {}
    for path in urls:
        client.logout()
        if user is not None:
            client.force_login(user)  # again for each URL: a logout page may have logged out
        response = client.get(path)
        assert not policy_problems(response), (
            path,
            response.status_code,
            policy_problems(response),
        )
        if response.status_code == 200 and response["Content-Type"].startswith("text/html"):
            pages[path] = response
    return pages


# The pages that exist for sure; the resolver finds all the others.
KNOWN_PAGES = {
    "anonymous": {"/", "/rankings/", "/rules/", "/admin/login/", "/api/docs/"},
    "guest": {"/", "/rankings/", "/rules/", "/api/docs/"},
    "staff": {"/", "/rankings/", "/admin/", "/admin/games/game/", "/api/docs/"},
}


@pytest.mark.parametrize("persona", ["anonymous", "guest", "staff"])
def test_every_page_without_parameters_keeps_to_the_policy(client, users, persona):
    pages = fetch_pages(client, users[persona], sorted(parameterless_urls()))
    assert KNOWN_PAGES[persona] <= pages.keys()
    problems = [
        f"{path}: {problem}"
        for path, response in pages.items()
        for problem in policy_problems(response) + html_problems(response)
    ]
    assert not problems, "\n".join(problems)


def test_the_discovery_finds_named_pages_and_skips_urls_with_parameters():
    names = parameterless_urls()
    assert names["/"] == "home"
    assert names["/admin/"] == "admin:index"
    assert names["/api/docs/"] == "api-docs"
    assert "game-detail" not in names.values()
    assert "admin:app_list" not in names.values()


def test_every_admin_change_page_keeps_to_the_policy(client, users):
    client.force_login(users["staff"])
    checked = 0
    for model in admin.site._registry:
        obj = model._default_manager.first()
        if obj is None:
            continue
        meta = model._meta
        url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
        response = client.get(url)
        assert response.status_code == 200, url
        assert_page_keeps_policy(response)
        checked += 1
    assert checked >= 3  # at least games, users and guests have rows here


def test_a_page_that_does_not_exist_keeps_to_the_policy(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert not policy_problems(response)
    assert not html_problems(response)


def test_the_api_docs_page_allows_exactly_its_own_inline_style(client):
    response = client.get("/api/docs/")
    style_src = response["Content-Security-Policy"].split("style-src")[1].split(";")[0].split()
    hashes = [source for source in style_src if source.startswith("'sha256-")]
    assert len(hashes) == 1
    assert_page_keeps_policy(response)
    # The front page gets no such exception.
    assert "sha256-" not in client.get("/")["Content-Security-Policy"]


def test_the_checker_finds_what_the_policy_would_block(client):
    response = client.get("/")
    response.content = (
        b'<p style="color: red" onclick="go()">x</p><script>alert(1)</script>'
        b'<style>p {}</style><script type="application/json">{"ok": 1}</script>'
        b'<a href="javascript:go()">y</a><script src="https://cdn.example/x.js"></script>'
        b'<img src="data:image/png;base64,AA=="><img src="https://cdn.example/i.png">'
    )
    problems = "\n".join(html_problems(response))
    for expected in (
        "style attribute",
        "inline event handler",
        "inline <script> code: 'alert(1)'",
        "<style> block",
        "javascript: URL",
        "script from another site",
        "image from another site",
    ):
        assert expected in problems
    assert "application/json" not in problems
    assert problems.count("image") == 1
