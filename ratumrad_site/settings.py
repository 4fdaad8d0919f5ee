"""Settings for Rat um Rad online; every deployment-specific value comes from the environment.

With nothing set you get a development site: DEBUG on, SQLite and the in-memory channel layer.
DATABASE_URL and REDIS_URL switch to PostgreSQL and the Redis channel layer.
"""

import math
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
import dj_email_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, "").strip() or default


def env_bool(name: str, default: bool) -> bool:
    raw = env_str(name).lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of {sorted(_TRUE | _FALSE)}, got {raw!r}")


def _env_number(name, default, parse, kind, min, max):
    raw = env_str(name)
    if not raw:
        return default
    try:
        value = parse(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {kind}, got {raw!r}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ImproperlyConfigured(f"{name} must be a finite number, got {raw!r}")
    if min is not None and value < min:
        raise ImproperlyConfigured(f"{name} must be at least {min}, got {raw!r}")
    if max is not None and value > max:
        raise ImproperlyConfigured(f"{name} must be at most {max}, got {raw!r}")
    return value


def env_int(name: str, default: int, *, min: int | None = None, max: int | None = None) -> int:
    """A whole number within [min, max]; unset or empty gives `default`."""
    return _env_number(name, default, int, "a whole number", min, max)


def env_float(
    name: str, default: float, *, min: float | None = None, max: float | None = None
) -> float:
    """A finite number within [min, max]; unset or empty gives `default`."""
    return _env_number(name, default, float, "a number", min, max)


def env_secret(name: str) -> str:
    """`name` itself, or the contents of the file named by `name`_FILE (stripped)."""
    file_name = f"{name}_FILE"
    path = env_str(file_name)
    if not path:
        return env_str(name)
    if env_str(name):
        raise ImproperlyConfigured(f"set {name} or {file_name}, not both")
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise ImproperlyConfigured(f"{file_name}: cannot read {path!r}: {error}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; unset or empty gives `default`."""
    raw = env_str(name)
    if not raw:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


# SQLite cannot lock rows: take the write lock when a transaction starts, and wait for a
# busy database instead of failing at once. Write-ahead logging lets readers go on while
# one connection writes, and a commit needs no full sync of the database file.
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}

# PostgreSQL: parameters bound by the server, and a statement run twice on a connection is
# prepared, so every move's few statements are parsed and planned once per connection
# (bench/move_bench.py: a third less CPU in the database). A pooler in transaction mode in
# front of PostgreSQL would need "prepare_threshold": None (docs/deploy.md).
POSTGRES_OPTIONS = {"server_side_binding": True, "prepare_threshold": 2}


def database_config(url: str, base_dir: Path) -> dict[str, Any]:
    config = (
        dj_database_url.parse(url)
        if url
        else {"ENGINE": "django.db.backends.sqlite3", "NAME": base_dir / "db.sqlite3"}
    )
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config["OPTIONS"] = {**SQLITE_OPTIONS, **config.get("OPTIONS", {})}
    if config["ENGINE"] == "django.db.backends.postgresql":
        config["OPTIONS"] = {**POSTGRES_OPTIONS, **config.get("OPTIONS", {})}
    # Seconds a worker thread keeps its connection (0: a new one for every request or socket
    # message, Django's default). Servers under load want some: connecting costs more than
    # most queries.
    config["CONN_MAX_AGE"] = env_int("DATABASE_CONN_MAX_AGE", 0, min=0)
    return config


def channel_layers_config(redis_url: str, prefix: str = "ratumrad") -> dict[str, Any]:
    if redis_url:
        return {
            "default": {
                # Redis pub/sub pushes each message to the processes that hold its channel
                # or group: one PUBLISH per group_send, and no per-message polling (the
                # older RedisChannelLayer's single BZPOPMIN loop per process capped delivery
                # at a few dozen messages a second under load). Its subscriptions live in
                # the processes and are renewed on reconnect, so a restarted Redis loses
                # only the messages in flight; clients notice by ``seq`` and resync. This
                # process's own members of a group get its messages without Redis.
                "BACKEND": "games.channel_layer.LocalFirstPubSubChannelLayer",
                "CONFIG": {
                    "hosts": [{"address": redis_url}],
                    # Sites sharing one Redis must not hear each other's groups.
                    "prefix": prefix,
                },
            }
        }
    # One process: channels' in-memory layer, without its clean-up on every message.
    return {"default": {"BACKEND": "games.memory_layer.SweepingInMemoryChannelLayer"}}


DEBUG = env_bool("DJANGO_DEBUG", True)

SECRET_KEY = env_secret("DJANGO_SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY or DJANGO_SECRET_KEY_FILE must be set when DJANGO_DEBUG is off"
        )
    SECRET_KEY = "django-insecure-development-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",  # first, so that runserver serves ASGI
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks",
    "django_tasks_db",
    "games",
    "lobby",
    "rankings",
    "notifications",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # /static/, also under daphne
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "lobby.language.AccountLanguageMiddleware",  # a signed-in player's own language
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "ratumrad_site.urls"
WSGI_APPLICATION = "ratumrad_site.wsgi.application"
ASGI_APPLICATION = "ratumrad_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context.my_turns",
            ],
        },
    },
]

DATABASES = {"default": database_config(env_str("DATABASE_URL"), BASE_DIR)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CHANNEL_LAYERS = channel_layers_config(env_str("REDIS_URL"), env_str("REDIS_PREFIX", "ratumrad"))

# The cache holds the rate limits' counters: in Redis when there is one, so that every
# server process counts the same attempts; else in each process's memory. While Redis is
# unreachable each process counts in its own memory (ratumrad_site/cache.py).
CACHES = {
    "default": (
        {
            "BACKEND": "ratumrad_site.cache.ResilientRedisCache",
            "LOCATION": env_str("REDIS_URL"),
            "KEY_PREFIX": env_str("REDIS_PREFIX", "ratumrad") + "-cache",
        }
        if env_str("REDIS_URL")
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# Presence: an open socket refreshes its Connection row every PRESENCE_BEAT; a row not
# refreshed for PRESENCE_TTL belongs to a socket of a server that died, and is ignored.
# A game socket also catches up on each beat with any change whose update was lost.
# A beat must come well within the TTL, or open sockets would count as gone.
PRESENCE_BEAT = timedelta(seconds=env_float("PRESENCE_BEAT_SECONDS", 30, min=0.1, max=60))
PRESENCE_TTL = timedelta(seconds=90)
# A socket that closes counts PRESENCE_GRACE longer: a player who goes from one page to the
# next (a finished game to the new one, the lobby to a table, a reload) is neither gone nor
# back for the game's other players and the lobby. 0: gone at once.
PRESENCE_GRACE = timedelta(seconds=env_float("PRESENCE_GRACE_SECONDS", 5, min=0, max=60))

# Open websockets per user and per client address (0: no limit); a further one is closed
# with 4429. Games a user created that wait for players (0: no limit).
SOCKETS_PER_USER = env_int("SOCKETS_PER_USER", 20, min=0)
SOCKETS_PER_ADDRESS = env_int("SOCKETS_PER_ADDRESS", 100, min=0)
GAMES_WAITING_PER_USER = env_int("GAMES_WAITING_PER_USER", 5, min=0)
# HTTP requests a server process runs at once, each on a thread with its database connection
# (ratumrad_site.http_threads); the others wait their turn.
HTTP_THREADS = env_int("HTTP_THREADS", 8, min=1, max=64)
# Frames a websocket's client may send a second, a second's worth at once, and the clients of
# one address together on a server process (0: no limit); a socket over either is read more
# slowly (ratumrad_site.ws_inflow), not refused.
SOCKET_FRAMES_PER_SECOND = env_int("SOCKET_FRAMES_PER_SECOND", 50, min=0)
ADDRESS_FRAMES_PER_SECOND = env_int("ADDRESS_FRAMES_PER_SECOND", 500, min=0)
# Moves and reads a second from one user's, and one address's, sockets on a server process
# together (games.limits.SHARED_RATES), besides each socket's own limits.
SHARED_SOCKET_RATES = env_bool("SHARED_SOCKET_RATES", True)

# Seconds a computer player waits before its move (0: it moves at once, in the committing
# call; the tests' setting).
BOT_DELAY = env_float("BOT_DELAY_SECONDS", 0.8, min=0, max=60)

# The turn timer (games/turns.py): a person's seconds per turn in public games unless the
# creator chooses (private games have none by default). Every server process looks for
# turns run out, and for computer players stalled since BOT_STALL, every TURN_SWEEP_SECONDS
# (0: never; the tests call games.sweeper.sweep themselves).
# 0 (no limit) or what a game may choose (games.services.lifecycle.TURN_SECONDS_RANGE).
TURN_SECONDS_PUBLIC = env_int("TURN_SECONDS_PUBLIC", 90, min=0, max=3600)
if 0 < TURN_SECONDS_PUBLIC < 10:
    raise ImproperlyConfigured(
        f"TURN_SECONDS_PUBLIC must be 0 or at least 10, got {TURN_SECONDS_PUBLIC}"
    )
TURN_SWEEP_SECONDS = env_float("TURN_SWEEP_SECONDS", 2, min=0, max=3600)
BOT_STALL = timedelta(seconds=10)

# Moves of different games run side by side in worker threads (PostgreSQL only; see
# games.moves.paths.parallel_moves).
PARALLEL_MOVES = env_bool("PARALLEL_MOVES", True)
# With parallel moves, a move's two statements go from the event loop itself, through a
# small pool of async connections per process (games.moves.on_loop); off: from a worker thread.
MOVES_ON_EVENT_LOOP = env_bool("MOVES_ON_EVENT_LOOP", True)


def email_config(url: str) -> dict[str, Any]:
    """Django's EMAIL_* settings from one URL (dj-email-url): ``console://`` (the default),
    ``smtp://host:25``, ``submission://user:password@host`` (STARTTLS on 587),
    ``smtp://user:password@host:465/?ssl=True`` (TLS from the start)."""
    try:
        config = dj_email_url.parse(url)
    except (ValueError, KeyError) as error:
        raise ImproperlyConfigured(f"EMAIL_URL is not understood: {error}") from None
    if "EMAIL_BACKEND" not in config:
        raise ImproperlyConfigured(
            f"EMAIL_URL: unknown scheme {url.split(':', 1)[0]!r} (smtp, submission, smtps,"
            " console, file, memory, dummy)"
        )
    # A dead mail server must not hold a worker forever.
    config["EMAIL_TIMEOUT"] = config.get("EMAIL_TIMEOUT") or 20
    return {name: value for name, value in config.items() if value is not None}


# Mail (notifications/): how it leaves, and who sends it. Mails go out from background tasks.
_email = email_config(env_secret("EMAIL_URL") or "console://")
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_HOST = _email.get("EMAIL_HOST", "localhost")
EMAIL_PORT = _email.get("EMAIL_PORT", 25)
EMAIL_HOST_USER = _email.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = _email.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _email.get("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = _email.get("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = _email["EMAIL_TIMEOUT"]
if _email.get("EMAIL_FILE_PATH"):
    EMAIL_FILE_PATH = _email["EMAIL_FILE_PATH"]
DEFAULT_FROM_EMAIL = env_str(
    "DEFAULT_FROM_EMAIL", _email.get("DEFAULT_FROM_EMAIL", "Rat um Rad <noreply@localhost>")
)
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# The site's address as people reach it: links in mails are absolute (no trailing slash).
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
if not SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(f"SITE_URL must start with http:// or https://, got {SITE_URL!r}")

# Background tasks (Django's Tasks framework, the django-tasks backport): in the database,
# run by `manage.py db_worker` beside the site (dev.py run, dev.py cluster; docs/deploy.md).
# A queued task survives a restart. TASKS_IMMEDIATE runs each task at once, in the
# enqueuing process (no worker needed; the tests' choice).
TASKS = {
    "default": {
        "BACKEND": "django_tasks.backends.immediate.ImmediateBackend"
        if env_bool("TASKS_IMMEDIATE", False)
        else "django_tasks_db.DatabaseBackend",
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "de"
LANGUAGES = [("de", _("German")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The language chosen in a browser lasts a year there; a signed-in player's choice is kept
# on their account too (lobby.language).
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
USE_I18N = True
TIME_ZONE = "Europe/Zurich"
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# WhiteNoise serves /static/. By default straight from the app and project folders (no
# collectstatic needed); with DJANGO_STATIC_MANIFEST from STATIC_ROOT, as collected by
# `manage.py collectstatic`: compressed, with content hashes in the names, cached forever.
STATIC_MANIFEST = env_bool("DJANGO_STATIC_MANIFEST", False)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not STATIC_MANIFEST
WHITENOISE_AUTOREFRESH = DEBUG and not STATIC_MANIFEST

# Content-Security-Policy (django-csp): scripts, styles and everything else from this site
# only; no inline code, no style attributes. 'self' covers ws:/wss: to the same host.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# Security headers. DJANGO_SECURE (default: on when DEBUG is off) marks the cookies Secure
# and sends HSTS: only for a site served over HTTPS.
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE = env_bool("DJANGO_SECURE", not DEBUG)
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
LANGUAGE_COOKIE_SECURE = SECURE
SECURE_HSTS_SECONDS = 365 * 24 * 3600 if SECURE else 0

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Browsers use the session cookie, scripts and bots "Authorization: Token <key>". Token
    # first, so that a missing login is a 401 with "WWW-Authenticate: Token", not a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "ratumrad_site.tokens.TokenAuthentication",  # DRF's, with a raw read of the token
        "rest_framework.authentication.SessionAuthentication",
    ],
    # JSON only: no browsable API (the docs are at /api/docs/), and a cross-site HTML form
    # cannot produce a body the API accepts.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["ratumrad_site.api_parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    # Errors as {"code", "message"} (docs/protocol.md).
    "EXCEPTION_HANDLER": "ratumrad_site.api_errors.api_exception_handler",
    # Throttles keep their counts in the default cache: per process unless CACHES is shared.
    "DEFAULT_THROTTLE_RATES": {
        "guest": env_str("GUEST_RATE", "30/min"),
        # Password attempts per (name, address), and per address whatever the name.
        "login": env_str("LOGIN_RATE", "10/min"),
        "login_address": env_str("LOGIN_ADDRESS_RATE", "30/min"),
        # New games per user (all ways: the API, the lobby socket, the pages).
        "game": env_str("GAME_RATE", "20/min"),
        # Hints per user, and per address whatever the user: each runs the kind's strong bot,
        # about a tenth of a second of a server's CPU (Road to 300).
        "hint": env_str("HINT_RATE", "20/min"),
        "hint_address": env_str("HINT_ADDRESS_RATE", "60/min"),
    },
    # Reverse proxies in front of the site: throttles trust that many X-Forwarded-For
    # entries and no more (0: the client's own address; a sent header changes nothing).
    "NUM_PROXIES": env_int("NUM_PROXIES", 0, min=0, max=10),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Rat um Rad online",
    "DESCRIPTION": "HTTP API of Rat um Rad online; the game socket is in docs/protocol.md.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
