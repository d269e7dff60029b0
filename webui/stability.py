"""Which detected cards are stable over recent frames (the rule the page applies live).

The page runs the same rule in ``static/js/stability.js``: a card enters a pile only
once it was seen in at least ``need`` of the last ``window`` frames, so one flickering
frame never changes a score. This is its reference, tested in Python.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable, Sequence

WINDOW = 6
NEED = 4


def stable_codes(frames: Sequence[Iterable[str]], window: int = WINDOW,
                 need: int = NEED) -> set[str]:
    """Codes seen in at least ``need`` of the last ``window`` frames (each frame: a set)."""
    counts: dict[str, int] = {}
    for frame in list(frames)[-window:]:
        for code in set(frame):
            counts[code] = counts.get(code, 0) + 1
    return {code for code, n in counts.items() if n >= need}


class StabilityTracker:
    """Feed frames one by one; ``captured`` keeps every card that became stable
    (a pile is panned over, so a card that left the view stays captured)."""

    def __init__(self, window: int = WINDOW, need: int = NEED) -> None:
        if not 1 <= need <= window:
            raise ValueError("need must be between 1 and window")
        self.window, self.need = window, need
        self.frames: deque[set[str]] = deque(maxlen=window)
        self.captured: list[str] = []

    def push(self, codes: Iterable[str]) -> set[str]:
        """Add one frame's codes; return the codes stable now."""
        self.frames.append(set(codes))
        now = stable_codes(self.frames, self.window, self.need)
        for code in sorted(now):
            if code not in self.captured:
                self.captured.append(code)
        return now
