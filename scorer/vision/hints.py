"""Advice on framing a photo: how well a card is read depends on how many pixels it gets.

Measured on validation scenes (``python -m training ceiling``, which a new model reruns),
the classifier names 97% of the cards 40-60 px tall from their true boxes, but 85% of
those 30-40 px tall and 76% of those under 30 px. So when the cards in a frame are mostly
under 40 px, the user is told to come closer.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median

import numpy as np

SMALL_CARD_PX = 40.0


def card_height_px(card: dict) -> float:
    """A detected card's long side in pixels: from its ``quad`` when it has one (a turned
    card's box is larger than the card), else from its ``box``."""
    quad = card.get("quad")
    if quad is not None and len(quad) == 4:
        q = np.asarray(quad, np.float64)
        sides = np.hypot(*(np.roll(q, -1, 0) - q).T)
        return float(max(sides[0] + sides[2], sides[1] + sides[3]) / 2)
    x0, y0, x1, y1 = card["box"]
    return float(max(x1 - x0, y1 - y0))


def framing_hints(cards: Sequence[dict]) -> list[str]:
    """Hints for the user about one frame's detected cards (``Detections.to_cards()``
    records); empty when there is nothing to say."""
    if not cards:
        return []
    h = median(card_height_px(c) for c in cards)
    if h < SMALL_CARD_PX:
        return [f"the cards are small in the picture (about {h:.0f} px tall; under "
                f"{SMALL_CARD_PX:.0f} px many are misread): move the camera closer or use "
                f"a higher resolution"]
    return []
