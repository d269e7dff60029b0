"""How well a confidence is calibrated: of the cards reported at 0.9, are nine in ten
right? The expected calibration error (ECE) bins the reported cards by confidence and
weighs each bin's gap between its mean confidence and its share of right cards."""

from __future__ import annotations

import numpy as np


def expected_calibration_error(confidence, correct, bins: int = 10) -> dict:
    """``{"ece", "cards", "bins": [{"from", "to", "cards", "confidence", "right"}]}`` for
    reported cards of ``confidence`` (0..1) that were ``correct`` (bool), in ``bins``
    equal-width bins (an empty bin is left out)."""
    conf = np.asarray(confidence, np.float64)
    ok = np.asarray(correct, bool)
    if conf.shape != ok.shape:
        raise ValueError("confidence and correct must have the same length")
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(conf, edges[1:-1], right=True), 0, bins - 1)
    rows, ece = [], 0.0
    for b in range(bins):
        sel = which == b
        n = int(sel.sum())
        if not n:
            continue
        mean_conf, right = float(conf[sel].mean()), float(ok[sel].mean())
        ece += n / len(conf) * abs(mean_conf - right)
        rows.append({"from": round(float(edges[b]), 2), "to": round(float(edges[b + 1]), 2),
                     "cards": n, "confidence": round(mean_conf, 4), "right": round(right, 4)})
    return {"ece": round(ece, 4), "cards": int(len(conf)), "bins": rows}
