"""The shipped model on the three situations real piles failed in (issue 14): a card held
close to a portrait phone camera, a cluttered table with no cards, and a stacked pile.
Each scene is rendered from the art with fixed positions, like a player would lay it."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.cards import card
from scorer.vision import Detector, default_model_path
from training.data.realistic import add_real_clutter
from training.data.scenes import compose_scene, get_library, make_background

pytestmark = pytest.mark.art   # every test renders scenes from the card art


@pytest.fixture(scope="module")
def detector():
    assert default_model_path().is_file(), f"shipped model missing: {default_model_path()}"
    return Detector(threads=2)


@pytest.fixture(scope="module")
def lib():
    return get_library()


def _render(lib, codes, positions, width, height, seed, art="louie-mantia", clutter=0,
            clutter_kinds=None):
    rng = np.random.default_rng(seed)
    bg = make_background(rng, width, height)
    if clutter:
        add_real_clutter(bg, rng, lib, height * 0.3, clutter, clutter_kinds)
    items = [(art, card(c).class_index) for c in codes]
    img, cards, _ = compose_scene(lib, rng, items, width, height,
                                  card_h=positions[0][2] if positions else 100.0,
                                  positions=positions, physical=True, background=bg,
                                  perspective=0.0, blur=False)
    return img, cards


def test_a_close_up_in_a_portrait_photo(detector, lib):
    # one card filling 80% of a 540x720 portrait frame, a little turned
    img, cards = _render(lib, ["09-1"], [(270, 360, 0.8 * 720, 3.0)], 540, 720, seed=3)
    assert cards[0].visible > 0.9
    assert detector.detect(img).codes == ["09-1"]


def test_two_close_up_cards_cut_by_the_frame_edge(detector, lib):
    pos = [(180, 250, 0.9 * 480, -2.0), (460, 250, 0.9 * 480, 1.0)]
    img, cards = _render(lib, ["03-1", "06-2"], pos, 640, 480, seed=8, art="hwatu-commons")
    assert all(0.5 < c.visible < 1.0 for c in cards)  # partly out of the frame
    assert sorted(detector.detect(img).codes) == ["03-1", "06-2"]


def test_a_cluttered_table_has_no_cards(detector, lib):
    # rings, phones, hands, a score sheet. Known limits (models/MODEL_CARD.md), not
    # asserted here: the deck's box printed with a whole card face, and dice or coins
    # far smaller than a card, which are sometimes read as a card
    everyday = ["ring", "phone", "hand", "sheet"]
    for seed in (1, 2, 3, 4):
        img, _ = _render(lib, [], [], 1280, 720, seed=seed, clutter=6, clutter_kinds=everyday)
        assert detector.detect(img).codes == [], f"false cards on clutter (seed {seed})"


def test_a_stacked_fan_is_read_exactly(detector, lib):
    # a fanned row of six, each card shifted 55% of a card width; the last one on top
    codes = ["01-1", "01-2", "03-3", "07-1", "08-2", "11-3"]
    h = 180.0
    w = h / 1.6
    pos = [(360 + i * 0.55 * w, 360, h, 0.0) for i in range(len(codes))]
    img, cards = _render(lib, codes, pos, 1280, 720, seed=5)
    assert cards[-1].visible > 0.95 and all(c.visible >= 0.5 for c in cards)
    assert sorted(detector.detect(img).codes) == sorted(codes)
