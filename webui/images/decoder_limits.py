"""OpenCV's own image limits for the web server's process, behind the header check of
``scorer.vision.image`` (which refuses a bomb before any decode, with a 413 and a
message): ``OPENCV_IO_MAX_IMAGE_PIXELS``, ``_WIDTH`` and ``_HEIGHT`` at the same caps,
so a decoder that met an image whose header lied still stops at them.

OpenCV reads them once, when it loads: ``webui`` imports this module before anything
that imports cv2, and an environment that sets them keeps its own values. Only the web
process is limited this way (the training code decodes larger photographs).
"""

from __future__ import annotations

import os

MAX_PIXELS = 40_000_000         # = scorer.vision.image.MAX_PIXELS (a test keeps them equal)
MAX_SIDE = 12_000               # = scorer.vision.image.MAX_SIDE


def apply() -> bool:
    """Put the limits in the environment; False when cv2 is loaded already (too late)."""
    import sys
    for name, value in (("OPENCV_IO_MAX_IMAGE_PIXELS", MAX_PIXELS),
                        ("OPENCV_IO_MAX_IMAGE_WIDTH", MAX_SIDE),
                        ("OPENCV_IO_MAX_IMAGE_HEIGHT", MAX_SIDE)):
        os.environ.setdefault(name, str(value))
    return "cv2" not in sys.modules


apply()
