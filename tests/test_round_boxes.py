"""What the classifier round reads beside the rendered scenes: other framings of each real
photo, which boxes sit on partly hidden cards, and how often each box is drawn."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("albumentations", reason="needs the train extra")

from scorer.vision.geometry import quad_to_rect, rect_to_quad  # noqa: E402
from training.data.boxes import (NOT_A_CARD, BoxCrops, boxes_of_scenes, join,  # noqa: E402
                                 label_box)
from training.data.real_photos import photo_views  # noqa: E402
from training.data.scenes import CARD_ASPECT, SceneCard  # noqa: E402
from training.recipe import RealRoundConfig  # noqa: E402
from training.stages.real_round import sampling_weights  # noqa: E402


def _card(cid: int, cx: float, visible: float) -> SceneCard:
    w = 100.0 / CARD_ASPECT  # 100 px tall
    quad = np.array([[cx - w / 2, 50], [cx + w / 2, 50], [cx + w / 2, 150], [cx - w / 2, 150]],
                    np.float32)
    return SceneCard(f"c{cid}", cid, "s", quad, visible=visible, seen_at=(cx, 100.0, 20.0))


class _Boxes:
    """A stand-in for the detector: proposes the quads it is given, cut as grey crops."""

    def __init__(self, quads):
        self.rects = np.array([quad_to_rect(q) for q in quads], np.float32).reshape(-1, 5)

    def localise(self, img, threshold):
        return self.rects, np.ones(len(self.rects))

    def cut(self, img, rects):
        quads = np.array([rect_to_quad(*r) for r in rects], np.float32).reshape(-1, 4, 2)
        return quads, np.full((len(rects), 112, 72, 3), 128, np.uint8)


def test_a_photo_is_read_as_it_is_and_in_other_framings_of_a_camera():
    img = np.random.default_rng(0).integers(0, 255, (640, 640, 3), np.uint8)
    views = list(photo_views(img, np.random.default_rng(1), 6))
    assert len(views) == 7 and views[0] is img
    assert all(v.shape[:2] in ((480, 640), (640, 480)) for v in views[1:])
    again = list(photo_views(img, np.random.default_rng(1), 6))
    assert all(np.array_equal(a, b) for a, b in zip(views, again))  # a seed is a framing
    assert len({v.tobytes() for v in views}) == 7
    assert list(photo_views(img, np.random.default_rng(1), 0)) == [img]


def test_only_boxes_on_cards_50_to_80_percent_visible_are_marked_partly_hidden(tmp_path):
    half, whole, hidden = _card(4, 100, 0.6), _card(9, 300, 1.0), _card(13, 500, 0.35)
    far = half.quad + np.float32([0, 400])
    det = _Boxes([half.quad, whole.quad, hidden.quad, far])
    got = boxes_of_scenes(det, [(np.zeros((600, 700, 3), np.uint8),
                                 [half, whole, hidden], "pile")], "test")
    assert got.labels.tolist() == [4, 9, 13, NOT_A_CARD]
    assert got.band.tolist() == [True, False, False, False]
    path = tmp_path / "boxes.npz"
    got.save(path)
    back = BoxCrops.load(path)
    assert back.band.tolist() == got.band.tolist() and back.sources.tolist() == ["pile"] * 4
    assert np.array_equal(join([back, got]).band, np.concatenate([got.band, got.band]))


def test_a_photo_box_and_a_partly_hidden_card_are_drawn_as_often_as_the_recipe_says():
    data = BoxCrops(np.zeros((3, 112, 72, 3), np.uint8), np.array([4, 9, NOT_A_CARD]),
                    np.array(["pile", "pile", "photo"]), np.array([True, False, False]))
    w = sampling_weights(data, RealRoundConfig(photo_weight=3.0, band_weight=2.0))
    assert w.sum() == pytest.approx(1.0)
    assert w.tolist() == pytest.approx([2 / 6, 1 / 6, 3 / 6])


class _SeesLandscape:
    """A stand-in for the detector: one false card in a 4:3 landscape frame, none else."""

    def detect(self, img):
        from types import SimpleNamespace
        return SimpleNamespace(class_id=[3] if img.shape[:2] == (480, 640) else [])


def test_the_photo_check_reads_each_test_photo_as_it_is_or_in_other_framings(tmp_path):
    import cv2
    from training.measure.photos import false_cards
    rng = np.random.default_rng(0)
    for k in range(4):  # one sitting: its last photo is the test's
        cv2.imwrite(str(tmp_path / f"IMG_770{k}.jpg"), rng.integers(0, 255, (640, 640, 3),
                                                                    np.uint8))
    as_is = false_cards(_SeesLandscape(), tmp_path)
    assert as_is["photos"] == 1 and as_is["framings"] == 0
    assert as_is["false_cards_per_photo"] == 0
    framed = false_cards(_SeesLandscape(), tmp_path, framings=8, out=tmp_path / "f.json")
    assert framed["framings"] == 8 and 0 < framed["false_cards_per_photo"] < 1
    assert (tmp_path / "f.json").is_file()


def test_a_covered_edge_is_another_crops_band_and_leaves_most_of_the_card_seen():
    import torch
    from training.stages.augment import cover_edge
    x = torch.arange(6).float().view(6, 1, 1, 1).expand(6, 3, 112, 72).contiguous()
    y = cover_edge(x, torch.Generator().manual_seed(0), 1.0)
    for i in range(6):
        covered = y[i] != i
        assert 0.15 < covered.float().mean() < 0.5  # one band, 20-45% deep
        assert len(y[i][covered].unique()) == 1  # all of it from one other crop
    assert torch.equal(cover_edge(x, torch.Generator().manual_seed(0), 0.0), x)


def test_a_crop_seen_through_another_camera_keeps_its_shape_and_range():
    import torch
    from training.stages.augment import camera_jitter
    x = torch.rand(8, 3, 112, 72, generator=torch.Generator().manual_seed(1)) * 255
    assert torch.equal(camera_jitter(x, torch.Generator().manual_seed(0), 0.0), x)
    y = camera_jitter(x, torch.Generator().manual_seed(0), 1.0)
    assert y.shape == x.shape and y.min() >= 0 and y.max() <= 255
    assert all(not torch.equal(y[i], x[i]) for i in range(8))
    assert y.std(dim=(2, 3)).mean() < x.std(dim=(2, 3)).mean()  # detail lost


def test_a_box_around_neighbouring_cards_is_not_a_card_and_stands_upright():
    from training.data.boxes import group_rects
    cards = [_card(4, 100, 1.0), _card(9, 180, 1.0), _card(13, 260, 1.0)]
    rects = group_rects([c.quad for c in cards], np.random.default_rng(0), 6)
    assert rects.shape == (6, 5) and (rects[:, 3] >= rects[:, 2]).all()
    one_card = 100.0 * 100.0 / CARD_ASPECT
    assert (rects[:, 2] * rects[:, 3] > 1.5 * one_card).all()  # two cards or more
    assert len(group_rects([cards[0].quad], np.random.default_rng(0), 3)) == 0
    det = _Boxes(np.zeros((0, 4, 2), np.float32))
    got = boxes_of_scenes(det, [(np.zeros((300, 600, 3), np.uint8), cards, "pile")],
                          "test", groups=6)
    kept = [label_box(rect_to_quad(*r), cards) for r in rects]
    assert len(got.labels) == kept.count(NOT_A_CARD) > 0  # only the boxes on no one card
    assert (got.labels == NOT_A_CARD).all()


def test_a_parts_boxes_are_read_once_for_its_settings_and_again_for_others(tmp_path):
    from training.pipeline.rounds import cached_boxes
    reads = []

    def read():
        reads.append(1)
        return BoxCrops(np.full((2, 112, 72, 3), len(reads), np.uint8), np.array([4, 48]),
                        np.array(["pile", "pile"]), np.array([True, False]))
    first = cached_boxes(tmp_path, "realistic", {"per_kind": 200}, read)
    again = cached_boxes(tmp_path, "realistic", {"per_kind": 200}, read)
    assert len(reads) == 1 and np.array_equal(first.crops, again.crops)
    assert again.band.tolist() == [True, False]
    other = cached_boxes(tmp_path, "realistic", {"per_kind": 100}, read)
    assert len(reads) == 2 and other.crops[0, 0, 0, 0] == 2
