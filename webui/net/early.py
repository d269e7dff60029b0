"""An image upload that the scheduler would refuse, refused before its body is read.

Measured (issue 30): two senders posting a 7.8 MB, 40 MP progressive JPEG back to back
beside the cameras, with the real model. The heavy budget holds one such image at a time,
so nearly every upload is answered 503. But each one was first read whole, at the
cameras' priority and holding the GIL: waitress's event loop (the one every camera frame
comes through) took it in 8 KB pieces into a temporary file (a tell, two seeks and a
write each). A request thread then read it back into one 7.8 MB ``bytes``, and only then
did the scheduler refuse it. py-spy put the event loop at about 60% of a core for 90 MB/s
of such bodies, most of it in the file buffer's appends.

So the server looks at the first ``PEEK`` bytes of a large upload's body as soon as
they arrive. The image's header is there (``scorer.vision.imageheader``), and the server
prices the image as the app would (``Upload.cost`` at the detector's useful side). It
then asks the scheduler whether it would take a job of that cost from that address now
(``Scheduler.refusal``). If it would not, the upload is answered at once, 503 with
Retry-After and ``Connection: close``, and the rest of its body is never read: waitress
reads nothing more from a connection whose request is being answered, and closes it
once the answer is sent. No temporary file, no copy and no app code: a request thread
only writes the answer, and at most ``PEEK`` bytes of the body are held, briefly.

Why not read the rest into nothing, as an oversize body is (``webui.net.oversize``), so that
a client that sends everything before it reads (Python's http.client) gets the status
rather than a closed connection? Measured, that only moved the cost: a refusal that
cost nothing but the reading let the two senders push about 760 MB/s of bodies through
the event loop instead of 90, and the cameras' p99 went back up. A 503 is a "retry
later" either way, and a client that reads its answer while it still sends gets it.

A progressive JPEG over the web's cap for them (``ImageLimits.max_progressive``: its
decoder would hold the whole image's coefficients, issue 45), or any image over the
caps, is answered the app's 413 the same way, from its header: the app would refuse it
from the same header after reading the whole body.

Only what is sure is judged here: a POST to /api/detect that the app's own checks let
through (the access token, the Host, the CSRF header and the Origin: the one predicate
``webui.app.security.admitted``, asked of the request as the app will see it), with a body
of more than ``PEEK`` bytes that starts with a supported image header, once the
detector is loaded. A JPEG whose frame header lies further in than ``PEEK`` (after a
140 kB comment, say: issue 49, such uploads escaped this and were read whole) is judged
as soon as its frame header arrives, however far in: its segments are walked as the
body comes, by their lengths, keeping none of them (``imageheader.FrameHeaderScan``).
Everything else (a camera frame, a bad image, a guest's request) is read whole and
answered by the app as before. The
answer is the scheduler's at that moment. A job that ends before the body does would
have let it in, so the client is told to retry.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from waitress.utilities import Error

from scorer.errors import Busy
from scorer.vision.imageheader import FrameHeaderScan, ImageTooLarge
from webui.app.edge import Judge, image_start
from webui.net.oversize import DrainingParser

#: The body's bytes looked at: a JPEG's frame header follows its EXIF (at most 64 KiB).
PEEK = 128 * 1024
ROUTE = "/api/detect"
log = logging.getLogger("webui.net.early")

class Refused(Error):
    """A refusal as the API answers it (JSON; ``Busy``: 503 with Retry-After,
    ``ImageTooLarge``: 413), sent by waitress's error task."""

    def __init__(self, refusal: Busy | ImageTooLarge) -> None:
        super().__init__(str(refusal))
        busy = isinstance(refusal, Busy)
        self.code = 503 if busy else 413
        self.reason = "Service Unavailable" if busy else "Content Too Large"
        self.retry_after = refusal.retry_after if isinstance(refusal, Busy) else None

    def to_response(self, ident: str | None = None) -> tuple[str, list[tuple[str, str]], bytes]:
        body = json.dumps({"error": self.body, "status": self.code}).encode()
        headers = [("Content-Type", "application/json")]
        if self.retry_after is not None:
            headers.append(("Retry-After", str(self.retry_after)))
        return f"{self.code} {self.reason}", headers, body


class PeekingParser(DrainingParser):
    """A request parser that hands the first ``PEEK`` bytes of a large body to ``judge``
    and, when it refuses, answers its refusal without reading the rest."""

    judge: Judge | None = None      # set per server (``parser_for``)

    def __init__(self, adj: Any, peer: str = "?") -> None:
        super().__init__(adj)
        self.peer = peer
        self.peek_at = 0            # body bytes to wait for before judging (0: never)
        self.scan: FrameHeaderScan | None = None    # a frame header further in
        self.preamble = b""         # a form's part headers before the image

    def parse_header(self, header_plus: bytes) -> None:
        super().parse_header(header_plus)
        if self.judge is not None and not self.chunked and not self.too_large \
                and self.content_length > PEEK and self.command == "POST" \
                and self.path == ROUTE:
            self.peek_at = PEEK

    def received(self, data: bytes) -> int:
        in_body = self.body_rcv is not None
        n = super().received(data)
        if self.completed or self.error is not None or not in_body:
            return n
        if self.scan is not None:
            self._scanned(memoryview(data)[:n])
        elif self.peek_at and self.body_bytes_received >= self.peek_at:
            self.peek_at = 0
            prefix = self.body_rcv.buf.get(PEEK)
            self.scan = self._frame_scan(prefix)
            if self.scan is None:
                self._answer(self._judged(prefix))
            else:       # this piece's bytes past PEEK (the ones before it: in the prefix)
                self._scanned(memoryview(data)[:n][PEEK - (self.body_bytes_received - n):])
        return n

    def _frame_scan(self, prefix: bytes) -> FrameHeaderScan | None:
        """A scan for the frame header of a JPEG whose first ``PEEK`` bytes (``prefix``)
        do not hold it; None when they do, or for any other image (judged from them)."""
        image = image_start(self.headers.get("CONTENT_TYPE", ""), prefix)
        if not image.startswith(b"\xff\xd8\xff"):
            return None
        scan = FrameHeaderScan(self.content_length)
        scan.feed(image)
        if scan.found is not None or scan.failed:
            return None
        self.preamble = prefix[:len(prefix) - len(image)]
        return scan

    def _scanned(self, body: memoryview) -> None:
        """Walk on with the body's next bytes; judged once the frame header is found."""
        assert self.scan is not None
        self.scan.feed(body)
        if self.scan.found is not None:
            found, self.scan = self.scan.found, None
            self._answer(self._judged(self.preamble + found))
        elif self.scan.failed:
            self.scan = None                        # read whole; the app answers it

    def _answer(self, refusal: Busy | ImageTooLarge | None) -> None:
        if refusal is not None:
            # answered now; waitress reads nothing more from a connection whose
            # request is being answered, and closes it once the answer is sent
            self.error = Refused(refusal)
            self.completed = True
            self.body_rcv.buf.close()               # the bytes so far, freed now

    def _judged(self, prefix: bytes) -> Busy | ImageTooLarge | None:
        """The judge's answer; None (read it whole) should the judge fail: on the event
        loop an exception would close the connection unanswered."""
        try:
            return self.judge(self.peer, self, prefix) if self.judge is not None else None
        except Exception:
            log.exception("judging an upload early failed; it is read whole")
            return None


def parser_for(limit: int, shown: int | None = None,
               judge: Judge | None = None) -> type[PeekingParser]:
    """``webui.net.oversize.parser_for``'s parser, that also judges large uploads early."""
    return type("PeekingParser", (PeekingParser,),
                {"limit": int(limit), "shown": int(shown or limit),
                 "judge": staticmethod(judge) if judge is not None else None})
