"""``Detections``: the boxes of one frame as one record of parallel arrays (after
supervision's ``Detections``), validated when built and indexable like an array:

    found = detector.candidates(img)          # every box, classified
    cards = found[select_cards(...)]          # a boolean mask picks the cards
    cards[0], cards[[2, 0]], cards[1:]        # an index, a list of indices, a slice

The same type serves every stage, from the classified candidates to the cards the page
is sent (``to_cards``), so a frame's result does not change shape on its way.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field, fields
from typing import Any

import cv2
import numpy as np

from scorer.cards import card_from_class
from scorer.vision.geometry import long_sides

NUM_CARDS = 48
CROP_QUALITY = 80       # the page's crops: small JPEGs (a pile keeps them, 16 kB at most)


def _empty(*shape: int, dtype: Any = np.float32) -> Any:
    return field(default_factory=lambda: np.zeros((0, *shape), dtype))


@dataclass
class Detections:
    """Per box: ``boxes`` (xyxy, image pixels), ``confidence`` (the chosen card's
    probability), ``class_id``, ``quads`` (the outline, corners from the card's
    top-left), ``loc_score`` (the localiser's); optionally ``probs`` (N,49, the
    classifier's, for picking cards), ``face`` (N, the face gate's probability that the
    box holds a hanafuda face, when the model has a gate), ``crops`` (N,H,W,3, the
    rectified crops the classifier read) and ``similarity`` (N,48, read with an enrolled
    deck: each box's best cosine similarity to each enrolled card, -inf for the others).
    ``image_size`` is the (width, height) the boxes
    are in. ``sure`` (N, bool; all True unless given): False for a *weak* reading, a box
    below the still-photo thresholds that the networks still read as a card
    (``Detector.detect(weak=True)``; the live camera's tracker weighs those)."""

    boxes: np.ndarray = _empty(4)
    confidence: np.ndarray = _empty()
    class_id: np.ndarray = _empty(dtype=np.int64)
    quads: np.ndarray = _empty(4, 2)
    loc_score: np.ndarray = _empty()
    probs: np.ndarray | None = None
    crops: np.ndarray | None = None
    face: np.ndarray | None = None
    similarity: np.ndarray | None = None
    image_size: tuple[int, int] = (0, 0)
    timings: dict = field(default_factory=dict)
    sure: np.ndarray | None = None     # None when built: all True

    _ARRAYS = ("boxes", "confidence", "class_id", "quads", "loc_score", "probs", "crops",
               "face", "similarity", "sure")

    def __post_init__(self) -> None:
        n = len(self.class_id)
        for name, shape in (("boxes", (4,)), ("quads", (4, 2)), ("confidence", ()),
                            ("loc_score", ()), ("class_id", ())):
            value = np.asarray(getattr(self, name))
            if value.shape != (n, *shape):
                raise ValueError(f"Detections.{name} has shape {value.shape}, not "
                                 f"{(n, *shape)}")
            setattr(self, name, value)
        for name in ("probs", "crops", "face", "similarity"):
            value = getattr(self, name)
            if value is not None and len(value) != n:
                raise ValueError(f"Detections.{name} has {len(value)} rows, not {n}")
        sure = np.ones(n, bool) if self.sure is None else np.asarray(self.sure, bool)
        if sure.shape != (n,):
            raise ValueError(f"Detections.sure has shape {sure.shape}, not {(n,)}")
        self.sure = sure

    def __len__(self) -> int:
        return len(self.class_id)

    def __getitem__(self, index: Any) -> "Detections":
        """The boxes an int, a slice, a list/array of indices or a boolean mask picks."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        if isinstance(index, np.ndarray) and index.dtype == bool and len(index) != len(self):
            raise IndexError(f"a mask of {len(index)} for {len(self)} detections")
        picked: dict[str, Any] = {f.name: (None if getattr(self, f.name) is None
                                           else np.asarray(getattr(self, f.name))[index])
                                  for f in fields(self) if f.name in self._ARRAYS}
        return Detections(**picked, image_size=self.image_size, timings=dict(self.timings))

    @classmethod
    def join(cls, parts: "list[Detections]") -> "Detections":
        """One record of the boxes of ``parts`` (of one image), in order; an optional
        array (``probs``, ``crops``, ``face``, ``similarity``) is kept when every part with boxes has it.
        The first part's image size and timings."""
        if not parts:
            return cls()
        held = [p for p in parts if len(p)] or parts[:1]
        arrays: dict[str, Any] = {}
        for name in cls._ARRAYS:
            values = [getattr(p, name) for p in held]
            arrays[name] = None if any(v is None for v in values) else np.concatenate(values)
        return cls(**arrays, image_size=parts[0].image_size, timings=dict(parts[0].timings))

    @classmethod
    def from_quads(cls, quads: np.ndarray, loc_score: np.ndarray, probs: np.ndarray,
                   image_size: tuple[int, int], crops: np.ndarray | None = None,
                   face: np.ndarray | None = None,
                   similarity: np.ndarray | None = None) -> "Detections":
        """Classified boxes: each box's likeliest class and its probability; ``boxes``
        are the quads' bounds, clipped to the image."""
        quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        probs = np.asarray(probs, np.float32).reshape(len(quads), NUM_CARDS + 1)
        ids = probs.argmax(1).astype(np.int64) if len(probs) else np.zeros(0, np.int64)
        w, h = image_size
        boxes = np.concatenate([quads.min(1), quads.max(1)], 1) if len(quads) else \
            np.zeros((0, 4), np.float32)
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        return cls(boxes.astype(np.float32), probs[np.arange(len(ids)), ids], ids, quads,
                   np.asarray(loc_score, np.float32), probs, crops, face, similarity,
                   image_size)

    @property
    def codes(self) -> list[str]:
        return [card_from_class(int(c)).code for c in self.class_id]

    def heights(self) -> np.ndarray:
        """Each box's long side in pixels."""
        return long_sides(self.quads)

    def scaled(self, factor: float) -> "Detections":
        """The same boxes in an image ``factor`` times larger (a frame decoded smaller)."""
        if factor == 1.0:
            return self
        w, h = self.image_size
        out = self[np.arange(len(self))]
        out.boxes, out.quads = self.boxes * factor, self.quads * factor
        out.image_size = (int(round(w * factor)), int(round(h * factor)))
        return out

    def to_cards(self, crops: bool = False) -> list[dict]:
        """The cards as DESIGN.md's detect JSON lists them; with ``crops``, each with its
        classifier crop as a small JPEG data URL (``crop``)."""
        out = []
        for i in range(len(self)):
            c = card_from_class(int(self.class_id[i]))
            item = {"code": c.code, "name": c.name,
                    "confidence": round(float(self.confidence[i]), 4),
                    "box": [round(float(v), 1) for v in self.boxes[i]],
                    "quad": [[round(float(x), 1), round(float(y), 1)]
                             for x, y in self.quads[i]]}
            if crops and self.crops is not None:
                item["crop"] = jpeg_url(self.crops[i])
            if self.sure is not None and not self.sure[i]:
                item["sure"] = False        # a weak reading (the still JSON never has it)
            out.append(item)
        return out


def jpeg_url(crop: np.ndarray) -> str:
    """A crop as a ``data:image/jpeg;base64,`` URL (the page shows it, a pile keeps it)."""
    ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, CROP_QUALITY])
    if not ok:
        return ""
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")
