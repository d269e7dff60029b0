"""Western playing cards drawn as negatives (training.data.western) and the labels the
classifier round gives the boxes on them: every box on a playing card, and a box that
spans several cards, is "not a card"."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("albumentations", reason="needs the train extra")

from training.data.boxes import NOT_A_CARD, label_box  # noqa: E402
from training.data.scenes import SceneCard  # noqa: E402
from training.data.western import (WESTERN_ASPECT, WESTERN_H, WESTERN_KINDS,  # noqa: E402
                                   WESTERN_W, western_face, western_quad, western_scene)


def test_a_face_has_a_playing_cards_shape_ink_and_rounded_corners():
    rng = np.random.default_rng(3)
    face, alpha = western_face(rng, rank="7", suit="hearts")
    assert face.shape == (WESTERN_H, WESTERN_W, 3) and alpha.shape == (WESTERN_H, WESTERN_W)
    assert alpha[0, 0] == 0 and alpha[WESTERN_H // 2, WESTERN_W // 2] == 1
    red = (face[..., 2].astype(int) - face[..., 0]) > 80
    assert 0.03 < red.mean() < 0.4  # seven red pips and two indices, on white paper
    court, _ = western_face(np.random.default_rng(3), rank="K", suit="clubs")
    assert not np.array_equal(court, face)
    q = western_quad(100, 100, 140, 0)
    assert np.linalg.norm(q[3] - q[0]) / np.linalg.norm(q[1] - q[0]) == \
        pytest.approx(WESTERN_ASPECT, rel=1e-3)


@pytest.mark.art
def test_western_scenes_hold_playing_cards_and_only_mixed_ones_hanafuda():
    from training.data.scenes import get_library
    lib = get_library(None)
    for kind in WESTERN_KINDS:
        a = western_scene(lib, 5, kind)
        b = western_scene(lib, 5, kind)
        assert np.array_equal(a.image, b.image)  # a seed is a scene
        assert a.western and a.image.dtype == np.uint8
        assert bool(a.cards) == (kind == "mixed")
    with pytest.raises(ValueError, match="unknown scene kind"):
        western_scene(lib, 5, "hearts")


def _card(cid: int, cx: float, cy: float, h: float = 100.0, seen=None) -> SceneCard:
    from training.data.scenes import CARD_ASPECT
    w = h / CARD_ASPECT
    quad = np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2],
                     [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]], np.float32)
    return SceneCard(f"c{cid}", cid, "s", quad, visible=1.0, seen_at=seen or (cx, cy, 20.0))


def test_a_box_on_a_card_is_that_card_a_box_on_none_or_over_a_pile_is_not_a_card():
    left, right = _card(4, 100, 100), _card(9, 180, 100)
    cards = [left, right]
    assert label_box(left.quad, cards) == 4
    far = left.quad + np.float32([500, 0])
    assert label_box(far, cards) == NOT_A_CARD
    both = np.array([[60, 40], [220, 40], [220, 160], [60, 160]], np.float32)
    assert label_box(both, cards) == NOT_A_CARD  # a pile's box holds two cards' faces
    half = left.quad + np.float32([30, 0])  # half on one card, on no other's face
    assert label_box(half, [left]) is None

