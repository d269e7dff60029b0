"""The detector's settings record: every key of the shipped model read, written back whole,
unknown or malformed keys refused in one line; a detector never changes, another one over
the same networks carries other settings."""

from __future__ import annotations

import dataclasses
import json

import pytest

from scorer.errors import InputError
from scorer.vision import Detector
from scorer.vision.beside import Beside
from scorer.vision.settings import DeckRule, DetectionSettings


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector(threads=1)


def test_the_shipped_models_settings_round_trip_through_the_record(detector):
    s = detector.settings
    assert s.loc_threshold == 0.4 and s.beside == Beside(0.25, 0.7, 0.8)
    again = DetectionSettings.from_metadata(json.loads(json.dumps(s.to_metadata())))
    assert again == dataclasses.replace(s, face_gate=again.face_gate) and again.face_gate is None
    assert set(s.to_metadata()) == {f.name for f in dataclasses.fields(DetectionSettings)}


def test_an_unknown_key_is_refused_in_one_line():
    with pytest.raises(InputError) as err:
        DetectionSettings.from_metadata({"loc_threshold": 0.4, "edge_fit": True})
    assert "edge_fit" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("cfg", [{"loc_threshold": "high"}, {"beside": {"distance": 1.0}},
                                 {"deck": {"accept": 0.9, "colour": "red"}},
                                 {"confidence_map": {"raw": [0, 1], "right": [1, 0]}}])
def test_a_malformed_value_is_refused_in_one_line(cfg):
    with pytest.raises(InputError) as err:
        DetectionSettings.from_metadata(cfg)
    assert err.value.args[0].startswith("the model's settings") and "\n" not in str(err.value)


def test_the_close_up_thresholds_fall_back_to_the_others_when_absent():
    s = DetectionSettings(loc_threshold=0.4, cls_threshold=0.3, large_box=0.5)
    assert (s.large_loc, s.large_cls) == (0.4, 0.3)
    heights = [100.0, 300.0]
    assert s.but(large_threshold=0.1).box_thresholds(heights, 480).tolist() == \
        pytest.approx([0.4, 0.1])
    assert s.but(large_cls_threshold=0.8).cls_thresholds(heights, 480).tolist() == \
        pytest.approx([0.3, 0.8])


def test_the_deck_rule_is_a_setting_with_defaults_a_model_may_override():
    assert DetectionSettings.from_metadata({}).deck == DeckRule()
    s = DetectionSettings.from_metadata({"deck": {"accept": 0.9}})
    assert s.deck == DeckRule(accept=0.9)


def test_a_detector_is_not_changed_by_another_over_its_networks(detector):
    before = detector.settings
    with pytest.raises(dataclasses.FrozenInstanceError):
        before.loc_threshold = 0.1      # type: ignore[misc]
    other = detector.with_settings(before.but(loc_threshold=0.99, large_threshold=0.99))
    assert detector.settings is before and other.settings.loc_threshold == 0.99
    assert other.localiser.session is detector.localiser.session
