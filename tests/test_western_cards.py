"""Western playing cards hold no hanafuda card: a real photograph of them (from the real
photos' test part) and a drawn pile of them (``training.data.western``, the first seed of
its test scenes): the localiser proposes boxes on their cards and the shipped pipeline
must refuse every one of them."""

from __future__ import annotations

from pathlib import Path

import cv2

from scorer.vision import Detector

PHOTO = Path(__file__).parent / "fixtures" / "western-jack.jpg"
DRAWN = Path(__file__).parent / "fixtures" / "western-drawn-pile.jpg"


def test_a_photo_of_western_playing_cards_yields_no_card():
    img = cv2.imread(str(PHOTO), cv2.IMREAD_COLOR)
    det = Detector(threads=1)
    found = det.candidates(img)
    assert len(found) >= 1  # the localiser does see card-like shapes there
    assert det.detect(img).codes == []


def test_a_drawn_pile_of_western_playing_cards_yields_no_card():
    img = cv2.imread(str(DRAWN), cv2.IMREAD_COLOR)
    det = Detector(threads=1)
    assert len(det.candidates(img)) >= 5  # the localiser sees its playing cards
    assert det.detect(img).codes == []
