"""Swagger UI at /api/docs/ under the site's Content-Security-Policy.

drf-spectacular's split view loads Swagger UI's start script from a URL of its own instead of
inlining it. Its template still has one inline ``<style>`` block: this page's policy allows
exactly that block, by its hash.
"""

import base64
import hashlib
import re
from functools import cache

from django.template.loader import get_template
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework.request import Request
from rest_framework.response import Response


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
