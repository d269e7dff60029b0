"""A body over the upload cap, answered so that an ordinary client reads the answer.

waitress refuses a body over ``max_request_body_size`` as soon as it has read the headers,
in plain text, and closes the connection with the body unread: the kernel then resets
the connection, and a client still sending (urllib, http.client, a phone's browser) gets
"connection reset" and no status at all. Here a body over the app's cap but under
``DRAIN_MAX`` is read to its end and thrown away as it arrives (no byte of it is kept, in
memory or on disk), then answered with the API's JSON 413 and the connection closed.
A body over ``DRAIN_MAX`` is refused at once as before: reading it would only cost time.

A request with more header lines than a browser ever sends (``MAX_HEADERS``, 100: a
browser sends about 20) is answered 431 as soon as its 101st header arrives, before
waitress parses any of them (issue 49): 7,000 one-line headers fit under the 64 kB header
cap, and parsing them, then the app's environ of them, on every request of 32
connections took a camera from 4.0 to 2.8 frames a second. The lines are counted as the
bytes arrive (a ``count`` of each piece, in C), not parsed.
"""

from __future__ import annotations

import json
from typing import Any

from waitress.parser import HTTPRequestParser
from waitress.receiver import FixedStreamReceiver
from waitress.utilities import RequestEntityTooLarge, RequestHeaderFieldsTooLarge, \
    find_double_newline

from webui.app.edge import too_large_message

#: The largest body read to its end before the 413 (a 40 MB photo is); the connection's
#: idle timeout still ends a slow one.
DRAIN_MAX = 128 * 1024 * 1024
#: The most header lines a request may have (browsers send about 20; Apache's default
#: ``LimitRequestFields`` is 100 too).
MAX_HEADERS = 100


class _Discard:
    """A body buffer that keeps nothing: it counts what it is given."""

    def __init__(self) -> None:
        self.length = 0

    def append(self, data: bytes) -> None:
        self.length += len(data)

    def __len__(self) -> int:
        return self.length

    def getfile(self) -> Any:
        import io
        return io.BytesIO()

    def close(self) -> None:
        pass


class UploadTooLarge(RequestEntityTooLarge):
    """waitress's 413, as the API's JSON: ``{"error", "status", "size_bytes", "limit_bytes"}``."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(too_large_message(size, limit))
        self.size, self.limit = size, limit

    def to_response(self, ident: str | None = None) -> tuple[str, list[tuple[str, str]], bytes]:
        body = json.dumps({"error": self.body, "status": self.code,
                           "size_bytes": self.size or None, "limit_bytes": self.limit}).encode()
        return f"{self.code} {self.reason}", [("Content-Type", "application/json")], body


class DrainingParser(HTTPRequestParser):
    """A request parser that reads a too-large body to its end into nothing, then hands
    the channel an ``UploadTooLarge`` error (answered by the channel's error task)."""

    limit = 8 * 1024 * 1024         # bodies over it are refused (set per server: ``parser_for``)
    shown = limit                   # the cap the answer names (the app's)
    too_large = 0
    header_lines = 0                # line ends of the request's head received so far

    def parse_header(self, header_plus: bytes) -> None:
        super().parse_header(header_plus)
        if not self.chunked and self.limit < self.content_length < DRAIN_MAX:
            self.too_large = self.content_length
            self.body_rcv = FixedStreamReceiver(self.content_length, _Discard())

    def received(self, data: bytes) -> int:
        if self.body_rcv is None and not self.completed and self._too_many_headers(data):
            self.parse_header(b"GET / HTTP/1.0\r\n")         # as waitress does for 431
            self.error = RequestHeaderFieldsTooLarge(
                f"too many headers: a request may have at most {MAX_HEADERS}")
            self.completed = True
            return len(data)
        n = int(super().received(data))
        if self.too_large and self.completed and self.error is None:
            self.error = UploadTooLarge(self.too_large, self.shown)
        elif self.chunked and self.body_bytes_received > self.limit and self.error is None:
            # a chunked body has no length to drain to: refused once over the cap, as
            # waitress did (browsers send a photo with its length)
            self.error = UploadTooLarge(0, self.shown)
            self.completed = True
        return n


    def _too_many_headers(self, data: bytes) -> bool:
        """Whether the head (request line, headers, its blank line) passes
        ``MAX_HEADERS`` header lines with ``data``; counted, never parsed."""
        lines = self.header_lines + data.count(b"\n")
        self.header_lines = lines
        if lines <= MAX_HEADERS + 2:
            return False
        head = self.header_plus + data          # the head may end inside data
        end = find_double_newline(head)
        return end < 0 or head[:end].lstrip().count(b"\n") > MAX_HEADERS + 2


def parser_for(limit: int, shown: int | None = None) -> type[DrainingParser]:
    """A parser class whose bodies over ``limit`` bytes are drained and refused, the
    answer naming ``shown`` (default ``limit``) as the cap."""
    return type("DrainingParser", (DrainingParser,),
                {"limit": int(limit), "shown": int(shown or limit)})
