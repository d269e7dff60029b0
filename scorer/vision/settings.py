"""The detector's settings: every key a localiser file's metadata (its ONNX metadata entry
``hanafuda``, a JSON object) may hold, with its default and its meaning, in one frozen
record. Training writes the record (``training.ship.export.set_config``); the detector
reads it once (``DetectionSettings.from_metadata``) and never changes it: a different
setting is a new record (``dataclasses.replace``) and a new ``Detector.with_settings``.

A key the record does not know is refused with one line, so a misspelt or retired key
cannot be silently ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Mapping

import numpy as np

from scorer.errors import InputError
from scorer.vision.beside import Beside
from scorer.vision.card_checks import CardChecks
from scorer.vision.confidence import ConfidenceMap
from scorer.vision.gate import FaceGate
from scorer.vision.geometry import CROP_H, CROP_W
from scorer.vision.zoom import ZoomOut

__all__ = ["DeckRule", "DetectionSettings", "close_up_boxes"]

# the localiser's most boxes a frame (its strongest peaks)
MAX_CARDS = 60
# the weak readings of a live frame (``Detector.detect(weak=True)``): boxes down to this
# localiser score, read as a card with at least this probability
WEAK_LOC_THRESHOLD = 0.1
WEAK_CLS_THRESHOLD = 0.2


def close_up_boxes(heights: np.ndarray, frame_h: int, large_box: float) -> np.ndarray:
    """Which boxes are close-ups (a card filling much of the frame): at least
    ``large_box`` of the frame's height tall. Such boxes have thresholds of their own."""
    return np.asarray(heights, np.float32) >= large_box * frame_h


@dataclass(frozen=True)
class DeckRule:
    """How an enrolled deck (``scorer.vision.profile.DeckProfile``) decides what is a card
    (``scorer.vision.decision.deck_decides``): a box the localiser scores at least
    ``loc_threshold`` whose crop's similarity to one enrolled card (``DeckProfile.read``:
    its cells matched with the card's, ``scorer.vision.cells``) reaches ``accept`` is
    that card, even where the generic thresholds drop it; a box kept by the generic
    decision less alike every enrolled card than all but ``refuse`` of the deck's own
    partial views are to their card (``DeckProfile.floor``: a Western card, a hand, a
    pile's edge; 0: off) is not a card. A profile that holds fewer than ``min_cards``
    cards refuses nothing (a partial deck does not know what its missing cards look
    like). With ``scale``, a box the deck adds must be the size of the cards the generic
    decision kept (its long side within ``scale`` and 1 / ``scale`` of theirs: the cards
    of one deck on one table are one size, a card printed on the deck's box is smaller);
    ``alone``: whether it adds cards to a frame where the generic decision kept none."""
    # chosen on the leave-one-art-set-out stand-in's validation scenes (a classifier that
    # never saw hwatu-commons, the deck enrolled from its 48 card images: python -m
    # training.measure.deck_decides --split val --tune, 40 a kind): F1 0.857 -> 0.896,
    # false cards a frame without hanafuda 0.196 -> 0.035 (refuse 0.02: 0.8963 and 0.042;
    # adding cards where none was kept, ``alone``, doubles the false cards or more)
    loc_threshold: float = 0.25
    accept: float = 0.5
    refuse: float = 0.03
    min_cards: int = 48
    scale: float | None = 0.85
    alone: bool = False

    def to_config(self) -> dict:
        return {"loc_threshold": self.loc_threshold, "accept": self.accept,
                "refuse": self.refuse, "min_cards": self.min_cards, "scale": self.scale,
                "alone": self.alone}


@dataclass(frozen=True)
class DetectionSettings:
    """Every detection setting a localiser file carries (see the module)."""
    # the other networks' files, beside the localiser's
    classifier: str = "hanafuda-classifier.onnx"
    refiner: str | None = None
    refine_passes: int = 1              # the refiner's passes on each box
    # the localiser: its output stride, its thresholds, the share of the frame's height
    # that makes a box a close-up (which peaks lower: ``large_threshold``), its NMS
    stride: int = 4
    loc_threshold: float = 0.3
    large_threshold: float | None = None    # None: ``loc_threshold``
    large_box: float = 1.0
    nms_iou: float = 0.5
    # the classifier: its crop, the probability a card needs (close-ups: their own), the
    # 180-degree turn averaged in for crops read at most ``tta_below`` surely
    crop_w: int = CROP_W
    crop_h: int = CROP_H
    cls_threshold: float = 0.3
    large_cls_threshold: float | None = None    # None: ``cls_threshold``
    tta: bool = True
    tta_below: float = 1.0
    # the rules of the decision (``scorer.vision.decision``), each None or off when absent
    overlap_iou: float | None = None    # boxes overlapping this much once refined are one card
    face_gate: FaceGate | None = None
    card_checks: CardChecks = field(default_factory=CardChecks)
    beside: Beside | None = None
    zoom_out: ZoomOut | None = None
    confidence_map: ConfidenceMap | None = None
    deck: DeckRule = field(default_factory=DeckRule)
    # what the files are (read by people and by training; the detector reads only
    # ``fast_int8_exact``)
    classifier_arch: str = ""
    localiser_arch: str = ""
    input: str = ""
    int8: bool = False
    localiser_int8: bool = False
    # the bits of every int8 weight of the model's networks: 7 (onnxruntime's
    # ``reduce_range``, |w| <= 64) cannot saturate the fast int8 products of an x86 CPU
    # without VNNI, so the detector keeps them there too (``scorer.vision.cpu``); 8: such
    # a CPU takes the precise products, unless ``int8_pairs_fit``
    int8_weight_bits: int = 8
    # every pair of int8 weights that those fast products add in 16 bits stays within them
    # (same signs at most 128 together: ``training.ship.fast_int8``), so they are exact on
    # every x86 CPU at 8 bits too
    int8_pairs_fit: bool = False

    # ------------------------------------------------------------ reading, writing
    @classmethod
    def from_metadata(cls, cfg: Mapping[str, Any]) -> "DetectionSettings":
        """The settings a localiser's metadata holds (InputError, one line, on a key
        this record does not know or a value of the wrong kind)."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(cfg) - known)
        if unknown:
            raise InputError(f"the model's settings hold unknown key(s) {', '.join(unknown)} "
                             "(a newer or older model? install the matching scorer)")
        try:
            return cls(**{k: _parse(k, v) for k, v in cfg.items()})
        except (TypeError, ValueError, KeyError) as exc:
            raise InputError(f"the model's settings are malformed: {exc}") from exc

    def to_metadata(self) -> dict:
        """The JSON-ready object ``from_metadata`` reads back."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = v.to_config() if hasattr(v, "to_config") else v
        return out

    def but(self, **changes: Any) -> "DetectionSettings":
        """A copy with ``changes`` (the tuning's grid points, a test's rule turned off)."""
        return replace(self, **changes)

    @property
    def fast_int8_exact(self) -> bool:
        """Whether the model's int8 weights cannot saturate onnxruntime's fast int8 products
        on any x86 CPU (7-bit weights, or 8-bit ones whose pairs fit)."""
        return self.int8_weight_bits <= 7 or self.int8_pairs_fit

    # ------------------------------------------------------------ per-box thresholds
    def close_ups(self, heights: np.ndarray, frame_h: int) -> np.ndarray:
        """Which boxes are close-ups: at least ``large_box`` of the frame's height."""
        return close_up_boxes(heights, frame_h, self.large_box)

    @property
    def large_loc(self) -> float:
        return self.loc_threshold if self.large_threshold is None else self.large_threshold

    @property
    def large_cls(self) -> float:
        return self.cls_threshold if self.large_cls_threshold is None \
            else self.large_cls_threshold

    def box_thresholds(self, heights: np.ndarray, frame_h: int) -> np.ndarray:
        """The localiser score each box needs: a card filling much of the frame (a
        close-up) peaks lower than a card of a pile, so close-ups need ``large_threshold``."""
        return np.where(self.close_ups(heights, frame_h), self.large_loc,
                        self.loc_threshold).astype(np.float32)

    def cls_thresholds(self, heights: np.ndarray, frame_h: int) -> np.ndarray:
        """The classifier probability each box needs (close-ups: ``large_cls_threshold``)."""
        return np.where(self.close_ups(heights, frame_h), self.large_cls,
                        self.cls_threshold).astype(np.float32)


def _parse(key: str, value: Any) -> Any:
    """One key's value as the record holds it (a rule's object: its record; None or an
    empty object: the rule off)."""
    if key == "card_checks":
        c = value or {}
        aspect, span, scale = (c.get(k) for k in ("min_aspect", "span", "scale"))
        return CardChecks(None if aspect is None else float(aspect),
                          None if span is None else int(span),
                          None if scale is None else float(scale))
    if key == "deck":
        return DeckRule(**{**DeckRule().to_config(), **dict(value or {})})
    if key in ("face_gate", "beside", "zoom_out", "confidence_map"):
        return _rule(key, value) if value else None
    if value is None:
        return None
    kind = str({f.name: f.type for f in fields(DetectionSettings)}[key])
    for name, cast in (("bool", bool), ("float", float), ("int", int)):
        if kind.startswith(name):
            return cast(value)
    return value


def _rule(key: str, v: Mapping[str, Any]) -> Any:
    if key == "face_gate":
        large = v.get("large_threshold")
        return FaceGate(np.asarray(v["weights"], np.float32), float(v["bias"]),
                        float(v.get("threshold", 0.5)), None if large is None else float(large))
    if key == "beside":
        return Beside(float(v["loc_threshold"]), float(v["cls_threshold"]), float(v["distance"]))
    if key == "zoom_out":
        return ZoomOut(float(v["pad"])) if float(v.get("pad", 0)) else None
    return ConfidenceMap(tuple(float(x) for x in v["raw"]), tuple(float(x) for x in v["right"]))
