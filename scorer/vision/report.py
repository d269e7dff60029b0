"""One detection path for ``hanafuda detect`` and ``POST /api/detect``: a frame is checked
against the size limits, decoded and timed once, the detector runs once, and the report
is DESIGN.md's detect JSON (``Report.to_dict``).

    frame = read_frame(data)                  # InputError for a bad or oversized image
    report = detect_report(detector, frame)   # detector.detect(image)
    report.to_dict(model="models/...", image="photo.jpg")
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from scorer.errors import InputError
from scorer.vision import imageheader
from scorer.vision.detector import MAX_PIXELS, MAX_SIDE, decode_image
from scorer.vision.hints import framing_hints


@dataclass(frozen=True)
class ImageLimits:
    """The largest image accepted. The decoder never reads more than MAX_PIXELS and
    MAX_SIDE, so a limit may only be lower: a higher one is refused (ValueError) rather
    than silently capped."""

    max_pixels: int = MAX_PIXELS
    max_side: int = MAX_SIDE

    def __post_init__(self) -> None:
        if not 0 < self.max_pixels <= MAX_PIXELS or not 0 < self.max_side <= MAX_SIDE:
            raise ValueError(f"image limits {self.max_pixels} pixels, {self.max_side} px a "
                             f"side: the decoder reads at most {MAX_PIXELS} pixels and "
                             f"{MAX_SIDE} px a side")


@dataclass(frozen=True)
class Frame:
    """A decoded image (BGR, EXIF orientation applied), its format and decode time."""

    image: Any
    format: str
    decode_ms: float

    @property
    def width(self) -> int:
        return int(self.image.shape[1])

    @property
    def height(self) -> int:
        return int(self.image.shape[0])


def check_header(data: bytes, limits: ImageLimits = ImageLimits()) -> imageheader.ImageInfo:
    """The image's format and size from its header, before any pixel is decoded:
    InputError (ImageTooLarge over the limits) for what will not be decoded."""
    if not data:
        raise InputError("empty image data")
    return imageheader.check(data, limits.max_pixels, limits.max_side)


def decode_frame(data: bytes, info: imageheader.ImageInfo) -> Frame:
    """Decode checked bytes, timed. Untrusted bytes that break the decoder anyhow are the
    sender's error (InputError), never a crash."""
    start = time.perf_counter()
    try:
        image = decode_image(data)
    except InputError:
        raise
    except Exception as exc:  # untrusted bytes may break a decoder anyhow
        raise InputError(f"corrupt image: it cannot be decoded ({type(exc).__name__})") \
            from None
    if image is None or getattr(image, "size", 0) == 0:
        raise InputError("corrupt image: it cannot be decoded")
    return Frame(image, info.format, round((time.perf_counter() - start) * 1e3, 2))


def read_frame(data: bytes, limits: ImageLimits = ImageLimits()) -> Frame:
    """``check_header`` then ``decode_frame``."""
    return decode_frame(data, check_header(data, limits))


@dataclass
class Report:
    """What one detection found: the frame, the detector's result, its cards (DESIGN.md's
    list), framing hints, and the timings (the detector's, the decode time included)."""

    frame: Frame
    detections: Any
    cards: list[dict[str, Any]]
    hints: list[str]

    @property
    def ms(self) -> dict[str, float]:
        """The detector's stage timings, with the decode (timed once, when the frame was
        read) and the total of both."""
        stages = dict(getattr(self.detections, "timings", None) or {})
        decode = self.frame.decode_ms
        return {**stages, "decode": decode,
                "total": round(decode + float(stages.get("total", 0.0)), 2)}

    def to_dict(self, model: str | None, **extra: Any) -> dict[str, Any]:
        """The detect JSON; ``extra`` keys (e.g. ``image``) come first."""
        return {**extra, "width": self.frame.width, "height": self.frame.height,
                "format": self.frame.format, "model": model, "cards": self.cards,
                "hints": self.hints, "ms": self.ms}


def detect_report(detector: Any, frame: Frame, profile: Any = None) -> Report:
    """Run ``detector.detect(image)`` (a ``scorer.vision.Detector`` or anything with its
    ``detect``) on a frame, with an enrolled deck's ``profile`` if one is given, and
    build the report."""
    found = detector.detect(frame.image) if profile is None else \
        detector.detect(frame.image, profile=profile)
    cards = list(found.to_cards())
    return Report(frame, found, cards, framing_hints(cards))
