"""Security headers on every answer; Secure cookies and HSTS only for a site behind HTTPS."""

import json
import os
import subprocess
import sys

import pytest

from tests.real_server import ROOT

PLAIN_HTTP = {"SESSION_COOKIE_SECURE": False, "CSRF_COOKIE_SECURE": False, "SECURE_HSTS_SECONDS": 0}
SHOWN = list(PLAIN_HTTP)


def settings_with(**env: str) -> dict:
    """The values of SHOWN when the settings are loaded with this environment."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DJANGO_DEBUG", "DJANGO_SECURE", "DJANGO_SECRET_KEY"}
    }
    code = (
        "import json; from ratumrad_site import settings as s;"
        f"print(json.dumps({{name: getattr(s, name) for name in {SHOWN!r}}}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environment | env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.django_db
def test_pages_forbid_framing_sniffing_and_cross_site_referrers(client):
    response = client.get("/api/docs/")
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]


def test_a_debug_site_keeps_plain_http_cookies_and_sends_no_hsts():
    assert settings_with(DJANGO_DEBUG="1") == PLAIN_HTTP


def test_a_production_site_marks_cookies_secure_and_sends_hsts():
    values = settings_with(DJANGO_DEBUG="0", DJANGO_SECRET_KEY="s3cret")
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["CSRF_COOKIE_SECURE"] is True
    assert values["SECURE_HSTS_SECONDS"] >= 180 * 24 * 3600


def test_django_secure_off_serves_a_production_site_over_plain_http():
    values = settings_with(DJANGO_DEBUG="0", DJANGO_SECRET_KEY="s3cret", DJANGO_SECURE="0")
    assert values == PLAIN_HTTP
