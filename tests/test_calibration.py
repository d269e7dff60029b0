"""The expected calibration error of reported cards' confidence (training.measure)."""

from __future__ import annotations

import pytest


def test_the_calibration_error_weighs_each_bins_gap_between_confidence_and_right():
    from training.measure.calibration import expected_calibration_error
    perfect = expected_calibration_error([0.95] * 20 + [0.55] * 20,
                                         [True] * 19 + [False] + [True] * 11 + [False] * 9)
    assert perfect["ece"] == pytest.approx(0.0, abs=1e-9) and perfect["cards"] == 40
    assert [b["cards"] for b in perfect["bins"]] == [20, 20]
    over = expected_calibration_error([0.9] * 10, [True] * 5 + [False] * 5)
    assert over["ece"] == pytest.approx(0.4)
    assert expected_calibration_error([], [])["ece"] == 0.0
    with pytest.raises(ValueError):
        expected_calibration_error([0.5], [True, False])
