"""The tests' onnxruntime sessions: through the product's own factory
(``scorer.vision.stages.session``), with the int8 products the product chooses on this CPU
(``scorer.vision.cpu``) for the model the file belongs to (what its localiser's settings
declare of its int8 weights), so that a test reads a network as the detector does, on
any x86 CPU, VNNI or not. ``test_sessions.py`` checks that nothing else opens one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from scorer.vision.cpu import cpu_flags, precise_int8_needed
from scorer.vision.settings import DetectionSettings
from scorer.vision.stages import metadata, session


def fast_int8_exact(path: Path) -> bool:
    """Whether the model of ``path`` declares int8 weights that cannot saturate the fast
    products (``DetectionSettings.fast_int8_exact``): its localiser's settings (the file
    itself, or the localiser beside a classifier or refiner); False when there is none."""
    path = Path(path)
    loc = path.with_name(re.sub("classifier|refiner", "localiser", path.name))
    if not loc.is_file():
        return False
    cfg = metadata(session(loc, 1, True))
    return DetectionSettings.from_metadata(cfg).fast_int8_exact if cfg else False


def product_session(path: Path, threads: int = 1) -> Any:
    """An onnxruntime session on ``path`` as the detector opens one on this CPU."""
    return session(path, threads, precise=precise_int8_needed(cpu_flags(), fast_int8_exact(path)))
