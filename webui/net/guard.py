"""The thin layer between granian and the Flask app: what only the app can judge, done
before Flask parses anything, each hole of issue 68 refused one clear way.

In the order a request meets them (each answer JSON, with the page's security headers):

1. **Its work bounded** (``Limits``), counted in C on the raw strings, never parsed:
   more than ``cookie_pairs`` (100) pairs in its ``Cookie`` header: 431; more than
   ``query_pairs`` (100) query parameters: 414 (issue 68, N13b: 7,000 of either, parsed
   by Werkzeug on every request of 32 connections, took a camera to 1.1 fps). Header
   lines are granian's (over 100: 431, before Python sees the request). An address
   refused often waits a second for each further refusal (``Shares.tarpit``).
2. **A body it can size**: a chunked upload (``Transfer-Encoding``) is answered 411,
   Length Required (browsers send a photo with its length; N15: one guest's body in
   1-byte chunks held the old event loop for 25 s); a Content-Length over the upload
   cap is answered 413, the body read into nothing first when it carries the token
   and is under ``early.DRAIN_MAX`` (a client that sends it all before reading, as
   urllib does, then reads the 413 rather than a reset), else unread.
3. **Its turn** (``webui.net.shares``): whether it carries the token (the app's own
   verdict, ``webui.app.edge.admits_for``), then turns per client address; too many of
   one address's requests in the server: 503 with Retry-After, the connection closed.
   A request without the token (it can only be refused) has its connection closed
   after its answer: a stranger's pipelined or kept-alive requests (N18: 1,000 slow
   readers each asking 50) cost one turn of Python a connection, not fifty.
4. **Its body read before its turn**, and a large image upload judged from its header
   (``webui.net.early``): refused at once (503 or 413) when the scheduler would not take
   it, the rest never read. A guest's body (no token) is never read: the app refuses it.

Clients are counted by their IP address, loopback ones too: 127.0.0.2 is this machine
(no token asked on a loopback server, ``webui.app.security.is_loopback``) but a client
apart from 127.0.0.1, as the tests and ``bench.attack_server`` use it.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from scorer.errors import Busy
from webui.app import edge
from webui.app.edge import security_headers, too_large_message
from webui.net import early
from webui.net.shares import Crowded, Shares

StartResponse = Callable[..., Any]


@dataclass(frozen=True)
class Limits:
    """The most a request may ask of the interpreter (see the module)."""

    cookie_pairs: int = 100
    query_pairs: int = 100
    body: int = 8 * 1024 * 1024 + 65536     # the upload cap and a form's part headers
    shown: int = 8 * 1024 * 1024            # the cap the 413 names (the app's)


def answer(start_response: StartResponse, status: int, reason: str, message: str,
           path: str = "/api/", close: bool = False, retry_after: int | None = None,
           **extra: Any) -> list[bytes]:
    """A JSON refusal ``{"error", "status", ...}`` as the API answers, with the security
    headers (``close``: the connection closed after it, its body unread)."""
    body = json.dumps({"error": message, "status": status, **extra}).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    if status == 503:
        headers.append(("Retry-After", str(retry_after or 1)))
    if close:
        headers.append(("Connection", "close"))
    headers.extend(security_headers(path if path.startswith("/api/") else "/api/"))
    start_response(f"{status} {reason}", headers)
    return [body]


def _whole(body: Iterable[bytes]) -> list[bytes]:
    """The app's answer as one piece (granian writes a list at once; an iterator is
    pulled a piece at a time from granian's runtime, each pull taking the GIL anew)."""
    if isinstance(body, list):
        return body
    try:
        return [b"".join(body)]
    finally:
        close = getattr(body, "close", None)
        if close is not None:
            close()


def _closing(start_response: StartResponse) -> StartResponse:
    """``start_response`` that closes the connection after the answer."""
    def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        if not any(k.lower() == "connection" for k, _ in headers):
            headers = [*headers, ("Connection", "close")]
        return start_response(status, headers, exc_info)
    return start


class Guard:
    """The WSGI middleware of the module, around ``app``."""

    def __init__(self, app: Callable[..., Iterable[bytes]], limits: Limits | None = None,
                 shares: Shares | None = None,
                 admits: Callable[[dict[str, Any]], bool] | None = None,
                 judge: edge.Judge | None = None) -> None:
        self.app = app
        self.limits = limits or Limits()
        self.shares = shares or Shares()
        self.admits = admits or (lambda environ: True)
        self.judge = judge

    @classmethod
    def for_app(cls, app: Any, limits: Limits | None = None,
                shares: Shares | None = None) -> "Guard":
        """The guard of the Flask ``app``: its upload cap, token and upload judge."""
        if limits is None:
            cap = int(app.config.get("MAX_CONTENT_LENGTH") or 8 * 1024 * 1024)
            limits = Limits(body=cap + 65536, shown=cap)
        judge = edge.judge_for(app) if "hanafuda" in getattr(app, "extensions", {}) else None
        return cls(app, limits, shares, edge.admits_for(app), judge)

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        ip = environ.get("REMOTE_ADDR") or "?"
        refused = self._head(environ, start_response, path)
        if refused is not None:
            # an address refused often waits for its answers, and is shut out a while
            self.shares.tarpit(ip, shut_out=True)
            return refused
        if self.shares.crowded_at(ip):
            self.shares.tarpit(ip)
            return self._crowded(start_response, path)
        guest = not self._admits(environ)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if guest:                   # one request a connection: no pipelined refusals
            start_response = _closing(start_response)
        try:
            with self.shares.entry(ip, guest):
                if length and not guest:
                    body = early.read_body(environ, length, self.judge, ip)
                    if not isinstance(body, bytes):
                        return self._refusal(start_response, body)
                    environ["wsgi.input"] = io.BytesIO(body)
                    environ["CONTENT_LENGTH"] = str(len(body))
                with self.shares.turn(ip, guest):
                    return _whole(self.app(environ, start_response))
        except Crowded:
            self.shares.tarpit(ip)
            return self._crowded(start_response, path)

    @staticmethod
    def _crowded(start_response: StartResponse, path: str) -> list[bytes]:
        return answer(start_response, 503, "Service Unavailable",
                      "too many requests from this address at once: retry in a moment",
                      path, close=True, retry_after=1)

    def _head(self, environ: dict[str, Any], start_response: StartResponse,
              path: str) -> list[bytes] | None:
        """The refusal of a request's head (steps 1 and 2), or None."""
        lim = self.limits
        cookie = environ.get("HTTP_COOKIE")
        if cookie and cookie.count(";") >= lim.cookie_pairs:
            return answer(start_response, 431, "Request Header Fields Too Large",
                          f"too many cookies: a request may carry at most {lim.cookie_pairs}",
                          path, close=True)
        query = environ.get("QUERY_STRING")
        if query and query.count("&") >= lim.query_pairs:
            return answer(start_response, 414, "URI Too Long",
                          f"too many query parameters: at most {lim.query_pairs}", path,
                          close=True)
        if environ.get("HTTP_TRANSFER_ENCODING"):
            return answer(start_response, 411, "Length Required",
                          "send the body with a Content-Length (chunked uploads are not "
                          "taken)", path, close=True)
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if length < 0:
            return answer(start_response, 400, "Bad Request", "bad Content-Length", path,
                          close=True)
        if length > lim.body:
            if length <= early.DRAIN_MAX and self._admits(environ):
                early.drain(environ, length)    # read into nothing: the client reads the 413
            return answer(start_response, 413, "Content Too Large",
                          too_large_message(length, lim.shown), path, close=True,
                          size_bytes=length, limit_bytes=lim.shown)
        return None

    def _admits(self, environ: dict[str, Any]) -> bool:
        try:
            return self.admits(environ)
        except Exception:       # a request that cannot be read for a token is a guest's
            return False

    @staticmethod
    def _refusal(start_response: StartResponse, refusal: early.Refusal) -> list[bytes]:
        if isinstance(refusal, Busy):
            return answer(start_response, 503, "Service Unavailable", str(refusal),
                          close=True, retry_after=refusal.retry_after)
        return answer(start_response, 413, "Content Too Large", str(refusal), close=True)
