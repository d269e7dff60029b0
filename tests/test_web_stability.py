"""The live stability rule: a card joins a pile only when seen in 4 of the last 6 frames."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webui.stability import NEED, WINDOW, StabilityTracker, stable_codes


def test_defaults_are_four_of_six() -> None:
    assert (NEED, WINDOW) == (4, 6)


def test_card_seen_four_times_in_six_is_stable() -> None:
    frames = [{"08-1"}, set(), {"08-1"}, {"08-1"}, set(), {"08-1"}]
    assert stable_codes(frames) == {"08-1"}
    assert stable_codes(frames[:-1]) == set()


def test_only_the_last_window_counts() -> None:
    frames = [{"01-1"}] * 4 + [set()] * 6
    assert stable_codes(frames) == set()


def test_single_flicker_never_enters_the_pile() -> None:
    t = StabilityTracker()
    for i in range(30):
        t.push({"08-1", "03-1"} if i != 17 else {"08-1", "03-1", "12-2"})
    assert t.captured == ["03-1", "08-1"]


def test_captured_cards_stay_when_they_leave_the_view() -> None:
    t = StabilityTracker()
    for _ in range(4):
        t.push({"01-1"})
    for _ in range(6):
        now = t.push({"02-1"})
    assert now == {"02-1"} and t.captured == ["01-1", "02-1"]


def test_bad_parameters() -> None:
    with pytest.raises(ValueError):
        StabilityTracker(window=3, need=4)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sets(st.sampled_from(["01-1", "02-1", "08-1"])), max_size=20))
def test_stable_means_seen_in_need_of_window(frames: list[set[str]]) -> None:
    recent = frames[-WINDOW:]
    for code in ["01-1", "02-1", "08-1"]:
        seen = sum(code in f for f in recent)
        assert (code in stable_codes(frames)) == (seen >= NEED)
