"""``training.measure.timing.alternating_ms``: the one alternating loop that the ship rule's
speed limit (``training.__main__.frame_ms``) and ``bench/bench_detect.py`` time with.
Turns rotate, warm-up frames are not counted, and bench_detect's runs (its stages, the
deck profile, a compared model) all go through it. No timing thresholds."""

from __future__ import annotations

import cv2
import numpy as np

from bench.bench_detect import _timed
from training.measure.timing import WARM_UP, alternating_ms


def _frames(count: int) -> list[bytes]:
    """``count`` small grey JPEG frames."""
    img = np.full((48, 64, 3), 128, np.uint8)
    return [cv2.imencode(".jpg", img)[1].tobytes()] * count


class _Found(list):
    """Detections as ``bench_detect`` reads them: their count and stage timings."""

    timings = {"localise": 1.0, "classify": 2.0}


class _Detector:
    """Finds ``cards`` cards in any image; logs its name, the image and the profile."""

    def __init__(self, name: str, log: list, cards: int = 2) -> None:
        self.name, self.log, self.cards = name, log, cards

    def detect(self, img: np.ndarray, profile: object = None) -> _Found:
        self.log.append((self.name, img, profile))
        return _Found(["08-1"] * self.cards)


def test_turns_rotate_and_the_warm_up_is_not_counted() -> None:
    order: list[int] = []
    runs = [lambda data, k=k: order.append(k) for k in range(3)]
    ms = alternating_ms(runs, [b"frame"] * (WARM_UP + 3))
    assert [len(m) for m in ms] == [3, 3, 3]
    assert all(t >= 0 for m in ms for t in m)
    assert order[::3] == [0, 1, 2, 0, 1, 2]             # which goes first rotates
    assert all(sorted(order[i:i + 3]) == [0, 1, 2] for i in range(0, len(order), 3))


def test_a_detector_is_timed_on_the_decoded_frame() -> None:
    log: list = []
    ms = alternating_ms([_Detector("a", log), _Detector("b", log)], _frames(WARM_UP + 2))
    assert [len(m) for m in ms] == [2, 2]
    assert [name for name, _, _ in log[::2]] == ["a", "b"] * 2 + ["a"]
    assert all(img.shape == (48, 64, 3) for _, img, _ in log)


def test_bench_detect_times_its_runs_by_alternating_ms() -> None:
    log: list = []
    det, other = _Detector("main", log), _Detector("other", log, cards=1)
    timed = _timed(det, _frames(WARM_UP + 4), other, profile=lambda: "deck")
    assert len(timed.rows) == len(timed.with_profile) == len(timed.other_ms) == 4
    assert all(len(row) == 5 and row[1:3] == (1.0, 2.0) for row in timed.rows)
    assert timed.found == [2] * 4 and timed.other_found == [1] * 4
    # each frame: the model, the model with the deck's profile, the other model; the
    # first of them rotating
    firsts = [(name, profile) for name, _, profile in log[::3]]
    assert firsts == [("main", None), ("main", "deck"), ("other", None)] * 2 + [("main", None)]

    alone = _timed(det, _frames(WARM_UP + 2))
    assert len(alone.rows) == len(alone.found) == 2
    assert alone.with_profile == alone.other_ms == alone.other_found == []


def test_the_eighth_model_outside_the_history_is_one_line_saying_what_to_do(tmp_path) -> None:
    import pytest

    from training.measure.reference import ReferenceUnavailable, reference_model
    with pytest.raises(ReferenceUnavailable) as err:  # as in a shallow clone
        reference_model(tmp_path, commit="0" * 40)
    assert "\n" not in str(err.value) and "git fetch --unshallow" in str(err.value)
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_bench_detect_times_several_compared_detectors_in_turn() -> None:
    log: list = []
    det = _Detector("main", log)
    others = [_Detector("old", log, cards=1), _Detector("precise", log, cards=3)]
    timed = _timed(det, _frames(WARM_UP + 3), others)
    assert [len(ms) for ms, _ in timed.compared] == [3, 3]
    assert [found for _, found in timed.compared] == [[1] * 3, [3] * 3]
    assert timed.other_found == [1] * 3
    firsts = [name for name, _, _ in log[::3]]
    assert firsts == ["main", "old", "precise"] * 2
