"""Refusals in words: DRF's validation errors as the protocol's one-line messages."""

from __future__ import annotations


def problems(detail: object, field: str = "") -> list[str]:
    """Each field's first problem, named by the field: ``["max_players: Ensure ..."]``."""
    if isinstance(detail, dict):
        found = []
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else str(key)
            found += problems(value, f"{field}.{name}" if field and name else field or name)
        return found
    if isinstance(detail, list):
        for item in detail:
            if found := problems(item, field):
                return found
        return []
    return [f"{field}: {detail}" if field else str(detail)]
