"""A card is a card: a box of no card's shape, a close-up box around a pile, and a box
off the frame's scale are refused; with the checks off, nothing changes."""

from __future__ import annotations

import numpy as np

from scorer.vision.card_checks import CardChecks, on_scale, shaped_like_cards
from scorer.vision.decision import pick
from scorer.vision.detections import Detections
from scorer.vision.settings import DetectionSettings


def quad(cx: float, cy: float, h: float, aspect: float = 1.66) -> np.ndarray:
    w = h / aspect
    return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2],
                     [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]], np.float32)


ALL_ON = CardChecks(min_aspect=1.25, span=2, scale=2.0)


def test_the_checks_come_from_the_models_metadata_and_are_off_without_it():
    assert not DetectionSettings.from_metadata({}).card_checks.on
    c = DetectionSettings.from_metadata(
        {"card_checks": {"min_aspect": 1.2, "span": 2, "scale": None}}).card_checks
    assert c == CardChecks(1.2, 2, None) and c.on
    assert DetectionSettings.from_metadata({"card_checks": c.to_config()}).card_checks == c


def test_a_close_up_box_around_a_pile_is_refused_a_close_up_of_one_card_is_not():
    pile = quad(320, 240, 400, aspect=1.3)  # one box around the whole pile
    cards = [quad(250 + 45 * k, 240, 150) for k in range(4)]
    quads = np.stack([pile, *cards])
    close_up = np.array([True] + [False] * 4)
    ok = shaped_like_cards(quads, close_up, ALL_ON)
    assert ok.tolist() == [False, True, True, True, True]
    single = np.stack([quad(320, 240, 400)])
    assert shaped_like_cards(single, np.array([True]), ALL_ON).tolist() == [True]


def test_a_box_of_no_cards_shape_is_refused():
    quads = np.stack([quad(100, 100, 100), quad(300, 100, 100, aspect=1.0)])
    assert shaped_like_cards(quads, np.zeros(2, bool), ALL_ON).tolist() == [True, False]
    assert shaped_like_cards(quads, np.zeros(2, bool), CardChecks()).tolist() == [True, True]


def test_a_card_off_the_frames_scale_is_dropped_after_picking():
    quads = np.stack([quad(100 * k, 100, 100) for k in range(1, 4)] + [quad(500, 100, 30),
                                                                       quad(700, 300, 260)])
    picked = np.ones(5, bool)
    assert on_scale(quads, picked, ALL_ON).tolist() == [True, True, True, False, False]
    assert on_scale(quads[:2], picked[:2], ALL_ON).tolist() == [True, True]  # too few to say
    assert on_scale(quads, picked, CardChecks()).tolist() == [True] * 5


def test_the_pile_box_read_surely_as_a_card_is_refused_in_the_pick():
    pile = quad(320, 240, 400, aspect=1.3)
    cards = [quad(250 + 45 * k, 240, 150) for k in range(4)]
    quads = np.stack([pile, *cards])
    probs = np.full((5, 49), 0.001, np.float32)
    probs[0, 27] = 0.95  # the pile's box read as 07-4
    for k in range(4):
        probs[k + 1, k] = 0.9
    found = Detections.from_quads(quads, np.full(5, 0.8, np.float32), probs, (640, 480))
    rules = DetectionSettings(loc_threshold=0.3, cls_threshold=0.4, large_box=0.6)  # the pile's
    assert found.heights()[0] >= 0.6 * 480 > found.heights()[1:].max()   # box: a close-up
    assert pick(found, rules).tolist() == [True] * 5
    assert pick(found, rules.but(card_checks=ALL_ON)).tolist() == [False, True, True, True, True]
