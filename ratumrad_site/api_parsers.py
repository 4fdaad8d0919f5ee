"""The API's body parser: DRF's JSON parser, refusing bodies nested too deeply to decode."""

from __future__ import annotations

from django.utils.translation import gettext
from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """``1,000 nested [`` overflow the decoder's recursion: a ``bad_json`` 400, not a 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            message = gettext("JSON parse error - the body is nested too deeply")
            raise ParseError(message) from None
