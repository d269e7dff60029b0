"""The benchmark's 640x480 frames of a card table, and alternating timing of detectors on
them: what ``bench_detect`` prints and what the ship rule's speed limit reads
(``training.measure.compare``), so the two never disagree."""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import cv2
import numpy as np

ART_SETS = ("louie-mantia", "hwatu-commons", "freegostop-color", "freegostop-pencil")
WARM_UP = 3  # frames timed but not counted


def table_frames(count: int, cards: int = 20) -> list[bytes]:
    """``count`` JPEG (q85) 640x480 renders of ``cards`` cards each, the art sets in turn
    (seeds 9 000 000+: the same frames every run)."""
    from scorer.cards import CODES
    from training.data.scenes import render_scene

    rng = np.random.default_rng(2024)
    frames = []
    for i in range(count):
        codes = list(rng.choice(CODES, cards, replace=False))
        img, _ = render_scene(codes, seed=9_000_000 + i, easy=False,
                              art_set=ART_SETS[i % len(ART_SETS)],
                              card_height=float(rng.uniform(70, 150)))
        frames.append(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes())
    return frames


def alternating_ms(detectors: Sequence[Any], frames: Sequence[bytes]) -> list[list[float]]:
    """Each detector's milliseconds to decode and detect each frame (after ``WARM_UP``
    frames), the detectors taking turns frame by frame and which goes first rotating,
    so that all of them see the same machine load. An entry may instead be a callable
    of a frame's bytes, timed as it is: a run that keeps more than its total
    (``bench_detect``: the stages, the cards found, detection with a deck profile)."""
    runs = [_decode_and_detect(d) if hasattr(d, "detect") else d for d in detectors]
    out: list[list[float]] = [[] for _ in runs]
    for i, data in enumerate(frames):
        shift = i % len(runs)
        for k in list(range(shift, len(runs))) + list(range(shift)):
            t0 = time.perf_counter()
            runs[k](data)
            if i >= WARM_UP:
                out[k].append((time.perf_counter() - t0) * 1e3)
    return out


def _decode_and_detect(detector: Any) -> Callable[[bytes], object]:
    """The run of a detector on a frame: decode its bytes, then detect."""
    from scorer.vision import decode_image

    return lambda data: detector.detect(decode_image(data))
