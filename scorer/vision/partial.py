"""A deck's own partial views: each enrolled card's crop with part of it covered by another
card of the same deck, as a card of a pile is seen. A profile embeds them once, when it is
built, to learn how alike a half-hidden card of *this* deck and *this* model looks to its
enrolled card (``DeckProfile.floor``): the deck's rule then refuses a box less alike than
nearly all of them, whatever the model's similarities run at."""

from __future__ import annotations

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
            out[i * per_card + k] = view[::-1, ::-1] if rng.random() < 0.5 else view
    return out
