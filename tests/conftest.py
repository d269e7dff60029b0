"""Shared by every test: the ``art`` marker (tests that render scenes from the card art
outside the repository; see tests/gate.py), the ``slow`` marker (tiny training runs end
to end, which a developer may leave out with ``-m "not slow"``; CI runs them), the gate
of the ``train`` extra (a test module or test that imports a missing package of it is
skipped, a failure under CI) and the deck tests' embedding detector."""

from __future__ import annotations

from pathlib import Path

import pytest

from deck_helpers import embedding_detector
from gate import require_art, require_photos, skip_without_train_extra


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "art: needs the card art (../shared/card-art); "
                                       "skipped without it, a failure under CI")
    config.addinivalue_line("markers", "photos: needs the real photographs "
                                       "(../shared/real-photos); skipped without them, "
                                       "a failure under CI")
    config.addinivalue_line("markers", "slow: a tiny training run end to end (a minute or "
                                       "more); -m 'not slow' leaves it out, CI runs it")


class _TrainGatedModule(pytest.Module):
    """A test module that imports a missing package of the train extra (torch, onnx, ...)
    is skipped with one line; under CI its import error stands."""

    def collect(self):
        try:
            return super().collect()
        except self.CollectError as exc:
            skip_without_train_extra(exc)
            raise


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module:
    return _TrainGatedModule.from_parent(parent, path=module_path)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    """The art and photos gates run before the test's fixtures, so a fixture that renders
    scenes is not reached; a fixture that imports a missing package of the train extra
    skips the test (a failure under CI)."""
    if item.get_closest_marker("art") is not None:
        require_art()
    if item.get_closest_marker("photos") is not None:
        require_photos()
    try:
        return (yield)
    except ModuleNotFoundError as exc:
        skip_without_train_extra(exc)
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """A test that imports a missing package of the train extra is skipped (a failure
    under CI)."""
    try:
        return (yield)
    except ModuleNotFoundError as exc:
        skip_without_train_extra(exc)
        raise


@pytest.fixture(scope="module")
def emb_detector():
    """The shipped classifier if it has card embeddings (or $HANAFUDA_EMB_MODEL's)."""
    det = embedding_detector()
    if det is None:
        pytest.skip("no classifier with card embeddings (set HANAFUDA_EMB_MODEL)")
    return det
