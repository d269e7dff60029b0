"""The boxes the shipped localiser (and refiner) really propose, cut as the classifier's
crops and labelled: on realistic scenes by their overlap with the cards (a box on a card,
IoU >= 0.5, is that card; a box on none, IoU < 0.1, is "not a card"; half boxes are left
out), on the real photographs (no hanafuda in them) all "not a card". The face gate
(``training.stages.face_gate``) and the classifier round (``training.stages.real_round``)
learn from them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from scorer.vision.geometry import quad_iou, quad_to_rect, rect_to_quad
from training.data.realistic import KINDS, realistic_scene, realistic_seed
from training.data.scenes import SEED_RANGES, get_library

NOT_A_CARD = 48
FACE_IOU = 0.5  # a box this close to a card (at least MIN_VISIBLE seen) holds its face
NO_CARD_IOU = 0.1  # a box this far from every card holds none
MIN_VISIBLE = 0.3
EXAMPLE_THRESHOLD = 0.1  # boxes are collected down to this localiser score: more, and
# more varied, than the few a tuned threshold lets through


@dataclass
class BoxCrops:
    """Crops (N,H,W,3) uint8 BGR with their classes (48: not a card) and sources (a
    realistic kind, or "photo")."""
    crops: np.ndarray
    labels: np.ndarray
    sources: np.ndarray


def scene_crops(detector, art_dir, per_kind: int, sets=None, split: str = "train",
                offset: int = 0) -> BoxCrops:
    """The boxes of ``per_kind`` realistic scenes of each kind of ``split`` (from
    ``offset`` within the split's seeds), labelled by their overlap with the cards."""
    lib = get_library(art_dir)
    start = SEED_RANGES[split][0] + offset
    crops, labels, sources = [], [], []
    for kind in KINDS:
        for k in tqdm(range(per_kind), desc=f"boxes {split} {kind}", unit="scene",
                      mininterval=5):
            img, cards, _ = realistic_scene(lib, realistic_seed(start, kind, k), kind, sets)
            rects, _ = detector.localise(img, threshold=EXAMPLE_THRESHOLD)
            if not len(rects):
                continue
            quads, cut = detector.cut(img, rects)
            truth = [(rect_to_quad(*quad_to_rect(c.quad)), c.class_id) for c in cards
                     if c.visible >= MIN_VISIBLE]
            for q, crop in zip(quads, cut):
                best, cid = max(((quad_iou(q, t), i) for t, i in truth),
                                default=(0.0, NOT_A_CARD))
                if best >= FACE_IOU or best < NO_CARD_IOU:
                    crops.append(crop)
                    labels.append(cid if best >= FACE_IOU else NOT_A_CARD)
                    sources.append(kind)
    return _record(crops, labels, sources)


def photo_crops(detector, photos: list) -> BoxCrops:
    """Every box proposed on ``photos`` (no hanafuda in them): "not a card"."""
    import cv2
    crops = []
    for path in tqdm(photos, desc="boxes photos", unit="photo", mininterval=5):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            continue
        rects, _ = detector.localise(img, threshold=EXAMPLE_THRESHOLD)
        if len(rects):
            crops += list(detector.cut(img, rects)[1])
    return _record(crops, [NOT_A_CARD] * len(crops), ["photo"] * len(crops))


def _record(crops: list, labels: list, sources: list) -> BoxCrops:
    return BoxCrops(np.stack(crops) if crops else np.zeros((0, 112, 72, 3), np.uint8),
                    np.array(labels, np.int64), np.array(sources, dtype=str))


def join(parts: list[BoxCrops]) -> BoxCrops:
    return BoxCrops(np.concatenate([p.crops for p in parts]),
                    np.concatenate([p.labels for p in parts]),
                    np.concatenate([p.sources for p in parts]))
