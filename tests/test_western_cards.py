"""A real photograph of Western playing cards (from the real photos' test part) holds no
hanafuda card: the localiser proposes boxes on its cards and the shipped pipeline must
refuse every one of them."""

from __future__ import annotations

from pathlib import Path

import cv2

from scorer.vision import Detector

PHOTO = Path(__file__).parent / "fixtures" / "western-jack.jpg"


def test_a_photo_of_western_playing_cards_yields_no_card():
    img = cv2.imread(str(PHOTO), cv2.IMREAD_COLOR)
    det = Detector(threads=1)
    found = det.candidates(img)
    assert len(found) >= 1  # the localiser does see card-like shapes there
    assert det.detect(img).codes == []
