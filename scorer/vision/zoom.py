"""A second look at a close-up frame, zoomed out.

The localiser finds a card that fills much of the frame less surely than a card of a
pile: such a card is larger than most it was trained on, and is often cut by the frame's
edge. Seen again with a border around the frame (the frame's edges repeated), the same
card is smaller in the network's input and whole inside it, and the localiser scores it
higher, or finds it where it found nothing (on v6's validation close-ups, a border of a
quarter of each side lifted the close-up kinds' recall 0.928 -> 0.946 and 0.921 ->
0.974, `docs/history/v6-3-second-look.md`).

Only a frame where the first look holds a close-up box among at most ``MAX_OTHERS`` other
cards pays for the second look (a close-up box among many cards is a box across a pile:
on the benchmark's frames of 20 cards, 4 in 40 hold one, with 5-14 cards beside it, while
the close-up scenes hold 0-4), so a frame of a pile costs nothing more. Of the second
look's boxes only the close-ups are kept, and a box both looks find is the one with the
higher localiser score.

Off (None) unless the model's metadata (``zoom_out``) turns it on.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import cv2
import numpy as np

from scorer.vision.geometry import quad_iou, rect_to_quad

# a box of the second look overlapping one of the first this much is the same card
SAME_IOU = 0.5
# the most other cards a close-up frame holds: boxes no close-up, scored at least
# OTHER_SCORE (fixed, so that the tuning's candidates, read at lowered thresholds, see
# the second look where ``detect`` does)
MAX_OTHERS = 4
OTHER_SCORE = 0.4


@dataclass(frozen=True)
class ZoomOut:
    """The border around the frame, as a share of each side."""
    pad: float

    def to_config(self) -> dict:
        return asdict(self)

    def bordered(self, img: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
        """``img`` with the border (its edge pixels repeated), and the border's width
        and height in pixels (the frame's offset in the bordered image)."""
        h, w = img.shape[:2]
        px, py = int(round(w * self.pad)), int(round(h * self.pad))
        return cv2.copyMakeBorder(img, py, py, px, px, cv2.BORDER_REPLICATE), (px, py)


def wants_second_look(close_up: np.ndarray, scores: np.ndarray) -> bool:
    """Whether a frame is a close-up frame, from its first look's boxes (each at its
    threshold): a close-up box (``close_up``, a boolean mask) among at most
    ``MAX_OTHERS`` other boxes scored ``OTHER_SCORE`` or more."""
    close_up = np.asarray(close_up, bool)
    others = ~close_up & (np.asarray(scores) >= OTHER_SCORE)
    return bool(close_up.any()) and int(others.sum()) <= MAX_OTHERS


def merge(rects: np.ndarray, scores: np.ndarray, more: np.ndarray,
          more_scores: np.ndarray, iou: float = SAME_IOU) -> tuple[np.ndarray, np.ndarray]:
    """The rectangles (N,5: cx, cy, w, h, theta) of both looks, one per card: of a box of
    ``more`` and one of ``rects`` overlapping by more than ``iou``, the higher-scored."""
    if not len(more):
        return rects, scores
    quads = [rect_to_quad(*r) for r in rects]
    keep = np.ones(len(rects), bool)
    add = np.ones(len(more), bool)
    for j, r in enumerate(more):
        q = rect_to_quad(*r)
        for i in np.nonzero(keep)[0]:
            if quad_iou(q, quads[i]) > iou:
                if more_scores[j] > scores[i]:
                    keep[i] = False
                else:
                    add[j] = False
                    break
    return (np.concatenate([rects[keep], more[add]]).astype(np.float32),
            np.concatenate([scores[keep], more_scores[add]]).astype(np.float32))
