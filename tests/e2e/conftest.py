"""Shared by the browser tests: Playwright driving the Chromium on PATH; without one
the tests are skipped, and fail under CI."""

from __future__ import annotations

import pytest

from e2e_harness import find_chromium, missing_browser_message
from gate import in_ci


@pytest.fixture(scope="module")
def playwright_sync():
    if find_chromium() is None:
        if in_ci():
            pytest.fail(missing_browser_message())
        pytest.skip(missing_browser_message())
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        yield p
