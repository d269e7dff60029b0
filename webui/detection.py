"""Detection for the web API: one shared detector, bounded concurrency, clear errors."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from scorer.errors import InputError
from scorer.vision import decode_image, imageheader
from scorer.vision.hints import framing_hints
from webui.crops import add_crops


def _str(path: Any) -> str | None:
    return str(path) if path else None


class Busy(Exception):
    """Every detection slot is taken; the client should retry shortly (503)."""


class DetectorUnavailable(Exception):
    """No model could be loaded (503, with the reason)."""


def decode(data: bytes) -> Any:
    """Decode with the vision package (EXIF orientation applied); any failure to decode
    untrusted bytes is the sender's error (400), never a 500."""
    try:
        image = decode_image(data)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - untrusted bytes may break a decoder anyhow
        raise InputError(f"corrupt image: it cannot be decoded ({type(exc).__name__})") \
            from None
    if image is None or getattr(image, "size", 0) == 0:
        raise InputError("corrupt image: it cannot be decoded")
    return image


class DetectionService:
    """Holds the app's one detector, created lazily on the first request."""

    def __init__(self, detector: Any = None, model_path: str | Path | None = None,
                 concurrency: int = 2, max_pixels: int = 40_000_000,
                 max_side: int = 12_000) -> None:
        self._detector = detector
        self._model_path = model_path
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self.max_pixels = max_pixels
        self.max_side = max_side

    @property
    def loaded(self) -> bool:
        return self._detector is not None

    @property
    def model_name(self) -> str | None:
        path = self._model_path or getattr(self._detector, "model_path", None)
        return str(path) if path else None

    def models(self) -> dict[str, str | None]:
        """The files of the three networks (localiser, classifier, box refiner): the loaded
        detector's, else the ones a load would use (named beside the localiser)."""
        det = self._detector
        if det is not None:
            return {"localiser": self.model_name,
                    "classifier": _str(getattr(det, "classifier_path", None)),
                    "refiner": _str(getattr(det, "refiner_path", None))}
        from scorer.vision import default_model_path
        loc = Path(self._model_path) if self._model_path else default_model_path()
        beside = {k: loc.with_name(loc.name.replace("localiser", k))
                  for k in ("classifier", "refiner")}
        return {"localiser": str(loc),
                **{k: str(p) if p.is_file() and p != loc else None for k, p in beside.items()}}

    def detector(self) -> Any:
        with self._lock:
            if self._detector is None:
                try:
                    from scorer.vision import Detector
                    self._detector = Detector(model_path=self._model_path)
                except (ImportError, OSError, InputError, RuntimeError) as exc:
                    raise DetectorUnavailable(f"no card detector: {exc}") from None
            return self._detector

    def detect(self, data: bytes, crops: bool = False, profile: Any = None) -> dict[str, Any]:
        """The DESIGN.md detect JSON for one image's bytes; with ``crops``, each card also
        has its rectified crop as a small JPEG data URL (``crop``); ``profile``: an
        enrolled deck's profile to read the cards with."""
        info = imageheader.check(data, self.max_pixels, self.max_side)
        if not self._slots.acquire(blocking=False):
            raise Busy("detection is busy; retry in a moment")
        try:
            detector = self.detector()
            t0 = time.perf_counter()
            image = decode(data)
            t1 = time.perf_counter()
            found = detector.detect(image) if profile is None else \
                detector.detect(image, profile=profile)
            t2 = time.perf_counter()
        finally:
            self._slots.release()
        timings = dict(getattr(found, "timings", None) or {})   # the detector's stages
        timings["decode"] = round((t1 - t0) * 1000, 1)
        timings.setdefault("infer", round((t2 - t1) * 1000, 1))
        timings["total"] = round((t2 - t0) * 1000, 1)
        height, width = image.shape[:2]
        cards = list(found.to_cards())
        if crops:
            add_crops(image, cards)
        return {"width": int(width), "height": int(height), "format": info.format,
                "model": self.model_name, "cards": cards, "hints": framing_hints(cards),
                "ms": timings}
