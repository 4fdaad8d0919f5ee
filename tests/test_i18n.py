"""German and English: the catalog is complete and pages follow the chosen language."""

import re
from pathlib import Path

from django.conf import settings

CATALOG = Path(settings.BASE_DIR) / "locale" / "de" / "LC_MESSAGES" / "django.po"


def catalog_entries():
    text = CATALOG.read_text(encoding="utf-8")
    for block in text.split("\n\n")[1:]:
        match = re.search(r'^msgid ((?:".*"\n?)+)msgstr ((?:".*"\n?)+)', block, re.M)
        if match:
            msgid, msgstr = ("".join(re.findall(r'"(.*)"', part)) for part in match.groups())
            yield msgid, msgstr, "#, fuzzy" in block


def test_every_german_text_is_translated_and_none_is_fuzzy():
    entries = list(catalog_entries())
    assert entries
    assert [msgid for msgid, msgstr, fuzzy in entries if not msgstr or fuzzy] == []


def test_the_compiled_catalog_holds_the_german_texts():
    compiled = CATALOG.with_suffix(".mo")
    assert compiled.stat().st_size > 0
    assert compiled.read_bytes().count(b"Willkommen bei Rat um Rad") == 1


def test_home_page_speaks_german_by_default(client):
    html = client.get("/").content.decode()
    assert "Willkommen bei Rat um Rad" in html and "Welcome to" not in html


def test_home_page_speaks_english_after_switching(client):
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    html = client.get("/").content.decode()
    assert '<html lang="en">' in html and "Welcome to Rat um Rad" in html
