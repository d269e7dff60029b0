"""Which boxes a frame's classifier reads: the localiser's at its thresholds (with the
second, zoomed-out look on a close-up frame and the beside rule's weaker boxes near the
strong ones), and the weaker boxes the weak readings and an enrolled deck read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from scorer.vision.beside import repeats, worth_reading
from scorer.vision.decision import WEAK_IOU
from scorer.vision.geometry import quad_iou, rect_long_sides, rect_to_quad
from scorer.vision.settings import DetectionSettings
from scorer.vision.stages import Localiser
from scorer.vision.zoom import merge, wants_second_look

Refine = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass
class FoundBoxes:
    """The boxes a frame's classifier reads: the localiser's rectangles (``raw``), the
    same refined (``rects``) and their ``scores``; and the weaker rectangles the beside
    rule's threshold found but did not read, far from the strong ones (``spare``, with
    ``spare_scores``; decoded down to ``spare_threshold``, None: none decoded)."""
    raw: np.ndarray
    rects: np.ndarray
    scores: np.ndarray
    spare: np.ndarray
    spare_scores: np.ndarray
    spare_threshold: float | None = None


def found_boxes(localiser: Localiser, refine: Refine, s: DetectionSettings, img: np.ndarray,
                maps: tuple[np.ndarray, float]) -> FoundBoxes:
    """The boxes to read: at the localiser's thresholds, on a close-up frame with the
    second look's close-ups (``scorer.vision.zoom``), and with the ``beside`` rule the
    weaker boxes near them that do not repeat one once refined (``scorer.vision.beside``)."""
    threshold = None if s.beside is None else s.beside.loc_threshold
    raw, scores = localiser.decode(img, maps, threshold)
    if s.zoom_out is not None and len(raw):
        heights = rect_long_sides(raw)
        close_up = s.close_ups(heights, img.shape[0]) & \
            (scores >= s.box_thresholds(heights, img.shape[0]))
        if wants_second_look(close_up, scores):
            raw, scores = merge(raw, scores, *localiser.zoomed_out(img, s.zoom_out, threshold))
    if s.beside is None:
        return FoundBoxes(raw, refine(img, raw), scores, raw[:0], scores[:0])
    strong = scores >= s.box_thresholds(rect_long_sides(raw), img.shape[0])
    keep = worth_reading(raw, strong, s.beside)
    spare, spare_scores = raw[~keep], scores[~keep]
    raw, scores, strong = raw[keep], scores[keep], strong[keep]
    rects = refine(img, raw)
    if len(rects):
        keep = ~repeats(np.stack([rect_to_quad(*r) for r in rects]), strong)
        raw, rects, scores = raw[keep], rects[keep], scores[keep]
    return FoundBoxes(raw, rects, scores, spare, spare_scores, threshold)


def weaker_boxes(localiser: Localiser, s: DetectionSettings, img: np.ndarray,
                 maps: tuple[np.ndarray, float], found: FoundBoxes, cards: np.ndarray,
                 threshold: float, most: int, sizes: tuple[float, float] | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The rectangles (N,5) the localiser finds at ``threshold`` beyond the boxes ``found``
    read and off the cards' quads ``cards`` (IoU over ``WEAK_IOU``), the ``most``
    best-scored, and their scores: a frame of many faint peaks costs at most that many
    boxes more. ``sizes``: only boxes whose long side lies in (low, high) pixels. Where
    ``found`` decoded down to ``threshold`` already, its spare boxes, without a second
    decode."""
    if found.spare_threshold is not None and found.spare_threshold <= threshold:
        keep = found.spare_scores >= threshold
        rects, scores = found.spare[keep], found.spare_scores[keep]
    else:
        rects, scores = localiser.decode(img, maps, threshold)
    return off_cards(rects, scores, found.raw, s.nms_iou, cards, most, sizes)


def off_cards(rects: np.ndarray, scores: np.ndarray, raw: np.ndarray, nms_iou: float,
              cards: np.ndarray, most: int, sizes: tuple[float, float] | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
    """Of ``rects`` and their ``scores``: those not on a box of ``raw`` (IoU over
    ``nms_iou``) nor on a card's quad (``cards``, IoU over ``WEAK_IOU``), of the ``sizes``
    when given, the ``most`` best-scored."""
    if sizes is not None and len(rects):
        long = rect_long_sides(rects)
        keep = (long >= sizes[0]) & (long <= sizes[1])
        rects, scores = rects[keep], scores[keep]
    quads = [rect_to_quad(*r) for r in rects]
    known = [rect_to_quad(*r) for r in raw]
    new = [i for i, q in enumerate(quads)
           if not any(quad_iou(q, k) > nms_iou for k in known)
           and not any(quad_iou(q, c) > WEAK_IOU for c in cards)]
    keep = np.array(sorted(new, key=lambda i: -float(scores[i]))[:most], np.int64)
    return rects[keep], scores[keep]
