from django.contrib import admin
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponseRedirect, JsonResponse
from django.templatetags.static import static
from django.urls import include, path, re_path

from games import registry
from games import views as game_views
from games.kinds import no_urls
from lobby import api as lobby_api
from lobby import language
from lobby import views as lobby_views
from rankings import api as rankings_api
from ratumrad_site.api_docs import SchemaView, SwaggerView
from ratumrad_site.api_errors import api_not_found


def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return JsonResponse({"status": "error", "database": connection.vendor}, status=503)
    return JsonResponse({"status": "ok", "database": connection.vendor})


def favicon(request: HttpRequest) -> HttpResponseRedirect:
    """Browsers ask for /favicon.ico on pages without a <link rel=icon> (the API's JSON)."""
    return HttpResponseRedirect(static("img/favicon.svg"))


def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness, for a load balancer: PostgreSQL (or SQLite) and Redis, each on its own.

    503 when either is unreachable. ``/healthz`` (liveness) asks the database only: a process
    keeps serving its own sockets while Redis is down, and restarting it would not help."""
    checks = {"database": "ok", "redis": "ok"}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        checks["database"] = "error"
    ping = getattr(cache, "ping", None)  # ratumrad_site.cache.ResilientRedisCache's
    if ping is None:
        checks["redis"] = "unused"  # no REDIS_URL: the cache and channel layer in memory
    elif not ping():
        checks["redis"] = "error"
    ready = "error" not in checks.values()
    return JsonResponse(
        {"status": "ok" if ready else "error", **checks}, status=200 if ready else 503
    )


def kind_urls(hook: str = "urls") -> list:
    """Every kind's own pages (its glue's ``urls``) or API views (``api_urls``)."""
    return [pattern for kind in registry.KINDS.values() for pattern in kind.hook(hook, no_urls)()]


api_urlpatterns = [
    path("", include("games.urls")),
    *kind_urls("api_urls"),
    path("auth/guest/", lobby_api.GuestView.as_view(), name="auth-guest"),
    path("auth/me/", lobby_api.MeView.as_view(), name="auth-me"),
    path("rankings/", rankings_api.RankingsView.as_view(), name="api-rankings"),
    path("rankings/ratings/", rankings_api.RatingsView.as_view(), name="api-ratings"),
    path("players/<int:user_id>/", rankings_api.PlayerView.as_view(), name="api-player"),
    path("schema/", SchemaView.as_view(), name="schema"),
    path("docs/", SwaggerView.as_view(url_name="schema"), name="api-docs"),
    # Anything else under api/ is a JSON 404. Only paths ending in "/" match, so that
    # APPEND_SLASH still redirects "api/games" to "api/games/".
    re_path(r"^(?:.+/)?$", api_not_found),
]

urlpatterns = [
    path("", include("lobby.urls")),
    path("games/", include("games.page_urls")),
    path("", include("rankings.urls")),
    path("", include("notifications.urls")),
    *kind_urls(),
    path("rules/", game_views.rules_index, name="rules"),
    path("rules/<slug:kind>/", game_views.rules_page, name="rules-kind"),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("favicon.ico", favicon, name="favicon"),
    path("i18n/setlang/", language.set_language, name="set_language"),
    path("admin/login/", lobby_views.admin_login, name="admin-login"),
    path("admin/", admin.site.urls),
    path("api/", include(api_urlpatterns)),
]
