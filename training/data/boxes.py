"""The boxes the shipped localiser (and refiner) really propose, cut as the classifier's
crops and labelled: on realistic scenes by their overlap with the cards (a box on a card,
IoU >= 0.5, is that card; a box on none, IoU < 0.1, or one that spans two or more
cards' faces without sitting on either, is "not a card"; other half boxes are left
out), on scenes of Western playing cards (``training.data.western``) the same way, with
every box on a playing card "not a card", and on the real photographs (no hanafuda in
them) all "not a card". The face gate
(``training.stages.face_gate``) and the classifier round (``training.stages.real_round``)
learn from them."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from tqdm import tqdm

from scorer.vision.geometry import quad_iou, quad_to_rect, rect_to_quad
from training.data.real_photos import photo_views
from training.data.realistic import KINDS, realistic_scene, realistic_seed
from training.data.scenes import SEED_RANGES, get_library

NOT_A_CARD = 48
FACE_IOU = 0.5  # a box this close to a card (at least MIN_VISIBLE seen) holds its face
NO_CARD_IOU = 0.1  # a box this far from every card holds none
MIN_VISIBLE = 0.3
SPAN_IOU = 0.35  # a box below this IoU with every card that holds two cards' most
# visible points spans several cards: a pile's box, "not a card"
EXAMPLE_THRESHOLD = 0.1  # boxes are collected down to this localiser score: more, and
# more varied, than the few a tuned threshold lets through


BAND = (0.5, 0.8)  # a card this share visible is partly hidden: the read most often lost


@dataclass
class BoxCrops:
    """Crops (N,H,W,3) uint8 BGR with their classes (48: not a card), sources (a
    realistic kind, or "photo") and whether each is a box on a partly hidden card (its
    visible share within BAND)."""
    crops: np.ndarray
    labels: np.ndarray
    sources: np.ndarray
    band: np.ndarray

    def save(self, path) -> None:
        np.savez(path, crops=self.crops, labels=self.labels, sources=self.sources,
                 band=self.band)

    @classmethod
    def load(cls, path) -> "BoxCrops":
        with np.load(path) as z:
            return cls(z["crops"], z["labels"], z["sources"], z["band"])


def label_box(quad: np.ndarray, cards: list) -> int | None:
    """The class of a box ``quad`` among a scene's ``cards``: the card it sits on (IoU
    >= FACE_IOU), NOT_A_CARD when it sits on none (IoU < NO_CARD_IOU) or spans two or
    more cards' most visible points, else None (a half box, left out)."""
    seen = [c for c in cards if c.visible >= MIN_VISIBLE]
    best, cid = max(((quad_iou(quad, rect_to_quad(*quad_to_rect(c.quad))), c.class_id)
                     for c in seen), default=(0.0, NOT_A_CARD))
    if best >= FACE_IOU:
        return cid
    if best < NO_CARD_IOU:
        return NOT_A_CARD
    contour = quad.reshape(-1, 1, 2).astype(np.float32)
    inside = sum(cv2.pointPolygonTest(contour, (float(c.seen_at[0]), float(c.seen_at[1])),
                                      False) >= 0 for c in seen if c.seen_at is not None)
    return NOT_A_CARD if best < SPAN_IOU and inside >= 2 else None


def group_rects(quads: list, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` boxes (cx, cy, w, h, theta), each the least rectangle around 2-5 neighbouring
    cards of ``quads``, upright or upside down at random: a pile's box, which the
    localiser proposes now and then on real frames and the close-up path may read."""
    if len(quads) < 2:
        return np.zeros((0, 5), np.float32)
    centres = np.array([np.asarray(q).mean(0) for q in quads])
    rects = []
    for _ in range(n):
        i = int(rng.integers(len(quads)))
        k = int(rng.integers(2, min(5, len(quads)) + 1))
        near = np.argsort(np.linalg.norm(centres - centres[i], axis=1))[:k]
        pts = np.concatenate([np.asarray(quads[j], np.float32) for j in near])
        (cx, cy), (w, h), angle = cv2.minAreaRect(pts)
        theta = np.deg2rad(angle)
        if w > h:  # a card's box stands upright: its height the longer side
            w, h, theta = h, w, theta + np.pi / 2
        rects.append((cx, cy, w, h, theta + (np.pi if rng.random() < 0.5 else 0.0)))
    return np.array(rects, np.float32)


def boxes_of_scenes(detector, scenes, desc: str, groups: int = 0, seed: int = 0) -> BoxCrops:
    """The labelled boxes ``detector`` proposes on ``scenes`` (an iterable of (image,
    cards, source) or (image, cards, source, other cards' quads)), and ``groups`` boxes
    a scene around neighbouring cards (``group_rects``), kept when they are "not a
    card"."""
    crops, labels, sources, band = [], [], [], []
    rng = np.random.default_rng(seed)
    for img, cards, source, *others in tqdm(scenes, desc=desc, unit="scene", mininterval=5):
        rects, _ = detector.localise(img, threshold=EXAMPLE_THRESHOLD)
        proposed = len(rects)  # the rects past these are drawn around groups
        if groups:
            seen = [c.quad for c in cards if c.visible >= MIN_VISIBLE]
            made = group_rects(seen + list(others[0] if others else []), rng, groups)
            rects = np.concatenate([np.asarray(rects, np.float32).reshape(-1, 5), made])
        if not len(rects):
            continue
        visible = {c.class_id: c.visible for c in cards}
        quads, cut = detector.cut(img, rects)
        for i, (q, crop) in enumerate(zip(quads, cut)):
            label = label_box(q, cards)
            if label is not None and (i < proposed or label == NOT_A_CARD):
                crops.append(crop)
                labels.append(label)
                sources.append(source)
                band.append(label != NOT_A_CARD
                            and BAND[0] <= visible.get(label, 1.0) < BAND[1])
    return _record(crops, labels, sources, band)


def scene_crops(detector, art_dir, per_kind: int, sets=None, split: str = "train",
                offset: int = 0, variation=None, groups: int = 0) -> BoxCrops:
    """The boxes of ``per_kind`` realistic scenes of each kind of ``split`` (from
    ``offset`` within the split's seeds; ``variation``: training's additions, a
    ``SceneVariation``), labelled by their overlap with the cards; ``groups``: boxes
    around neighbouring cards a scene too (``boxes_of_scenes``)."""
    lib = get_library(art_dir)
    start = SEED_RANGES[split][0] + offset

    def scenes():
        for kind in KINDS:
            for k in range(per_kind):
                img, cards, _ = realistic_scene(lib, realistic_seed(start, kind, k), kind, sets,
                                                variation)
                yield img, cards, kind
    return boxes_of_scenes(detector, scenes(), f"boxes {split} realistic", groups)


def western_crops(detector, art_dir, per_kind: int, sets=None, split: str = "train",
                  photos: list | None = None, groups: int = 0) -> BoxCrops:
    """The boxes of ``per_kind`` scenes of each kind of Western playing cards
    (``training.data.western``) of ``split``, labelled as ``scene_crops``'s; ``photos``
    (real photographs of ``split``'s part) give court figures and tables."""
    from training.data.real_photos import crop_to
    from training.data.western import SEED_OFFSET, WESTERN_KINDS, western_scene
    lib = get_library(art_dir)
    start = SEED_RANGES[split][0] + SEED_OFFSET
    pictures = list(photos or [])

    def photo(rng, w, h, scale=(0.15, 0.6)):
        img = cv2.imread(str(pictures[int(rng.integers(len(pictures)))]), cv2.IMREAD_COLOR)
        return None if img is None else crop_to(img, rng, w, h, scale)

    def scenes():
        for i, kind in enumerate(WESTERN_KINDS):
            for k in range(per_kind):
                sc = western_scene(lib, start + i * 4_000 + k, kind, sets,
                                   picture=photo if pictures else None,
                                   table=(lambda r, w, h: photo(r, w, h, (0.75, 1.0)))
                                   if pictures else None)
                yield sc.image, sc.cards, kind, sc.western
    return boxes_of_scenes(detector, scenes(), f"boxes {split} western", groups)


def photo_crops(detector, photos: list, views: int = 0, seed: int = 0) -> BoxCrops:
    """Every box proposed on ``photos`` (no hanafuda in them), and on ``views`` other
    framings of each (``photo_views``): "not a card"."""
    crops = []
    rng = np.random.default_rng(seed)
    for path in tqdm(photos, desc="boxes photos", unit="photo", mininterval=5):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            continue
        for view in photo_views(img, rng, views):
            rects, _ = detector.localise(view, threshold=EXAMPLE_THRESHOLD)
            if len(rects):
                crops += list(detector.cut(view, rects)[1])
    n = len(crops)
    return _record(crops, [NOT_A_CARD] * n, ["photo"] * n, [False] * n)


def _record(crops: list, labels: list, sources: list, band: list) -> BoxCrops:
    return BoxCrops(np.stack(crops) if crops else np.zeros((0, 112, 72, 3), np.uint8),
                    np.array(labels, np.int64), np.array(sources, dtype=str),
                    np.array(band, bool))


def join(parts: list[BoxCrops]) -> BoxCrops:
    return BoxCrops(*(np.concatenate([getattr(p, f) for p in parts])
                      for f in ("crops", "labels", "sources", "band")))
