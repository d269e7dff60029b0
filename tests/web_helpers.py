"""Shared helpers of the web tests: an app on a temporary database (with the fake
detector of tests/fakes.py) and small image files."""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from webui import create_app

from support.fakes import FakeDetector, detections_of
from support.servers import CSRF

# What the web tests import from here (the test doubles and the CSRF header among them).
__all__ = ["CSRF", "FakeDetector", "detections_of", "make_app", "jpeg", "png", "png_header", "with_version",
           "TOKEN", "CHECK_CASES", "CheckCase", "check_apps", "case_headers", "app_admits"]


def make_app(tmp_path: Path, **config: Any):
    cfg = {"DB_PATH": tmp_path / "games.db", "DETECTOR": FakeDetector(), "TESTING": True}
    cfg.update(config)
    return create_app(cfg)


def jpeg(width: int = 64, height: int = 48) -> bytes:
    img = np.full((height, width, 3), 200, np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return buf.tobytes()


def png(width: int = 32, height: int = 32) -> bytes:
    ok, buf = cv2.imencode(".png", np.zeros((height, width, 3), np.uint8))
    assert ok
    return buf.tobytes()


def png_header(w: int, h: int) -> bytes:
    """Just a PNG's header claiming w x h pixels (a decompression bomb's, when large)."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


_PILE_WRITE = re.compile(r"/api/games/(\d+)/rounds/(\d+)/(?:piles|corrections)")


def with_version(client, url: str, body: Any) -> Any:
    """A pile write's body naming the version it replaces, as the page does: the pile's
    version in the game as it stands (0 when not saved), unless the body names one."""
    found = _PILE_WRITE.fullmatch(url.split("?", 1)[0])
    if not found or not isinstance(body, dict) or "version" in body \
            or not isinstance(body.get("owner"), str):
        return body
    game = client.get(f"/api/games/{found.group(1)}").get_json() or {}
    rnd = next((r for r in game.get("rounds", []) if r["number"] == int(found.group(2))), {})
    pile = rnd.get("piles", {}).get(body["owner"])
    return {**body, "version": pile["version"] if pile else 0}


TOKEN = "t0ken-abcdefghijklmnop"
COOKIE = "<the token's cookie>"       # in a case's headers: the app's cookie for its token


@dataclass(frozen=True)
class CheckCase:
    """A POST /api/detect as the app's checks see it (``webui.app.security``): its headers,
    scheme and query, whether the app has an access token, and whether the checks
    should let it through to the view."""

    name: str
    headers: dict[str, str]
    admitted: bool
    token: bool = False
    scheme: str = "http"
    query: str = ""


_LOCAL = {"Host": "127.0.0.1:8000", **CSRF}
_LAN = {"Host": "192.168.1.5:8443", **CSRF}
#: The cases on which the app, its predicate and the early judge must agree.
CHECK_CASES = [
    CheckCase("loopback with the CSRF header", _LOCAL, True),
    CheckCase("no CSRF header", {"Host": "127.0.0.1:8000"}, False),
    CheckCase("another CSRF value", {"Host": "127.0.0.1:8000",
                                     "X-Requested-With": "XMLHttpRequest"}, False),
    CheckCase("a rebound name (no token)", {**_LOCAL, "Host": "evil.example:8000"}, False),
    CheckCase("localhost by name", {**_LOCAL, "Host": "localhost:8000"}, True),
    CheckCase("its own Origin", {**_LOCAL, "Origin": "http://127.0.0.1:8000"}, True),
    CheckCase("a foreign Origin", {**_LOCAL, "Origin": "http://evil.example"}, False),
    CheckCase("its Origin on another port", {**_LOCAL, "Origin": "http://127.0.0.1:9000"}, False),
    CheckCase("its Origin by another scheme", {**_LOCAL, "Origin": "https://127.0.0.1:8000"},
              False),
    CheckCase("the default port left out", {**CSRF, "Host": "127.0.0.1:80",
                                            "Origin": "http://127.0.0.1"}, True),
    CheckCase("a cross-site fetch", {**_LOCAL, "Sec-Fetch-Site": "cross-site"}, False),
    CheckCase("a same-origin fetch", {**_LOCAL, "Sec-Fetch-Site": "same-origin"}, True),
    CheckCase("its Origin over HTTPS", {**_LOCAL, "Host": "127.0.0.1:8443",
                                        "Origin": "https://127.0.0.1:8443"}, True, scheme="https"),
    CheckCase("HTTPS, an http Origin", {**_LOCAL, "Host": "127.0.0.1:8443",
                                        "Origin": "http://127.0.0.1:8443"}, False, scheme="https"),
    CheckCase("the token header", {**_LAN, "X-Access-Token": TOKEN}, True, token=True,
              scheme="https"),
    CheckCase("the token's cookie", {**_LAN, "Cookie": f"hanafuda_token={COOKIE}"}, True,
              token=True, scheme="https"),
    CheckCase("no token", _LAN, False, token=True, scheme="https"),
    CheckCase("a wrong token", {**_LAN, "X-Access-Token": "wrong-token-0123456789"}, False,
              token=True, scheme="https"),
    CheckCase("an earlier run's cookie", {**_LAN, "Cookie": "hanafuda_token=0123abcd"}, False,
              token=True, scheme="https"),
    CheckCase("the token in a POST's query", _LAN, False, token=True, scheme="https",
              query=f"token={TOKEN}"),
    CheckCase("the token without the CSRF header", {"Host": "192.168.1.5:8443",
                                                    "X-Access-Token": TOKEN}, False,
              token=True, scheme="https"),
    CheckCase("the token and a foreign Origin", {**_LAN, "X-Access-Token": TOKEN,
                                                 "Origin": "https://evil.example"}, False,
              token=True, scheme="https"),
]


def check_apps(tmp_path: Path, **config: Any) -> dict[bool, Any]:
    """An app without an access token (False) and one with ``TOKEN`` (True)."""
    return {False: make_app(tmp_path / "loopback", **config),
            True: make_app(tmp_path / "token", ACCESS_TOKEN=TOKEN, **config)}


def case_headers(app: Any, case: CheckCase) -> dict[str, str]:
    """The case's headers, ``COOKIE`` replaced by ``app``'s cookie for its token."""
    creds = app.extensions.get("credentials")
    return {k: v.replace(COOKIE, creds.cookie) if creds is not None else v
            for k, v in case.headers.items()}


def app_admits(app: Any, case: CheckCase) -> bool:
    """Whether ``app`` lets the case through to /api/detect's view (200, a small JPEG
    detected) rather than answering it from its checks (401 or 403)."""
    client = app.test_client(use_cookies=False)     # the case's Cookie header, as given
    r = client.post("/api/detect", data=jpeg(), query_string=case.query,
                    base_url=f"{case.scheme}://localhost",
                    headers={**case_headers(app, case), "Content-Type": "image/jpeg"})
    assert r.status_code in (200, 401, 403), (case.name, r.status_code, r.get_json())
    return r.status_code == 200
