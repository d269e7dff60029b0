"""The face gate: whether a box holds a hanafuda face at all, read linearly from the
classifier's card embedding (``training.stages.face_gate`` fits it on the boxes the
localiser proposes on real photographs of other things, and on rendered cards).

The classifier's own "not a card" class never saw a real photograph, and reads a Western
playing card's face as a hanafuda card at 0.5-0.95; the gate refuses such boxes. It lives
in the localiser's metadata (``face_gate``: weights, bias, threshold), so the classifier
file, which deck profiles are keyed by, stays as it is."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def faces_passing(face: np.ndarray, close_up: np.ndarray, threshold: float,
                  large_threshold: float | None = None) -> np.ndarray:
    """(N,) bool: the boxes whose face probability reaches ``threshold``, or for close-up
    boxes ``large_threshold`` (None: the same)."""
    large = threshold if large_threshold is None else large_threshold
    return face >= np.where(close_up, large, threshold)


@dataclass(frozen=True)
class FaceGate:
    weights: np.ndarray  # (D,) over the L2-normalised embedding
    bias: float
    threshold: float  # a box whose face probability is below this is not a card
    # the same for close-up boxes (``Localiser.close_ups``), which real photos of other
    # cards fill most often; None: ``threshold``
    large_threshold: float | None = None

    def to_config(self) -> dict:
        return {"weights": [round(float(v), 6) for v in self.weights],
                "bias": round(self.bias, 6), "threshold": self.threshold,
                "large_threshold": self.large_threshold}

    def lets_through(self, face: np.ndarray, close_up: np.ndarray) -> np.ndarray:
        """(N,) bool: the boxes whose face probability reaches their threshold."""
        return faces_passing(face, close_up, self.threshold, self.large_threshold)

    def face_prob(self, embedding: np.ndarray) -> np.ndarray:
        """(N,) the probability that each box holds a hanafuda face."""
        z = np.asarray(embedding, np.float32) @ self.weights + self.bias
        return (1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))).astype(np.float32)
