"""Shared helpers of the web tests: an app on a temporary database (with the fake
detector of tests/fakes.py) and small image files."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from webui import create_app

from support.fakes import FakeDetector, detections_of
from support.servers import CSRF

# What the web tests import from here (the test doubles and the CSRF header among them).
__all__ = ["CSRF", "FakeDetector", "detections_of", "make_app", "jpeg", "png", "png_header", "with_version"]


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
