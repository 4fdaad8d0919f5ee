"""Does a page keep to the site's Content-Security-Policy? Checks for test-client responses.

``policy_problems(response)`` compares the ``Content-Security-Policy`` header with ``POLICY``
and ``html_problems(response)`` reads the HTML (``html.parser``) for anything that policy
would block in the browser: inline script code (``json_script`` blocks are data, not code),
``on*=`` event handler attributes, ``style=`` attributes, ``<style>`` blocks, ``javascript:``
URLs, and scripts, stylesheets or images from other sites. An inline block passes only when
its hash is in the response's own policy (the Swagger page's one ``<style>``).
``assert_page_keeps_policy(response)`` does both; tests of pages with parameters (a game,
a player) call it for their pages.
"""

from __future__ import annotations

import base64
import hashlib
import json
from html.parser import HTMLParser
from urllib.parse import urlsplit

from django.http import HttpResponse

POLICY = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'"},
    "img-src": {"'self'", "data:"},
    "connect-src": {"'self'"},
    "font-src": {"'self'"},
    "object-src": {"'none'"},
    "base-uri": {"'self'"},
    "form-action": {"'self'"},
    "frame-ancestors": {"'none'"},
}
# The only sources a single page may add to POLICY: hashes of its own inline blocks.
HASHED_DIRECTIVES = {"script-src", "style-src"}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href"}


def parse_policy(header: str) -> dict[str, set[str]]:
    directives = {}
    for part in header.split(";"):
        if not part.strip():
            continue
        name, *sources = part.split()
        directives[name.lower()] = set(sources)
    return directives


def sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def policy_problems(response: HttpResponse) -> list[str]:
    header = response.headers.get("Content-Security-Policy")
    if not header:
        return ["no Content-Security-Policy header"]
    policy = parse_policy(header)
    problems = []
    for name in sorted(POLICY.keys() | policy.keys()):
        sources = policy.get(name, set())
        if name in HASHED_DIRECTIVES:
            sources = {source for source in sources if not source.startswith("'sha256-")}
        if sources != POLICY.get(name, set()):
            problems.append(f"{name}: {' '.join(sorted(policy.get(name, ()))) or '(missing)'}")
    return problems


def _is_external(url: str, *, data_allowed: bool = False) -> bool:
    parts = urlsplit(url.strip())
    if data_allowed and parts.scheme == "data":
        return False
    return bool(parts.scheme or parts.netloc)


class _PolicyReader(HTMLParser):
    def __init__(self, policy: dict[str, set[str]]):
        super().__init__(convert_charrefs=True)
        self.policy = policy
        self.problems: list[str] = []
        self._block: tuple[str, dict[str, str | None], int] | None = None
        self._text: list[str] = []

    def _problem(self, text: str) -> None:
        self.problems.append(f"line {self.getpos()[0]}: {text}")

    def handle_starttag(self, tag: str, attr_list: list[tuple[str, str | None]]) -> None:
        attrs = dict(attr_list)
        for name, value in attrs.items():
            if name.startswith("on"):
                self._problem(f"<{tag} {name}=...>: inline event handler")
            elif name == "style":
                self._problem(f"<{tag} style=...>: style attribute")
            elif name in URL_ATTRIBUTES and (value or "").strip().lower().startswith("javascript:"):
                self._problem(f"<{tag} {name}={value!r}>: javascript: URL")
        src = attrs.get("src")
        if tag == "script" and src is not None and _is_external(src):
            self._problem(f"<script src={src!r}>: script from another site")
        if tag == "img" and src is not None and _is_external(src, data_allowed=True):
            self._problem(f"<img src={src!r}>: image from another site")
        rel = (attrs.get("rel") or "").lower().split()
        href = attrs.get("href")
        if tag == "link" and "stylesheet" in rel and href is not None and _is_external(href):
            self._problem(f"<link href={href!r}>: stylesheet from another site")
        if tag == "style" or (tag == "script" and src is None):
            self._block, self._text = (tag, attrs, self.getpos()[0]), []

    def handle_data(self, data: str) -> None:
        if self._block is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._block is None or self._block[0] != tag:
            return
        _, attrs, line = self._block
        self._block = None
        text = "".join(self._text)
        directive = "style-src" if tag == "style" else "script-src"
        if sha256_source(text) in self.policy.get(directive, set()):
            return
        if tag == "script" and (attrs.get("type") or "").lower() == "application/json":
            try:
                json.loads(text)
            except ValueError:
                self.problems.append(f"line {line}: <script type=application/json> is not JSON")
            return
        kind = "<style> block" if tag == "style" else "inline <script> code"
        self.problems.append(f"line {line}: {kind}: {text.strip()[:60]!r}")


def html_problems(response: HttpResponse) -> list[str]:
    policy = parse_policy(response.headers.get("Content-Security-Policy", ""))
    reader = _PolicyReader(policy)
    reader.feed(response.content.decode(response.charset or "utf-8"))
    reader.close()
    return reader.problems


def assert_page_keeps_policy(response: HttpResponse) -> None:
    problems = policy_problems(response) + html_problems(response)
    assert not problems, f"{response.request['PATH_INFO']}:\n  " + "\n  ".join(problems)
