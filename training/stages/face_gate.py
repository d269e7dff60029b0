"""The face gate: a linear read of the classifier's card embedding that says whether a
box holds a hanafuda face at all. The classifier's "not a card" class only ever saw
rendered clutter; on real tables it reads a Western playing card's face as a hanafuda
card at 0.5-0.95. The gate learns the difference from the boxes the shipped localiser
(and refiner) really propose:

- hanafuda faces: boxes on the cards of realistic *train* scenes (IoU >= 0.5 with a card
  at least 30% visible), the partly hidden ones included;
- not hanafuda: every box proposed on the real photographs' *train* part (playing cards,
  hands, phones, tables; no hanafuda in them), and boxes on realistic train scenes that
  touch no card (clutter, decoy faces).

It is a logistic regression (256 weights and a bias) stored in the localiser's metadata
(``face_gate``), so the classifier file, and every deck profile keyed by it, stays as it
is. Its threshold is chosen by tuning on validation scenes and the photos' train part.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from training.data.boxes import NOT_A_CARD, BoxCrops

GATE_SEED_OFFSET = 80_000  # within the train range, past the other stages' scenes


@dataclass
class Examples:
    """Embeddings (N,D) with their labels (1: a hanafuda face) and sources."""
    emb: np.ndarray
    label: np.ndarray
    source: list[str]


def examples(detector, boxes: BoxCrops, chunk: int = 256) -> Examples:
    """The boxes' embeddings (in chunks), each labelled by whether it holds a card."""
    embs = [detector.embed(boxes.crops[i:i + chunk])
            for i in range(0, len(boxes.labels), chunk)]
    emb = np.concatenate(embs) if embs else np.zeros((0, 256), np.float32)
    return Examples(emb.astype(np.float32), (boxes.labels < NOT_A_CARD).astype(np.int64),
                    list(boxes.sources))


def fit(ex: Examples, photo_weight: float = 3.0, c: float = 1.0) -> tuple[np.ndarray, float]:
    """Logistic-regression weights and bias on ``ex`` (each class weighted to balance,
    the real photos' boxes ``photo_weight`` times a rendered negative)."""
    from sklearn.linear_model import LogisticRegression
    weight = np.where(np.array(ex.source) == "photo", photo_weight, 1.0)
    for cls in (0, 1):
        m = ex.label == cls
        weight[m] *= len(ex.label) / (2 * max(weight[m].sum(), 1e-9))
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit(ex.emb, ex.label, sample_weight=weight)
    return model.coef_[0].astype(np.float32), float(model.intercept_[0])


def choose_threshold(scenes: list, photos: list, detector, grid, guard: float
                     ) -> tuple[tuple[float, float] | None, list[dict]]:
    """The gate's thresholds (for other boxes, for close-up boxes; each from ``grid``)
    with the fewest false cards on ``photos`` (candidates of photos without hanafuda)
    among those that keep each realistic kind of ``scenes`` within ``guard`` of its F1
    without the gate (ties: the lower thresholds); None when none does. Each grid
    point's figures too."""
    from scorer.vision.card_checks import CardChecks
    from scorer.vision.gate import FaceGate
    from training.measure.slices import pick, score_by_kind

    def select(t, tl):
        gate = None if t is None else FaceGate(np.zeros(1, np.float32), 0.0, t, tl)
        rules = detector.settings.but(face_gate=gate, card_checks=CardChecks(), beside=None)
        return lambda c: pick(c, rules)
    _, ref = score_by_kind(scenes, select(None, None))
    table, best = [], None
    for t, tl in [(None, None)] + [(a, b) for a in grid for b in grid]:
        _, kinds = score_by_kind(scenes, select(t, tl))
        false_cards = sum(len(select(t, tl)(c)) for _, c, _, _ in photos)
        ok = all(kinds[k]["equiv"]["f1"] >= ref[k]["equiv"]["f1"] - guard for k in ref)
        table.append({"threshold": t, "large_threshold": tl, "photo_false_cards": false_cards,
                      "photos": len(photos), "eligible": ok,
                      "kinds": {k: v["equiv"]["f1"] for k, v in kinds.items()}})
        if t is not None and ok and (best is None or false_cards < best[1]):
            best = ((t, tl), false_cards)
    return (best[0] if best else None), table
