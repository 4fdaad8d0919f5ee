"""Daphne serves /static/ through WhiteNoise: from the source folders in development, and from
STATIC_ROOT with hashed, compressed names after ``collectstatic`` (DJANGO_STATIC_MANIFEST)."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
import urllib.request

import pytest

from tests.real_server import ROOT, Server, server_database

SITE_CSS = ROOT / "static" / "css" / "site.css"
# Straight to 127.0.0.1, whatever proxy the environment names.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    with DIRECT.open(request, timeout=10) as response:
        return response.status, dict(response.headers), response.read()


@pytest.fixture(scope="module")
def database_url():
    with server_database() as url:
        yield url


def test_daphne_serves_the_stylesheet_without_collectstatic(database_url, tmp_path):
    with Server(database_url, tmp_path) as server:
        status, headers, body = fetch(server.base_url + "/static/css/site.css")
    assert status == 200
    assert headers["Content-Type"].startswith("text/css")
    assert body == SITE_CSS.read_bytes()


def test_with_the_manifest_pages_link_hashed_files_that_are_cached_for_good(database_url, tmp_path):
    production = {
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "test-only-secret",
        "DJANGO_STATIC_MANIFEST": "1",
        "DJANGO_STATIC_ROOT": str(tmp_path / "collected"),
    }
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v", "0"],
        cwd=ROOT,
        env=os.environ | production,
        check=True,
        timeout=120,
    )
    with Server(database_url, tmp_path, env=production) as server:
        _, _, page = fetch(server.base_url + "/")
        hashed = re.search(rb'href="(/static/css/site\.[0-9a-f]{12}\.css)"', page)
        assert hashed, page[:2000]
        status, headers, body = fetch(
            server.base_url + hashed.group(1).decode(), **{"Accept-Encoding": "gzip"}
        )
    assert status == 200
    assert headers["Content-Type"].startswith("text/css")
    assert headers["Content-Encoding"] == "gzip"
    assert "immutable" in headers["Cache-Control"]
    name = hashed.group(1).decode().removeprefix("/static/")
    assert gzip.decompress(body) == (tmp_path / "collected" / name).read_bytes()
