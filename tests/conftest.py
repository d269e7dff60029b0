"""Shared by every test: the ``art`` marker (tests that render scenes from the card art
outside the repository; see tests/gate.py) and the deck tests' embedding detector."""

from __future__ import annotations

import pytest

from deck_helpers import embedding_detector
from gate import require_art, require_photos


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "art: needs the card art (../shared/card-art); "
                                       "skipped without it, a failure under CI")
    config.addinivalue_line("markers", "photos: needs the real photographs "
                                       "(../shared/real-photos); skipped without them, "
                                       "a failure under CI")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Runs before the test's fixtures, so a fixture that renders scenes is not reached."""
    if item.get_closest_marker("art") is not None:
        require_art()
    if item.get_closest_marker("photos") is not None:
        require_photos()


@pytest.fixture(scope="module")
def emb_detector():
    """The shipped classifier if it has card embeddings (or $HANAFUDA_EMB_MODEL's)."""
    det = embedding_detector()
    if det is None:
        pytest.skip("no classifier with card embeddings (set HANAFUDA_EMB_MODEL)")
    return det
