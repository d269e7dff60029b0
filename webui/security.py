"""Safe defaults on every request and response.

* Access token (when the app has one, i.e. when serving beyond localhost): a request
  must carry it in the ``hanafuda_token`` cookie or the ``X-Access-Token`` header. Opening
  ``/?token=...`` once sets the cookie and redirects to the same page without the token,
  so it does not stay in the address bar or the history. Tokens are compared in
  constant time and never logged.
* Without a token (serving on loopback only) the request's Host must be a loopback
  name or address: a foreign site that re-points its own name at 127.0.0.1 (DNS
  rebinding) would otherwise count as same-origin and pass every check below.
* Cross-site request protection: a state-changing request (POST, PUT, PATCH, DELETE)
  needs the custom header ``X-Requested-With: hanafuda`` (a cross-site form cannot set it,
  and a cross-site script cannot send it without a CORS preflight this app never grants),
  and its ``Origin``, when present, must be this server.
* Headers on every response: CSP (self only, no inline script), nosniff,
  frame-ancestors 'none' / X-Frame-Options DENY, no referrer, and no caching of the API.
"""

from __future__ import annotations

import hmac
import ipaddress
from urllib.parse import urlencode, urlsplit

from flask import Flask, Response, redirect, request

from webui.errors import error_response

TOKEN_COOKIE = "hanafuda_token"
TOKEN_HEADER = "X-Access-Token"
CSRF_HEADER = "X-Requested-With"
CSRF_VALUE = "hanafuda"
LOOPBACK_NAMES = {"localhost", "ip6-localhost"}
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

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


def init_app(app: Flask) -> None:
    @app.before_request
    def require_token() -> Response | None:
        token = app.config.get("ACCESS_TOKEN")
        if not token:
            if is_loopback(_host_name(request.host)):
                return None
            return error_response(403, "this server answers on 127.0.0.1 or localhost only "
                                       "(start it with --host to reach it by another name)")
        if _same(request.cookies.get(TOKEN_COOKIE), token) or \
                _same(request.headers.get(TOKEN_HEADER), token):
            return None
        if request.method == "GET" and _same(request.args.get("token"), token):
            rest = {k: v for k, v in request.args.items() if k != "token"}
            resp = redirect(request.path + ("?" + urlencode(rest) if rest else ""), code=303)
            resp.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="Strict",
                            max_age=30 * 24 * 3600)
            return resp
        return error_response(401, "access token required: open the URL that "
                                   "`hanafuda serve` printed")

    @app.before_request
    def refuse_cross_site() -> Response | None:
        if request.method in SAFE_METHODS:
            return None
        if request.headers.get(CSRF_HEADER) != CSRF_VALUE:
            return error_response(403, f"cross-site request refused: the {CSRF_HEADER} "
                                       f"header must be {CSRF_VALUE!r}")
        origin = request.headers.get("Origin")
        if origin is not None and origin != request.host_url.rstrip("/"):
            return error_response(403, "cross-site request refused: foreign Origin")
        if request.headers.get("Sec-Fetch-Site") == "cross-site":
            return error_response(403, "cross-site request refused")
        return None

    @app.after_request
    def headers(resp: Response) -> Response:
        h = resp.headers
        h.setdefault("Content-Security-Policy", CSP)
        h["X-Content-Type-Options"] = "nosniff"
        h["X-Frame-Options"] = "DENY"
        h["Referrer-Policy"] = "no-referrer"
        h["Cross-Origin-Opener-Policy"] = "same-origin"
        h["Permissions-Policy"] = "camera=(self), microphone=(), geolocation=()"
        if request.path.startswith("/api/"):
            h["Cache-Control"] = "no-store"
        return resp


def is_loopback(host: str) -> bool:
    """True for a loopback name or address (``localhost``, ``127.0.0.1``, ``[::1]``)."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
