"""Every error becomes a JSON answer with a message (an HTML page for page routes).

Bad input is a 4xx with a one-line message, never a 500: InputError -> 400,
ImageTooLarge and oversize uploads -> 413, an unknown game -> 404, a request that does
not fit the game's state -> 409, ``Refused`` -> its status, a newer frame from the same
client -> 409, work that cannot start in time or a missing detector -> 503.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from scorer.errors import InputError, StalePile
from scorer.store import GameNotFound, StateError
from webui.app.i18n import say
from webui.images.detection import Busy, DetectorUnavailable, Superseded
from scorer.vision.imageheader import ImageTooLarge


def megabytes(n: int, places: int = 1) -> str:
    """``12.0 MB`` (decimal megabytes, as phones and file managers show a photo's size)."""
    return f"{n / 1e6:.{places}f} MB"


def too_large_message(size: int | None, limit: int) -> str:
    """The 413's one line: the body's size (when known) and the cap, with as many
    decimals as it takes for the two to read apart (8.42 MB against 8.39 MB)."""
    if not size:
        return f"upload too large: this upload is larger; the limit is {megabytes(limit)}"
    places = next((p for p in range(1, 7) if megabytes(size, p) != megabytes(limit, p)), 6)
    if megabytes(size, places) == megabytes(limit, places):       # a byte or so apart
        return f"upload too large: this upload is {size:,} bytes; the limit is {limit:,} bytes"
    return (f"upload too large: this upload is {megabytes(size, places)}; "
            f"the limit is {megabytes(limit, places)}")


log = logging.getLogger(__name__)


class Refused(Exception):
    """A request refused with ``status`` and a one-line message (e.g. 404 for an unknown
    deck, 409 for a name already taken)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def error_response(status: int, message: str, **extra: object) -> Response:
    message = say(message)      # in the page's language where the catalogue has it
    wants_html = (not request.path.startswith("/api/") and request.method == "GET"
                  and "text/html" in request.headers.get("Accept", ""))
    if wants_html:
        resp = Response(render_template("error.html", status=status, message=message),
                        status=status, mimetype="text/html")
    else:
        resp = jsonify({"error": message, "status": status, **extra})
        resp.status_code = status
    return resp


# Errors whose message is shown as is, and their status. Flask picks the most specific
# class, so ImageTooLarge (an InputError) answers 413, other InputErrors 400.
MESSAGE_STATUS: dict[type[Exception], int] = {
    ImageTooLarge: 413,
    StateError: 409,
    InputError: 400,
    GameNotFound: 404,
}


def init_app(app: Flask) -> None:
    for exc_type, status in MESSAGE_STATUS.items():
        app.register_error_handler(
            exc_type, lambda exc, status=status: error_response(status, str(exc)))

    @app.errorhandler(StalePile)
    def stale(exc: StalePile) -> Response:
        pile = exc.current.to_dict(crops=False) if exc.current is not None else None
        resp = error_response(409, str(exc), stale=True, pile=pile)
        if exc.current is not None:
            resp.headers["ETag"] = f'"{exc.current.version}"'
        return resp

    @app.errorhandler(Refused)
    def refused(exc: Refused) -> Response:
        return error_response(exc.status, str(exc))

    @app.errorhandler(Busy)
    def busy(exc: Busy) -> Response:
        resp = error_response(503, str(exc))
        resp.headers["Retry-After"] = str(exc.retry_after)
        return resp

    @app.errorhandler(Superseded)
    def superseded(exc: Superseded) -> Response:
        return error_response(409, str(exc), superseded=True)

    @app.errorhandler(DetectorUnavailable)
    def unavailable(exc: DetectorUnavailable) -> Response:
        return error_response(503, str(exc))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        code = exc.code or 500
        if code == 413:
            cap = int(app.config["MAX_CONTENT_LENGTH"])
            return error_response(413, too_large_message(request.content_length, cap),
                                  size_bytes=request.content_length, limit_bytes=cap)
        messages = {404: say("not found"), 405: say("method not allowed")}
        message = messages.get(code) or exc.description or exc.name
        resp = error_response(code, message)
        if code == 405 and exc.get_response().headers.get("Allow"):
            resp.headers["Allow"] = exc.get_response().headers["Allow"]
        return resp

    @app.errorhandler(Exception)
    def internal(exc: Exception) -> Response:
        log.exception("internal error on %s %s", request.method, request.path)
        return error_response(500, say("internal error (see the server's log)"))
