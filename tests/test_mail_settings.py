"""Mail configuration from the environment: EMAIL_URL (dj-email-url), SITE_URL, the tasks."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests import test_settings

load_settings = test_settings.load_settings  # the fixture: a fresh settings module
MAIL_ENV = ["EMAIL_URL", "EMAIL_URL_FILE", "SITE_URL", "DEFAULT_FROM_EMAIL", "TASKS_IMMEDIATE"]


@pytest.fixture(autouse=True)
def clean_mail_env(monkeypatch):
    for name in MAIL_ENV:
        monkeypatch.delenv(name, raising=False)


def test_without_email_url_mails_go_to_the_console_and_tasks_to_the_database(load_settings):
    settings = load_settings()
    assert settings.EMAIL_BACKEND == "django.core.mail.backends.console.EmailBackend"
    assert settings.TASKS["default"]["BACKEND"] == "django_tasks_db.DatabaseBackend"
    assert settings.SITE_URL == "http://127.0.0.1:8000"


def test_a_submission_url_sets_host_port_login_and_starttls(load_settings):
    settings = load_settings(
        EMAIL_URL="submission://mailer%40ratumrad.example:s3cret@smtp.example:587",
        DEFAULT_FROM_EMAIL="Rat um Rad <noreply@ratumrad.example>",
        SITE_URL="https://ratumrad.example/",
    )
    assert settings.EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend"
    assert (settings.EMAIL_HOST, settings.EMAIL_PORT) == ("smtp.example", 587)
    assert settings.EMAIL_HOST_USER == "mailer@ratumrad.example"
    assert settings.EMAIL_HOST_PASSWORD == "s3cret"
    assert settings.EMAIL_USE_TLS and not settings.EMAIL_USE_SSL
    assert settings.EMAIL_TIMEOUT == 20
    assert settings.DEFAULT_FROM_EMAIL == "Rat um Rad <noreply@ratumrad.example>"
    assert settings.SITE_URL == "https://ratumrad.example"


def test_the_email_url_may_come_from_a_file(load_settings, tmp_path):
    secret = tmp_path / "email_url"
    secret.write_text("smtp://u:p@smtp.example:465/?ssl=True\n")
    settings = load_settings(EMAIL_URL_FILE=str(secret))
    assert settings.EMAIL_USE_SSL and settings.EMAIL_PORT == 465


def test_an_unknown_mail_scheme_is_refused_by_name(load_settings):
    with pytest.raises(ImproperlyConfigured, match="EMAIL_URL: unknown scheme 'smtp\\+tls'"):
        load_settings(EMAIL_URL="smtp+tls://smtp.example")


def test_a_site_url_without_http_is_refused(load_settings):
    with pytest.raises(ImproperlyConfigured, match="SITE_URL must start with http"):
        load_settings(SITE_URL="ratumrad.example")


def test_tasks_immediate_runs_tasks_without_a_worker(load_settings):
    settings = load_settings(TASKS_IMMEDIATE="1")
    assert settings.TASKS["default"]["BACKEND"].endswith("ImmediateBackend")
