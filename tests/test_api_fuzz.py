"""schemathesis against the OpenAPI document: generated requests to every operation, valid and
invalid, sent by a guest (token), anonymously or with an unknown token. No answer is a server
error, and every answer is documented: its status, its content type and its body's schema.

The schema is read from the running app (``/api/schema/``) through its WSGI handler, so the
requests use the test database. Games in every phase exist, and the ``{game_id}`` and
``{user_id}`` of a request are often those of a real game or player.
"""

from __future__ import annotations

import itertools
import random

import pytest
import schemathesis
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, Phase, settings
from rest_framework.test import APIClient
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from games.models import Game
from games.moves import play
from games.serializers import LIST_MAX_OFFSET
from games.services.invitations import invitation_token
from games.services.lifecycle import game_create, game_join, game_start
from lobby.models import Guest
from ratumrad_site.wsgi import application

pytestmark = pytest.mark.django_db

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
EXAMPLES = 100  # per operation


# Generating the document reads no table: it can be loaded while the tests are collected.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)


@pytest.fixture
def world(db, settings, django_capture_on_commit_callbacks):
    """Games in every phase, each with something the guest may do, and the guest's token."""
    settings.BOT_DELAY = 0
    cache.clear()  # the guest throttle's counts
    # As Django's test client: the app must not close the connection holding the test's
    # transaction at the end of a request (PostgreSQL would lose the test's data).
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    host = Guest.objects.create_guest(name="Lea").user
    guest = Guest.objects.create_guest(name="Noah").user
    joinable = game_create(user=host, name="Wartesaal", max_players=3)
    startable = game_create(user=guest, name="Spalentor", max_players=3)
    game_join(game_id=startable.pk, user=host)
    dealt = game_create(user=host, name="Rheinufer", max_players=2)
    game_join(game_id=dealt.pk, user=guest)
    game_start(game_id=dealt.pk, user=host)
    over = game_create(user=host, name="Kleinbasel", max_players=2, bots=1)
    game_start(game_id=over.pk, user=host)
    with django_capture_on_commit_callbacks(execute=True):  # the bot votes after the commit
        play.move_apply(game_id=over.pk, user=host, move={"type": "VOTE_END", "end": True})
    over.refresh_from_db()
    assert over.status == Game.Status.FINISHED
    solo = game_create(user=guest, name="Solo", kind="road300")  # gives hints
    again = game_create(user=guest, name="Nochmal", max_players=2, bots=1)
    game_start(game_id=again.pk, user=guest)
    with django_capture_on_commit_callbacks(execute=True):  # finished: the guest may play again
        play.move_apply(game_id=again.pk, user=guest, move={"type": "VOTE_END", "end": True})
    private = game_create(user=guest, name="Hinterzimmer", max_players=3, private=True)
    invited = game_create(user=host, name="Stammtisch", max_players=5, private=True)
    world = {
        "token": guest.auth_token.key,
        "ids": {
            "game_id": [
                joinable.pk,
                startable.pk,
                dealt.pk,
                over.pk,
                solo.pk,
                again.pk,
                private.pk,
            ],
            "user_id": [*over.seats.values_list("user_id", flat=True), guest.pk],
            "token": [invitation_token(invited)],
        },
        "cases": itertools.count(),
        "statuses": set(),  # of the documented method (schemathesis also tries others)
    }
    yield world
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)
    cache.clear()
    # Real ids and the token let every operation succeed now and then.
    assert any(status < 300 for status in world["statuses"]), world["statuses"]


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_every_answer_of_the_api_is_documented_and_none_is_a_server_error(case, world):
    # The schema's own examples leave no room for @given: a generator seeded by the case's
    # number decides whether it names a real game or player, and who sends it: mostly the
    # guest, else nobody, now and then an unknown token.
    choose = random.Random(next(world["cases"]))
    for name, ids in world["ids"].items():
        if name in (case.path_parameters or {}) and choose.random() < 0.7:
            case.path_parameters[name] = choose.choice(ids)
    token = choose.choices([world["token"], None, "not-a-real-key"], weights=[6, 3, 1])[0]
    headers = {"Authorization": f"Token {token}"} if token else {}
    response = case.call(headers=headers)
    case.validate_response(response, checks=CHECKS, headers=headers)
    if case.method.upper() == case.operation.method.upper():
        world["statuses"].add(response.status_code)


# ---------------------------------------------------------------------------- what it found


def test_every_operation_that_reads_a_token_documents_the_401_of_an_unknown_one():
    for path, operations in schema.raw_schema["paths"].items():
        for method, operation in operations.items():
            if path != "/api/auth/guest/":  # needs no login and reads no token
                assert "401" in operation["responses"], (method, path)


def test_an_unknown_token_is_refused_on_public_reads_too():
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION="Token not-a-real-key")
    for path in ("/api/games/", "/api/maps/basel/", "/api/rankings/", "/api/rankings/ratings/"):
        response = api.get(path)
        assert (response.status_code, response.json()["code"]) == (401, "not_authenticated")


def test_a_post_to_a_path_that_is_no_endpoint_is_a_json_404_also_from_a_browser():
    browser = Client(enforce_csrf_checks=True)
    response = browser.post("/api/games/null/start/", HTTP_ORIGIN="http://localhost:8000")
    assert response.status_code == 404
    assert response.json() == {
        "code": "not_found",
        "message": "es gibt keinen API-Endpunkt /api/games/null/start/",  # the site's language
    }


def test_an_offset_beyond_any_list_is_a_bad_field():
    refused = APIClient().get("/api/games/", {"offset": 5619327068402811974713344})
    assert (refused.status_code, refused.json()["code"]) == (400, "bad_field")
    assert refused.json()["message"].startswith("offset: ")
    assert APIClient().get("/api/games/", {"offset": LIST_MAX_OFFSET}).json() == []
