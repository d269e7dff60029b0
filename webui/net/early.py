"""A request's body read before its turn, and an image upload that the scheduler would
refuse (or that is over the caps) refused from its header, the rest of it never read.

Measured (issue 30): two senders posting a 7.8 MB, 40 MP progressive JPEG back to back
beside the cameras, with the real model. The heavy budget holds one such image at a
time, so nearly every upload is answered 503; read whole first, each cost the cameras'
interpreter a 7.8 MB copy or more. So ``read_body`` looks at the first ``PEEK`` bytes
of a large upload to ``/api/detect`` as soon as they arrive: the image's header is
there (``scorer.vision.imageheader``), priced as the app would (``webui.app.edge``'s
judge: the token, Host and CSRF checks, the image caps, ``Scheduler.refusal``). If the
judge refuses, the upload is answered at once (503 with Retry-After, or 413) and the
connection closed with the rest of its body unread. A JPEG whose frame header lies
further in than ``PEEK`` (after a 140 kB comment, issue 49) is judged as soon as that
header arrives: its segments are walked as the body comes, by their lengths
(``imageheader.FrameHeaderScan``).

The body is read here, whole, before the request takes its turn of the app
(``webui.net.shares``): a slow sender holds a thread, never a turn. granian reads it
(chunked or not, outside the interpreter); a body is at most the app's upload cap,
checked from its Content-Length before a byte of it is read (``webui.net.guard``).
"""

from __future__ import annotations

import logging
from typing import Any

from scorer.errors import Busy
from scorer.vision.imageheader import FrameHeaderScan, ImageTooLarge
from webui.app.edge import Judge, image_start

#: The body's bytes looked at: a JPEG's frame header follows its EXIF (at most 64 KiB).
PEEK = 128 * 1024
#: The largest refused body read to its end before the 413 (a 40 MB photo is), so that
#: an ordinary client (urllib, a phone's browser) reads the answer, not a reset.
DRAIN_MAX = 128 * 1024 * 1024
ROUTE = "/api/detect"
PIECE = 256 * 1024          # read from granian at a time (a read waits for all of it)
SCAN_PIECE = 4096           # while a frame header is looked for: at most this far past it
log = logging.getLogger("webui.net.early")

Refusal = Busy | ImageTooLarge


def judged(environ: dict[str, Any], length: int, judge: Judge | None) -> bool:
    """Whether a request's body is judged early: a POST to ``ROUTE`` of more than
    ``PEEK`` bytes, once a judge is there."""
    return judge is not None and length > PEEK and environ.get("REQUEST_METHOD") == "POST" \
        and environ.get("PATH_INFO") == ROUTE


def read_body(environ: dict[str, Any], length: int, judge: Judge | None,
              address: str) -> bytes | Refusal:
    """The body of ``length`` bytes (fewer if the client stopped), or the judge's
    refusal of it, read no further."""
    stream = environ["wsgi.input"]
    parts: list[bytes] = []
    got = 0
    peek_at = PEEK if judged(environ, length, judge) else 0
    scan: FrameHeaderScan | None = None
    preamble = b""
    while got < length:
        # granian's read(n) waits for n bytes: the first PEEK ones alone, then small
        # pieces while a frame header is looked for, so that a judgement never waits
        # for bytes past what it needs
        size = peek_at - got if peek_at else SCAN_PIECE if scan is not None else PIECE
        piece = stream.read(min(size, length - got))
        if not piece:
            break
        parts.append(piece)
        got += len(piece)
        if scan is not None:
            scan.feed(piece)
            if scan.found is not None:
                refusal = _judge(judge, address, environ, preamble + scan.found)
                if refusal is not None:
                    return refusal
                scan = None
            elif scan.failed:
                scan = None                         # read whole; the app answers it
        elif peek_at and got >= peek_at:
            peek_at = 0
            prefix = b"".join(parts)[:PEEK]
            scan = _frame_scan(environ, prefix, length)
            if scan is None:
                refusal = _judge(judge, address, environ, prefix)
                if refusal is not None:
                    return refusal
            else:
                preamble = prefix[:len(prefix) - len(image_start(
                    environ.get("CONTENT_TYPE", ""), prefix))]
                scan.feed(b"".join(parts)[PEEK:])
    return b"".join(parts)


def _frame_scan(environ: dict[str, Any], prefix: bytes, length: int) -> FrameHeaderScan | None:
    """A scan for the frame header of a JPEG whose first ``PEEK`` bytes (``prefix``) do
    not hold it; None when they do, or for any other image (judged from them)."""
    image = image_start(environ.get("CONTENT_TYPE", ""), prefix)
    if not image.startswith(b"\xff\xd8\xff"):
        return None
    scan = FrameHeaderScan(length)
    scan.feed(image)
    if scan.found is not None or scan.failed:
        return None
    return scan


def _judge(judge: Judge | None, address: str, environ: dict[str, Any],
           prefix: bytes) -> Refusal | None:
    """The judge's answer; None (read it whole) should the judge fail."""
    try:
        return judge(address, environ, prefix) if judge is not None else None
    except Exception:
        log.exception("judging an upload early failed; it is read whole")
        return None


def drain(environ: dict[str, Any], length: int) -> None:
    """Read a body of ``length`` bytes into nothing (a refused upload under
    ``DRAIN_MAX``, so that a client that sends it all before it reads gets the answer)."""
    stream = environ["wsgi.input"]
    got = 0
    while got < length:
        piece = stream.read(min(PIECE, length - got))
        if not piece:
            return
        got += len(piece)
