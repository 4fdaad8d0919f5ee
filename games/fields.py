"""Model fields of the games app."""

from __future__ import annotations

import json

import orjson
from django.db import models
from psycopg.types.json import Jsonb


def _dumps(value: object) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # an integer beyond 64 bits: the standard library writes it
        return json.dumps(value).encode()


class JSONField(models.JSONField):
    """Django's JSONField, written and read with orjson.

    A move writes the game's whole state and reads it back on the next one: the standard
    library's encoder was a twentieth of a server's time on the move path. What is stored is
    the same JSON (without the optional spaces); integers beyond 64 bits, which orjson does
    not handle, go through the standard library as before.
    """

    def get_db_prep_value(self, value, connection, prepared=False):
        if self.encoder is not None:
            return super().get_db_prep_value(value, connection, prepared)
        if not prepared:
            value = self.get_prep_value(value)
        if connection.vendor == "postgresql":
            return Jsonb(value, dumps=_dumps)
        return _dumps(value).decode()

    def from_db_value(self, value, expression, connection):
        if self.decoder is None and isinstance(value, str):
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError:
                pass
        return super().from_db_value(value, expression, connection)
