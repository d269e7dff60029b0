"""Card detection with onnxruntime: ``Detector`` composes the three stages of
``scorer.vision.stages``: the ``Localiser`` finds each card (centre, size and axis), the
``Refiner`` corrects its box, and the ``Classifier`` reads each rectified, upright crop as
one of the 48 cards (plus a "not a card" class). ``select_cards`` picks the cards; with
the model's ``beside`` rule (``scorer.vision.beside``), a box under the localiser's
threshold that is read surely beside a card kept is a card too. With the model's
``zoom_out`` look (``scorer.vision.zoom``), a frame holding a close-up is looked at
again with a border around it, for the close-ups the first look scored low or missed.

The localiser file's ONNX metadata names its classifier and refiner files (same folder)
and the thresholds; ``default_model_path()`` is the shipped localiser.

``detect(img, weak=True)`` (the live camera's frames) also returns the *weak* readings:
boxes below the still thresholds (the localiser's down to ``weak_loc_threshold``, the
classifier's down to ``weak_cls_threshold``, both in the metadata) that the networks still
read as a card no box of the cards claims, marked ``Detections.sure`` False. One frame's
weak reading is never a card; the live tracker (``scorer.tracking``) lets a card read the
same way in most frames join the pile unsure.

``follow(img, quads)`` (the live camera's frames between the localiser's, issue 51): the
cards of the page's tracks, each outline refined once on the new frame and classified,
without the localiser; ``detect`` is unchanged.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from scorer.cards import DECK
from scorer.errors import InputError
from scorer.vision.beside import Beside, beside_boxes, repeats, worth_reading
from scorer.vision.card_checks import CardChecks, on_scale, shaped_like_cards
from scorer.vision.confidence import ConfidenceMap
from scorer.vision.cpu import cpu_flags, fast_int8_is_exact
from scorer.vision.detections import NUM_CARDS, Detections
from scorer.vision.edgefit import fit_edges
from scorer.vision.follow import lost
from scorer.vision.gate import FaceGate
from scorer.vision.geometry import (quad_iou, quad_to_rect, rect_long_sides, rect_to_quad,
                                    rectify)
from scorer.vision.stages import Classifier, Localiser, Refiner
from scorer.vision.zoom import ZoomOut, merge, wants_second_look

__all__ = ["CardDetector", "Detector", "Detections", "default_model_path", "select_cards"]

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
DEFAULT_MODEL = "hanafuda-localiser.onnx"
WEAK_IOU = 0.3      # a weak box overlapping a card's (or a surer weak box's) this much is it
WEAK_MAX = 12       # the most weak boxes a frame refines and reads (the best-scored first):
                    # a frame of many faint peaks costs at most this many boxes more


def default_model_path() -> Path:
    return MODELS_DIR / DEFAULT_MODEL


class CardDetector(Protocol):
    """What the web, the enrolment and the deck profiles need of a detector:
    ``Detector`` implements it, and so do the test doubles (``support/fakes.py``)."""

    model_path: Any
    classifier_path: Any        # the classifier's file (what a profile's embeddings are of)
    crop_w: int                 # the classifier's crop, in pixels
    crop_h: int
    useful_side: int            # the longest image side the detector can use

    @property
    def has_embedding(self) -> bool: ...

    def detect(self, img: np.ndarray, profile: Any = None, crops: bool = False,
               weak: bool = False) -> Detections: ...

    def embed(self, crops: np.ndarray) -> np.ndarray | None: ...


class Detector:
    """The three stages, one onnxruntime session each, created once; ``detect`` is
    thread-safe."""

    def __init__(self, model_path: str | Path | None = None, threads: int = 2,
                 tta: bool | None = None, tta_below: float | None = None,
                 refiner: bool = True, edge_fit: bool | None = None,
                 precise_int8: bool | None = None):
        """``tta``, ``tta_below``: the classifier's test-time augmentation (see
        ``Classifier``; default: the model's metadata); ``refiner``: use the box refiner
        when the model has one; ``edge_fit``: repair boxes of the wrong aspect from the
        card's edges after the refiner (``scorer.vision.edgefit``; default: the model's
        metadata, ``edge_fit``, off when it does not say); ``precise_int8``: the int8
        layers' products through onnxruntime's precise path (``scorer.vision.stages.
        session``; default: where this CPU's fast products are not exact, as
        ``scorer.vision.cpu`` reads it once here)."""
        path = Path(model_path) if model_path else default_model_path()
        if not path.is_file():
            raise InputError(f"model file not found: {path}")
        self.model_path = path
        self.precise_int8 = not fast_int8_is_exact(cpu_flags()) if precise_int8 is None \
            else bool(precise_int8)
        self.localiser = Localiser(path, threads, self.precise_int8)
        cfg = self.cfg = self.localiser.cfg
        cls_path = path.parent / cfg.get("classifier", path.name.replace("localiser", "classifier"))
        if not cls_path.is_file():
            raise InputError(f"classifier model not found beside {path.name}: {cls_path.name}")
        self.classifier = Classifier(cls_path, cfg, threads, tta, tta_below, self.precise_int8)
        self.refiner: Refiner | None = None
        ref_name = cfg.get("refiner")
        if refiner and ref_name:
            if not (path.parent / ref_name).is_file():
                raise InputError(f"box refiner not found beside {path.name}: {ref_name}")
            self.refiner = Refiner(path.parent / ref_name, int(cfg.get("refine_passes", 1)),
                                   threads, self.precise_int8)
        self.edge_fit = bool(cfg.get("edge_fit", False)) if edge_fit is None else edge_fit
        # the refiner's passes on a followed outline (``follow``): detect's (measured on
        # bench/capture_fixes.py --every 2: one pass lost more cards, 4.25 fixes a pile
        # against 4.12 for two)
        self.follow_passes = int(cfg.get("follow_passes", cfg.get("refine_passes", 1)))
        self.cls_threshold = float(cfg.get("cls_threshold", 0.3))
        # a close-up box (see ``Localiser.box_thresholds``) the classifier must be this sure
        # of: such boxes may score low at the localiser, and on a real table the phantom
        # ones are read with little confidence while true close-ups are read surely
        self.large_cls_threshold = float(cfg.get("large_cls_threshold", self.cls_threshold))
        # the weak readings' thresholds (``detect(weak=True)``, the live camera's frames)
        self.weak_loc_threshold = float(cfg.get("weak_loc_threshold", 0.1))
        self.weak_cls_threshold = float(cfg.get("weak_cls_threshold", 0.2))
        # boxes that still overlap this much after refinement are one card (None: off)
        self.overlap_iou = cfg.get("overlap_iou")
        # refuses boxes that hold no hanafuda face (scorer.vision.gate); None: no gate
        self.gate = FaceGate.from_config(cfg) if self.classifier.has_embedding else None
        # the checks a player makes of a box's shape and scale (scorer.vision.card_checks)
        self.card_checks = CardChecks.from_config(cfg)
        # a second, lower localiser threshold for boxes beside the cards kept
        # (scorer.vision.beside); None: off
        self.beside = Beside.from_config(cfg)
        # a second, zoomed-out look at a frame holding a close-up (scorer.vision.zoom);
        # None: off
        self.zoom = ZoomOut.from_config(cfg)
        # what a reported card's confidence says: how often a card read this surely is
        # right (scorer.vision.confidence); None: the classifier's probability as it is
        self.confidence_map = ConfidenceMap.from_config(cfg)
        # what the stages are, as the protocol and the training scripts read it
        self.classifier_path = cls_path
        self.refiner_path = self.refiner.path if self.refiner is not None else None
        self.in_w, self.in_h = self.localiser.in_w, self.localiser.in_h
        self.max_cards = self.localiser.max_cards
        self.crop_w, self.crop_h = self.classifier.crop_w, self.classifier.crop_h
        self.tta, self.tta_below = self.classifier.tta, self.classifier.tta_below
        self.has_embedding = self.classifier.has_embedding   # deck profiles need one

    # ------------------------------------------ the localiser's thresholds (settable)
    @property
    def loc_threshold(self) -> float:
        return self.localiser.threshold

    @loc_threshold.setter
    def loc_threshold(self, value: float) -> None:
        self.localiser.threshold = float(value)

    @property
    def large_threshold(self) -> float:
        return self.localiser.large_threshold

    @large_threshold.setter
    def large_threshold(self, value: float) -> None:
        self.localiser.large_threshold = float(value)

    @property
    def useful_side(self) -> int:
        """The longest image side worth decoding: the smallest card the localiser finds
        (about 40 px tall in its input) is then still cut at the classifier's crop height,
        so a frame decoded smaller than its stored size reads the same."""
        return int(np.ceil(max(self.in_w, self.in_h) * self.crop_h / 40))

    # ------------------------------------------------------------------ the stages
    def localise(self, img: np.ndarray,
                 threshold: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Card rectangles in image pixels, refined: (rects (N,5) cx,cy,w,h,theta;
        scores (N,)); ``threshold`` lowers the localiser's thresholds for this call."""
        rects, scores = self.localiser.find(img, threshold)
        return self._refined(img, rects), scores

    def _refined(self, img: np.ndarray, rects: np.ndarray) -> np.ndarray:
        """The localiser's rectangles through the refiner and the edge repair."""
        if len(rects) and self.refiner is not None:
            rects = self.refiner.refine(img, rects)
        if len(rects) and self.edge_fit:
            rects = fit_edges(img, rects)
        return rects

    def box_thresholds(self, heights: np.ndarray, frame_h: int) -> np.ndarray:
        return self.localiser.box_thresholds(heights, frame_h)

    def cut(self, img: np.ndarray, rects: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Card quads (N,4,2) and the classifier's rectified crops (N,H,W,3) of ``rects``."""
        quads = np.stack([rect_to_quad(*r) for r in rects])
        return quads, np.stack([rectify(img, q, self.crop_w, self.crop_h) for q in quads])

    def classify(self, crops: np.ndarray) -> np.ndarray:
        """(N,H,W,3) uint8 BGR upright-or-upside-down crops -> (N,49) probabilities."""
        return self.classifier.classify_embed(crops, embed=False)[0]

    def classify_embed(self, crops: np.ndarray, embed: bool = True):
        """``classify``'s probabilities and, from the same run, the crops' embeddings."""
        return self.classifier.classify_embed(crops, embed)

    def embed(self, crops: np.ndarray) -> np.ndarray | None:
        """(N,H,W,3) uint8 BGR upright crops -> (N,D) L2-normalised card embeddings, or
        None for a classifier exported without an ``embedding`` output (``has_embedding``
        is False: it cannot read with a deck profile)."""
        return self.classifier.embed(crops)

    # ------------------------------------------------------------------ the cards
    def candidates(self, img: np.ndarray, profile=None, crops: bool = False) -> Detections:
        """Every box the localiser finds at or above its threshold, classified (with
        ``probs``, blended with ``profile``'s, a ``scorer.vision.profile.DeckProfile``,
        when given); ``select_cards`` picks the cards from these."""
        rects, scores = self.boxes(img)
        return self._classify_boxes(img, rects, scores, profile=profile, keep_crops=crops)

    def boxes(self, img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The refined rectangles (N,5) that ``detect`` classifies, and their localiser
        scores (N,): ``localise``'s and, with the ``beside`` rule, the weaker boxes it
        reads."""
        img = _checked(img)
        _, rects, scores = self._boxes(img, self.localiser.heatmap(img))
        return rects, scores

    def proposals(self, img: np.ndarray) -> np.ndarray:
        """The localiser's rectangles (N,5) that ``detect`` refines and reads, before the
        refiner (a refiner round learns from where they fall)."""
        img = _checked(img)
        return self._boxes(img, self.localiser.heatmap(img))[0]

    def _boxes(self, img: np.ndarray, maps: tuple[np.ndarray, float]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The boxes to classify: (the localiser's rectangles, the same refined, their
        scores). At the localiser's thresholds (on a close-up frame, with the second
        look's close-ups, ``_zoomed``) and, with the ``beside`` rule, the weaker boxes
        near them (``worth_reading``) that do not repeat one once refined."""
        threshold = None if self.beside is None else self.beside.loc_threshold
        raw, scores = self._zoomed(img, *self.localiser.decode(img, maps, threshold), threshold)
        if self.beside is None:
            return raw, self._refined(img, raw), scores
        strong = scores >= self.box_thresholds(rect_long_sides(raw), img.shape[0])
        keep = worth_reading(raw, strong, self.beside)
        raw, scores, strong = raw[keep], scores[keep], strong[keep]
        rects = self._refined(img, raw)
        if len(rects):
            keep = ~repeats(np.stack([rect_to_quad(*r) for r in rects]), strong)
            raw, rects, scores = raw[keep], rects[keep], scores[keep]
        return raw, rects, scores

    def _zoomed(self, img: np.ndarray, raw: np.ndarray, scores: np.ndarray,
                threshold: float | None) -> tuple[np.ndarray, np.ndarray]:
        """With the ``zoom_out`` look (``scorer.vision.zoom``) on a close-up frame (as
        the localiser's rectangles ``raw`` tell it), these and the close-ups of a second,
        zoomed-out look, one per card; else ``raw`` as it is."""
        if self.zoom is None or not len(raw):
            return raw, scores
        heights = rect_long_sides(raw)
        # (with the beside rule, ``raw`` holds weaker boxes too: a close-up must be at
        # its threshold)
        close_up = self.localiser.close_ups(heights, img.shape[0]) & \
            (scores >= self.box_thresholds(heights, img.shape[0]))
        if not wants_second_look(close_up, scores):
            return raw, scores
        return merge(raw, scores, *self.localiser.zoomed_out(img, self.zoom, threshold))

    def _classify_boxes(self, img: np.ndarray, rects: np.ndarray, scores: np.ndarray,
                        profile=None, keep_crops: bool = False) -> Detections:
        size = (img.shape[1], img.shape[0])
        if not len(rects):
            return Detections.from_quads(np.zeros((0, 4, 2), np.float32), np.zeros(0),
                                         np.zeros((0, NUM_CARDS + 1), np.float32), size)
        quads, crops = self.cut(img, rects)
        probs, emb = self.classify_embed(crops, embed=profile is not None or
                                         self.gate is not None)
        if profile is not None:
            probs = profile.adjust(probs, emb)
        face = self.gate.face_prob(emb) if self.gate is not None else None
        return Detections.from_quads(quads, scores, probs, size,
                                     crops if keep_crops else None, face)

    def pick(self, found: Detections) -> np.ndarray:
        """The boolean mask of the candidates ``detect`` keeps as cards."""
        if found.probs is None:
            raise ValueError("candidates without probs (Detections.probs) cannot be picked")
        heights, frame_h = found.heights(), found.image_size[1]
        close_up = self.localiser.close_ups(heights, frame_h)
        faces = None if self.gate is None or found.face is None else \
            self.gate.lets_through(found.face, close_up)
        return select_checked(found.loc_score, found.probs,
                              self.box_thresholds(heights, frame_h),
                              self.cls_thresholds(heights, frame_h), found.quads,
                              self.overlap_iou, faces, close_up, self.card_checks,
                              self.beside)

    def cls_thresholds(self, heights: np.ndarray, frame_h: int) -> np.ndarray:
        """The classifier probability each box needs: ``large_cls_threshold`` for
        close-up boxes (as ``Localiser.box_thresholds`` tells them), else
        ``cls_threshold``."""
        return np.where(self.localiser.close_ups(heights, frame_h), self.large_cls_threshold,
                        self.cls_threshold).astype(np.float32)

    def cards(self, found: Detections) -> Detections:
        """The candidates ``detect`` keeps as cards (``pick``), in deck order, with the
        confidence ``detect`` reports: a caller that also needs the dropped boxes calls
        ``candidates`` and then this."""
        return self._reported(_deck_order(found[self.pick(found)]))

    def _with_faint(self, cards: Detections, pool: Detections) -> Detections:
        """``cards`` followed by the weak readings among ``pool`` (``weak_readings``), in
        deck order, ``sure`` False."""
        faint = _deck_order(pool[self.weak_readings(pool, cards)])
        faint.sure = np.zeros(len(faint), bool)
        return Detections.join([cards, faint])

    def _reported(self, cards: Detections) -> Detections:
        """``cards`` with the confidence they report (``confidence_map``): after every
        decision, which reads the classifier's probabilities."""
        if self.confidence_map is not None and len(cards):
            cards.confidence = self.confidence_map(cards.confidence)
        return cards

    def detect(self, img: np.ndarray, profile=None, crops: bool = False,
               weak: bool = False) -> Detections:
        """The cards in ``img``, in deck order; ``profile``: a deck profile to read them
        with; ``crops``: keep each card's classifier crop (``Detections.crops``); ``weak``:
        after the cards (the same as without it), the weak readings (``weak_readings``),
        ``sure`` False. The timings are the stages' (the decode's is
        ``scorer.vision.report.Report.ms``)."""
        t0 = time.perf_counter()
        img = _checked(img)
        maps = self.localiser.heatmap(img)
        raw, rects, scores = self._boxes(img, maps)
        t1 = time.perf_counter()
        found = self._classify_boxes(img, rects, scores, profile, crops)
        picked = self.pick(found)
        det = _deck_order(found[picked])
        t2 = time.perf_counter()
        timings = {"localise": round((t1 - t0) * 1e3, 2), "classify": round((t2 - t1) * 1e3, 2)}
        if weak:
            extra = self._weak_boxes(img, maps, raw, det, profile, crops)
            det = self._with_faint(det, Detections.join([found[~picked], extra]))
            t3 = time.perf_counter()
            timings["weak"] = round((t3 - t2) * 1e3, 2)
            t2 = t3
        det = self._reported(det)
        det.timings = {**timings, "infer": round((t2 - t0) * 1e3, 2),
                       "total": round((t2 - t0) * 1e3, 2)}
        return det

    def follow(self, img: np.ndarray, quads: np.ndarray, sure: np.ndarray | None = None,
               profile=None, crops: bool = False, weak: bool = False) -> Detections:
        """The cards of a live frame at the outlines of the page's tracks (``quads``
        (N,4,2), from the last frame), without the localiser: each outline is refined
        on ``img`` (``follow_passes`` of the refiner, as detect's) and classified, then
        picked as ``detect`` picks (the classifier's thresholds, the face gate, the card checks,
        one box a card), each box taking the localiser's score as passing. A box the
        refiner loses (``scorer.vision.follow.lost``) or the classifier reads as "not a
        card" is dropped. ``sure`` (N, default all True): False for a track last seen as
        a weak reading, which stays weak at best (its score is ``weak_loc_threshold``);
        ``weak``: the weak readings too, as ``detect(weak=True)`` gives them. The
        timings: ``follow`` (the refiner) and ``classify``."""
        t0 = time.perf_counter()
        img = _checked(img)
        quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        sure = np.ones(len(quads), bool) if sure is None else np.asarray(sure, bool)
        rects = np.array([quad_to_rect(q) for q in quads], np.float32).reshape(-1, 5)
        for _ in range(self.follow_passes if len(rects) and self.refiner is not None else 0):
            rects = self.refiner.refine_once(img, rects)     # type: ignore[union-attr]
        if len(rects) and self.edge_fit:
            rects = fit_edges(img, rects)
        keep = ~lost(rects, (img.shape[1], img.shape[0]))
        rects, sure = rects[keep], sure[keep]
        scores = np.where(sure, 1.0, self.weak_loc_threshold).astype(np.float32)
        t1 = time.perf_counter()
        found = self._classify_boxes(img, rects, scores, profile, crops)
        picked = self.pick(found)
        det = _deck_order(found[picked])
        if weak:
            det = self._with_faint(det, found[~picked])
        det = self._reported(det)
        t2 = time.perf_counter()
        det.timings = {"follow": round((t1 - t0) * 1e3, 2),
                       "classify": round((t2 - t1) * 1e3, 2),
                       "infer": round((t2 - t0) * 1e3, 2), "total": round((t2 - t0) * 1e3, 2)}
        return det

    def _weak_boxes(self, img: np.ndarray, maps: tuple[np.ndarray, float], raw: np.ndarray,
                    cards: Detections, profile=None, crops: bool = False) -> Detections:
        """The boxes the localiser finds at ``weak_loc_threshold`` beyond ``raw`` (the
        boxes it found at its own thresholds) and off the ``cards``, refined and
        classified."""
        rects, scores = self.localiser.decode(img, maps, self.weak_loc_threshold)
        quads = [rect_to_quad(*r) for r in rects]
        known = [rect_to_quad(*r) for r in raw]
        new = [i for i, q in enumerate(quads)
               if not any(quad_iou(q, k) > self.localiser.nms_iou for k in known)
               and not any(quad_iou(q, c) > WEAK_IOU for c in cards.quads)]
        new = sorted(new, key=lambda i: -float(scores[i]))[:WEAK_MAX]
        keep = np.array(new, np.int64)
        return self._classify_boxes(img, self._refined(img, rects[keep]), scores[keep],
                                    profile, crops)

    def weak_readings(self, found: Detections, cards: Detections) -> np.ndarray:
        """The boolean mask of the boxes of ``found`` (classified boxes that are not
        ``cards``) that are weak readings: read as a card, not "not a card", with at least
        ``weak_cls_threshold`` and a localiser score of ``weak_loc_threshold``, through
        the face gate when the model has one, and neither a card of ``cards`` nor on one
        of their boxes (IoU over ``WEAK_IOU``); of two such boxes of one card or on one
        place, the likelier."""
        mask = np.zeros(len(found), bool)
        if not len(found):
            return mask
        conf, cls = found.confidence, found.class_id
        ok = (cls < NUM_CARDS) & (conf >= self.weak_cls_threshold) & \
            (found.loc_score >= self.weak_loc_threshold)
        if self.gate is not None and found.face is not None:
            ok &= self.gate.lets_through(
                found.face, self.localiser.close_ups(found.heights(), found.image_size[1]))
        taken = {int(c) for c in cards.class_id}
        kept = list(cards.quads)
        for i in np.nonzero(ok)[0][np.argsort(-conf[ok], kind="stable")]:
            if int(cls[i]) in taken or any(quad_iou(found.quads[i], q) > WEAK_IOU
                                           for q in kept):
                continue
            mask[i] = True
            taken.add(int(cls[i]))
            kept.append(found.quads[i])
        return mask


def _deck_order(cards: Detections) -> Detections:
    order = sorted(range(len(cards)), key=lambda i: (DECK[cards.class_id[i]].month,
                                                      DECK[cards.class_id[i]].index))
    return cards[np.array(order, np.int64)]


def _checked(img: np.ndarray) -> np.ndarray:
    if img is None or img.ndim != 3 or img.shape[2] != 3:
        raise InputError("expected a BGR colour image")
    return img


def select_checked(loc_score: np.ndarray, probs: np.ndarray, loc_threshold: np.ndarray,
                   cls_threshold: np.ndarray, quads: np.ndarray, overlap_iou: float | None,
                   faces: np.ndarray | None, close_up: np.ndarray,
                   checks: CardChecks, beside: Beside | None = None) -> np.ndarray:
    """``select_cards`` with the card checks (``scorer.vision.card_checks``): boxes of no
    card's shape are refused before picking, cards off the frame's scale after it; with
    ``beside`` (``scorer.vision.beside``), the cards are picked again with the rule's
    thresholds for the boxes it makes eligible near the cards picked."""
    if checks.on:
        shaped = shaped_like_cards(quads, close_up, checks)
        faces = shaped if faces is None else faces & shaped
    picked = select_cards(loc_score, probs, loc_threshold, cls_threshold, quads,
                          overlap_iou, faces)
    if checks.on:
        picked = on_scale(quads, picked, checks)
    if beside is None or not picked.any():
        return picked
    extra = beside_boxes(loc_score, probs, loc_threshold, close_up, quads, picked, beside)
    if not extra.any():
        return picked
    picked = select_cards(loc_score, probs, np.where(extra, beside.loc_threshold, loc_threshold),
                          np.where(extra, beside.cls_threshold, cls_threshold), quads,
                          overlap_iou, faces)
    return on_scale(quads, picked, checks) if checks.on else picked


def select_cards(loc_score: np.ndarray, probs: np.ndarray, loc_threshold: float | np.ndarray,
                 cls_threshold: float | np.ndarray, quads: np.ndarray | None = None,
                 overlap_iou: float | None = None,
                 faces: np.ndarray | None = None) -> np.ndarray:
    """The boxes that are cards, as a boolean mask over the candidates (their class is
    each row's likeliest: ``probs.argmax(1)``).

    A box is kept when its localiser score and its likeliest card's probability reach
    the thresholds and that card is not "not a card". A physical deck holds each card
    once, so a card claimed by several boxes goes to the likeliest of them and the
    others are dropped. (Giving those boxes their next-likeliest card instead, as the
    first four model pairs did, scored validation F1 0.836 against 0.854 for dropping
    them: the second guess was mostly wrong.) With ``quads`` and ``overlap_iou``, a box
    that overlaps an already kept, likelier box by more than that IoU is the same
    physical card seen twice and is dropped too. ``faces``: a boolean mask of the boxes
    the face gate lets through (None: every box)."""
    mask = np.zeros(len(probs), bool)
    if not len(probs):
        return mask
    cls = probs.argmax(1)
    conf = probs[np.arange(len(cls)), cls]
    ok = (loc_score >= loc_threshold) & (cls < NUM_CARDS) & (conf >= cls_threshold)
    if faces is not None:
        ok &= faces
    idx = np.nonzero(ok)[0]
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
