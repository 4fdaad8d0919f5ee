"""The API's schema at /api/schema/, and Swagger UI at /api/docs/ under the site's
Content-Security-Policy.

drf-spectacular makes the schema anew for every request: 40-60 ms of a server's CPU, for
anyone who asks (``SchemaView`` makes it once per process for each format and language).
Its split view loads Swagger UI's start script from a URL of its own instead of inlining it.
Its template still has one inline ``<style>`` block: this page's policy allows exactly that
block, by its hash.
"""

import base64
import hashlib
import re
from functools import cache

from django.http import HttpResponse
from django.template.loader import get_template
from django.utils import translation
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.request import Request
from rest_framework.response import Response

# Schemas kept per process: a format, a language, and the query's own ``lang`` and
# ``version`` (which anyone may vary, so the store is emptied when full).
SCHEMAS_KEPT = 16


def csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


@cache
def inline_style_hashes(template_name: str) -> tuple[str, ...]:
    source = get_template(template_name).template.source
    return tuple(csp_hash(css) for css in re.findall(r"<style>(.*?)</style>", source, re.S))


class SwaggerView(SpectacularSwaggerSplitView):
    @extend_schema(exclude=True)
    def get(self, request: Request, *args, **kwargs) -> Response:
        response = super().get(request, *args, **kwargs)
        # Read by django-csp's middleware: added to the site's style-src for this response.
        response._csp_update = {"style-src": list(inline_style_hashes(self.template_name))}
        return response


class SchemaView(SpectacularAPIView):
    """drf-spectacular's schema view, each schema made and rendered once per process. The
    schema changes only with the code, which a new process runs."""

    _made: dict[tuple, tuple[bytes, str, str]] = {}

    @extend_schema(exclude=True)  # as SERVE_INCLUDE_SCHEMA says
    def get(self, request: Request, *args, **kwargs) -> HttpResponse:
        key = (
            request.accepted_media_type,
            translation.get_language(),
            request.query_params.get("lang"),
            request.query_params.get("version"),
        )
        made = self._made.get(key)
        if made is None:
            response = super().get(request, *args, **kwargs)
            renderer = request.accepted_renderer
            context = {"request": request, "response": response, "view": self}
            body = renderer.render(response.data, request.accepted_media_type, context)
            content_type = request.accepted_media_type
            if renderer.charset:
                content_type = f"{content_type}; charset={renderer.charset}"
            made = (body, content_type, response["Content-Disposition"])
            if len(self._made) >= SCHEMAS_KEPT:
                self._made.clear()
            self._made[key] = made
        body, content_type, disposition = made
        headers = {"Content-Disposition": disposition}
        return HttpResponse(body, content_type=content_type, headers=headers)
