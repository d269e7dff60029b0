"""One detection path for ``hanafuda detect`` and ``POST /api/detect``: a frame passes the
image gate once (``scorer.vision.image``: header checked, decoded and timed once), the
detector runs once, and the report is DESIGN.md's detect JSON (``Report.to_dict``).

    frame = read_frame(data)                  # InputError for a bad or oversized image
    report = detect_report(detector, frame)   # detector.detect(image)
    report.to_dict(model="models/...", image="photo.jpg")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer.vision.detections import Detections
from scorer.vision.hints import framing_hints
from scorer.vision.image import Frame, ImageLimits, read_frame

__all__ = ["Frame", "ImageLimits", "Report", "detect_report", "read_frame"]


@dataclass
class Report:
    """What one detection found: the frame, the detector's cards (in the stored image's
    pixels, whatever size the frame was decoded at), their JSON list (DESIGN.md's),
    framing hints, and the timings (the detector's, the decode time included)."""

    frame: Frame
    detections: Detections
    cards: list[dict[str, Any]]
    hints: list[str]

    @property
    def ms(self) -> dict[str, float]:
        """The detector's stage timings, with the decode (timed once, when the frame was
        read) and the total of both."""
        stages = dict(self.detections.timings or {})
        decode = self.frame.decode_ms
        return {"decode": decode, **stages,
                "total": round(decode + float(stages.get("total", 0.0)), 2)}

    def to_dict(self, model: str | None, **extra: Any) -> dict[str, Any]:
        """The detect JSON; ``extra`` keys (e.g. ``image``) come first."""
        return {**extra, "width": self.frame.width, "height": self.frame.height,
                "format": self.frame.format, "model": model, "cards": self.cards,
                "hints": self.hints, "ms": self.ms}


def detect_report(detector: Any, frame: Frame, profile: Any = None,
                  crops: bool = False, weak: bool = False,
                  follow: tuple[Any, Any] | None = None) -> Report:
    """Run ``detector.detect`` (a ``CardDetector``) on a frame, with an enrolled deck's
    ``profile`` if one is given and, with ``crops``, each card's classifier crop (cut in
    the detector's pass) as a JPEG data URL; with ``weak`` (the live camera's frames), the
    weak readings after the cards (``"sure": false``); build the report. The framing
    hints are the cards'. ``follow`` (a live frame between the localiser's: the
    ``(quads, sure)`` of ``scorer.vision.follow.parse_follow``, in the stored image's
    pixels): ``detector.follow`` instead, no localiser; a detector whose class has no
    ``follow`` detects as usual."""
    extra = {"weak": True} if weak else {}      # a detector that knows no weak readings
    if follow is not None and callable(getattr(type(detector), "follow", None)):
        quads, sure = follow
        found = detector.follow(frame.image, quads / frame.scale, sure, profile=profile,
                                crops=crops, **extra).scaled(frame.scale)
    else:
        found = detector.detect(frame.image, profile=profile, crops=crops,
                                **extra).scaled(frame.scale)
    cards = found.to_cards(crops=crops)
    return Report(frame, found, cards, framing_hints([c for c in cards if c.get("sure", True)]))
