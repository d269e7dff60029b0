"""Framing hints: when the cards in a frame are too small to read well."""

from __future__ import annotations

import math

import pytest

from scorer.vision.hints import SMALL_CARD_PX, card_height_px, framing_hints


def _card(h: float, angle: float = 0.0) -> dict:
    w = h / 1.6
    c, s = math.cos(angle), math.sin(angle)
    corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    quad = [[100 + x * c - y * s, 100 + x * s + y * c] for x, y in corners]
    xs, ys = [p[0] for p in quad], [p[1] for p in quad]
    return {"code": "01-1", "quad": quad, "box": [min(xs), min(ys), max(xs), max(ys)]}


@pytest.mark.parametrize("angle", [0.0, 0.7, math.pi / 2, 2.5])
def test_a_cards_height_is_its_long_side_whatever_its_turn(angle):
    assert card_height_px(_card(80.0, angle)) == pytest.approx(80.0)


def test_without_a_quad_the_box_gives_the_height():
    assert card_height_px({"box": [10, 20, 40, 70]}) == 50.0


def test_small_cards_get_a_hint_and_readable_ones_none():
    small = framing_hints([_card(SMALL_CARD_PX - 12)] * 3 + [_card(90)])
    assert len(small) == 1 and "closer" in small[0] and "28 px" in small[0]
    assert framing_hints([_card(SMALL_CARD_PX + 5)] * 3 + [_card(20)]) == []
    assert framing_hints([]) == []
