"""The image work of the web (detection, deck enrolment, learning) scheduled on a few
workers, fairly, with a short deadline, instead of refused at a fixed cap.

* **Workers match the cores.** The detector's work is CPU-bound (onnxruntime and OpenCV
  release the GIL), so one worker a core keeps every core busy and none oversubscribed.
* **Light jobs** (a camera frame: a decode costing at most ``heavy_pixels``) wait in one
  slot per client (an address and a connection): a client's newer frame replaces its
  waiting older one (that one is answered ``Superseded``: a live view wants its newest
  frame, not every frame). The turns go **per address, then per connection**: the
  addresses in turn, the one waiting longest first, and within an address its
  connections in turn; so 40 connections from one address get one address's share, and
  eight cameras of one laptop share its turns evenly (alone, they get every turn). A
  light job that cannot start within ``deadline`` seconds is refused (``Busy``, 503 with
  Retry-After), at once when the turns ahead of it show it cannot, else when its
  deadline passes.
* **Heavy jobs** (a large photo, an image bomb, an enrolment, learning) cost in proportion
  to their pixels. They run on at most ``workers - 1`` workers at once (one with a single
  worker), so one worker is always left for the cameras, and they start only when no
  light job waits. Their pixels waiting or running together stay within ``heavy_budget``:
  beyond it a new heavy job is refused at once, so a flood of big uploads holds a bounded
  amount of memory and never a camera's turn. One address has at most
  ``heavy_per_address`` heavy jobs waiting or running (more are refused at once, so its
  uploads cannot hold the request threads), and the addresses' heavy jobs take turns.

A client is ``(address, connection)``; any other hashable is an address of its own.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, TypeVar

from scorer.errors import Busy

T = TypeVar("T")


class Superseded(Exception):
    """A newer frame from the same client took this one's place in the queue."""


def cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _address(client: Hashable) -> Hashable:
    """The address of a client ``(address, connection)``; any other is its own."""
    return client[0] if isinstance(client, tuple) and len(client) == 2 else client


@dataclass(eq=False)
class _Job:
    fn: Callable[[], Any]
    cost: int
    heavy: bool
    start_by: float
    address: Hashable = None
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None
    started: bool = False

    def finish(self, result: Any = None, error: BaseException | None = None) -> None:
        self.result, self.error = result, error
        self.done.set()


class Scheduler:
    """``run(client, cost, fn)`` runs ``fn()`` on a worker and returns its result (or
    raises its error, ``Busy`` or ``Superseded``); see the module for the rules."""

    def __init__(self, workers: int | None = None, deadline: float = 1.0,
                 heavy_pixels: int = 2_500_000, heavy_budget: int = 80_000_000,
                 heavy_deadline: float = 30.0, max_clients: int = 64,
                 heavy_per_address: int | None = None) -> None:
        self.workers = max(1, workers or cores())
        self.deadline = float(deadline)
        self.heavy_pixels = int(heavy_pixels)
        self.heavy_budget = int(heavy_budget)
        self.heavy_deadline = float(heavy_deadline)
        self.max_clients = int(max_clients)
        self.heavy_limit = max(1, self.workers - 1)
        self.heavy_per_address = heavy_per_address or self.heavy_limit + 1
        self._cond = threading.Condition()
        # address -> its connections' waiting frames, both in turn order
        self._light: OrderedDict[Hashable, OrderedDict[Hashable, _Job]] = OrderedDict()
        self._heavy: OrderedDict[Hashable, deque[_Job]] = OrderedDict()
        self._heavy_of: dict[Hashable, int] = {}       # per address, waiting and running
        self._heavy_running = 0
        self._heavy_pixels = 0          # waiting and running
        self._light_running = 0
        self._light_seconds = 0.05      # running mean of a light job's time (first guess)
        self.stats = {"run": 0, "heavy": 0, "busy": 0, "superseded": 0, "expired": 0}
        self._threads: list[threading.Thread] = []     # started with the first job

    # ------------------------------------------------------------------ submitting
    def run(self, client: Hashable, cost: int, fn: Callable[[], T],
            heavy: bool | None = None) -> T:
        heavy = cost > self.heavy_pixels if heavy is None else heavy
        now = time.monotonic()
        job = _Job(fn, int(cost), heavy,
                   now + (self.heavy_deadline if heavy else self.deadline), _address(client))
        with self._cond:
            if not self._threads:
                self._threads = [threading.Thread(target=self._work, daemon=True,
                                                  name=f"image-worker-{i}")
                                 for i in range(self.workers)]
                for t in self._threads:
                    t.start()
            if heavy:
                self._admit_heavy(job)
            else:
                self._admit_light(client, job)
            self._cond.notify()
        # a job that has not started by its deadline is refused; a started one runs on
        if not job.done.wait(max(0.0, job.start_by - time.monotonic())):
            with self._cond:
                if not job.started and not job.done.is_set():
                    self._withdraw(client, job)
                    self._expire(job)
            job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result

    def _admit_light(self, client: Hashable, job: _Job) -> None:
        mine = self._light.get(job.address)
        old = mine.pop(client, None) if mine is not None else None
        if old is not None:
            self.stats["superseded"] += 1
            old.finish(error=Superseded("a newer frame from this client was taken instead"))
        waiting = sum(len(q) for q in self._light.values())
        ahead = self._ahead(job.address)
        free = max(1, self.workers - self._heavy_running)
        if waiting >= self.max_clients or \
                (ahead / free) * self._light_seconds > self.deadline:
            self.stats["busy"] += 1
            if mine is not None and not mine:
                del self._light[job.address]
            raise Busy(f"detection is busy ({ahead} frames before this one); "
                       "retry in a moment")
        if mine is None:
            mine = self._light[job.address] = OrderedDict()
        mine[client] = job

    def _ahead(self, address: Hashable) -> int:
        """Frames that start before a new one of ``address``: its own waiting ones, and
        of each other address as many as take turns before it (one more than its own)."""
        own = len(self._light.get(address, ()))
        return own + sum(min(len(q), own + 1) for a, q in self._light.items() if a != address)

    def _admit_heavy(self, job: _Job) -> None:
        if self._heavy_of.get(job.address, 0) >= self.heavy_per_address:
            self.stats["busy"] += 1
            raise Busy("this address already has large images waiting; retry when they "
                       "are done", retry_after=2)
        if job.cost > self.heavy_budget:
            raise Busy(f"this image work ({job.cost / 1e6:.0f} megapixels) is over the "
                       f"server's budget ({self.heavy_budget / 1e6:.0f}); send smaller "
                       "images", retry_after=30)
        if self._heavy_pixels + job.cost > self.heavy_budget:
            self.stats["busy"] += 1
            raise Busy("the server is busy with large images; retry in a moment",
                       retry_after=2)
        self._heavy_pixels += job.cost
        self._heavy_of[job.address] = self._heavy_of.get(job.address, 0) + 1
        self._heavy.setdefault(job.address, deque()).append(job)

    def _heavy_done(self, job: _Job) -> None:
        self._heavy_pixels -= job.cost
        left = self._heavy_of.get(job.address, 1) - 1
        if left > 0:
            self._heavy_of[job.address] = left
        else:
            self._heavy_of.pop(job.address, None)

    def _withdraw(self, client: Hashable, job: _Job) -> None:
        if job.heavy:
            queue = self._heavy.get(job.address)
            if queue is not None and job in queue:
                queue.remove(job)
                if not queue:
                    del self._heavy[job.address]
            self._heavy_done(job)
        else:
            mine = self._light.get(job.address)
            if mine is not None and mine.get(client) is job:
                del mine[client]
                if not mine:
                    del self._light[job.address]

    @staticmethod
    def _take(queues: OrderedDict) -> _Job:
        """The first job of the first address in turn; that address goes to the end."""
        address, mine = queues.popitem(last=False)
        job = mine.popitem(last=False)[1] if isinstance(mine, OrderedDict) else mine.popleft()
        if mine:
            queues[address] = mine
        return job

    # --------------------------------------------------------------------- working
    def _next(self) -> _Job:
        """The next job to run (called holding the lock; waits for one)."""
        while True:
            now = time.monotonic()
            while self._light:
                job = self._take(self._light)
                if job.start_by >= now:
                    self._light_running += 1
                    job.started = True
                    return job
                self._expire(job)
            while self._heavy and self._heavy_running < self.heavy_limit:
                job = self._take(self._heavy)
                if job.start_by >= now:
                    self._heavy_running += 1
                    job.started = True
                    return job
                self._heavy_done(job)
                self._expire(job)
            self._cond.wait(0.5)

    def _expire(self, job: _Job) -> None:
        self.stats["expired"] += 1
        job.finish(error=Busy("detection is busy: the frame could not start in time; "
                              "retry in a moment"))

    def _work(self) -> None:
        while True:
            with self._cond:
                job = self._next()
            t0 = time.monotonic()
            try:
                result, error = job.fn(), None
            except BaseException as exc:  # handed to the waiting request
                result, error = None, exc
            took = time.monotonic() - t0
            with self._cond:
                self.stats["run"] += 1
                if job.heavy:
                    self.stats["heavy"] += 1
                    self._heavy_running -= 1
                    self._heavy_done(job)
                else:
                    self._light_running -= 1
                    self._light_seconds = 0.8 * self._light_seconds + 0.2 * took
                self._cond.notify_all()
            job.finish(result, error)

    def snapshot(self) -> dict[str, Any]:
        """The queue as it stands (for /api/health and the tests)."""
        with self._cond:
            return {"workers": self.workers,
                    "light_waiting": sum(len(q) for q in self._light.values()),
                    "heavy_waiting": sum(len(q) for q in self._heavy.values()),
                    "heavy_running": self._heavy_running,
                    "light_running": self._light_running, **self.stats}
