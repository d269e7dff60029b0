"""Card detection with onnxruntime: a class-agnostic card localiser (CenterNet-style,
finds each card's centre, size and axis) and a 48-card classifier on each rectified,
upright crop (plus a "not a card" class).

The localiser file's ONNX metadata names its classifier file (same folder) and the
thresholds; ``default_model_path()`` is the shipped localiser.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from scorer.cards import DECK
from scorer.errors import InputError
from scorer.vision.detections import NUM_CARDS, Detections
from scorer.vision.image import decode_image
from scorer.vision.geometry import (CROP_H, CROP_W, apply_deltas, context_crop, quad_iou,
                                    edge_orientation_field, rect_to_quad, rectify,
                                    refine_angles)

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
DEFAULT_MODEL = "hanafuda-localiser.onnx"
# the largest correction the box refiner may make in one pass: u, v (box widths and
# heights), log width, log height, angle (radians)
DELTA_LIMIT = np.array([0.4, 0.3, 0.4, 0.4, 0.4], np.float32)


def default_model_path() -> Path:
    return MODELS_DIR / DEFAULT_MODEL


class CardDetector(Protocol):
    """What the web, the enrolment and the deck profiles need of a detector:
    ``Detector`` implements it, and so do the test doubles (``tests/fakes.py``)."""

    model_path: Any
    crop_w: int                 # the classifier's crop, in pixels
    crop_h: int
    useful_side: int            # the longest image side the detector can use

    @property
    def has_embedding(self) -> bool: ...

    def detect(self, img: np.ndarray, decode_ms: float = 0.0, profile: Any = None,
               crops: bool = False) -> Detections: ...

    def embed(self, crops: np.ndarray) -> np.ndarray | None: ...


class Detector:
    """One onnxruntime session per network, created once; ``detect`` is thread-safe."""

    def __init__(self, model_path: str | Path | None = None, threads: int = 2,
                 tta: bool | None = None, tta_below: float | None = None,
                 refiner: bool = True):
        """``tta``: also classify each crop turned 180 degrees and average (default: the
        model's metadata); ``tta_below``: only the crops whose likeliest class has at most
        this probability (default: the model's metadata, else 1.0: every crop), so the
        extra work goes where the classifier is unsure."""
        import onnxruntime as ort

        path = Path(model_path) if model_path else default_model_path()
        if not path.is_file():
            raise InputError(f"model file not found: {path}")
        self.model_path = path
        so = ort.SessionOptions()
        so.intra_op_num_threads = max(int(threads), 1)
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # three sessions run one after another: a pool left spinning after its run would
        # take the cores from the next one
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.loc = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise InputError(f"cannot load model {path}: {exc}".splitlines()[0]) from exc
        meta = self.loc.get_modelmeta().custom_metadata_map
        cfg = json.loads(meta.get("hanafuda", "{}"))
        self.cfg = cfg
        cls_path = path.parent / cfg.get("classifier", path.name.replace("localiser", "classifier"))
        if not cls_path.is_file():
            raise InputError(f"classifier model not found beside {path.name}: {cls_path.name}")
        self.cls = ort.InferenceSession(str(cls_path), so, providers=["CPUExecutionProvider"])
        self.classifier_path = cls_path
        self.ref = self.refiner_path = None
        ref_name = cfg.get("refiner")
        if refiner and ref_name:
            self.refiner_path = path.parent / ref_name
            if not self.refiner_path.is_file():
                raise InputError(f"box refiner not found beside {path.name}: {ref_name}")
            self.ref = ort.InferenceSession(str(self.refiner_path), so,
                                            providers=["CPUExecutionProvider"])
        self.refine_passes = int(cfg.get("refine_passes", 1))
        shape = self.loc.get_inputs()[0].shape
        self.in_h, self.in_w = int(shape[2]), int(shape[3])
        self.stride = int(cfg.get("stride", 4))
        self.loc_threshold = float(cfg.get("loc_threshold", 0.3))
        self.cls_threshold = float(cfg.get("cls_threshold", 0.3))
        self.nms_iou = float(cfg.get("nms_iou", 0.5))
        # boxes that still overlap this much after refinement are one card (None: off)
        self.overlap_iou = cfg.get("overlap_iou")
        self.large_box = float(cfg.get("large_box", 1.0))
        self.large_threshold = float(cfg.get("large_threshold", self.loc_threshold))
        self.tta = bool(cfg.get("tta", True)) if tta is None else bool(tta)
        self.tta_below = float(cfg.get("tta_below", 1.0)) if tta_below is None \
            else float(tta_below)
        self.snap_angles = bool(cfg.get("refine_angles", True))
        self.max_cards = int(cfg.get("max_cards", 60))
        self.crop_w, self.crop_h = int(cfg.get("crop_w", CROP_W)), int(cfg.get("crop_h", CROP_H))

    # ------------------------------------------------------------------ stages
    def localise(self, img: np.ndarray):
        """Card rectangles in image pixels: (rects (N,5) cx,cy,w,h,theta; scores (N,))."""
        h, w = img.shape[:2]
        s = min(self.in_w / w, self.in_h / h)
        nw, nh = max(int(round(w * s)), 1), max(int(round(h * s)), 1)
        small = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
        canvas = np.zeros((self.in_h, self.in_w, 3), np.uint8)
        canvas[:nh, :nw] = small
        if nw < self.in_w:
            canvas[:, nw:] = canvas[:, nw - 1:nw]
        if nh < self.in_h:
            canvas[nh:] = canvas[nh - 1:nh]
        x = canvas[..., ::-1].transpose(2, 0, 1)[None].astype(np.float32)
        out = self.loc.run(None, {self.loc.get_inputs()[0].name: x})[0][0]
        heat = 1.0 / (1.0 + np.exp(-out[0]))
        lowest = min(self.loc_threshold, self.large_threshold)
        peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= lowest)
        ys, xs = np.nonzero(peaks)
        scores = heat[ys, xs]
        order = np.argsort(-scores)[: self.max_cards]
        ys, xs, scores = ys[order], xs[order], scores[order]
        st = self.stride
        cx = (xs + out[5, ys, xs] + 0.5) * st / s
        cy = (ys + out[6, ys, xs] + 0.5) * st / s
        cw = np.exp(np.clip(out[1, ys, xs], -3, 6)) * st / s
        ch = np.exp(np.clip(out[2, ys, xs], -3, 6)) * st / s
        th = 0.5 * np.arctan2(out[4, ys, xs], out[3, ys, xs])
        rects = np.stack([cx, cy, cw, ch, th], 1).astype(np.float32)
        valid = (cw > 2) & (ch > 2)
        valid &= scores >= self.box_thresholds(np.maximum(cw, ch), h)
        rects, scores = rects[valid], scores[valid]
        if len(rects) > 1:
            rr = [((float(r[0]), float(r[1])), (float(r[2]), float(r[3])),
                   float(math.degrees(r[4]))) for r in rects]
            kept = cv2.dnn.NMSBoxesRotated(rr, scores.astype(np.float32).tolist(),
                                           lowest, self.nms_iou)
            keep = np.array(kept, int).reshape(-1)
            rects, scores = rects[keep], scores[keep]
        if len(rects) > 1:
            keep = _drop_contained(rects, scores)
            rects, scores = rects[keep], scores[keep]
        if len(rects) and self.snap_angles:
            rects = self._snap_angles(img, rects)
        if len(rects) and self.ref is not None:
            for _ in range(self.refine_passes):
                rects = self.refine_boxes(img, rects)
        return rects, scores

    def box_thresholds(self, heights: np.ndarray, frame_h: int) -> np.ndarray:
        """The localiser score each box needs: a card filling much of the frame (a
        close-up) peaks lower than a card of a pile, so boxes at least ``large_box`` of
        the frame's height tall need only ``large_threshold``."""
        heights = np.asarray(heights, np.float32)
        return np.where(heights >= self.large_box * frame_h, self.large_threshold,
                        self.loc_threshold).astype(np.float32)

    def refine_boxes(self, img: np.ndarray, rects: np.ndarray) -> np.ndarray:
        """One pass of the box refiner: each box corrected by the network's delta (the
        boxes unchanged without a refiner)."""
        if self.ref is None:
            return rects
        x = self.as_input(np.stack([context_crop(img, r) for r in rects]))
        d = self.ref.run(None, {self.ref.get_inputs()[0].name: np.ascontiguousarray(x)})[0]
        d = np.clip(d, -DELTA_LIMIT, DELTA_LIMIT)
        out = apply_deltas(rects, d).astype(np.float32)
        ok = (out[:, 2] > 2) & (out[:, 3] > 2)
        return np.where(ok[:, None], out, rects)

    def _snap_angles(self, img: np.ndarray, rects: np.ndarray) -> np.ndarray:
        """Snap each card's angle to the edges along its outline (the network's angle is
        the least precise of its outputs), on an image of at most ~0.5 megapixels."""
        h, w = img.shape[:2]
        f = min(1.0, math.sqrt(520_000 / (h * w)))
        small = img if f >= 1.0 else cv2.resize(img, (int(w * f), int(h * f)),
                                                  interpolation=cv2.INTER_AREA)
        r = rects.copy()
        r[:, :4] *= f
        r = refine_angles(edge_orientation_field(small), r)
        out = rects.copy()
        out[:, 4] = r[:, 4]
        return out

    def cut(self, img: np.ndarray, rects: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Card quads (N,4,2) and the classifier's rectified crops (N,H,W,3) of ``rects``."""
        quads = np.stack([rect_to_quad(*r) for r in rects])
        return quads, np.stack([rectify(img, q, self.crop_w, self.crop_h) for q in quads])

    def classify(self, crops: np.ndarray) -> np.ndarray:
        """(N,H,W,3) uint8 BGR upright-or-upside-down crops -> (N,49) probabilities."""
        return self.classify_embed(crops, embed=False)[0]

    def classify_embed(self, crops: np.ndarray, embed: bool = True):
        """``classify``'s probabilities and, from the same run, the crops' embeddings
        (None when not asked for or when the classifier has none)."""
        x = self.as_input(crops)
        emb = None
        if embed and self.has_embedding:
            p, emb = self.cls.run(["probs", "embedding"], {self.cls.get_inputs()[0].name:
                                                           np.ascontiguousarray(x)})
        else:
            p = self._run_classifier(x)
        if self.tta:
            unsure = np.nonzero(p.max(1) <= self.tta_below)[0]
            if len(unsure):
                p[unsure] = 0.5 * (p[unsure] + self._run_classifier(x[unsure][:, :, ::-1, ::-1]))
        return p, emb

    @property
    def has_embedding(self) -> bool:
        """Whether the classifier also outputs card embeddings (deck profiles need them)."""
        return "embedding" in {o.name for o in self.cls.get_outputs()}

    @staticmethod
    def as_input(crops: np.ndarray) -> np.ndarray:
        """(N,H,W,3) uint8 BGR crops -> the networks' (N,3,H,W) float RGB input."""
        return crops[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32)

    def _run_classifier(self, x: np.ndarray) -> np.ndarray:
        return self.cls.run(["probs"], {self.cls.get_inputs()[0].name:
                                        np.ascontiguousarray(x)})[0]

    def embed(self, crops: np.ndarray) -> np.ndarray | None:
        """(N,H,W,3) uint8 BGR upright crops -> (N,D) L2-normalised card embeddings, or
        None for a classifier exported without an ``embedding`` output (``has_embedding``
        is False: it cannot read with a deck profile)."""
        if not self.has_embedding:
            return None
        return self.cls.run(["embedding"], {self.cls.get_inputs()[0].name:
                                            np.ascontiguousarray(self.as_input(crops))})[0]

    @property
    def useful_side(self) -> int:
        """The longest image side worth decoding: the smallest card the localiser finds
        (about 40 px tall in its input) is then still cut at the classifier's crop height,
        so a frame decoded smaller than its stored size reads the same."""
        return int(math.ceil(max(self.in_w, self.in_h) * self.crop_h / 40))

    def candidates(self, img: np.ndarray, profile=None, crops: bool = False) -> Detections:
        """Every box the localiser finds at or above its threshold, classified (with
        ``probs``, blended with ``profile``'s, a ``scorer.vision.profile.DeckProfile``,
        when given); ``select_cards`` picks the cards from these."""
        rects, scores = self.localise(_checked(img))
        return self._classify_boxes(img, rects, scores, profile=profile, keep_crops=crops)

    def _classify_boxes(self, img: np.ndarray, rects: np.ndarray, scores: np.ndarray,
                        profile=None, keep_crops: bool = False) -> Detections:
        size = (img.shape[1], img.shape[0])
        if not len(rects):
            return Detections.from_quads(np.zeros((0, 4, 2), np.float32), np.zeros(0),
                                         np.zeros((0, NUM_CARDS + 1), np.float32), size)
        quads, crops = self.cut(img, rects)
        if profile is None:
            probs = self.classify(crops)
        else:
            probs = profile.adjust(*self.classify_embed(crops))
        return Detections.from_quads(quads, scores, probs, size,
                                     crops if keep_crops else None)

    def pick(self, found: Detections) -> np.ndarray:
        """The boolean mask of the candidates ``detect`` keeps as cards."""
        if found.probs is None:
            raise ValueError("candidates without probs (Detections.probs) cannot be picked")
        return select_cards(found.loc_score, found.probs,
                            self.box_thresholds(found.heights(), found.image_size[1]),
                            self.cls_threshold, found.quads, self.overlap_iou)

    def detect(self, img: np.ndarray, decode_ms: float = 0.0, profile=None,
               crops: bool = False) -> Detections:
        """The cards in ``img``, in deck order; ``profile``: a deck profile to read them
        with; ``crops``: keep each card's classifier crop (``Detections.crops``)."""
        t0 = time.perf_counter()
        rects, scores = self.localise(_checked(img))
        t1 = time.perf_counter()
        found = self._classify_boxes(img, rects, scores, profile, crops)
        cards = found[self.pick(found)]
        order = sorted(range(len(cards)), key=lambda i: (DECK[cards.class_id[i]].month,
                                                          DECK[cards.class_id[i]].index))
        det = cards[np.array(order, np.int64)]
        t2 = time.perf_counter()
        det.timings = {"decode": round(decode_ms, 2), "localise": round((t1 - t0) * 1e3, 2),
                       "classify": round((t2 - t1) * 1e3, 2),
                       "infer": round((t2 - t0) * 1e3, 2),
                       "total": round(decode_ms + (t2 - t0) * 1e3, 2)}
        return det

    def detect_bytes(self, data: bytes, profile=None) -> Detections:
        t0 = time.perf_counter()
        img = decode_image(data)
        return self.detect(img, decode_ms=(time.perf_counter() - t0) * 1e3, profile=profile)


def _checked(img: np.ndarray) -> np.ndarray:
    if img is None or img.ndim != 3 or img.shape[2] != 3:
        raise InputError("expected a BGR colour image")
    return img


def _drop_contained(rects: np.ndarray, scores: np.ndarray, area_ratio: float = 0.6):
    """Indices to keep: a weaker detection whose centre lies inside a stronger one and
    whose area is much smaller is a part of that card (cards of one deck, seen from one
    camera, are about the same size)."""
    order = np.argsort(-scores)
    areas = rects[:, 2] * rects[:, 3]
    keep: list[int] = []
    for i in order:
        inside = False
        for j in keep:
            if areas[i] >= area_ratio * areas[j]:
                continue
            cx, cy, w, h, th = rects[j]
            dx, dy = rects[i, 0] - cx, rects[i, 1] - cy
            u = dx * math.cos(th) + dy * math.sin(th)
            v = -dx * math.sin(th) + dy * math.cos(th)
            if abs(u) <= w / 2 and abs(v) <= h / 2:
                inside = True
                break
        if not inside:
            keep.append(i)
    return np.array(sorted(keep, key=lambda k: -scores[k]), int)


def select_cards(loc_score: np.ndarray, probs: np.ndarray, loc_threshold: float | np.ndarray,
                 cls_threshold: float, quads: np.ndarray | None = None,
                 overlap_iou: float | None = None) -> np.ndarray:
    """The boxes that are cards, as a boolean mask over the candidates (their class is
    each row's likeliest: ``probs.argmax(1)``).

    A box is kept when its localiser score and its likeliest card's probability reach
    the thresholds and that card is not "not a card". A physical deck holds each card
    once, so a card claimed by several boxes goes to the likeliest of them and the
    others are dropped. (Giving those boxes their next-likeliest card instead, as the
    first four model pairs did, scored validation F1 0.836 against 0.854 for dropping
    them: the second guess was mostly wrong.) With ``quads`` and ``overlap_iou``, a box
    that overlaps an already kept, likelier box by more than that IoU is the same
    physical card seen twice and is dropped too."""
    mask = np.zeros(len(probs), bool)
    if not len(probs):
        return mask
    cls = probs.argmax(1)
    conf = probs[np.arange(len(cls)), cls]
    idx = np.nonzero((loc_score >= loc_threshold) & (cls < NUM_CARDS) &
                     (conf >= cls_threshold))[0]
    idx = idx[np.argsort(-conf[idx], kind="stable")]
    kept: list[int] = []
    taken: set[int] = set()
    for i in idx:
        if int(cls[i]) in taken:
            continue
        if overlap_iou is not None and quads is not None and any(
                quad_iou(quads[i], quads[j]) > overlap_iou for j in kept):
            continue
        kept.append(int(i))
        taken.add(int(cls[i]))
    mask[kept] = True
    return mask
