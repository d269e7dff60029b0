"""A deck's own partial views: each enrolled card's crop with part of it covered by another
card of the same deck, as a card of a pile is seen, and seen as a camera sees it (the box a
little off, smaller and enlarged again, blurred, its colours and noise varied). A profile
reads them once, when it is built, to learn how alike a half-hidden card of *this* deck
and *this* model looks to its enrolled card (``DeckProfile.floor``): the deck's rule then
refuses a box less alike than nearly all of them, whatever the model's similarities run
at. (Clean views, without the camera's look, set the floor so near the top that the rule
refused real cards; with it, the floor's share is a steadier 3% than a clean 0.1%.)"""

from __future__ import annotations

import cv2
import numpy as np

COVER = (0.1, 0.5)     # the share of the card covered (a required card is half visible)


def partial_views(crops: np.ndarray, per_card: int, seed: int = 0) -> np.ndarray:
    """(N * per_card, H, W, 3) views of ``crops`` (N, H, W, 3): each crop with another
    crop of the set laid over it from one side, covering ``COVER`` of it, slightly
    shifted across, light and contrast varied, and half of them turned 180 degrees."""
    n, h, w = crops.shape[:3]
    rng = np.random.default_rng(seed)
    out = np.empty((n * per_card, h, w, 3), np.uint8)
    for i in range(n):
        for k in range(per_card):
            view = crops[i].astype(np.float32)
            other = crops[(i + 1 + int(rng.integers(max(n - 1, 1)))) % n].astype(np.float32)
            cover = rng.uniform(*COVER)
            side = int(rng.integers(4))
            if side < 2:                                    # from the top or the bottom
                rows = max(int(round(cover * h)), 1)
                if side == 0:
                    view[:rows] = other[h - rows:]
                else:
                    view[h - rows:] = other[:rows]
            else:                                           # from the left or the right
                cols = max(int(round(cover * w)), 1)
                if side == 2:
                    view[:, :cols] = other[:, w - cols:]
                else:
                    view[:, w - cols:] = other[:, :cols]
            view = view * rng.uniform(0.8, 1.15) + rng.uniform(-15, 15)
            view = np.clip(view, 0, 255).astype(np.uint8)
            view = view[::-1, ::-1] if rng.random() < 0.5 else view
            out[i * per_card + k] = as_seen(np.ascontiguousarray(view), rng)
    return out


def as_seen(view: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``view`` (H, W, 3 uint8) as a camera's crop of it: the box shifted, turned and
    scaled a little, the card seen at 35-100% of the crop's size and enlarged again,
    sometimes blurred, with its colours and noise varied."""
    h, w = view.shape[:2]
    m = np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-4, 4),
                                           rng.uniform(0.93, 1.07)), np.float64)
    m[:, 2] += rng.uniform(-0.05, 0.05, 2) * np.array([w, h], np.float64)
    out = cv2.warpAffine(view, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    f = rng.uniform(0.35, 1.0)
    small = cv2.resize(out, (max(int(w * f), 8), max(int(h * f), 8)),
                       interpolation=cv2.INTER_AREA)
    out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.2))
    noisy = out.astype(np.float32) * rng.uniform(0.85, 1.15, 3) + \
        rng.normal(0, rng.uniform(1, 6), out.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)
