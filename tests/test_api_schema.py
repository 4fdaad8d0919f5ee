"""The OpenAPI document: valid, complete, and true to what the endpoints really answer."""

from __future__ import annotations

import copy

import jsonschema
import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from ratumrad_site.api_docs import SCHEMAS_KEPT, SchemaView
from tests.test_api_games import create_game, finished_game, player, started_game

pytestmark = pytest.mark.django_db

ENDPOINTS = {
    ("/api/auth/guest/", "post"),
    ("/api/auth/me/", "get"),
    ("/api/games/", "get"),
    ("/api/games/", "post"),
    ("/api/games/{game_id}/", "get"),
    ("/api/games/{game_id}/join/", "post"),
    ("/api/games/{game_id}/start/", "post"),
    ("/api/games/{game_id}/log/", "get"),
    ("/api/maps/basel/", "get"),
    ("/api/rankings/", "get"),
}
WRITES = {(path, method) for path, method in ENDPOINTS if method == "post"}


@pytest.fixture(scope="module")
def schema(django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return response.json()


def operations(schema: dict):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def json_schema(node: object) -> object:
    """OpenAPI 3.0's ``nullable`` in JSON Schema terms."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: json_schema(value) for key, value in node.items()}
    if node.pop("nullable", False):
        if "type" in node:
            node["type"] = [node["type"], "null"]
            if "enum" in node:
                node["enum"] = [*node["enum"], None]
        else:
            node = {"anyOf": [node, {"type": "null"}]}
    return node


def check(schema: dict, path: str, method: str, response) -> None:
    """Validate a real response against the schema documented for its status."""
    documented = schema["paths"][path][method]["responses"]
    assert str(response.status_code) in documented, (path, method, response.status_code)
    body_schema = documented[str(response.status_code)]["content"]["application/json"]["schema"]
    document = json_schema({"components": copy.deepcopy(schema["components"])})
    document["allOf"] = [json_schema(body_schema)]
    jsonschema.Draft7Validator(document).validate(response.json())


def test_the_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yml"))


def test_every_endpoint_is_documented_with_a_tag(schema):
    found = {(path, method) for path, method, _ in operations(schema)}
    assert found >= ENDPOINTS
    assert all(operation.get("tags") for _, _, operation in operations(schema))


def test_every_write_documents_its_body_and_its_errors(schema):
    for path, method in WRITES:
        operation = schema["paths"][path][method]
        errors = {status for status in operation["responses"] if status.startswith("4")}
        assert errors >= {"400" if path.endswith("games/") else "403"}, path
        for status in errors:
            content = operation["responses"][status]["content"]["application/json"]
            assert content["schema"] == {"$ref": "#/components/schemas/Error"}, (path, status)
    assert "requestBody" in schema["paths"]["/api/games/"]["post"]
    assert "requestBody" in schema["paths"]["/api/auth/guest/"]["post"]


def test_writes_that_need_a_login_document_the_401(schema):
    for path, method in WRITES - {("/api/auth/guest/", "post")}:
        assert "401" in schema["paths"][path][method]["responses"], path


def test_the_token_scheme_is_documented(schema):
    token = schema["components"]["securitySchemes"]["tokenAuth"]
    assert (token["type"], token["in"], token["name"]) == ("apiKey", "header", "Authorization")
    create = schema["paths"]["/api/games/"]["post"]
    assert {"tokenAuth": []} in create["security"]


def test_real_answers_match_the_documented_schemas(schema):
    anonymous = APIClient()
    check(schema, "/api/auth/guest/", "post", anonymous.post("/api/auth/guest/", {"name": "Lea"}))
    check(schema, "/api/auth/me/", "get", anonymous.get("/api/auth/me/"))
    alice, bob, charlie = player("alice"), player("bob"), player("charlie")
    check(schema, "/api/auth/me/", "get", alice.api.get("/api/auth/me/"))
    waiting = create_game(alice.api, max_players=3)["id"]
    check(schema, "/api/games/{game_id}/join/", "post", bob.api.post(f"/api/games/{waiting}/join/"))
    for client in (alice.api, charlie.api):
        check(schema, "/api/games/{game_id}/", "get", client.get(f"/api/games/{waiting}/"))
    check(
        schema,
        "/api/games/{game_id}/start/",
        "post",
        alice.api.post(f"/api/games/{waiting}/start/"),
    )
    dealt = started_game(alice, bob)
    for client in (alice.api, charlie.api, anonymous):
        check(schema, "/api/games/{game_id}/", "get", client.get(f"/api/games/{dealt}/"))
    over = finished_game(alice, bob)
    for client in (alice.api, anonymous):
        check(schema, "/api/games/{game_id}/", "get", client.get(f"/api/games/{over}/"))
    check(schema, "/api/games/{game_id}/log/", "get", anonymous.get(f"/api/games/{over}/log/"))
    check(schema, "/api/games/", "get", anonymous.get("/api/games/"))
    check(schema, "/api/maps/basel/", "get", anonymous.get("/api/maps/basel/"))
    check(schema, "/api/rankings/", "get", anonymous.get("/api/rankings/"))
    body = {"name": "Rhein", "max_players": 2}
    check(schema, "/api/games/", "post", charlie.api.post("/api/games/", body))


@pytest.mark.parametrize(
    ("who", "method", "path", "documented", "status"),
    [
        ("anonymous", "post", "/api/games/", "/api/games/", 401),
        ("alice", "post", "/api/games/", "/api/games/", 400),
        ("anonymous", "get", "/api/games/?status=x", "/api/games/", 400),
        ("alice", "post", "/api/games/{id}/join/", "/api/games/{game_id}/join/", 409),
        ("bob", "post", "/api/games/{id}/start/", "/api/games/{game_id}/start/", 403),
        ("alice", "post", "/api/games/{id}/start/", "/api/games/{game_id}/start/", 409),
        ("anonymous", "get", "/api/games/{id}/log/", "/api/games/{game_id}/log/", 409),
        ("anonymous", "get", "/api/games/0/", "/api/games/{game_id}/", 404),
        ("anonymous", "post", "/api/auth/guest/", "/api/auth/guest/", 400),
    ],
)
def test_error_answers_match_the_documented_error_schema(
    schema, who, method, path, documented, status
):
    alice, bob = player("alice"), player("bob")
    game_id = create_game(alice.api)["id"]
    client = {"alice": alice.api, "bob": bob.api, "anonymous": APIClient()}[who]
    if who == "bob":
        bob.api.post(f"/api/games/{game_id}/join/")
    body = {"name": ""} if method == "post" else None
    response = getattr(client, method)(path.replace("{id}", str(game_id)), body)
    assert response.status_code == status
    check(schema, documented, method, response)


def test_the_schema_is_made_once_per_process_for_each_format_and_language(monkeypatch):
    """Made anew, the schema cost every request 40-60 ms of a server's CPU, and anyone may ask
    for it: now each format and language is made once, and the query's own ``lang`` and
    ``version`` (which anyone may vary) cannot make the store grow past its bound."""
    monkeypatch.setattr(SchemaView, "_made", {})
    made = []
    generate = SchemaGenerator.get_schema
    monkeypatch.setattr(
        SchemaGenerator, "get_schema", lambda self, **kw: made.append(1) or generate(self, **kw)
    )
    first = APIClient().get("/api/schema/", {"format": "json"})
    again = APIClient().get("/api/schema/", {"format": "json"})
    assert len(made) == 1 and first.content == again.content
    assert first["Content-Type"] == "application/vnd.oai.openapi+json"
    assert "filename=" in first["Content-Disposition"]
    assert first.json()["paths"]["/api/games/"]  # the whole schema, as made
    yaml = APIClient().get("/api/schema/")
    assert len(made) == 2 and yaml["Content-Type"] == "application/vnd.oai.openapi; charset=utf-8"
    assert yaml.content.startswith(b"openapi:")
    for number in range(3 * SCHEMAS_KEPT):
        APIClient().get("/api/schema/", {"format": "json", "version": str(number)})
    assert len(SchemaView._made) <= SCHEMAS_KEPT
