"""The gates of tests/gate.py (the card art, the train extra): a skip outside CI, a failure
under CI."""

from __future__ import annotations

import pytest

from gate import TRAIN_MESSAGE, in_ci, require_art, skip_without_train_extra


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


def _missing(name: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(f"No module named '{name}'", name=name)


def _import_error_of_a_test_module(cause: BaseException) -> Exception:
    """What pytest raises when a test module's import fails: a CollectError from it."""
    try:
        raise pytest.Collector.CollectError("ImportError while importing test module") from cause
    except pytest.Collector.CollectError as exc:
        return exc


@pytest.mark.parametrize("exc", [_missing("torch"), _missing("skimage.data"),
                                 _import_error_of_a_test_module(_missing("tqdm"))],
                         ids=["torch", "submodule", "test-module"])
def test_a_missing_train_package_skips_outside_ci_with_one_line(monkeypatch, exc):
    monkeypatch.setenv("CI", "")
    with pytest.raises(pytest.skip.Exception) as info:
        skip_without_train_extra(exc)
    assert str(info.value) == TRAIN_MESSAGE and "\n" not in TRAIN_MESSAGE


@pytest.mark.parametrize("exc", [_missing("no_such_module"), _missing("training.stages.gone"),
                                 ValueError("torch"), _import_error_of_a_test_module(ValueError())],
                         ids=["other-package", "training-module", "other-error", "test-module"])
def test_any_other_error_stands(monkeypatch, exc):
    monkeypatch.setenv("CI", "")
    assert skip_without_train_extra(exc) is None      # the caller re-raises it


def test_a_missing_train_package_stands_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "1")
    assert skip_without_train_extra(_missing("torch")) is None   # an error, never a skip
