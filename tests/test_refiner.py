"""The box refiner: its geometry (corrections in a box's own frame), the augmentation
that turns and mirrors crops together with their targets, and the detector using it."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from scorer.vision.geometry import (REF_H, REF_W, align_rect, apply_delta, box_delta,
                                    context_crop, quad_to_rect, rect_to_quad)
from training.measure.evaluate import quad_iou
from training.nets.networks import DELTA_SCALE
from training.stages.refiner import augment_refiner

RNG = np.random.default_rng(7)


def random_pair():
    box = (RNG.uniform(50, 600), RNG.uniform(50, 400), RNG.uniform(20, 90),
           RNG.uniform(30, 140), RNG.uniform(-math.pi, math.pi))
    true = apply_delta(box, RNG.normal(0, (0.1, 0.07, 0.1, 0.1, 0.08)))
    return box, true


@pytest.mark.parametrize("k", range(20))
def test_apply_delta_undoes_box_delta(k):
    box, true = random_pair()
    got = apply_delta(box, box_delta(box, true))
    assert np.allclose(got[:4], true[:4], atol=1e-3)
    assert abs(math.remainder(got[4] - true[4], math.pi / 2)) < 1e-4


def test_a_rectangle_is_the_same_turned_by_180_or_90_degrees_with_sides_swapped():
    box = (100.0, 80.0, 40.0, 60.0, 0.3)
    for turned in ((100, 80, 40, 60, 0.3 + math.pi), (100, 80, 60, 40, 0.3 + math.pi / 2),
                   (100, 80, 60, 40, 0.3 - math.pi / 2)):
        assert np.allclose(align_rect(box, turned), box, atol=1e-6)
        assert np.allclose(box_delta(box, turned), 0, atol=1e-6)
        assert quad_iou(rect_to_quad(*box), rect_to_quad(*turned)) == pytest.approx(1, abs=1e-4)


def test_delta_is_in_the_boxs_own_frame():
    # a box turned 90 degrees: a shift along the image's y axis is along its width
    box = (100.0, 100.0, 40.0, 60.0, math.pi / 2)
    d = box_delta(box, (100.0, 110.0, 40.0, 60.0, math.pi / 2))
    assert np.allclose(d, [10 / 40, 0, 0, 0, 0], atol=1e-6)


def test_context_crop_is_the_box_grown_upright():
    img = np.zeros((200, 300, 3), np.uint8)
    img[50:150, 100:160] = 255  # a 60x100 white card
    crop = context_crop(img, (130.0, 100.0, 60.0, 100.0, 0.0))
    assert crop.shape == (REF_H, REF_W, 3)
    white = crop[..., 0] > 127
    rows, cols = np.nonzero(white.any(1))[0], np.nonzero(white.any(0))[0]
    # the card fills 1/1.5 of the crop, centred
    assert (cols[-1] - cols[0] + 1) / REF_W == pytest.approx(1 / 1.5, abs=0.05)
    assert (rows[-1] - rows[0] + 1) / REF_H == pytest.approx(1 / 1.5, abs=0.05)


def _reflect_across_box_height_axis(box, rect):
    cx, cy, _, _, th = box
    n = np.array([math.cos(th), math.sin(th)])  # the reflection's normal: the width axis
    p = np.array(rect[:2]) - [cx, cy]
    p = p - 2 * (p @ n) * n + [cx, cy]
    d = np.array([math.cos(rect[4]), math.sin(rect[4])])
    d = d - 2 * (d @ n) * n
    return (p[0], p[1], rect[2], rect[3], math.atan2(d[1], d[0]))


@pytest.mark.parametrize("k", range(10))
def test_augmentation_turns_and_mirrors_targets_with_the_crops(k):
    box, true = random_pair()
    d = box_delta(box, true)
    scale = torch.tensor(DELTA_SCALE)
    # a crop turned 180 degrees is the crop of the box turned 180 degrees
    turned = (*box[:4], box[4] + math.pi)
    want_turn = box_delta(turned, true)
    # a mirrored crop shows the scene reflected across the box's height axis
    want_mirror = box_delta(box, _reflect_across_box_height_axis(box, true))
    x = torch.zeros(64, 3, REF_H, REF_W)
    x[:, :, :10, :5] = 255  # a mark in the top-left corner tells how each crop moved
    y = (torch.from_numpy(d) / scale).repeat(64, 1)
    xa, ya = augment_refiner(x, y, np.random.default_rng(k))
    got = ya * scale
    corner = {"tl": xa[:, 0, :10, :5].mean((1, 2)), "tr": xa[:, 0, :10, -5:].mean((1, 2)),
              "bl": xa[:, 0, -10:, :5].mean((1, 2)), "br": xa[:, 0, -10:, -5:].mean((1, 2))}
    seen = set()
    for i in range(64):
        where = max(corner, key=lambda c: corner[c][i])
        want = {"tl": d, "br": want_turn, "tr": want_mirror,
                "bl": box_delta(turned, _reflect_across_box_height_axis(box, true))}[where]
        assert np.allclose(got[i].numpy(), want, atol=1e-4), where
        seen.add(where)
    assert seen == {"tl", "tr", "bl", "br"}


def _model_copy(tmp_path, cfg_updates: dict):
    import shutil

    from scorer.vision import default_model_path
    from training.ship.export import set_config
    src = default_model_path()
    for f in src.parent.glob("hanafuda-*.onnx"):
        shutil.copy(f, tmp_path / f.name)
    set_config(tmp_path / src.name, cfg_updates)
    return tmp_path / src.name


def test_a_missing_refiner_is_a_clear_error(tmp_path):
    from scorer.errors import InputError
    from scorer.vision import Detector
    loc = _model_copy(tmp_path, {"refiner": "gone-refiner.onnx"})
    with pytest.raises(InputError, match="box refiner not found.*gone-refiner.onnx"):
        Detector(loc)
    assert Detector(loc, refiner=False).refiner is None  # the localiser's own boxes still work


@pytest.mark.art
def test_the_shipped_refiner_moves_shifted_boxes_back_onto_their_cards():
    from scorer.vision import Detector
    from training.data.scenes import render_scene
    det = Detector(threads=1)
    assert det.refiner is not None, "the shipped localiser names its box refiner"
    img, cards = render_scene(["01-1", "03-1", "08-1", "12-2"], seed=3)[:2]
    truth = np.array([quad_to_rect(c.quad) for c in cards], np.float32)
    shift = np.array([(0.12, -0.08, 0.12, -0.1, 0.08), (-0.1, 0.06, -0.1, 0.1, -0.06),
                      (0.08, 0.08, 0.1, 0.1, 0.05), (-0.12, -0.06, -0.12, 0.08, -0.08)])
    boxes = np.array([apply_delta(t, s) for t, s in zip(truth, shift)], np.float32)
    fixed = det.refiner.refine_once(img, boxes)
    before = [quad_iou(rect_to_quad(*b), rect_to_quad(*t)) for b, t in zip(boxes, truth)]
    after = [quad_iou(rect_to_quad(*b), rect_to_quad(*t)) for b, t in zip(fixed, truth)]
    assert all(a > b for a, b in zip(after, before)), (before, after)
    assert np.mean(after) > 0.85
