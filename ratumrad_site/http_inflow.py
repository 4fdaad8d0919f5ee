"""An HTTP request's body is read as daphne uses it, and no larger than the site takes.

Twisted's request parsed every ``POST`` body sent as a form (``application/x-www-form-
urlencoded`` or ``multipart/form-data``) into its own ``args``, on the event loop, before
daphne handed the raw body to Django, which parses it again with its own limits; daphne never
reads ``args``. An 8 MB form body held the whole server (every socket, every request) for 3
seconds, a multipart one for 7, and the API then refused both with 415. Even the header of
every ``POST`` was parsed with the standard library's mail parser: half a millisecond of a
request. Here daphne's requests leave the body to Django.

A body is also at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes, which Django refuses anyway (the
site takes no file uploads): a larger one is answered ``413`` with the API's ``too_large``
error as soon as its length is known (its ``Content-Length``, or as much of a chunked body
has come), and the connection closed; it is not read into the server first.

Twisted also formatted an access-log line for every request and handed it to its logging,
which daphne sends nowhere unless it runs with ``-v 2`` or more. Then it is not made.
"""

from __future__ import annotations

import orjson
from daphne.http_protocol import HTTPFactory, WebRequest
from django.conf import settings

TOO_LARGE = "a request body has at most {max} bytes"  # as the API says it (api_errors)

_init = WebRequest.__init__
_got_length = WebRequest.gotLength
_content_chunk = WebRequest.handleContentChunk
_request_received = WebRequest.requestReceived
_log = HTTPFactory.log


def limit() -> int | None:
    """The most bytes a request body may have (None: no limit)."""
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def init(self: WebRequest, *args, **kwargs) -> None:
    _init(self, *args, **kwargs)
    self._parsePOSTFormSubmission = False  # Twisted's ``args``: daphne never reads them
    self.body_received = 0
    self.refused = False


def got_length(self: WebRequest, length: int | None) -> None:
    most = limit()
    if length is not None and most is not None and length > most:
        refuse(self, most)
        return
    _got_length(self, length)


def content_chunk(self: WebRequest, data: bytes) -> None:
    if self.refused:
        return  # what was on its way when the connection was closed
    self.body_received += len(data)
    most = limit()
    if most is not None and self.body_received > most:  # a chunked body, or a liar's
        refuse(self, most)
        return
    _content_chunk(self, data)


def request_received(self: WebRequest, command: bytes, path: bytes, version: bytes) -> None:
    if not self.refused:
        _request_received(self, command, path, version)


def refuse(self: WebRequest, most: int) -> None:
    """Answer ``413`` at once and close the connection, reading no more of the request."""
    self.refused = True
    self.requestHeaders.removeHeader(b"Expect")  # no ``100 Continue`` after the answer
    body = orjson.dumps({"code": "too_large", "message": TOO_LARGE.format(max=most)})
    head = (
        b"HTTP/1.1 413 Content Too Large\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
    )
    channel = self.channel
    channel.transport.write(head + body)
    channel.loseConnection()


def log(self: HTTPFactory, request: WebRequest) -> None:
    if self.server.verbosity > 1:  # daphne then sends Twisted's log to Python's logging
        _log(self, request)


def install() -> None:
    """Read this process's HTTP requests as above (idempotent)."""
    WebRequest.__init__ = init
    WebRequest.gotLength = got_length
    WebRequest.handleContentChunk = content_chunk
    WebRequest.requestReceived = request_received
    HTTPFactory.log = log
