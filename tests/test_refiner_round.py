"""The refiner round: the shipped refiner's weights read back from its ONNX file, samples
where the shipped localiser really puts its boxes, and a resumable round from them."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sessions import product_session

from scorer.vision import Detector, default_model_path
from scorer.vision.geometry import (REF_H, REF_W, apply_deltas, box_delta, quad_iou,
                                    quad_to_rect, rect_to_quad)
from training.data.cache import MIN_CROP_VIS
from training.nets.networks import DELTA_SCALE
from training.nets.recover import refiner_from_onnx
from training.recipe import RefinerRoundConfig
from training.stages.refiner_round import (REF_ROUND_SEED_OFFSET, own_box_samples,
                                           train_refiner_round)

REFINER = default_model_path().with_name("hanafuda-refiner.onnx")
CLASSIFIER = default_model_path().with_name("hanafuda-classifier.onnx")


def test_the_recovered_refiner_corrects_boxes_as_the_shipped_one():
    net = refiner_from_onnx(REFINER)
    x = (np.random.default_rng(3).random((6, 3, REF_H, REF_W)) * 255).astype(np.float32)
    sess = product_session(REFINER)
    want = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    with torch.no_grad():
        got = net(torch.from_numpy(x)).numpy() * np.array(DELTA_SCALE, np.float32)
    assert np.abs(want).max() > 1e-3  # corrections, not zeros
    assert np.allclose(got, want, atol=1e-5)


def test_a_file_that_is_no_refiner_is_refused():
    with pytest.raises(ValueError, match="convolutions|refiner"):
        refiner_from_onnx(CLASSIFIER)


@pytest.mark.art
def test_samples_take_the_localisers_boxes_to_the_cards_they_cover():
    from training.data.realistic import realistic_scene, realistic_seed
    from training.data.scenes import SEED_RANGES, get_library
    det = Detector(threads=1)
    seed = realistic_seed(SEED_RANGES["train"][0] + REF_ROUND_SEED_OFFSET, "pile", 0)
    img, cards, _ = realistic_scene(get_library(None), seed, "pile")
    crops, deltas, visible = own_box_samples(det, img, cards)
    raw = det.proposals(img)
    assert len(raw) and len(crops) == len(deltas) == len(visible) and len(crops) <= 2 * len(raw)
    assert min(visible) >= MIN_CROP_VIS and max(visible) <= 1.0
    assert crops[0].shape == (REF_H, REF_W, 3)
    # the first samples are the raw boxes: each correction takes its box onto the
    # rectangle of the card it covers best (nothing is left to correct)
    shown = [c for c in cards if c.visible >= MIN_CROP_VIS]
    truths = [quad_to_rect(c.quad) for c in shown]
    fixed = [b for b in raw
             if max(quad_iou(rect_to_quad(*b), rect_to_quad(*t)) for t in truths) >= 0.3]
    assert len(fixed) >= len(raw) // 2
    for box, d in zip(fixed, deltas):
        corrected = apply_deltas(box, d)[0]
        left = min(np.abs(box_delta(corrected, t)).max() for t in truths)
        assert left < 1e-3


def test_a_round_trains_resumes_and_blends_back_to_its_start(tmp_path):
    rng = np.random.default_rng(0)
    data = {"crops": rng.integers(0, 255, (16, REF_H, REF_W, 3), dtype=np.uint8),
            "delta": rng.normal(0, 0.05, (16, 5)).astype(np.float32),
            "visible": np.ones(16, np.float32)}
    start = refiner_from_onnx(REFINER).state_dict()
    logs: list[str] = []

    def run(keep_start: float) -> dict:
        return train_refiner_round(data, start, tmp_path, RefinerRoundConfig(
            steps=2, batch=4, keep_start=keep_start), log=logs.append)
    own = run(0.0)
    w, bn = "head.3.weight", "features.0.1.running_var"
    assert not torch.allclose(own[w], start[w])
    assert torch.equal(own[bn], start[bn])  # batch norms frozen
    again = run(0.0)
    assert any("finished already" in line for line in logs)  # resumed, not retrained
    assert torch.equal(again[w], own[w])
    assert torch.allclose(run(1.0)[w], start[w])
    assert torch.allclose(run(0.5)[w], (own[w] + start[w]) / 2, atol=1e-6)


def test_boxes_on_cards_in_sight_are_held_where_the_start_puts_them(tmp_path):
    rng = np.random.default_rng(1)
    data = {"crops": rng.integers(0, 255, (16, REF_H, REF_W, 3), dtype=np.uint8),
            "delta": rng.normal(0, 0.2, (16, 5)).astype(np.float32)}
    start = refiner_from_onnx(REFINER).state_dict()
    w = "head.3.weight"

    def moved(visible: float, folder: str) -> float:
        got = train_refiner_round({**data, "visible": np.full(16, visible, np.float32)},
                                  start, tmp_path / folder,
                                  RefinerRoundConfig(steps=3, batch=8, keep_start=0.0,
                                                     hold_visible=0.9), log=lambda _: None)
        return float((got[w] - start[w]).abs().max())
    # every card partly hidden: the cards' outlines are the targets; every card whole:
    # the start's own corrections are, and there is nothing to learn
    taught, held = moved(0.6, "taught"), moved(1.0, "held")
    assert taught > 1e-6 and held < taught / 100


def test_no_samples_is_an_error(tmp_path):
    empty = {"crops": np.zeros((0, REF_H, REF_W, 3), np.uint8), "delta": np.zeros((0, 5),
                                                                             np.float32),
             "visible": np.zeros(0, np.float32)}
    with pytest.raises(ValueError, match="no refiner round samples"):
        train_refiner_round(empty, refiner_from_onnx(REFINER).state_dict(), tmp_path,
                            RefinerRoundConfig(steps=1, batch=2))


@pytest.mark.art
def test_the_samples_are_cached_for_their_own_settings(tmp_path):
    from training.data.scenes import ART_SETS
    from training.stages.refiner_round import own_box_data
    sets = [s for s in ART_SETS if s != "hwatu-commons"]
    one = own_box_data(tmp_path, None, default_model_path(), 1, sets, workers=1)
    assert len(one["crops"]) == len(one["delta"]) == len(one["visible"]) > 0
    assert len(list(tmp_path.glob("*.npz"))) == 1
    again = own_box_data(tmp_path, None, default_model_path(), 1, sets, workers=1)
    assert np.array_equal(again["delta"], one["delta"])  # read from the cache
    two = own_box_data(tmp_path, None, default_model_path(), 2, sets, workers=1)
    assert len(list(tmp_path.glob("*.npz"))) == 2 and len(two["delta"]) > len(one["delta"])
