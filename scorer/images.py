"""Where a table's image work runs: the ``Images`` protocol, and ``Inline`` (here, now).

The web's detection service implements ``Images`` for each client
(``webui.images.detection.ClientImages``: its one detector, and jobs on its fair scheduler);
``Inline`` runs a job on the calling thread (the commands, the tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol, TypeVar

from scorer.errors import DetectorUnavailable

T = TypeVar("T")


class Images(Protocol):
    """The detector, and a place to run image work of a cost in decoded pixels."""

    def detector(self) -> Any:
        """The card detector (a ``scorer.vision.CardDetector``); DetectorUnavailable
        when there is none."""
        ...

    def run(self, cost: int, job: Callable[[], T]) -> T:
        """``job()``'s result, run where image work runs (``scorer.errors.Busy`` when it
        cannot start in time)."""
        ...


@dataclass(frozen=True)
class Inline:
    """``Images`` on the calling thread, with ``detector`` (None: there is none)."""

    loaded: Any = None

    def detector(self) -> Any:
        if self.loaded is None:
            raise DetectorUnavailable("no card detector")
        return self.loaded

    def run(self, cost: int, job: Callable[[], T]) -> T:
        return job()


def detector_or_none(images: Images) -> Any:
    """The detector of ``images``, or None when there is none."""
    try:
        return images.detector()
    except DetectorUnavailable:
        return None
