"""A card is a card: the checks a player makes of a box before calling it one.

The networks read a box; a player also looks at its shape and its place among the other
cards. A box the detector would keep is refused when
- its outline has no card's shape: its height over its width below ``min_aspect``
  (a hanafuda card is 1.66; a Western playing card 1.40; perspective squeezes either);
- it is a close-up box that holds several cards: the centres of ``span`` or more other,
  smaller boxes lie inside it (a box around a whole pile, read as one card);
- it is off the frame's scale: with at least two other cards kept, its height is more
  than ``scale`` times from their median, either way (a box on a strip of a card, or
  around several).

Each check is off (None) unless the model's metadata (``card_checks``) turns it on; the
training's tuning chooses them on validation scenes, beside the thresholds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from scorer.vision.geometry import quad_to_rect

SMALLER = 0.7  # a box inside a close-up counts when it is at most this share of its height


@dataclass(frozen=True)
class CardChecks:
    """Which checks are on, and their limits (None: off)."""
    min_aspect: float | None = None
    span: int | None = None
    scale: float | None = None

    def to_config(self) -> dict:
        return asdict(self)

    @property
    def on(self) -> bool:
        return any(v is not None for v in asdict(self).values())


def outline_sizes(quads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(heights, widths) of card quads (N,4,2), along the card's own axes."""
    rects = [quad_to_rect(q) for q in quads]
    return (np.array([r[3] for r in rects], np.float32),
            np.array([r[2] for r in rects], np.float32))


def shaped_like_cards(quads: np.ndarray, close_up: np.ndarray,
                      checks: CardChecks) -> np.ndarray:
    """(N,) bool: the boxes that pass the shape checks (aspect; a close-up box holding
    no more than ``span`` - 1 other boxes' centres). Before picking: every box counts."""
    n = len(quads)
    ok = np.ones(n, bool)
    if not n or not checks.on:
        return ok
    heights, widths = outline_sizes(quads)
    if checks.min_aspect is not None:
        ok &= heights >= checks.min_aspect * np.maximum(widths, 1e-6)
    if checks.span is not None:
        import cv2
        centres = quads.mean(axis=1)
        for i in np.nonzero(close_up)[0]:
            contour = quads[i].reshape(-1, 1, 2).astype(np.float32)
            inside = sum(1 for j in range(n) if j != i and heights[j] <= SMALLER * heights[i]
                         and cv2.pointPolygonTest(contour, (float(centres[j, 0]),
                                                            float(centres[j, 1])), False) >= 0)
            ok[i] &= inside < checks.span
    return ok


def on_scale(quads: np.ndarray, picked: np.ndarray, checks: CardChecks) -> np.ndarray:
    """``picked`` without the boxes off the frame's scale: each picked box whose height
    is more than ``scale`` times from the median of the other picked boxes (when there
    are at least two others), either way. After picking: only cards count."""
    out = np.asarray(picked, bool).copy()
    idx = np.nonzero(out)[0]
    if checks.scale is None or len(idx) < 3:
        return out
    heights = outline_sizes(quads[idx])[0]
    for k, i in enumerate(idx):
        others = np.median(np.delete(heights, k))
        ratio = heights[k] / max(float(others), 1e-6)
        if ratio > checks.scale or ratio < 1.0 / checks.scale:
            out[i] = False
    return out
