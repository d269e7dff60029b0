"""The edge repair of card boxes (scorer.vision.edgefit) on drawn cards: a box with one side
off the card comes back onto it, every other box is left exactly as it was, and the
detector runs it only when asked (or when its model's metadata says so)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from gate import SCENE_JPEG
from scorer.vision import Detector, decode_image, default_model_path
from scorer.vision import detector as detector_module
from scorer.vision.edgefit import CARD_ASPECT, EdgeFitParams, fit_edges
from scorer.vision.geometry import quad_iou, rect_to_quad

CARD = (200.0, 160.0, 60.0, 60.0 * CARD_ASPECT, 0.3)   # cx, cy, w, h, theta


def _table(card=CARD, size=(320, 400)) -> np.ndarray:
    """A light table with one card: a dark border around a lighter face with a stripe."""
    img = np.full(size + (3,), 190, np.uint8)
    cx, cy, w, h, th = card
    cv2.fillConvexPoly(img, rect_to_quad(*card).astype(np.int32), (40, 40, 40), cv2.LINE_AA)
    face = rect_to_quad(cx, cy, w * 0.88, h - w * 0.12, th).astype(np.int32)
    cv2.fillConvexPoly(img, face, (230, 230, 230), cv2.LINE_AA)
    cv2.fillConvexPoly(img, rect_to_quad(cx, cy, w * 0.3, h * 0.6, th).astype(np.int32),
                       (60, 60, 180), cv2.LINE_AA)
    return img


def _iou(a, b) -> float:
    return quad_iou(rect_to_quad(*a), rect_to_quad(*b))


def _bottom_overhang(card, by: float):
    """``card``'s box with its bottom side moved ``by`` pixels further out."""
    cx, cy, w, h, th = card
    return cx - math.sin(th) * by / 2, cy + math.cos(th) * by / 2, w, h + by, th


def test_a_side_past_the_card_comes_back():
    box = _bottom_overhang(CARD, 30)
    out = fit_edges(_table(), np.array([box], np.float32))[0]
    assert _iou(box, CARD) < 0.8
    assert _iou(out, CARD) > 0.95


def test_a_box_written_across_keeps_its_axes():
    """The same rectangle with width and height swapped and turned a quarter: repaired
    the same, and still written across (a card's upright stays upright)."""
    cx, cy, w, h, th = _bottom_overhang(CARD, 30)
    out = fit_edges(_table(), np.array([(cx, cy, h, w, th - math.pi / 2)], np.float32))[0]
    assert _iou(out, CARD) > 0.95
    assert out[2] > out[3] and abs(out[4] - (th - math.pi / 2)) < 0.05


def test_a_side_past_the_frame_comes_back():
    """A card cut by the frame's bottom edge: the box runs past the frame, where the
    image has no edge, and is cut back to a card's aspect from its top."""
    card = (200.0, 450.0, 60.0, 60.0 * CARD_ASPECT, 0.0)
    img = _table(card, (480, 400))
    box = _bottom_overhang(card, 40)
    out = fit_edges(img, np.array([box], np.float32))[0]
    assert _iou(out, card) > _iou(box, card) + 0.1


@pytest.mark.parametrize("box", [CARD, (200.0, 160.0, 60.0, 60.0 * CARD_ASPECT, 0.35)])
def test_a_box_of_a_cards_aspect_is_left_alone(box):
    rects = np.array([box], np.float32)
    assert np.array_equal(fit_edges(_table(), rects), rects)


def test_a_close_up_is_left_alone():
    """A box over 40% of the frame's height (a close-up, cut by the frame on more than
    one side) has no aspect to trust."""
    img = _table()
    rects = np.array([_bottom_overhang(CARD, 40)], np.float32)
    assert rects[0, 3] > 0.4 * img.shape[0]
    assert np.array_equal(fit_edges(img, rects), rects)
    assert not np.array_equal(fit_edges(img, rects, EdgeFitParams(max_share=1.0)), rects)


def test_a_featureless_image_leaves_every_box_alone():
    img = np.full((320, 400, 3), 128, np.uint8)
    rects = np.array([_bottom_overhang(CARD, 30), (100, 100, 30, 90, 1.0)], np.float32)
    assert np.array_equal(fit_edges(img, rects), rects)


def test_a_rectangle_with_edges_all_round_is_not_a_card_to_stretch():
    """A box of another aspect that sits on edges on all four sides (a phone, a score
    sheet) has no side on no edge, so it stays."""
    other = (200.0, 160.0, 60.0, 150.0, 0.3)
    rects = np.array([other], np.float32)
    assert np.array_equal(fit_edges(_table(other), rects), rects)


def test_the_threshold_of_an_unsupported_side_decides():
    box = np.array([_bottom_overhang(CARD, 30)], np.float32)
    assert np.array_equal(fit_edges(_table(), box, EdgeFitParams(unsupported=-1.0)), box)


def test_no_boxes():
    assert fit_edges(_table(), np.zeros((0, 5), np.float32)).shape == (0, 5)


def test_the_detector_runs_it_only_when_asked(monkeypatch):
    assert default_model_path().is_file()
    calls = []

    def spy(img, rects):
        calls.append(len(rects))
        return rects

    monkeypatch.setattr(detector_module, "fit_edges", spy)
    img = decode_image(SCENE_JPEG.read_bytes())
    default = Detector(threads=1)
    assert default.edge_fit is bool(default.cfg.get("edge_fit", False))
    off = Detector(threads=1, edge_fit=False)
    off.localise(img)
    assert calls == []
    on = Detector(threads=1, edge_fit=True)
    rects, _ = on.localise(img)
    assert calls == [len(rects)] and len(rects)
