"""A job of the image scheduler (``webui.images.scheduler``), a client's address, and
the machine's cores."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable


class Superseded(Exception):
    """A newer frame from the same client took this one's place in the queue."""


def cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def address(client: Hashable) -> Hashable:
    """The address of a client ``(address, connection)``; any other is its own."""
    return client[0] if isinstance(client, tuple) and len(client) == 2 else client


@dataclass(eq=False)
class Job:
    """One piece of image work: its function, cost (decoded pixels), class, the time it
    must start by, its client's address, and (once done) its result or error."""

    fn: Callable[[], Any]
    cost: int
    heavy: bool
    start_by: float
    address: Hashable = None
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None
    started: bool = False
    shares_slot: bool = False       # a heavy job run at normal priority holds a light slot

    def finish(self, result: Any = None, error: BaseException | None = None) -> None:
        self.result, self.error = result, error
        self.done.set()
