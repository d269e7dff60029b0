"""The confidence a detection reports: how often a card read this surely is right.

The classifier's probability of the card it reads is not that. On the domain-shift
slice's test (held-out art, real photographs as tables, another camera) v6's third
ship's cards read at 0.3-0.6 were right 0.60-0.81 of the time, those at 0.9+ 0.98
(expected calibration error 0.10). The page asks the player to check first the cards it
reports under a confidence (``scorer.tracking.UNSURE``), so that number should mean what
it says.

A ``ConfidenceMap`` is a monotone, piecewise-linear map from the classifier's probability
to the share of cards read right at that probability, fitted when the model is tuned on
a stand-in for the real world (``training.pipeline.judge.tune``: the shift slice's
validation seeds, never its test). Only the reported confidence goes through it: which
boxes are cards is decided on the classifier's own probabilities, at the thresholds
tuned on them, so a map changes no card a photo gives (the live page's tracker sums the
reported confidence as its votes, so a map can move what it keeps).

Off (None) unless the model's metadata (``confidence_map``) has one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ConfidenceMap:
    """Knots of the map: the classifier's probability ``raw`` (increasing, from 0 to 1)
    and the share of cards read right there, ``right`` (non-decreasing, 0..1)."""
    raw: tuple[float, ...]
    right: tuple[float, ...]

    def __post_init__(self) -> None:
        raw, right = np.asarray(self.raw, float), np.asarray(self.right, float)
        if len(raw) < 2 or raw.shape != right.shape:
            raise ValueError("a confidence map needs at least two (raw, right) knots")
        if np.any(np.diff(raw) <= 0) or np.any(np.diff(right) < 0):
            raise ValueError("a confidence map's knots must increase")
        if raw[0] > 0 or raw[-1] < 1 or right.min() < 0 or right.max() > 1:
            raise ValueError("a confidence map spans 0..1 in both")

    def to_config(self) -> dict:
        return {"raw": list(self.raw), "right": list(self.right)}

    def __call__(self, probability: np.ndarray) -> np.ndarray:
        """The reported confidence of cards read with ``probability``."""
        p = np.asarray(probability, np.float32)
        return np.interp(p, self.raw, self.right).astype(np.float32)
