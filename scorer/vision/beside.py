"""A card among cards: a second, lower localiser threshold for boxes beside the cards.

On a pile the localiser scores a partly hidden card, or the card on top of a stack, lower
than a card lying alone: many such cards sit under the localiser threshold while the
classifier reads them surely. A second pair of thresholds would keep them, and also keep
the things on a table the classifier reads surely at a low localiser score (the deck's
box printed with a card, a coin, a die). Those lie apart from the cards; the cards the
pair should win back lie in the pile. So a box below the localiser threshold is a card
when its localiser score reaches ``loc_threshold``, its likeliest card's probability
reaches ``cls_threshold``, it is no close-up, and its centre lies within ``distance``
card heights (the median long side of the cards kept) of a card already kept.

Off (None) unless the model's metadata (``beside``) turns it on; the training's tuning
chooses it on validation scenes, after the thresholds and the card checks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from scorer.vision.geometry import long_sides, quad_iou, rect_long_sides

# a weaker box that overlaps a strong one this much once both are refined is that card
# again, and is not classified (on v6's validation candidates none such was a card won)
REPEAT_IOU = 0.4


@dataclass(frozen=True)
class Beside:
    """The second pair's thresholds and how near a kept card a box must lie."""
    loc_threshold: float
    cls_threshold: float
    distance: float

    def to_config(self) -> dict:
        return asdict(self)


def near(centres: np.ndarray, anchors: np.ndarray, height: float,
         distance: float) -> np.ndarray:
    """(N,) bool: which ``centres`` (N,2) lie within ``distance`` x ``height`` of one of
    the ``anchors`` (M,2); none when there are no anchors."""
    if not len(anchors) or not len(centres):
        return np.zeros(len(centres), bool)
    d = np.linalg.norm(centres[:, None, :] - anchors[None, :, :], axis=2).min(1)
    return d <= distance * height


def beside_boxes(loc_score: np.ndarray, probs: np.ndarray, loc_threshold: np.ndarray,
                 close_up: np.ndarray, quads: np.ndarray, kept: np.ndarray,
                 rule: Beside) -> np.ndarray:
    """(N,) bool: the boxes under their own localiser threshold (``loc_threshold``, per
    box) that the rule makes eligible beside the ``kept`` cards (a boolean mask): at
    least the rule's localiser score, their likeliest card at least its classifier
    threshold, no close-up, near a kept card. Whether each is a card (not "not a card",
    through the face gate, not a card already kept) is ``select_cards``'s to say, at the
    rule's thresholds for these boxes."""
    kept = np.asarray(kept, bool)
    if not kept.any():
        return np.zeros(len(loc_score), bool)
    conf = probs.max(1)
    low = (loc_score < loc_threshold) & (loc_score >= rule.loc_threshold) & \
        (conf >= rule.cls_threshold) & ~close_up
    if not low.any():
        return low
    centres = quads.mean(axis=1)
    height = float(np.median(long_sides(quads[kept])))
    return low & near(centres, centres[kept], height, rule.distance)


def worth_reading(rects: np.ndarray, strong: np.ndarray, rule: Beside) -> np.ndarray:
    """(N,) bool over the localiser's rectangles (N,5: cx, cy, w, h, theta): the strong
    ones (a boolean mask: at their own threshold) and the weaker ones near a strong one
    (within ``distance`` of the strong boxes' median long side): the boxes worth
    refining and classifying. (Each box is only read where a card could be kept beside
    it: reading every weak box cost 1.10x the frame time on the benchmark's frames.)"""
    out = np.asarray(strong, bool).copy()
    if not out.any() or out.all():
        return out
    height = float(np.median(rect_long_sides(rects[out])))
    out |= near(rects[:, :2], rects[out, :2], height, rule.distance)
    return out


def repeats(quads: np.ndarray, strong: np.ndarray, iou: float = REPEAT_IOU) -> np.ndarray:
    """(N,) bool: the weaker boxes (not ``strong``) whose refined quad overlaps a strong
    one's by more than ``iou``: the same card again, not worth classifying."""
    strong = np.asarray(strong, bool)
    out = np.zeros(len(quads), bool)
    anchors = quads[strong]
    for i in np.nonzero(~strong)[0]:
        out[i] = any(quad_iou(quads[i], a) > iou for a in anchors)
    return out
