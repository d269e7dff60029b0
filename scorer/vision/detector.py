"""Card detection with onnxruntime: ``Detector`` holds the three networks of
``scorer.vision.stages`` (localiser, box refiner, classifier with its embedding) and the
model's settings (``scorer.vision.settings``, read once from the localiser file); which
boxes are cards is ``scorer.vision.decision.decide``'s to say. A ``Detector`` does not
change: ``with_settings`` gives another over the same sessions.

``detect(img)`` reads a still frame; ``weak=True`` (the live camera) adds the *weak*
readings (``sure`` False); ``follow(img, quads)`` reads the live camera's frames between
the localiser's at the outlines of the page's tracks. With an enrolled deck (``profile``)
the boxes down to the deck rule's localiser threshold are read too, and the deck decides.
``read_still(img, profile)`` gives a still's boxes read once, with and without the deck,
for a measurement to decide with any settings (``StillRead``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Sequence

import numpy as np

from scorer.errors import InputError
from scorer.vision.boxes import FoundBoxes, found_boxes, weaker_boxes
from scorer.vision.cpu import cpu_flags, precise_int8_needed
from scorer.vision.decision import decide, deck_order, pick, reported
from scorer.vision.detections import NUM_CARDS, Detections
from scorer.vision.follow import lost
from scorer.vision.geometry import quad_to_rect, rect_to_quad, rectify
from scorer.vision.settings import WEAK_LOC_THRESHOLD, DetectionSettings
from scorer.vision.stages import Classifier, Localiser, Refiner, metadata, session

__all__ = ["CardDetector", "Detector", "Detections", "StillRead", "default_model_path"]

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
DEFAULT_MODEL = "hanafuda-localiser.onnx"
WEAK_MAX = 12       # the most weak boxes a frame refines and reads (the best-scored first):
                    # a frame of many faint peaks costs at most this many boxes more
DECK_MAX = 4        # ... and the most a still read with a deck reads for it (on the
                    # stand-in's validation scenes it reads 0.3 a frame)


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

    @property
    def has_cells(self) -> bool: ...

    def detect(self, img: np.ndarray, profile: Any = None, crops: bool = False,
               weak: bool = False) -> Detections: ...

    def follow(self, img: np.ndarray, quads: np.ndarray, sure: np.ndarray | None = None,
               profile: Any = None, crops: bool = False, weak: bool = False) -> Detections: ...

    def embed(self, crops: np.ndarray) -> np.ndarray | None: ...

    def cells(self, crops: np.ndarray) -> np.ndarray | None: ...


@dataclass
class StillRead:
    """A still frame's boxes as ``Detector.detect`` finds them, each cut and classified
    once and read with and without a deck profile (``Detector.read_still``): what
    ``scorer.vision.decision.decide`` decides from, without the profile
    (``decide(plain, settings)``) or with it (``decide(found, settings, profile, extra)``)."""
    plain: Detections   # the candidates, the network's own reading
    found: Detections   # ... the profile's reading: its probabilities and similarities
    extra: Detections   # the weaker boxes only the deck reads (below the localiser's thresholds)


class Detector:
    """The three networks, one onnxruntime session each, created once, and the settings;
    ``detect`` and ``follow`` are thread-safe."""

    def __init__(self, model_path: str | Path | None = None, threads: int = 2,
                 tta: bool | None = None, tta_below: float | None = None,
                 refiner: bool = True, precise_int8: bool | None = None):
        """``tta``, ``tta_below``: the classifier's test-time augmentation (see
        ``Classifier``; default: the model's settings); ``refiner``: use the box refiner
        when the model has one; ``precise_int8``: the int8 layers' products through
        onnxruntime's precise path (``scorer.vision.stages.session``; default: where this
        CPU's fast products are not exact for the model's int8 weights, as
        ``scorer.vision.cpu`` reads it once here: a model whose settings declare weights
        that cannot saturate them keeps the fast ones on every CPU)."""
        path = Path(model_path) if model_path else default_model_path()
        if not path.is_file():
            raise InputError(f"model file not found: {path}")
        flags = cpu_flags()
        self.precise_int8 = precise_int8_needed(flags) if precise_int8 is None \
            else bool(precise_int8)
        loc = session(path, threads, self.precise_int8)
        settings = DetectionSettings.from_metadata(metadata(loc))
        if precise_int8 is None and self.precise_int8 and \
                not precise_int8_needed(flags, settings.fast_int8_exact):
            self.precise_int8 = False   # the settings are read: its weights cannot saturate
            loc = session(path, threads, False)
        settings = settings.but(**{k: v for k, v in (("tta", tta), ("tta_below", tta_below))
                                   if v is not None})
        cls_path = path.parent / settings.classifier
        if not cls_path.is_file():
            raise InputError(f"classifier model not found beside {path.name}: {cls_path.name}")
        ref_path = path.parent / settings.refiner if refiner and settings.refiner else None
        if ref_path is not None and not ref_path.is_file():
            raise InputError(f"box refiner not found beside {path.name}: {ref_path.name}")
        self.model_path, self.classifier_path, self.refiner_path = path, cls_path, ref_path
        self._sessions = (loc, session(cls_path, threads, self.precise_int8),
                          None if ref_path is None else session(ref_path, threads,
                                                                self.precise_int8))
        self._assemble(settings)

    def _assemble(self, settings: DetectionSettings) -> None:
        loc, cls, ref = self._sessions
        self.settings = settings
        self.localiser = Localiser(self.model_path, loc, settings)
        self.classifier = Classifier(self.classifier_path, cls, settings)
        self.refiner = None if ref is None or self.refiner_path is None else \
            Refiner(self.refiner_path, ref, settings.refine_passes)
        self.in_w, self.in_h = self.localiser.in_w, self.localiser.in_h
        self.crop_w, self.crop_h = settings.crop_w, settings.crop_h
        self.has_embedding = self.classifier.has_embedding   # deck profiles need one
        self.has_cells = self.classifier.has_cells           # a deck that decides needs them

    def with_settings(self, settings: DetectionSettings) -> "Detector":
        """A detector over the same networks' sessions with other ``settings`` (the
        tuning's points; a test's rule turned off); this one is unchanged."""
        other = object.__new__(Detector)
        other.__dict__.update({k: getattr(self, k) for k in (
            "precise_int8", "_sessions", "model_path", "classifier_path", "refiner_path")})
        other._assemble(settings)
        return other

    @property
    def useful_side(self) -> int:
        """The longest image side worth decoding: the smallest card the localiser finds
        (about 40 px tall in its input) is then still cut at the classifier's height."""
        return int(np.ceil(max(self.in_w, self.in_h) * self.crop_h / 40))

    # ------------------------------------------------------------------ the networks
    def localise(self, img: np.ndarray,
                 threshold: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Card rectangles in image pixels, refined: (rects (N,5) cx,cy,w,h,theta;
        scores (N,)); ``threshold`` lowers the localiser's thresholds for this call."""
        rects, scores = self.localiser.find(img, threshold)
        return self._refined(img, rects), scores

    def _refined(self, img: np.ndarray, rects: np.ndarray) -> np.ndarray:
        return self.refiner.refine(img, rects) if len(rects) and self.refiner else rects
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
        None for a classifier exported without an ``embedding`` output."""
        return self.classifier.embed(crops)

    def cells(self, crops: np.ndarray) -> np.ndarray | None:
        """(N,H,W,3) uint8 BGR upright crops -> (N,C,h,w) the classifier's cell maps
        (``scorer.vision.cells``), or None for a classifier without them."""
        return self.classifier.cells(crops)

    # ------------------------------------------------------------------ the boxes
    def boxes(self, img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The refined rectangles (N,5) that ``detect`` classifies, and their scores."""
        img = _checked(img)
        found = self._boxes(img, self.localiser.heatmap(img))
        return found.rects, found.scores

    def proposals(self, img: np.ndarray) -> np.ndarray:
        """The localiser's rectangles (N,5) that ``detect`` refines and reads, before the
        refiner (a refiner round learns from where they fall)."""
        img = _checked(img)
        return self._boxes(img, self.localiser.heatmap(img)).raw

    def _boxes(self, img: np.ndarray, maps: tuple[np.ndarray, float]) -> FoundBoxes:
        return found_boxes(self.localiser, self._refined, self.settings, img, maps)

    def _weak_boxes(self, img: np.ndarray, maps: tuple[np.ndarray, float], found: FoundBoxes,
                    cards: Detections, threshold: float, profile=None, crops: bool = False,
                    sizes: tuple[float, float] | None = None, most: int = WEAK_MAX
                    ) -> Detections:
        """``weaker_boxes`` at ``threshold``, refined and classified."""
        rects, scores = weaker_boxes(self.localiser, self.settings, img, maps, found,
                                     cards.quads, threshold, most, sizes)
        return self._classified(img, self._refined(img, rects), scores, profile, crops)

    def _classified(self, img: np.ndarray, rects: np.ndarray, scores: np.ndarray,
                    profile=None, crops: bool = False) -> Detections:
        """``rects`` cut and classified (with ``profile``: its probabilities and each
        box's similarity to the enrolled cards)."""
        return self._read_as(img, rects, scores, [profile], crops)[0]

    def _read_as(self, img: np.ndarray, rects: np.ndarray, scores: np.ndarray,
                 profiles: Sequence[Any], crops: bool = False) -> list[Detections]:
        """``rects`` cut and classified in one classifier run, then read with each of
        ``profiles`` (None: the network's own reading; a profile: its probabilities and
        each box's similarity to the enrolled cards), one ``Detections`` each."""
        size = (img.shape[1], img.shape[0])
        if not len(rects):
            return [Detections.from_quads(
                np.zeros((0, 4, 2), np.float32), np.zeros(0),
                np.zeros((0, NUM_CARDS + 1), np.float32), size,
                similarity=None if profile is None else np.zeros((0, NUM_CARDS), np.float32))
                for profile in profiles]
        quads, cut = self.cut(img, rects)
        gate = self.settings.face_gate
        decks = [profile for profile in profiles if profile is not None]
        probs, emb, cells = self.classifier.read(
            cut, embed=bool(decks) or gate is not None,
            cells=any(profile.decides for profile in decks))
        face = gate.face_prob(emb) if gate is not None and emb is not None else None
        out = []
        for profile in profiles:
            read, match = (probs, None) if profile is None else profile.read(probs, emb, cells)
            out.append(Detections.from_quads(quads, scores, read, size,
                                             cut if crops else None, face, match))
        return out

    # ------------------------------------------------------------------ the cards
    def candidates(self, img: np.ndarray, profile=None, crops: bool = False) -> Detections:
        """Every box the localiser finds at or above its threshold, classified (with
        ``profile``'s probabilities and similarities when given)."""
        rects, scores = self.boxes(img)
        return self._classified(img, rects, scores, profile, crops)

    def pick(self, found: Detections) -> np.ndarray:
        """The boolean mask of the candidates the generic decision keeps as cards."""
        return pick(found, self.settings)

    def cards(self, found: Detections) -> Detections:
        """The candidates the generic decision keeps, in deck order, with the confidence
        ``detect`` reports (a caller that also needs the dropped boxes calls
        ``candidates`` and then this)."""
        return reported(deck_order(found[self.pick(found)]), self.settings)

    def read_still(self, img: np.ndarray, profile: Any,
                   weak_below: float | None = None) -> StillRead:
        """``img``'s boxes as ``detect`` reads a still without ``profile`` and with it,
        the classifier run once for both (a measurement then decides with any settings:
        ``StillRead``); the weaker boxes as the deck rule reads them, or with
        ``weak_below`` every weak box down to that localiser score (the best-scored
        ``WEAK_MAX``), for any deck rule to pick from."""
        img = _checked(img)
        maps = self.localiser.heatmap(img)
        boxes = self._boxes(img, maps)
        plain, found = self._read_as(img, boxes.rects, boxes.scores, [None, profile])
        kept = found[self.pick(found)]
        extra = self._weak_boxes(img, maps, boxes, kept, weak_below, profile) \
            if weak_below is not None else deck_boxes(self, img, maps, boxes, kept, profile)
        if extra is None:       # no profile, or nothing kept and the rule adds none alone
            extra = self._classified(img, boxes.rects[:0], boxes.scores[:0], profile)
        return StillRead(plain, found, extra)

    def detect(self, img: np.ndarray, profile=None, crops: bool = False,
               weak: bool = False) -> Detections:
        """The cards in ``img``, in deck order; ``profile``: an enrolled deck to read them
        with; ``crops``: keep each card's classifier crop; ``weak``: the weak readings
        after the cards, ``sure`` False. The timings are the stages'."""
        t0 = time.perf_counter()
        img = _checked(img)
        maps = self.localiser.heatmap(img)
        boxes = self._boxes(img, maps)
        t1 = time.perf_counter()
        found = self._classified(img, boxes.rects, boxes.scores, profile, crops)
        picked, extra = self.pick(found), None
        if weak:
            low = min(WEAK_LOC_THRESHOLD, self.settings.deck.loc_threshold)
            extra = self._weak_boxes(img, maps, boxes, found[picked], low, profile, crops)
        else:
            extra = deck_boxes(self, img, maps, boxes, found[picked], profile, crops)
        det = decide(found, self.settings, profile, extra, weak, picked)
        t2 = time.perf_counter()
        det.timings = {"localise": round((t1 - t0) * 1e3, 2),
                       "classify": round((t2 - t1) * 1e3, 2),
                       "infer": round((t2 - t0) * 1e3, 2), "total": round((t2 - t0) * 1e3, 2)}
        return det

    def follow(self, img: np.ndarray, quads: np.ndarray, sure: np.ndarray | None = None,
               profile=None, crops: bool = False, weak: bool = False) -> Detections:
        """The cards of a live frame at the outlines of the page's tracks (``quads``
        (N,4,2), from the last frame), without the localiser: each outline refined on
        ``img`` (the refiner's passes) and classified, then decided as ``detect``
        decides, each box taking the localiser's score as passing. A box the refiner
        loses (``scorer.vision.follow.lost``) is dropped. ``sure`` (N, default all True):
        False for a track last seen as a weak reading, which stays weak at best."""
        t0 = time.perf_counter()
        img = _checked(img)
        quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        sure = np.ones(len(quads), bool) if sure is None else np.asarray(sure, bool)
        rects = self._refined(img, np.array([quad_to_rect(q) for q in quads],
                                            np.float32).reshape(-1, 5))
        keep = ~lost(rects, (img.shape[1], img.shape[0]))
        rects, sure = rects[keep], sure[keep]
        scores = np.where(sure, 1.0, WEAK_LOC_THRESHOLD).astype(np.float32)
        t1 = time.perf_counter()
        det = decide(self._classified(img, rects, scores, profile, crops), self.settings,
                     profile, None, weak)
        t2 = time.perf_counter()
        det.timings = {"follow": round((t1 - t0) * 1e3, 2),
                       "classify": round((t2 - t1) * 1e3, 2),
                       "infer": round((t2 - t0) * 1e3, 2), "total": round((t2 - t0) * 1e3, 2)}
        return det


def deck_boxes(det: Detector, img: np.ndarray, maps: tuple[np.ndarray, float],
               boxes: FoundBoxes, kept: Detections, profile=None,
               crops: bool = False) -> Detections | None:
    """The weaker boxes a still read with ``profile`` reads for its deck (``DeckRule``: at
    its localiser threshold, the kept cards' size, at most ``DECK_MAX``; none where nothing
    was kept unless the rule adds alone), refined and classified; None without a profile."""
    rule = det.settings.deck
    if profile is None or not (len(kept) or rule.alone):
        return None
    return det._weak_boxes(img, maps, boxes, kept, rule.loc_threshold, profile, crops,
                           deck_sizes(kept, rule), DECK_MAX)


def deck_sizes(kept: Detections, rule) -> tuple[float, float] | None:
    """The long sides (pixels) of the boxes worth reading for a deck whose rule checks
    their size (``DeckRule.scale``) against the ``kept`` cards: a margin wider than the
    rule's, as the refiner still moves them."""
    if rule.scale is None or not len(kept):
        return None
    median = float(np.median(kept.heights()))
    return median * rule.scale * 0.8, median / (rule.scale * 0.8)


def _checked(img: np.ndarray) -> np.ndarray:
    if img is None or img.ndim != 3 or img.shape[2] != 3:
        raise InputError("expected a BGR colour image")
    return img
