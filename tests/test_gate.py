"""The card-art gate of tests/gate.py: a skip outside CI, a failure under CI."""

from __future__ import annotations

import pytest

from gate import in_ci, require_art


def test_present_art_is_returned(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert require_art(tmp_path) == tmp_path


@pytest.mark.parametrize("value", ["", "0", "false"])
def test_missing_art_skips_outside_ci_with_one_line(tmp_path, monkeypatch, value):
    monkeypatch.setenv("CI", value)
    assert not in_ci()
    with pytest.raises(pytest.skip.Exception) as info:
        require_art(tmp_path / "card-art")
    message = str(info.value)
    assert "\n" not in message and "card-art" in message and "README" in message


@pytest.mark.parametrize("value", ["true", "1"])
def test_missing_art_fails_under_ci(tmp_path, monkeypatch, value):
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception):
        require_art(tmp_path / "card-art")
