"""The light jobs' queue (a camera's frames) of the image scheduler: one waiting slot per
client, turns per address then per connection, each address at most its share of the
workers while several post, and the refusals (``webui.images.scheduler`` has the rules).
Every method is called holding the scheduler's lock."""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Callable, Hashable

from scorer.errors import Busy
from webui.images.jobs import Job, Superseded
from webui.images.shares import Shares


class LightQueue:
    """The waiting frames, the running ones per address, and a running mean of a frame's
    time (``seconds``: what the refusals reckon with)."""

    def __init__(self, workers: int, deadline: float, max_clients: int,
                 stats: dict[str, int]) -> None:
        self.workers = workers
        self.deadline = deadline
        self.max_clients = max_clients
        self.stats = stats
        # address -> its connections' waiting frames, both in turn order
        self.waiting: OrderedDict[Hashable, OrderedDict[Hashable, Job]] = OrderedDict()
        self.running = 0
        self.running_of: Counter[Hashable] = Counter()     # running per address
        self.shares = Shares()
        self.cameras = Shares()         # the clients (cameras) posting frames lately
        self.seconds = 0.05             # running mean of a light job's time (first guess)

    def count(self) -> int:
        return sum(len(q) for q in self.waiting.values())

    def admit(self, client: Hashable, job: Job, slots: int) -> None:
        """Queue ``job`` in its client's slot (an older frame there is ``Superseded``), or
        raise ``Busy`` when it cannot start in time (see the scheduler's module)."""
        mine = self.waiting.get(job.address)
        old = mine.pop(client, None) if mine is not None else None
        if old is not None:
            self.stats["superseded"] += 1
            old.finish(error=Superseded("a newer frame from this client was taken instead"))
        self.shares.seen(job.address)
        self.cameras.seen(client)
        ahead = self.ahead(job.address)
        if self.count() >= self.max_clients or (
                not mine and (ahead / max(1, slots)) * self.seconds > self.deadline):
            self.stats["busy"] += 1
            if mine is not None and not mine:
                del self.waiting[job.address]
            raise Busy(self.full(f"{ahead} frames before this one"))
        if mine is None:
            mine = self.waiting[job.address] = OrderedDict()
        mine[client] = job

    def admit_patient(self, client: Hashable, job: Job) -> None:
        """Queue ``job`` in its address's turn without refusing it (a heavy job's
        inference: it waits until its own deadline)."""
        self.waiting.setdefault(job.address, OrderedDict())[client] = job
        self.shares.seen(job.address)

    def full(self, why: str) -> str:
        """A refusal as the camera's page shows it: the laptop is full, and how many
        cameras share it."""
        cameras, workers = self.cameras.active(), self.workers
        return ("this laptop is full (detection is busy): "
                f"{cameras} camera{'s' if cameras != 1 else ''} share its {workers} image "
                f"worker{'s' if workers != 1 else ''}, in turn; this frame was skipped ({why})")

    def ahead(self, address: Hashable) -> int:
        """Frames that start before a new one of ``address``: its own waiting ones, and
        of each other address as many as take turns before it (one more than its own)."""
        own = len(self.waiting.get(address, ()))
        return own + sum(min(len(q), own + 1) for a, q in self.waiting.items() if a != address)

    def take(self, slots: int, now: float, expire: Callable[[Job], None]) -> Job | None:
        """The next frame to start, of the first address in turn below its share of the
        ``slots`` (None: none may start now); the ones past their deadline ``expire``."""
        share = self.shares.share(slots, now)
        while self.running < slots:
            address = next((a for a in self.waiting if self.running_of[a] < share), None)
            if address is None:
                return None
            mine = self.waiting.pop(address)
            job = mine.popitem(last=False)[1]
            if mine:
                self.waiting[address] = mine                # to the end: its turn
            if job.start_by >= now:
                self.running += 1
                self.running_of[address] += 1
                job.started = True
                return job
            expire(job)
        return None

    def withdraw(self, client: Hashable, job: Job) -> None:
        mine = self.waiting.get(job.address)
        if mine is not None and mine.get(client) is job:
            del mine[client]
            if not mine:
                del self.waiting[job.address]

    def finished(self, job: Job, took: float) -> None:
        self.running -= 1
        self.running_of[job.address] -= 1
        if self.running_of[job.address] <= 0:
            del self.running_of[job.address]
        self.seconds = 0.8 * self.seconds + 0.2 * took
