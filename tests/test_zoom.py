"""A second, zoomed-out look at a close-up frame: only a close-up frame pays for it, of
its boxes only the close-ups join, and a card both looks find keeps one box, the
higher-scored; off without the model's metadata."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.vision.settings import DetectionSettings
from scorer.vision.detector import Detector
from scorer.vision.zoom import MAX_OTHERS, OTHER_SCORE, ZoomOut, merge, wants_second_look

ZOOM = ZoomOut(pad=0.25)


def test_the_look_comes_from_the_models_metadata_and_is_off_without_it():
    def read(cfg):
        return DetectionSettings.from_metadata(cfg).zoom_out
    assert read({}) is None
    assert read({"zoom_out": None}) is None
    assert read({"zoom_out": {"pad": 0}}) is None
    assert read({"zoom_out": ZOOM.to_config()}) == ZOOM


def test_the_border_surrounds_the_frame_with_its_edges():
    img = np.random.default_rng(0).integers(0, 255, (48, 64, 3), dtype=np.uint8)
    big, (px, py) = ZOOM.bordered(img)
    assert (px, py) == (16, 12) and big.shape == (72, 96, 3)
    assert np.array_equal(big[py:py + 48, px:px + 64], img)
    assert np.array_equal(big[0, px:px + 64], img[0])          # the top edge repeated
    assert np.array_equal(big[py:py + 48, 0], img[:, 0])       # the left edge repeated


def test_a_card_both_looks_find_keeps_the_higher_scored_box():
    first = np.array([[320, 240, 270, 430, 0], [60, 60, 40, 64, 0]], np.float32)
    second = np.array([[322, 238, 272, 428, 0.02], [500, 240, 270, 430, 0]], np.float32)
    rects, scores = merge(first, np.array([0.2, 0.9], np.float32), second,
                          np.array([0.6, 0.5], np.float32))
    # the close-up's second box (0.6) replaces its first (0.2); the new card joins
    assert sorted(scores.tolist()) == pytest.approx([0.5, 0.6, 0.9])
    assert len(rects) == 3 and not any(np.allclose(r, first[0]) for r in rects)
    rects, scores = merge(first, np.array([0.7, 0.9], np.float32), second[:1],
                          np.array([0.6], np.float32))
    assert np.array_equal(rects, first)                        # the first box was surer
    rects, scores = merge(first, np.array([0.7, 0.9], np.float32), second[:0],
                          np.zeros(0, np.float32))
    assert np.array_equal(rects, first)


def test_only_a_close_up_among_few_cards_wants_a_second_look():
    def frame(close: int, others: int, other_score: float = OTHER_SCORE):
        n = close + others
        return (np.arange(n) < close,
                np.array([0.2] * close + [other_score] * others, np.float32))
    assert wants_second_look(*frame(1, 0))
    assert wants_second_look(*frame(1, MAX_OTHERS))
    assert not wants_second_look(*frame(1, MAX_OTHERS + 1))    # a box across a pile
    assert wants_second_look(*frame(1, 12, other_score=OTHER_SCORE / 2))  # faint parts
    assert not wants_second_look(*frame(0, 3))
    assert not wants_second_look(np.zeros(0, bool), np.zeros(0, np.float32))


def _decoding(det: Detector, first: np.ndarray, first_scores: np.ndarray,
              second: np.ndarray, second_scores: np.ndarray, asked: list):
    """A decode that gives ``first`` for the frame and ``second`` for the bordered one
    (in the bordered image's pixels), noting which it was asked for."""
    def decode(img, maps, threshold=None, frame_h=None):
        asked.append("second" if frame_h is not None else "first")
        return (second.copy(), second_scores.copy()) if frame_h is not None else \
            (first.copy(), first_scores.copy())
    return decode


def test_the_detector_looks_again_only_at_a_close_up_frame(monkeypatch):
    det = Detector(threads=1)
    det = det.with_settings(det.settings.but(beside=None, zoom_out=None))
    monkeypatch.setattr(det.localiser, "heatmap", lambda img: (None, 1.0))
    img = np.full((480, 640, 3), 128, np.uint8)
    py, px = 120, 160                                          # ZOOM's border on 640x480
    close = np.array([[320, 240, 270, 430, 0]], np.float32)
    # the second look: the close-up again, surer, a card of a pile and a new close-up
    second = np.array([[320 + px, 240 + py, 268, 428, 0], [100 + px, 100 + py, 40, 64, 0],
                       [520 + px, 250 + py, 260, 420, 0]], np.float32)
    second_scores = np.array([0.7, 0.9, 0.5], np.float32)
    asked: list = []
    monkeypatch.setattr(det.localiser, "decode", _decoding(
        det, close, np.array([0.15], np.float32), second, second_scores, asked))
    rects, scores = det.boxes(img)
    assert asked == ["first"] and scores.tolist() == pytest.approx([0.15])
    det = det.with_settings(det.settings.but(zoom_out=ZOOM))
    monkeypatch.setattr(det.localiser, "heatmap", lambda img: (None, 1.0))
    monkeypatch.setattr(det.localiser, "decode", _decoding(
        det, close, np.array([0.15], np.float32), second, second_scores, asked))
    asked.clear()
    rects, scores = det.boxes(img)
    assert asked == ["first", "second"]
    # the surer box replaced the first; the new close-up joined; the small box did not
    assert sorted(scores.tolist()) == pytest.approx([0.5, 0.7])
    assert all(r[3] > 400 for r in rects) and abs(min(rects[:, 0]) - 320) < 30

    pile = np.array([[60 * i + 40, 100, 40, 64, 0] for i in range(8)], np.float32)
    asked.clear()
    monkeypatch.setattr(det.localiser, "decode", _decoding(
        det, pile, np.full(8, 0.9, np.float32), second, second_scores, asked))
    det.boxes(img)
    assert asked == ["first"]                                  # no close-up: one look
