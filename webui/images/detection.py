"""Image work for the web API: one shared detector, every image through the one gate
(``scorer.vision.image``), and every decode and detection scheduled on the workers
(``webui.images.scheduler``: fair per client, a short deadline, a pixel budget)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence, TypeVar, cast

import cv2

from scorer.errors import DetectorUnavailable, InputError
from scorer.vision.detector import CardDetector
from scorer.vision.image import ImageLimits, Upload, check
from webui.images.scheduler import Busy, Scheduler, Superseded, cores

__all__ = ["Busy", "Superseded", "DetectorUnavailable", "DetectionService", "ClientImages"]

T = TypeVar("T")


def _str(path: Any) -> str | None:
    return str(path) if path else None


class DetectionService:
    """Holds the app's one detector (created lazily on the first request) and the
    scheduler its work runs on."""

    def __init__(self, detector: CardDetector | None = None,
                 model_path: str | Path | None = None, workers: int | None = None,
                 deadline: float = 1.0, max_pixels: int = 40_000_000,
                 max_side: int = 12_000, heavy_budget: int | None = None,
                 max_progressive: int = 12_000_000) -> None:
        self._detector = detector
        self._model_path = model_path
        self._lock = threading.Lock()
        self._on_workers: OnWorkers | None = None
        # a progressive JPEG holds its whole image while it decodes: 12 MP is 36 MB
        # (``scorer.vision.image``); phones and browsers write baseline ones
        self.limits = ImageLimits(max_pixels, max_side, min(max_progressive, max_pixels))
        self.scheduler = Scheduler(workers, deadline,
                                   heavy_budget=heavy_budget or 2 * self.limits.max_pixels)
        # OpenCV's own pool would run a job's resizes and colour conversions on threads
        # shared by every worker, outside the scheduler: a heavy job's work at the
        # cameras' priority, and a pool first started by a heavy thread at background
        # priority for everyone (threads inherit it). The workers already fill the
        # cores, so each job's OpenCV work stays on its own thread (a process setting).
        cv2.setNumThreads(1)

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
                    "classifier": _str(det.classifier_path),
                    "refiner": _str(getattr(det, "refiner_path", None))}
        from scorer.vision import default_model_path
        loc = Path(self._model_path) if self._model_path else default_model_path()
        beside = {k: loc.with_name(loc.name.replace("localiser", k))
                  for k in ("classifier", "refiner")}
        return {"localiser": str(loc),
                **{k: str(p) if p.is_file() and p != loc else None for k, p in beside.items()}}

    def detector(self) -> CardDetector:
        with self._lock:
            if self._detector is None:
                try:
                    from scorer.vision import Detector
                    # one onnxruntime thread per worker: the workers fill the cores
                    threads = max(1, cores() // self.scheduler.workers)
                    self._detector = Detector(model_path=self._model_path, threads=threads)
                except (ImportError, OSError, InputError, RuntimeError) as exc:
                    raise DetectorUnavailable(f"no card detector: {exc}") from None
            return self._detector

    def detector_on_workers(self) -> CardDetector:
        """The detector whose ``detect`` from a heavy job runs on a worker
        (``Scheduler.on_worker``): one object for the service's life (the deck profiles
        are kept per detector)."""
        det = self.detector()
        with self._lock:
            if self._on_workers is None or self._on_workers.detector is not det:
                self._on_workers = OnWorkers(det, self.scheduler)
            return cast(CardDetector, self._on_workers)

    def check(self, data: bytes, name: str | None = None,
              limits: ImageLimits | None = None) -> Upload:
        """The image gate: its header checked once (InputError, ImageTooLarge over the
        limits, the message naming ``name`` when given)."""
        try:
            return check(data, limits or self.limits)
        except InputError as exc:
            if name is None:
                raise
            raise type(exc)(f"{name}: {exc}") from None

    def run(self, client: Hashable, uploads: Sequence[Upload], fn: Callable[[], T],
            useful_side: int | None = None, heavy: bool | None = None) -> T:
        """Run ``fn`` (which decodes ``uploads``) on the scheduler at their pixel cost."""
        cost = sum(u.cost(useful_side) for u in uploads)
        return self.scheduler.run(client, cost, fn, heavy)

    def images(self, client: Hashable) -> "ClientImages":
        """This service as one client's requests use it (``scorer.images.Images``)."""
        return ClientImages(self, client)


@dataclass(frozen=True)
class ClientImages:
    """The detection service for one client: its detector, and jobs on the scheduler
    in that client's turn (``scorer.images.Images``, what ``scorer.table.Table`` uses)."""

    service: DetectionService
    client: Hashable

    def detector(self) -> CardDetector:
        return self.service.detector_on_workers()

    def run(self, cost: int, job: Callable[[], T]) -> T:
        return self.service.scheduler.run(self.client, cost, job)


#: The detector's methods that run its networks (onnxruntime): on a worker from a heavy job.
INFERENCE = frozenset({"localise", "classify", "embed", "cells"})


class OnWorkers:
    """A detector whose inference (``detect``, ``follow``, and ``INFERENCE``: what a deck's
    enrolment calls), called from a heavy job, runs on one of the scheduler's workers
    (``Scheduler.on_worker``: at most ``workers`` inferences at once, each holding
    onnxruntime's buffers); everything else is the detector's own."""

    def __init__(self, detector: CardDetector, scheduler: Scheduler) -> None:
        self.detector = detector
        self.scheduler = scheduler

    def detect(self, *args: Any, **kwargs: Any) -> Any:
        return self.scheduler.on_worker(lambda: self.detector.detect(*args, **kwargs))

    def follow(self, *args: Any, **kwargs: Any) -> Any:
        """``Detector.follow`` on a worker, as ``detect``."""
        return self.scheduler.on_worker(lambda: self.detector.follow(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.detector, name)
        if name in INFERENCE and callable(attr):
            return lambda *args, **kwargs: self.scheduler.on_worker(lambda: attr(*args, **kwargs))
        return attr
