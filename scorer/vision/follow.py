"""Following the live camera's cards without the localiser (issue 51): the page sends,
with a live frame, the outlines of its tracks (``scorer.tracking.Follower``), and
``Detector.follow`` refines each from its last outline on the new frame and classifies
it. Here: reading those outlines from the detect API, and telling a box the refiner lost.

    quads, sure = parse_follow('[{"quad": [[10,10],[60,10],[60,90],[10,90]]}]')
    quads / scale                                       # into a frame decoded smaller
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from scorer.errors import InputError

MAX_FOLLOW = 60         # outlines one frame may ask to follow (the localiser's max_cards)
MIN_SIDE = 8.0          # a followed box shorter than this (pixels) is lost
MAX_SIDE = 4 * 12_000   # ... as is one longer than this: no image is that large


def parse_follow(value: str | bytes | list | None) -> tuple[np.ndarray, np.ndarray]:
    """The outlines a live frame asks to follow: ``value`` is the API's ``follow``, a
    JSON list of ``{"quad": [[x, y] x 4], "sure": bool}`` (``sure`` True unless given:
    False for a track the page last saw as a weak reading). Returns (quads (N,4,2) in the
    image's pixels, sure (N,)); InputError (one line) for anything else."""
    if isinstance(value, (str, bytes)):
        try:
            value = json.loads(value)
        except ValueError:
            raise InputError("follow: not JSON (a list of {\"quad\": [[x, y] x 4]})") from None
        except RecursionError:      # thousands of nested brackets (issue 68, N16): not a 500
            raise InputError("follow: nested too deep (a list of {\"quad\": [[x, y] x 4]})") \
                from None
    if not isinstance(value, list):
        raise InputError("follow: expected a list of {\"quad\": [[x, y] x 4], \"sure\": bool}")
    if len(value) > MAX_FOLLOW:
        raise InputError(f"follow: at most {MAX_FOLLOW} outlines a frame, not {len(value)}")
    quads, sure = [], []
    for i, item in enumerate(value):
        quad = item.get("quad") if isinstance(item, dict) else None
        try:
            q = np.asarray(quad, np.float64)
        except (TypeError, ValueError):
            q = np.zeros(0)
        if q.shape != (4, 2) or not np.isfinite(q).all() or np.abs(q).max() > MAX_SIDE:
            raise InputError(f"follow[{i}]: \"quad\" must be four [x, y] points in pixels")
        flag: Any = item.get("sure", True)
        if not isinstance(flag, bool):
            raise InputError(f"follow[{i}]: \"sure\" must be true or false")
        quads.append(q)
        sure.append(flag)
    return (np.asarray(quads, np.float32).reshape(-1, 4, 2), np.asarray(sure, bool))


def lost(rects: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Which followed rectangles (N,5: cx, cy, w, h, theta) the refiner lost: the centre
    off the image, or a side under ``MIN_SIDE`` pixels."""
    w, h = size
    if not len(rects):
        return np.zeros(0, bool)
    cx, cy, bw, bh = rects[:, 0], rects[:, 1], rects[:, 2], rects[:, 3]
    return (cx < 0) | (cy < 0) | (cx >= w) | (cy >= h) | (np.minimum(bw, bh) < MIN_SIDE)
