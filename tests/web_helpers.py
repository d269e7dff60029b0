"""Shared helpers of the web tests: an app on a temporary database (with the fake
detector of tests/fakes.py) and small image files."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from webui import create_app

from support.fakes import FakeDetections, FakeDetector
from support.servers import CSRF

# What the web tests import from here (the test doubles and the CSRF header among them).
__all__ = ["CSRF", "FakeDetections", "FakeDetector", "make_app", "jpeg", "png", "png_header"]


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
