"""The project skeleton: settings from the environment, pages, health, channel layer, API."""

import asyncio
import os
from pathlib import Path

import pytest
from channels.layers import get_channel_layer
from django.db import connection

from ratumrad_site import settings as site_settings


def test_database_url_selects_postgresql():
    config = site_settings.database_config("postgres://alice@db.example:5433/ratumrad", Path("/x"))
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["USER"], config["HOST"], config["PORT"], config["NAME"]) == (
        "alice",
        "db.example",
        5433,
        "ratumrad",
    )


def test_no_database_url_selects_sqlite_with_immediate_transactions_and_a_busy_timeout():
    config = site_settings.database_config("", Path("/srv/ratumrad"))
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == Path("/srv/ratumrad/db.sqlite3")
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert config["OPTIONS"]["timeout"] > 0


def test_a_sqlite_database_url_gets_the_same_locking_options():
    config = site_settings.database_config("sqlite:////srv/ratumrad/game.sqlite3", Path("/x"))
    assert config["NAME"] == "/srv/ratumrad/game.sqlite3"
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]


def test_redis_url_selects_the_redis_channel_layer():
    layers = site_settings.channel_layers_config("redis://127.0.0.1:6379/0", "staging")
    backend = "games.channel_layer.LocalFirstPubSubChannelLayer"
    assert layers["default"]["BACKEND"] == backend
    assert layers["default"]["CONFIG"]["hosts"] == [{"address": "redis://127.0.0.1:6379/0"}]
    assert layers["default"]["CONFIG"]["prefix"] == "staging"


def test_no_redis_url_selects_the_in_memory_channel_layer():
    layers = site_settings.channel_layers_config("")
    backend = "games.memory_layer.SweepingInMemoryChannelLayer"
    assert layers["default"]["BACKEND"] == backend


@pytest.mark.parametrize(
    ("raw", "expected"), [("1", True), ("TRUE", True), (" on ", True), ("0", False), ("no", False)]
)
def test_env_bool_reads_common_spellings(monkeypatch, raw, expected):
    monkeypatch.setenv("RATUMRAD_FLAG", raw)
    assert site_settings.env_bool("RATUMRAD_FLAG", not expected) is expected


def test_env_bool_falls_back_to_the_default_when_unset_or_empty(monkeypatch):
    monkeypatch.delenv("RATUMRAD_FLAG", raising=False)
    assert site_settings.env_bool("RATUMRAD_FLAG", True) is True
    monkeypatch.setenv("RATUMRAD_FLAG", "")
    assert site_settings.env_bool("RATUMRAD_FLAG", False) is False


def test_env_bool_rejects_anything_else(monkeypatch):
    monkeypatch.setenv("RATUMRAD_FLAG", "maybe")
    with pytest.raises(site_settings.ImproperlyConfigured):
        site_settings.env_bool("RATUMRAD_FLAG", True)


def test_env_list_splits_on_commas_and_drops_blanks(monkeypatch):
    monkeypatch.setenv("RATUMRAD_HOSTS", " example.org, ,www.example.org ")
    assert site_settings.env_list("RATUMRAD_HOSTS", ["x"]) == ["example.org", "www.example.org"]
    monkeypatch.delenv("RATUMRAD_HOSTS")
    assert site_settings.env_list("RATUMRAD_HOSTS", ["x"]) == ["x"]


def test_home_page_is_german_by_default(client):
    response = client.get("/")
    html = response.content.decode()
    assert response.status_code == 200
    assert '<html lang="de">' in html
    assert "Rat um Rad" in html
    # Language names come from Django's own catalogs, so they prove the German locale is active.
    assert "Englisch" in html


def test_home_page_is_english_when_the_browser_asks_for_it(client):
    response = client.get("/", headers={"accept-language": "en"})
    html = response.content.decode()
    assert response.status_code == 200
    assert '<html lang="en">' in html
    assert "Rat um Rad" in html
    assert "English" in html
    assert "Englisch" not in html


def test_language_switch_posts_to_set_language(client):
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    assert '<html lang="en">' in client.get("/").content.decode()


def _vendor_for(database_url: str) -> str:
    return "postgresql" if database_url.startswith(("postgres:", "postgresql:")) else "sqlite"


@pytest.mark.django_db
def test_healthz_reports_the_database_in_use(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": connection.vendor}
    assert connection.vendor == _vendor_for(os.environ.get("DATABASE_URL", ""))


async def test_channel_layer_round_trip():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "test.message", "text": "Grüezi"})
    message = await asyncio.wait_for(layer.receive(channel), timeout=5)
    assert message == {"type": "test.message", "text": "Grüezi"}


def test_channel_layer_matches_redis_url(settings):
    redis = bool(os.environ.get("REDIS_URL"))
    expected = "LocalFirstPubSubChannelLayer" if redis else "InMemoryChannelLayer"
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"].endswith(expected)


def test_api_schema_is_an_openapi_document(client):
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert "/api/maps/basel/" in schema["paths"]


def test_api_docs_page_needs_no_cdn(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    assert "cdn" not in response.content.decode().lower()


def test_basel_map_api_returns_locations_roads_and_destinations(client):
    response = client.get("/api/maps/basel/")
    assert response.status_code == 200
    assert {"locations", "roads", "destinations"} <= response.json().keys()
