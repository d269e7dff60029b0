"""The reported confidence: a map fitted on a stand-in, applied to what a detection
reports and to nothing it decides."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from gate import SCENE_JPEG
from scorer.vision import Detector
from scorer.vision.settings import DetectionSettings
from scorer.vision.confidence import ConfidenceMap

HALF = ConfidenceMap((0.0, 1.0), (0.0, 0.5))


def test_the_map_comes_from_the_models_metadata_and_is_off_without_it():
    assert DetectionSettings.from_metadata({}).confidence_map is None
    assert DetectionSettings.from_metadata({"confidence_map": None}).confidence_map is None
    assert DetectionSettings.from_metadata(
        {"confidence_map": HALF.to_config()}).confidence_map == HALF


@pytest.mark.parametrize("raw, right", [((0.0,), (0.0,)), ((0.0, 0.5, 1.0), (0.0, 0.6, 0.5)),
                                        ((0.0, 0.5, 0.5, 1.0), (0, 0.1, 0.2, 1)),
                                        ((0.1, 1.0), (0.0, 1.0)), ((0.0, 1.0), (0.0, 1.2))])
def test_a_map_that_is_not_monotone_over_zero_to_one_is_refused(raw, right):
    with pytest.raises(ValueError):
        ConfidenceMap(raw, right)


def test_the_map_interpolates_between_its_knots():
    m = ConfidenceMap((0.0, 0.5, 1.0), (0.0, 0.8, 0.9))
    np.testing.assert_allclose(m(np.array([0.0, 0.25, 0.5, 0.75, 1.0])),
                               [0.0, 0.4, 0.8, 0.85, 0.9], atol=1e-6)


def test_a_fitted_map_says_how_often_cards_read_so_surely_are_right():
    from training.measure.calibration import expected_calibration_error, fit_confidence_map
    rng = np.random.default_rng(3)
    conf = rng.uniform(0.3, 1.0, 4000)
    right = rng.random(4000) < np.sqrt(conf)          # read at 0.36, right 0.6 of the time
    fitted = fit_confidence_map(conf, right)
    assert fitted.raw[0] == 0.0 and fitted.right[0] == 0.0 and fitted.raw[-1] == 1.0
    assert np.all(np.diff(fitted.right) >= 0)
    assert fitted(np.array([0.36]))[0] == pytest.approx(0.6, abs=0.06)
    assert fitted(np.array([0.15]))[0] < fitted(np.array([0.3]))[0]  # below the cards seen
    before = expected_calibration_error(conf, right)["ece"]
    after = expected_calibration_error(fitted(conf), right)["ece"]
    assert before > 0.1 and after < 0.03
    with pytest.raises(ValueError):
        fit_confidence_map([], [])
    assert fit_confidence_map([0.4, 0.9], [True, True]) is None
    assert fit_confidence_map([0.4, 0.5, 0.8, 0.9], [True, True, False, False]) is None


def test_the_detector_reports_the_mapped_confidence_of_the_same_cards():
    img = cv2.imread(str(SCENE_JPEG))
    shipped = Detector(threads=1)
    det = shipped.with_settings(shipped.settings.but(confidence_map=None))
    plain = det.detect(img, weak=True)
    found = det.candidates(img)
    plain_cards = det.cards(found)
    plain_det, det = det, det.with_settings(det.settings.but(confidence_map=HALF))
    mapped = det.detect(img, weak=True)
    assert len(plain) and mapped.codes == plain.codes
    np.testing.assert_allclose(mapped.boxes, plain.boxes)
    np.testing.assert_allclose(mapped.confidence, plain.confidence / 2, rtol=1e-5)
    cards = det.cards(found)
    assert cards.codes == plain_cards.codes
    np.testing.assert_allclose(cards.confidence, plain_cards.confidence / 2, rtol=1e-5)
    followed = det.follow(img, plain.quads)
    np.testing.assert_allclose(followed.confidence,
                               plain_det.follow(img, plain.quads).confidence / 2, rtol=1e-5)
