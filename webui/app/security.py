"""Safe defaults on every request and response.

* Access token (when the app has one, i.e. when serving beyond localhost): a request
  must carry it in the ``X-Access-Token`` header or the ``hanafuda_token`` cookie.
  Opening ``/?token=...`` once sets the cookie and redirects to the same page without
  the token, so it does not stay in the address bar or the history. The cookie holds
  not the token but an HMAC of it under a key made at each start (``Credentials``):
  guessing a cookie is hopeless, and a cookie from an earlier run is simply stale: it
  is replaced (deleted, and the page asks for the printed URL), never counted as a
  guess. Tokens are compared in constant time and never logged.
* Without a token (serving on loopback only) the request's Host must be a loopback
  name or address: a foreign site that re-points its own name at 127.0.0.1 (DNS
  rebinding) would otherwise count as same-origin and pass every check below.
* Cross-site request protection: a state-changing request (POST, PUT, PATCH, DELETE)
  needs the custom header ``X-Requested-With: hanafuda`` (a cross-site form cannot set it,
  and a cross-site script cannot send it without a CORS preflight this app never grants),
  and its ``Origin``, when present, must be this server.
* Wrong tokens are slowed per client address (``Guesses``): after ten a minute, each
  further wrong one is answered 429 only after ``GUESS_DELAY`` seconds (2 s). Only wrong
  ones: the right token is compared and let in at once, also from that address. A
  slowed answer holds one of the two turns of the app kept for requests without the
  token (``webui.net.shares``), so the guessing of every stranger together runs at about
  one a second, and never in the turns the cameras use.
* Headers on every response: CSP (self only, no inline script), nosniff,
  frame-ancestors 'none' / X-Frame-Options DENY, no referrer, and no caching of the API.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

from flask import Flask, Response, redirect, request
from werkzeug.wrappers import Request
from werkzeug.wrappers import Response as BaseResponse

from webui.app.errors import error_response

TOKEN_COOKIE = "hanafuda_token"
TOKEN_HEADER = "X-Access-Token"
CSRF_HEADER = "X-Requested-With"
CSRF_VALUE = "hanafuda"
LOOPBACK_NAMES = {"localhost", "ip6-localhost"}
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: The loopback range, as ``hanafuda serve``'s help names it (``webui.command.LOOPBACK``).
LOOPBACK = "any of 127.0.0.0/8, ::1 or localhost"
LOOPBACK_ONLY = (f"this server answers on a loopback address ({LOOPBACK}) only "
                 "(start it with --host to reach it by another name)")

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; "
       "img-src 'self' data: blob:; media-src 'self' blob: mediastream:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")


def _same(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a.encode(), b.encode())


def _host_name(host: str) -> str:
    """The name in a Host header without its port (``[::1]:8000`` -> ``::1``)."""
    try:
        return urlsplit("//" + host).hostname or ""
    except ValueError:
        return ""


class Guesses:
    """Wrong access tokens per client address: after ``free`` of them within ``window``
    seconds, that address's tokens are not even compared until the oldest is ``window``
    seconds old (429 with Retry-After), so guessing runs at ``free`` tries a window."""

    def __init__(self, free: int = 10, window: float = 60.0, most: int = 4096) -> None:
        self.free, self.window, self.most = free, window, most
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait(self, who: str) -> int:
        """Seconds ``who`` must wait before a token of theirs is compared (0: none)."""
        now = time.monotonic()
        with self._lock:
            times = self._seen.get(who)
            while times and now - times[0] >= self.window:
                times.popleft()
            if not times or len(times) < self.free:
                return 0
            return max(1, math.ceil(self.window - (now - times[0])))

    def failed(self, who: str) -> None:
        with self._lock:
            times = self._seen.pop(who, None) or deque(maxlen=self.free)
            times.append(time.monotonic())
            self._seen[who] = times
            while len(self._seen) > self.most:      # bounded: the oldest addresses go
                self._seen.popitem(last=False)


@dataclass(frozen=True)
class Credentials:
    """The access token and the cookie that stands for it in this run: an HMAC of the
    token under a key made now, so a cookie cannot be guessed (nor derived from a guessed
    token) and one from an earlier run never matches."""

    token: str
    key: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)

    @property
    def cookie(self) -> str:
        return hmac.new(self.key, self.token.encode(), hashlib.sha256).hexdigest()

    def verdict(self, cookie: str | None, header: str | None, query: str | None) -> str:
        """``ok`` (a right token or cookie), ``url`` (the right token in the URL: set the
        cookie), ``guess`` (a wrong token: counted), ``stale`` (only a wrong cookie: an
        earlier run's, replaced) or ``none`` (nothing sent)."""
        if _same(header, self.token) or _same(cookie, self.cookie):
            return "ok"
        if _same(query, self.token):
            return "url"
        if header is not None or query is not None:
            return "guess"
        return "stale" if cookie is not None else "none"


@dataclass(frozen=True)
class Refusal:
    """Which of the app's checks refuses a request, and why: ``host`` (no token, and a
    Host that is not loopback: ``reason`` is the 403's message), ``token`` (``reason`` is
    the token's verdict: ``url``, ``guess``, ``stale`` or ``none``) or ``cross-site``
    (``reason`` is the 403's message)."""

    check: str
    reason: str


def token_verdict(req: Request, creds: Credentials) -> str:
    """``creds.verdict`` of the request's cookie, token header and (on a GET only) its
    ``?token=``: the one reading of them, for the app, ``webui.net.early`` and the server's
    turns alike."""
    return creds.verdict(token_cookie(req), req.headers.get(TOKEN_HEADER),
                         req.args.get("token") if req.method == "GET" else None)


def token_cookie(req: Request) -> str | None:
    """The request's ``hanafuda_token`` cookie as the app reads it (Werkzeug's
    ``parse_cookie``: the first of several, quotes undone, a malformed pair skipped)."""
    return req.cookies.get(TOKEN_COOKIE)


def cross_site_reason(req: Request) -> str | None:
    """Why a state-changing request is refused as cross-site (its CSRF header, its
    Origin, its Sec-Fetch-Site), None when it is not."""
    if req.method in SAFE_METHODS:
        return None
    if req.headers.get(CSRF_HEADER) != CSRF_VALUE:
        return f"cross-site request refused: the {CSRF_HEADER} header must be {CSRF_VALUE!r}"
    origin = req.headers.get("Origin")
    if origin is not None and origin != req.host_url.rstrip("/"):
        return "cross-site request refused: foreign Origin"
    if req.headers.get("Sec-Fetch-Site") == "cross-site":
        return "cross-site request refused"
    return None


def refusal(req: Request, creds: Credentials | None) -> Refusal | None:
    """The first of the app's checks that refuses ``req``: the access token (without one,
    a loopback Host), then for a state change the CSRF header, Origin and Sec-Fetch-Site.
    None when all of them let it through. It only judges: counting a wrong token and
    answering are ``init_app``'s."""
    if creds is None:
        if not is_loopback(_host_name(req.host)):
            return Refusal("host", LOOPBACK_ONLY)
    else:
        verdict = token_verdict(req, creds)
        if verdict != "ok":
            return Refusal("token", verdict)
    reason = cross_site_reason(req)
    return Refusal("cross-site", reason) if reason is not None else None


def admitted(req: Request, creds: Credentials | None) -> bool:
    """Whether a request passes the app's token, Host, CSRF-header and Origin checks and
    reaches its view. The app answers by ``refusal``, and ``webui.net.early`` asks this
    before it judges an upload from its first bytes: one predicate for both, so the
    server never judges early an upload that the app would refuse."""
    return refusal(req, creds) is None


def init_app(app: Flask) -> None:
    guesses = app.extensions.setdefault("token_guesses", Guesses())
    if app.config.get("ACCESS_TOKEN"):
        app.extensions["credentials"] = Credentials(app.config["ACCESS_TOKEN"])

    @app.before_request
    def check_request() -> BaseResponse | None:
        creds: Credentials | None = app.extensions.get("credentials")
        refused = refusal(request, creds)
        if refused is None:
            return None
        if refused.check == "token" and creds is not None:
            return _token_answer(app, guesses, creds, refused.reason)
        return error_response(403, refused.reason)

    @app.after_request
    def headers(resp: Response) -> Response:
        h = resp.headers
        for name, value in security_headers(request.path):
            if name == "Content-Security-Policy":
                h.setdefault(name, value)
            else:
                h[name] = value
        return resp


def _token_answer(app: Flask, guesses: Guesses, creds: Credentials, verdict: str) -> BaseResponse:
    """The answer to a request without the right token: the token in the URL sets the
    cookie (303 to the same page without it); a wrong one is counted, and slowed then
    refused (429) past the free ones; anything else is asked for it (401)."""
    if verdict == "url":
        rest = {k: v for k, v in request.args.items() if k != "token"}
        resp = redirect(request.path + ("?" + urlencode(rest) if rest else ""), code=303)
        resp.set_cookie(TOKEN_COOKIE, creds.cookie, httponly=True, samesite="Strict",
                        secure=request.scheme == "https", max_age=30 * 24 * 3600)
        return resp
    who = request.remote_addr or "?"
    if verdict == "guess":
        wait = guesses.wait(who)
        guesses.failed(who)
        if wait:            # too many wrong tokens from here: slowed, then refused
            time.sleep(float(app.config.get("GUESS_DELAY", 2.0)))
            resp = error_response(429, "too many wrong access tokens from this "
                                       f"address; retry in {wait} s")
            resp.headers["Retry-After"] = str(wait)
            return resp
    resp = error_response(401, "access token required: open the URL that "
                               "`hanafuda serve` printed")
    if verdict == "stale":                  # an earlier run's cookie: replaced
        resp.delete_cookie(TOKEN_COOKIE, httponly=True, samesite="Strict")
    return resp


def security_headers(path: str) -> list[tuple[str, str]]:
    """The headers every answer carries (the app's and the server's own refusals)."""
    out = [("Content-Security-Policy", CSP), ("X-Content-Type-Options", "nosniff"),
           ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
           ("Cross-Origin-Opener-Policy", "same-origin"),
           ("Permissions-Policy", "camera=(self), microphone=(), geolocation=()")]
    if path.startswith("/api/"):
        out.append(("Cache-Control", "no-store"))
    return out


def is_loopback(host: str) -> bool:
    """True for a loopback name or address (``localhost``, ``127.0.0.1``, ``[::1]``)."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
