"""The heavy jobs' queue (large images, enrolment, learning) of the image scheduler: the
pixel budget of what waits and runs, a few per address, and the addresses in turn
(``webui.images.scheduler`` has the rules). Every method is called holding the
scheduler's lock."""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Callable, Hashable

from scorer.errors import Busy
from webui.images.jobs import Job


class HeavyQueue:
    """The waiting heavy jobs per address, and what waits and runs in pixels and jobs."""

    def __init__(self, budget: int, per_address: int, stats: dict[str, int]) -> None:
        self.budget = budget
        self.per_address = per_address
        self.stats = stats
        self.waiting: OrderedDict[Hashable, deque[Job]] = OrderedDict()
        self.of: dict[Hashable, int] = {}           # per address, waiting and running
        self.running = 0
        self.sharing = 0                # running in light slots (no priority of their own)
        self.pixels = 0                 # waiting and running

    def count(self) -> int:
        return sum(len(q) for q in self.waiting.values())

    def refusal(self, address: Hashable, cost: int) -> Busy | None:
        """Why a heavy job of ``cost`` from ``address`` is refused now (None: taken)."""
        if self.of.get(address, 0) >= self.per_address:
            self.stats["busy"] += 1
            return Busy("this address already has large images waiting; retry when they "
                        "are done", retry_after=2)
        if cost > self.budget:
            return Busy(f"this image work ({cost / 1e6:.0f} megapixels) is over the "
                        f"server's budget ({self.budget / 1e6:.0f}); send smaller "
                        "images", retry_after=30)
        if self.pixels + cost > self.budget:
            self.stats["busy"] += 1
            return Busy("the server is busy with large images; retry in a moment",
                        retry_after=2)
        return None

    def admit(self, job: Job) -> None:
        refusal = self.refusal(job.address, job.cost)
        if refusal is not None:
            raise refusal
        self.pixels += job.cost
        self.of[job.address] = self.of.get(job.address, 0) + 1
        self.waiting.setdefault(job.address, deque()).append(job)

    def take(self, background: bool, slot_free: bool, now: float,
             expire: Callable[[Job], None]) -> Job | None:
        """The next heavy job for a heavy thread: at once for a background thread, into
        a free worker's slot (``slot_free``) for one at normal priority; None: none now.
        The ones past their deadline ``expire``."""
        while self.waiting and (background or slot_free):
            address, mine = self.waiting.popitem(last=False)
            job = mine.popleft()
            if mine:
                self.waiting[address] = mine                # to the end: its turn
            if job.start_by >= now:
                self.running += 1
                job.started = True
                job.shares_slot = not background
                self.sharing += job.shares_slot
                return job
            self.done(job)
            expire(job)
        return None

    def withdraw(self, job: Job) -> None:
        queue = self.waiting.get(job.address)
        if queue is not None and job in queue:
            queue.remove(job)
            if not queue:
                del self.waiting[job.address]
        self.done(job)

    def finished(self, job: Job) -> None:
        self.running -= 1
        self.sharing -= job.shares_slot
        self.done(job)

    def done(self, job: Job) -> None:
        self.pixels -= job.cost
        left = self.of.get(job.address, 1) - 1
        if left > 0:
            self.of[job.address] = left
        else:
            self.of.pop(job.address, None)
