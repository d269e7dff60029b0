"""The tests' onnxruntime sessions: through the product's own factory
(``scorer.vision.stages.session``), with the int8 products the product chooses on this CPU
(``scorer.vision.cpu``), so that a test reads a network as the detector does, on any x86
CPU, VNNI or not. ``test_sessions.py`` checks that nothing else opens one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scorer.vision.cpu import cpu_flags, fast_int8_is_exact
from scorer.vision.stages import session


def product_session(path: Path, threads: int = 1) -> Any:
    """An onnxruntime session on ``path`` as the detector opens one on this CPU."""
    return session(path, threads, precise=not fast_int8_is_exact(cpu_flags()))
