"""Test doubles for the detector: ``FakeDetector`` stands in for ``scorer.vision.Detector``
in the tests and the load benchmarks (``support.servers.make_detector``)."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Sequence


def detections_of(cards: Sequence[dict[str, Any]], image: Any = None,
                  crops: bool = False, crop_size: tuple[int, int] = (72, 112)) -> Any:
    """A real ``Detections`` record of cards given as ``{"code", "box"[, "confidence"][,
    "sure"]}`` dicts (the box's corners as the quad; ``"sure": False`` a weak reading);
    with ``crops``, each card's crop cut from ``image`` as a detector cuts it."""
    import numpy as np

    from scorer.cards import card
    from scorer.vision import Detections
    from scorer.vision.geometry import rectify
    boxes = np.array([c["box"] for c in cards], np.float32).reshape(-1, 4)
    quads = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [2, 3]], boxes[:, [0, 3]]],
                     1)
    conf = np.array([c.get("confidence", 0.9) for c in cards], np.float32)
    cut = None
    if crops and image is not None:
        cut = np.stack([rectify(image, q, *crop_size) for q in quads]) if len(quads) else \
            np.zeros((0, crop_size[1], crop_size[0], 3), np.uint8)
    size = (int(image.shape[1]), int(image.shape[0])) if image is not None else (0, 0)
    return Detections(boxes, conf, np.array([card(c["code"]).class_index for c in cards],
                                            np.int64), quads, conf, crops=cut, image_size=size,
                      sure=np.array([bool(c.get("sure", True)) for c in cards], bool))


class FakeDetector:
    """Stands in for ``scorer.vision.Detector`` in the tests and the load benchmarks:
    returns ``codes`` (a list, or a function of the image) as boxes in a row, and, when
    asked for weak readings (``detect(weak=True)``), ``weak_codes`` after them, read at
    ``WEAK_CONFIDENCE`` and ``sure`` False. With ``delay`` it takes that long first,
    asleep or, with ``cpu``, blurring the image over and over (like a model, OpenCV works
    outside the GIL and takes a core); with ``gate`` it waits for that event (to hold a
    detection slot). It counts calls and the most detections at once; ``entered`` is set
    by the first call."""

    model_path = "fake-detector"
    classifier_path: Any = None         # no classifier file (EmbeddingFakeDetector has one)
    crop_w, crop_h = 72, 112
    useful_side = 1920
    has_embedding = has_cells = False
    WEAK_CONFIDENCE = 0.35

    def __init__(self, codes: Sequence[str] | Callable[[Any], list[str]] = ("08-1",),
                 delay: float = 0.0, cpu: bool = False,
                 gate: threading.Event | None = None, weak_codes: Sequence[str] = ()) -> None:
        self.codes = codes
        self.weak_codes = list(weak_codes)
        self.weak_calls = 0             # calls that asked for weak readings
        self.follow_calls = 0           # follow calls (each also counted a detect call)
        self.followed: list[list[list[float]]] = []
        self.delay = delay
        self.cpu = cpu
        self.gate = gate
        self.calls = 0
        self.running = 0
        self.max_running = 0
        self.entered = threading.Event()
        self._lock = threading.Lock()

    def detect(self, image: Any, profile: Any = None, crops: bool = False,
               weak: bool = False) -> Any:
        with self._lock:
            self.calls += 1
            self.weak_calls += bool(weak)
            self.running += 1
            self.max_running = max(self.max_running, self.running)
        self.entered.set()
        try:
            if self.gate is not None:
                self.gate.wait(10)
            if self.delay and self.cpu:
                import cv2
                end = time.perf_counter() + self.delay
                while time.perf_counter() < end:
                    cv2.GaussianBlur(image, (9, 9), 0)
            elif self.delay:
                time.sleep(self.delay)
            return self._detections(image, crops, weak)
        finally:
            with self._lock:
                self.running -= 1

    def follow(self, image: Any, quads: Any, sure: Any = None, profile: Any = None,
               crops: bool = False, weak: bool = False) -> Any:
        """``Detector.follow``'s stand-in: the same cards as ``detect``; counts the calls
        (``follow_calls``) and keeps the last outlines asked for (``followed``)."""
        with self._lock:
            self.follow_calls += 1
            self.followed = [[list(map(float, p)) for p in q] for q in quads]
        return self.detect(image, profile, crops, weak)

    def _detections(self, image: Any, crops: bool = False, weak: bool = False) -> Any:
        """A real ``Detections`` record (the CLI annotates it), the cards in a row."""
        codes = self.codes(image) if callable(self.codes) else list(self.codes)
        cards: list[dict[str, Any]] = [{"code": c} for c in codes]
        if weak:
            cards += [{"code": c, "confidence": self.WEAK_CONFIDENCE, "sure": False}
                      for c in self.weak_codes]
        det = detections_of([{**c, "box": [10.0 + 40 * i, 10.0, 40.0 + 40 * i, 60.0]}
                             for i, c in enumerate(cards)], image, crops,
                            (self.crop_w, self.crop_h))
        det.timings = {"infer": self.delay * 1e3, "total": round(self.delay * 1e3, 2)}
        return det

    def embed(self, crops: Any) -> Any:
        return None

    def cells(self, crops: Any) -> Any:
        return None


class EmbeddingFakeDetector(FakeDetector):
    """A ``FakeDetector`` whose classifier has card embeddings (what deck profiles need):
    ``embed`` maps a crop to a unit vector of its mean colour, and ``profiles`` records
    the deck profile of every ``detect`` call (None without one)."""

    classifier_path = __file__
    has_embedding = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.profiles: list[Any] = []

    def embed(self, crops: Any) -> Any:
        import numpy as np
        v = np.stack([np.append(c.reshape(-1, 3).mean(0) / 255.0, 1.0) for c in crops])
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)

    def detect(self, image: Any, profile: Any = None, crops: bool = False,
               weak: bool = False) -> Any:
        self.profiles.append(profile)
        return super().detect(image, crops=crops, weak=weak)
