"""A card among cards: a box under the localiser threshold, read surely, is a card when it
lies beside a card kept, and not when it lies apart (a deck's box, a coin) or is unsure;
with the rule off, nothing changes."""

from __future__ import annotations

import numpy as np

from scorer.vision.beside import Beside, beside_boxes, repeats, worth_reading
from scorer.vision.card_checks import CardChecks
from scorer.vision.decision import pick
from scorer.vision.detections import Detections
from scorer.vision.detector import Detector
from scorer.vision.settings import DetectionSettings
from tests.test_card_checks import quad

RULE = Beside(loc_threshold=0.15, cls_threshold=0.8, distance=1.0)


def boxes(centres: list[tuple[float, float]], loc: list[float], reads: list[tuple[int, float]]):
    """Quads of 100 px cards at ``centres``, their localiser scores and probabilities
    (each box's likeliest class and its probability; the rest spread evenly)."""
    quads = np.stack([quad(x, y, 100) for x, y in centres])
    probs = np.full((len(reads), 49), 0.0, np.float32)
    for i, (cls, p) in enumerate(reads):
        probs[i] = (1 - p) / 48
        probs[i, cls] = p
    return np.array(loc, np.float32), probs, quads


def picked(loc, probs, quads, rule: Beside | None) -> list[bool]:
    found = Detections.from_quads(quads, loc, probs, (1280, 960))
    return pick(found, DetectionSettings(loc_threshold=0.4, cls_threshold=0.4,
                                         beside=rule)).tolist()


def test_the_rule_comes_from_the_models_metadata_and_is_off_without_it():
    assert DetectionSettings.from_metadata({}).beside is None
    assert DetectionSettings.from_metadata({"beside": None}).beside is None
    assert DetectionSettings.from_metadata({"beside": RULE.to_config()}).beside == RULE


def test_a_sure_read_under_the_threshold_beside_a_card_is_a_card():
    # a card kept, and a partly hidden one at a low localiser score, 60 px from it
    loc, probs, quads = boxes([(200, 200), (260, 200)], [0.9, 0.2], [(3, 0.95), (7, 0.9)])
    assert picked(loc, probs, quads, None) == [True, False]
    assert picked(loc, probs, quads, RULE) == [True, True]


def test_the_same_read_apart_from_the_cards_is_not():
    loc, probs, quads = boxes([(200, 200), (600, 200)], [0.9, 0.2], [(3, 0.95), (7, 0.9)])
    assert picked(loc, probs, quads, RULE) == [True, False]


def test_an_unsure_read_a_too_weak_box_not_a_card_and_a_close_up_stay_out():
    centres = [(200, 200), (260, 200)]
    for loc2, read in [(0.2, (7, 0.6)), (0.1, (7, 0.95)), (0.2, (48, 0.95))]:
        loc, probs, quads = boxes(centres, [0.9, loc2], [(3, 0.95), read])
        assert picked(loc, probs, quads, RULE) == [True, False], (loc2, read)
    loc, probs, quads = boxes(centres, [0.9, 0.2], [(3, 0.95), (7, 0.9)])
    close_up = np.array([False, True])
    extra = beside_boxes(loc, probs, np.full(2, 0.4, np.float32), close_up, quads,
                         np.array([True, False]), RULE)
    assert extra.tolist() == [False, False]


def test_without_a_card_kept_nothing_is_kept_beside_one():
    loc, probs, quads = boxes([(200, 200), (260, 200)], [0.3, 0.2], [(3, 0.95), (7, 0.9)])
    assert picked(loc, probs, quads, RULE) == [False, False]


def test_a_card_read_twice_keeps_its_likelier_box():
    # the weak box reads the kept card's own class more surely: one box for the card
    loc, probs, quads = boxes([(200, 200), (260, 200)], [0.9, 0.2], [(3, 0.85), (3, 0.95)])
    assert sum(picked(loc, probs, quads, RULE)) == 1


def test_only_the_boxes_near_a_strong_one_are_worth_reading():
    rects = np.array([[200, 200, 60, 100, 0], [250, 200, 60, 100, 0], [700, 500, 60, 100, 0],
                      [900, 100, 60, 100, 0]], np.float32)
    strong = np.array([True, False, False, True])
    assert worth_reading(rects, strong, RULE).tolist() == [True, True, False, True]
    assert worth_reading(rects, np.zeros(4, bool), RULE).tolist() == [False] * 4


def test_a_weak_box_on_a_strong_ones_card_is_not_read_again():
    quads = np.stack([quad(200, 200, 100), quad(205, 210, 100), quad(250, 200, 100),
                      quad(600, 200, 100)])
    strong = np.array([True, False, False, False])
    # the second box is the first card again; the third overlaps it as a card under it
    assert repeats(quads, strong).tolist() == [False, True, False, False]
    assert repeats(quads, np.zeros(4, bool)).tolist() == [False] * 4


def test_the_detector_reads_the_weaker_boxes_only_with_the_rule(monkeypatch):
    """``candidates`` decodes down to the rule's localiser threshold and classifies the
    weaker boxes near a strong one; without the rule, the localiser's own boxes only."""
    det = Detector(threads=1)
    rects = np.array([[200, 200, 60, 100, 0], [250, 200, 60, 100, 0], [600, 400, 60, 100, 0]],
                     np.float32)
    scores = np.array([0.9, 0.2, 0.2], np.float32)
    asked = []

    def decode(img, maps, threshold=None):
        asked.append(threshold)
        keep = scores >= (det.settings.loc_threshold if threshold is None else threshold)
        return rects[keep], scores[keep]

    monkeypatch.setattr(det.localiser, "decode", decode)
    img = np.full((480, 640, 3), 128, np.uint8)
    det = det.with_settings(det.settings.but(beside=None))
    monkeypatch.setattr(det.localiser, "decode", decode)
    assert len(det.candidates(img)) == 1 and asked == [None]
    det = det.with_settings(det.settings.but(beside=RULE))
    monkeypatch.setattr(det.localiser, "decode", decode)
    found = det.candidates(img)
    assert asked[-1] == RULE.loc_threshold
    assert np.allclose(sorted(found.loc_score), [0.2, 0.9])  # the far weak box is not read


def test_the_tuning_scores_the_rule_off_first_and_each_setting_of_its_grid():
    from scorer.vision.detections import Detections
    from training.recipe import TuneConfig
    from training.stages.tuning import score_beside
    loc, probs, quads = boxes([(200, 200), (260, 200), (600, 400)], [0.9, 0.2, 0.2],
                              [(3, 0.95), (7, 0.9), (20, 0.9)])
    cand = Detections.from_quads(quads, loc, probs, (640, 480))
    # card 7 lies beside card 3 (required); card 20 is a deck's box apart (not there)
    scenes = [("pile", cand, [3, 7], [])]
    best = {"loc_threshold": 0.4, "cls_threshold": 0.4, "overlap_iou": None,
            "large_threshold": None, "large_cls_threshold": None}
    t = TuneConfig(beside_loc_grid=(0.0, 0.15), beside_cls_grid=(0.8, 0.95),
                   beside_distance_grid=(1.0,))
    points = score_beside(scenes, best, CardChecks().to_config(), t)
    assert [p["beside"] for p in points] == [None, Beside(0.15, 0.8, 1.0).to_config(),
                                             Beside(0.15, 0.95, 1.0).to_config()]
    assert [p["kinds"]["pile"]["recall"] for p in points] == [0.5, 1.0, 0.5]
    assert all(p["kinds"]["pile"]["false_cards"] == 0 for p in points)


def test_the_tunings_reference_is_read_without_its_rule_for_the_stages_before_it():
    """The grid's points are scored without the beside rule: the shipped model they are
    guarded against is read without it too (like with like), and with it for the rule's
    own stage; the detector keeps its rule afterwards."""
    from scorer.vision.detections import Detections
    from training.stages.tuning import reference_figures
    det = Detector(threads=1)
    det = det.with_settings(det.settings.but(beside=RULE))
    loc, probs, quads = boxes([(200, 200), (260, 200)], [0.9, 0.2], [(3, 0.95), (7, 0.9)])
    scenes = [("pile", Detections.from_quads(quads, loc, probs, (640, 480)), [3, 7], [])]
    assert reference_figures(det, scenes)["pile"]["recall"] == 1.0
    assert reference_figures(det, scenes, beside=False)["pile"]["recall"] == 0.5
    assert det.settings.beside == RULE
