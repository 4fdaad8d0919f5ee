"""Settings from the environment: a bad number or an unreadable secret names its variable."""

import importlib.util
import math

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.real_server import ROOT

NUMERIC = [
    "DATABASE_CONN_MAX_AGE",
    "PRESENCE_BEAT_SECONDS",
    "PRESENCE_GRACE_SECONDS",
    "SOCKETS_PER_USER",
    "SOCKETS_PER_ADDRESS",
    "GAMES_WAITING_PER_USER",
    "BOT_DELAY_SECONDS",
    "TURN_SECONDS_PUBLIC",
    "TURN_SWEEP_SECONDS",
    "NUM_PROXIES",
]


@pytest.fixture
def load_settings(monkeypatch):
    """Run a fresh copy of ratumrad_site/settings.py under the given environment."""
    for name in [*NUMERIC, "DJANGO_SECRET_KEY", "DJANGO_SECRET_KEY_FILE", "DJANGO_DEBUG"]:
        monkeypatch.delenv(name, raising=False)

    def load(**env: str):
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        spec = importlib.util.spec_from_file_location(
            "settings_under_test", ROOT / "ratumrad_site" / "settings.py"
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


def test_the_defaults_load(load_settings):
    settings = load_settings()
    assert settings.PRESENCE_BEAT.total_seconds() == 30
    assert settings.PRESENCE_GRACE.total_seconds() == 5
    assert settings.SOCKETS_PER_USER == 20
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 0


def test_good_numbers_are_read(load_settings):
    settings = load_settings(
        PRESENCE_BEAT_SECONDS="2.5",
        PRESENCE_GRACE_SECONDS="0",
        NUM_PROXIES="1",
        TURN_SECONDS_PUBLIC="0",
        BOT_DELAY_SECONDS="0",
    )
    assert settings.PRESENCE_BEAT.total_seconds() == 2.5
    assert settings.PRESENCE_GRACE.total_seconds() == 0
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 1
    assert settings.TURN_SECONDS_PUBLIC == 0
    assert settings.BOT_DELAY == 0


@pytest.mark.parametrize("name", NUMERIC)
def test_a_value_that_is_no_number_names_its_variable(load_settings, name):
    with pytest.raises(ImproperlyConfigured, match=rf"^{name} must be .*, got 'many'$"):
        load_settings(**{name: "many"})


@pytest.mark.parametrize("name", NUMERIC)
def test_a_value_below_its_bound_names_its_variable_and_the_bound(load_settings, name):
    with pytest.raises(ImproperlyConfigured, match=rf"^{name} must be at least [\d.]+, got '-1'$"):
        load_settings(**{name: "-1"})


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("PRESENCE_BEAT_SECONDS", "0", "at least 0.1"),
        ("PRESENCE_BEAT_SECONDS", "nan", "a finite number"),
        ("PRESENCE_BEAT_SECONDS", "inf", "a finite number"),
        ("PRESENCE_BEAT_SECONDS", "120", "at most 60"),
        ("PRESENCE_GRACE_SECONDS", "-1", "at least 0"),
        ("PRESENCE_GRACE_SECONDS", "61", "at most 60"),
        ("TURN_SWEEP_SECONDS", "nan", "a finite number"),
        ("BOT_DELAY_SECONDS", "-inf", "a finite number"),
        ("SOCKETS_PER_USER", "2.5", "a whole number"),
        ("NUM_PROXIES", "100", "at most 10"),
        ("TURN_SECONDS_PUBLIC", "5", "0 or at least 10"),
        ("TURN_SECONDS_PUBLIC", "7200", "at most 3600"),
    ],
)
def test_a_value_out_of_bounds_names_its_variable(load_settings, name, raw, message):
    with pytest.raises(ImproperlyConfigured) as error:
        load_settings(**{name: raw})
    assert str(error.value).startswith(f"{name} must be ")
    assert message in str(error.value)


def test_the_secret_key_is_read_from_its_file_stripped(load_settings, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("  a-long-random-secret-from-a-file\n")
    settings = load_settings(DJANGO_DEBUG="false", DJANGO_SECRET_KEY_FILE=str(secret))
    assert settings.SECRET_KEY == "a-long-random-secret-from-a-file"


def test_an_unreadable_secret_key_file_names_its_variable(load_settings, tmp_path):
    with pytest.raises(ImproperlyConfigured, match=r"^DJANGO_SECRET_KEY_FILE: cannot read"):
        load_settings(DJANGO_SECRET_KEY_FILE=str(tmp_path / "missing"))


def test_the_secret_key_and_its_file_together_are_refused(load_settings, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("from-the-file")
    with pytest.raises(ImproperlyConfigured, match="DJANGO_SECRET_KEY or DJANGO_SECRET_KEY_FILE"):
        load_settings(DJANGO_SECRET_KEY="from-env", DJANGO_SECRET_KEY_FILE=str(secret))


def test_an_empty_secret_key_file_counts_as_no_key_without_debug(load_settings, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("\n")
    with pytest.raises(ImproperlyConfigured, match="must be set when DJANGO_DEBUG is off"):
        load_settings(DJANGO_DEBUG="false", DJANGO_SECRET_KEY_FILE=str(secret))


def test_env_float_refuses_not_a_number_even_without_bounds(monkeypatch):
    from ratumrad_site.settings import env_float

    monkeypatch.setenv("RATUMRAD_NUMBER", "nan")
    with pytest.raises(ImproperlyConfigured, match="RATUMRAD_NUMBER must be a finite number"):
        env_float("RATUMRAD_NUMBER", 1.0)
    monkeypatch.setenv("RATUMRAD_NUMBER", "1e3")
    assert math.isclose(env_float("RATUMRAD_NUMBER", 1.0), 1000)
