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


def fit_confidence_map(confidence, correct, step: float = 0.05):
    """The ``scorer.vision.confidence.ConfidenceMap`` of reported cards of
    ``confidence`` that were ``correct``: the chance a card is right as a logistic curve
    of the confidence's log-odds (Platt scaling: two numbers, so a handful of cards at
    the ends cannot bend it, as they bend an isotonic fit), read at knots ``step`` apart
    from 0 to 1. None when the cards give no rising curve (a surer read no likelier
    right, or all of them right or all wrong)."""
    from sklearn.linear_model import LogisticRegression

    from scorer.vision.confidence import ConfidenceMap

    conf = np.clip(np.asarray(confidence, np.float64), 1e-4, 1 - 1e-4)
    ok = np.asarray(correct, bool)
    if conf.shape != ok.shape or not len(conf):
        raise ValueError("a confidence map needs cards: confidence and correct alike")
    if ok.all() or not ok.any():
        return None
    logit = np.log(conf / (1 - conf))[:, None]
    fit = LogisticRegression(C=1e6).fit(logit, ok)
    a, b = float(fit.coef_[0, 0]), float(fit.intercept_[0])
    if a <= 0:
        return None
    raw = np.round(np.linspace(0.0, 1.0, int(round(1 / step)) + 1), 6)
    inner = raw[1:-1]
    right = 1 / (1 + np.exp(-(a * np.log(inner / (1 - inner)) + b)))
    return ConfidenceMap(tuple(float(v) for v in raw),
                         (0.0, *(round(float(v), 4) for v in right), 1.0))
