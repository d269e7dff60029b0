"""Detection for the web API: one shared detector, bounded concurrency, clear errors."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from scorer.errors import InputError
from scorer.vision.report import ImageLimits, check_header, decode_frame, detect_report
from webui.crops import add_crops


def _str(path: Any) -> str | None:
    return str(path) if path else None


class Busy(Exception):
    """Every detection slot is taken; the client should retry shortly (503)."""


class DetectorUnavailable(Exception):
    """No model could be loaded (503, with the reason)."""


class DetectionService:
    """Holds the app's one detector, created lazily on the first request."""

    def __init__(self, detector: Any = None, model_path: str | Path | None = None,
                 concurrency: int = 2, max_pixels: int = 40_000_000,
                 max_side: int = 12_000) -> None:
        self._detector = detector
        self._model_path = model_path
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self.limits = ImageLimits(max_pixels, max_side)

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

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one of the detection slots (the detector's work at once is bounded); Busy
        (503) at once when all are taken."""
        if not self._slots.acquire(blocking=False):
            raise Busy("detection is busy; retry in a moment")
        try:
            yield
        finally:
            self._slots.release()

    def detect(self, data: bytes, crops: bool = False, profile: Any = None) -> dict[str, Any]:
        """The DESIGN.md detect JSON for one image's bytes (``scorer.vision.report``);
        with ``crops``, each card also has its rectified crop as a small JPEG data URL
        (``crop``); ``profile``: an enrolled deck's profile to read the cards with. The
        header is checked before a detection slot is taken."""
        info = check_header(data, self.limits)
        with self.slot():
            report = detect_report(self.detector(), decode_frame(data, info), profile)
        if crops:
            add_crops(report.frame.image, report.cards)
        return report.to_dict(self.model_name)
