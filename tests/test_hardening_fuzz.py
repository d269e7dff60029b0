"""Hardening, bad input: bench/fuzz_inputs.py at a small count (the script runs 10,000).
Every JSON endpoint and /api/detect: no 500, JSON errors, security headers on every
answer, 403 without the cross-site header, safe export names, never a card in two piles;
`hanafuda detect`: exit 0 or 2 with a message, never a traceback."""

from __future__ import annotations

import logging

from bench.fuzz_inputs import SHARES, run_fuzz


def _fuzz(examples: int, targets: list[str]):
    logger = logging.getLogger("webui.app.errors")
    level = logger.level
    logger.setLevel(logging.CRITICAL)   # the 500s are counted, not logged
    try:
        tally = run_fuzz(examples, model="fake", seed=1, out=lambda _: None, targets=targets)
    finally:
        logger.setLevel(level)
    assert set(tally.inputs) == set(targets)
    assert tally.total >= examples * 0.9
    return tally


def test_fuzz_web_endpoints_never_500() -> None:
    tally = _fuzz(600, [t for t in SHARES if t != "detect_cli"])
    assert tally.server_errors == []
    assert tally.crashes == []
    assert tally.violations == []
    assert {400, 403, 404, 413} <= set(tally.statuses)      # the fuzz reached each refusal


def test_fuzz_detect_command_never_crashes() -> None:
    tally = _fuzz(150, ["detect_cli"])
    assert tally.crashes == []
    assert tally.violations == []
    assert "exit 2" in tally.statuses
