"""The leave-one-deck-out classifier trainer and the realistic test's month misreads."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from scorer.vision import Detector
from scorer.vision.detector import Detections
from scorer.vision.geometry import rect_to_quad
from training import DEFAULT_ART_DIR, REPO_ROOT
from training.ship.finetuned import export_lodo
from training.stages.lodo import crop_batches, train_lodo
from training.recipe import LodoConfig
from training.measure.slices import month_misreads

SHIPPED = REPO_ROOT / "models" / "hanafuda-localiser.onnx"


def test_crop_batches_are_fixed_size_and_keep_every_crop():
    loader = [{"cls_x": torch.full((n, 2), float(i)), "cls_y": torch.arange(n),
               "img": torch.zeros(2, 1)} for i, n in enumerate((5, 3, 9))]
    out = list(crop_batches(loader, 4))
    assert [len(x) for x, _, _ in out] == [4, 4, 4, 4]
    assert [s for *_, s in out] == [2, 4, 6, 6]
    assert torch.cat([y for _, y, _ in out]).tolist() == [0, 1, 2, 3, 4, 0, 1, 2, 0, 1, 2,
                                                          3, 4, 5, 6, 7]


@pytest.mark.slow
@pytest.mark.art
def test_a_tiny_run_resumes_and_exports_a_detector_with_embeddings(tmp_path):
    cfg = LodoConfig(steps=2, batch=16, cls_per_scene=8)
    kw = {"lodo_set": "hwatu-commons", "workers": 0, "threads": 1, "log": lambda m: None}
    ck = train_lodo(str(DEFAULT_ART_DIR), tmp_path, cfg, **kw)
    first = torch.load(tmp_path / "lodo_ckpt.pt", weights_only=False)
    assert first["step"] == 2 and first["history"][-1]["scenes"] > 0
    assert set(first) == {"nets", "opt", "step", "elapsed", "rng", "history", "config"}
    more = LodoConfig(**{**cfg.__dict__, "steps": 3})
    train_lodo(str(DEFAULT_ART_DIR), tmp_path, more, **kw)
    again = torch.load(tmp_path / "lodo_ckpt.pt", weights_only=False)
    assert again["step"] == 3
    assert again["history"][-1]["scenes"] > first["history"][-1]["scenes"]  # unseen scenes
    loc = export_lodo(ck, SHIPPED, tmp_path / "model", str(DEFAULT_ART_DIR))
    det = Detector(loc)
    assert det.has_embedding
    shipped = Detector(SHIPPED)
    crops = np.random.default_rng(0).integers(0, 255, (3, det.crop_h, det.crop_w, 3),
                                              dtype=np.uint8)
    # the localiser is the shipped one; the classifier is the new, barely trained one
    img = np.random.default_rng(1).integers(0, 255, (480, 640, 3), dtype=np.uint8)
    assert np.allclose(det.localise(img)[1], shipped.localise(img)[1], atol=1e-3)
    assert not np.allclose(det.classify(crops), shipped.classify(crops), atol=1e-2)


def test_month_misreads_name_the_true_and_the_read_month():
    rect = (100.0, 100.0, 60.0, 96.0, 0.0)
    april = SimpleNamespace(quad=rect_to_quad(*rect), class_id=13)        # 04-2
    march = SimpleNamespace(quad=rect_to_quad(300, 100, 60, 96, 0), class_id=8)
    det = Detections.from_quads(np.stack([rect_to_quad(*rect), rect_to_quad(300, 100, 60, 96, 0)]),
                                np.ones(2), np.eye(49)[[25, 9]], (640, 480))  # 07-2, 03-2
    assert month_misreads(det, [april, march]) == ["04->07"]
    far = Detections.from_quads(rect_to_quad(500, 400, 60, 96, 0)[None], np.ones(1),
                                np.eye(49)[[25]], (640, 480))
    assert month_misreads(far, [april]) == []
