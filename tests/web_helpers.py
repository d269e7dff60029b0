"""Shared helpers of the web tests: a fake detector, an app on a temporary database,
and small image files."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

from scorer.cards import card
from webui import create_app

CSRF = {"X-Requested-With": "hanafuda"}


@dataclass
class FakeDetections:
    cards: list[dict[str, Any]]
    timings: dict[str, float] = field(default_factory=lambda: {"infer": 1.0})

    def to_cards(self) -> list[dict[str, Any]]:
        return self.cards

    def __len__(self) -> int:
        return len(self.cards)


class FakeDetector:
    """Returns the given codes for every image (boxes in a row), counting calls.
    ``gate``, when set, makes ``detect`` wait for it (to hold a detection slot)."""

    model_path = "fake.onnx"

    def __init__(self, codes: list[str] | Callable[[np.ndarray], list[str]] = ("08-1",),
                 gate: threading.Event | None = None) -> None:
        self.codes = codes
        self.gate = gate
        self.calls = 0
        self.entered = threading.Event()

    def detect(self, image: np.ndarray) -> FakeDetections:
        self.calls += 1
        self.entered.set()
        if self.gate is not None:
            self.gate.wait(10)
        codes = self.codes(image) if callable(self.codes) else list(self.codes)
        return FakeDetections([
            {"code": code, "name": card(code).name, "confidence": 0.9,
             "box": [10.0 + 40 * i, 10.0, 40.0 + 40 * i, 60.0]} for i, code in enumerate(codes)])


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
