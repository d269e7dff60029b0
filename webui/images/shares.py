"""How many of the image workers one client address may hold while other addresses
want them: its fair share, ``ceil(workers / addresses seen lately)``.

Issue 45: with the real model (about 150 ms a frame a core on the 2-core laptop) a
camera beside a host posting frames on 40 connections got 1.2 frames a second. Turns per
address put the camera's frame first in the queue, but both workers were busy with the
greedy host's frames, so the camera's waited for one to end (up to a whole frame's time)
on every turn. A camera posts a frame, waits for its answer, then waits the rest of its
quarter second: between its frames it has none waiting, and turns alone give the other
host every worker. So an address that was seen within ``window`` seconds keeps its
share of workers even while it has no frame waiting: a frame of its own starts at once,
on a worker the greedy host may not take. An address alone (8 cameras in 8 tabs of one
laptop) still gets every worker. The price is a worker idle between a camera's frames
while another host would have used it: the other host still gets its own share.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Hashable


class Shares:
    """The addresses seen within ``window`` seconds, and each one's share of ``slots``."""

    def __init__(self, window: float = 2.0) -> None:
        self.window = float(window)
        self._seen: OrderedDict[Hashable, float] = OrderedDict()     # oldest first

    def seen(self, address: Hashable, now: float | None = None) -> None:
        """``address`` wants a worker now."""
        now = time.monotonic() if now is None else now
        self._seen.pop(address, None)
        self._seen[address] = now
        self._forget(now)

    def _forget(self, now: float) -> None:
        while self._seen:
            first, at = next(iter(self._seen.items()))
            if now - at <= self.window:
                return
            del self._seen[first]

    def active(self, now: float | None = None) -> int:
        """The addresses seen within the window."""
        self._forget(time.monotonic() if now is None else now)
        return len(self._seen)

    def share(self, slots: int, now: float | None = None) -> int:
        """The most of ``slots`` one address may hold at once (at least one)."""
        return max(1, -(-slots // max(1, self.active(now))))
