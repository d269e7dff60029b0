"""Each detected card's rectified, upright crop as a small JPEG data URL (for the page's
pile list: the card as the camera saw it, cut along its outline, not an axis-aligned piece)."""

from __future__ import annotations

import base64
from typing import Any, Sequence

import cv2
import numpy as np

from scorer.vision.geometry import rectify

CROP_W, CROP_H = 96, 150        # the classifier's 72x112 crop shape, a little larger
QUALITY = 80


def _quad(card: dict[str, Any]) -> np.ndarray:
    """The outline the classifier read (corners from the card's top-left), else the box."""
    quad = card.get("quad")
    if quad is not None and len(quad) == 4:
        return np.asarray(quad, np.float32)
    x0, y0, x1, y1 = card["box"]
    return _upright(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32))


def _upright(quad: np.ndarray) -> np.ndarray:
    """The quad's corners from the top-left of a portrait card: a card lying sideways
    (first edge longer than the second) starts from the next corner."""
    w = float(np.hypot(*(quad[1] - quad[0])))
    h = float(np.hypot(*(quad[2] - quad[1])))
    return np.roll(quad, -1, axis=0) if w > h * 1.05 else quad


def crop_url(image: np.ndarray, card: dict[str, Any]) -> str:
    """The card's crop, ``CROP_W`` x ``CROP_H``, as a ``data:image/jpeg;base64,`` URL."""
    crop = rectify(image, _quad(card), CROP_W, CROP_H)
    ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    if not ok:
        return ""
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def add_crops(image: np.ndarray, cards: Sequence[dict[str, Any]]) -> None:
    """Give every card dict a ``crop`` key (in place)."""
    for card in cards:
        card["crop"] = crop_url(image, card)
