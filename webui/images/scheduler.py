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
  Retry-After): at once when the turns ahead of it show it cannot and its address has
  no frame waiting yet, else when its deadline passes (so a host that posts on many
  connections waits for its refusals, one a connection a deadline, instead of
  spinning on them). While several addresses post frames, one runs at most its share
  of the workers (``webui.images.shares``): a camera's frame starts at once beside a greedy
  host, not after one of its frames.
* **Heavy jobs** (a large photo, an image bomb, an enrolment, learning) cost in proportion
  to their pixels. They run on threads of their own, ``workers - 1`` of them (one with a
  single worker), at background priority (``webui.images.priority``): a heavy decode takes only
  the CPU the cameras leave free, and a camera's frame never waits for one, for a slot or
  for a core (on two cores a 40 MP progressive JPEG is about 265 ms of one core). Where a
  thread's priority cannot be lowered (not Linux), a heavy job instead takes one of the
  ``workers`` slots and starts only when no light job waits, so one slot is always left
  for the cameras. Their pixels waiting or running together stay within ``heavy_budget``:
  beyond it a new heavy job is refused at once, so a flood of big uploads holds a bounded
  amount of memory and never a camera's turn. One address has at most
  ``heavy_per_address`` heavy jobs waiting or running (more are refused at once, so its
  uploads cannot hold the request threads), and the addresses' heavy jobs take turns.
* **A heavy job's detection runs on a worker** (issue 49): the detector's inference,
  when a background heavy job asks for it (``on_worker``), waits as a light job of that
  job's address, in its turn, and runs on a worker (its deadline the heavy one's), the
  heavy thread waiting. So at most ``workers`` inferences run at once: each holds about
  75 MB of onnxruntime's buffers, and beside two cameras a 12 MP progressive JPEG's
  detection on the heavy thread took the server to 385-400 MiB. Its decode (the
  memory and the time of a large image) stays on the heavy thread, which then gives
  what it freed back to the system (``webui.images.memory``).

A client is ``(address, connection)``; any other hashable is an address of its own.

The parts (issue 49: one long class before): ``webui.images.jobs`` (a job and a
client's address), ``webui.images.light`` (the cameras' queue: turns, shares, the
refusals), ``webui.images.heavy`` (the large images' queue: the budget, the turns), and
here the scheduler that holds the lock, the threads and the two queues.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Hashable, TypeVar

from scorer.errors import Busy
from webui.images import memory, priority
from webui.images.heavy import HeavyQueue
from webui.images.jobs import Job, Superseded, address, cores
from webui.images.light import LightQueue

__all__ = ["Busy", "Scheduler", "Superseded", "cores"]

T = TypeVar("T")


class Scheduler:
    """``run(client, cost, fn)`` runs ``fn()`` on a worker and returns its result (or
    raises its error, ``Busy`` or ``Superseded``); see the module for the rules. It holds
    the lock, the worker threads and the two queues (``light``, ``heavy``)."""

    def __init__(self, workers: int | None = None, deadline: float = 1.0,
                 heavy_pixels: int = 2_500_000, heavy_budget: int = 80_000_000,
                 heavy_deadline: float = 30.0, max_clients: int = 64,
                 heavy_per_address: int | None = None) -> None:
        self.workers = max(1, workers or cores())
        self.deadline = float(deadline)
        self.heavy_pixels = int(heavy_pixels)
        self.heavy_deadline = float(heavy_deadline)
        self.heavy_limit = max(1, self.workers - 1)
        self.stats = {"run": 0, "heavy": 0, "busy": 0, "superseded": 0, "expired": 0,
                      "early": 0}
        self.light = LightQueue(self.workers, self.deadline, int(max_clients), self.stats)
        self.heavy = HeavyQueue(int(heavy_budget), heavy_per_address or self.heavy_limit + 1,
                                self.stats)
        self._lock = threading.Lock()
        self._light_ready = threading.Condition(self._lock)    # the light threads wait here
        self._heavy_ready = threading.Condition(self._lock)    # the heavy threads here
        self._threads: list[threading.Thread] = []     # started with the first job
        self.heavy_background: bool | None = None      # heavy threads lowered (None: not yet)
        self._local = threading.local()                 # a heavy thread's job (on_worker)

    @property
    def heavy_budget(self) -> int:
        return self.heavy.budget

    @heavy_budget.setter
    def heavy_budget(self, value: int) -> None:
        with self._lock:
            self.heavy.budget = int(value)

    @property
    def heavy_per_address(self) -> int:
        return self.heavy.per_address

    # ------------------------------------------------------------------ submitting
    def run(self, client: Hashable, cost: int, fn: Callable[[], T],
            heavy: bool | None = None) -> T:
        heavy = cost > self.heavy_pixels if heavy is None else heavy
        now = time.monotonic()
        job = Job(fn, int(cost), heavy,
                  now + (self.heavy_deadline if heavy else self.deadline), address(client))
        with self._lock:
            if not self._threads:
                self._start()
            if heavy:
                self.heavy.admit(job)
                self._heavy_ready.notify()
            else:
                self.light.admit(client, job, self._light_slots())
                self._light_ready.notify()
        return self._outcome(client, job)

    def on_worker(self, fn: Callable[[], T]) -> T:
        """``fn()`` (a heavy job's inference): called from a heavy job at background
        priority, run as a light job of that job's address on a worker, in its turn (see
        the module); called from anywhere else, run here."""
        heavy: Job | None = getattr(self._local, "job", None)
        if heavy is None or heavy.shares_slot:      # a worker's place held already: here
            return fn()
        client = (heavy.address, ("heavy job", id(heavy)))     # never superseded
        job = Job(fn, 1, False, time.monotonic() + self.heavy_deadline, heavy.address)
        with self._lock:
            self.light.admit_patient(client, job)
            self._light_ready.notify()
        return self._outcome(client, job)

    def _outcome(self, client: Hashable, job: Job) -> Any:
        """``job``'s result once it has run (its error raised), or ``Busy`` when it did
        not start by its deadline."""
        if not job.done.wait(max(0.0, job.start_by - time.monotonic())):
            with self._lock:
                if not job.started and not job.done.is_set():
                    if job.heavy:
                        self.heavy.withdraw(job)
                    else:
                        self.light.withdraw(client, job)
                    self._expire(job)
            job.done.wait()         # a started one runs on
        if job.error is not None:
            raise job.error
        return job.result

    def refusal(self, client: Hashable, cost: int) -> Busy | None:
        """The ``Busy`` that ``run`` would raise now for a job of ``cost`` from ``client``
        (None: it would be taken, or it is light and judged only when it asks): so that
        the server can refuse an upload from its header, before reading its body
        (``webui.net.early``). Counted in ``stats`` as ``early`` (and ``busy``)."""
        if cost <= self.heavy_pixels:
            return None
        with self._lock:
            refusal = self.heavy.refusal(address(client), int(cost))
            if refusal is not None:
                self.stats["early"] += 1
            return refusal

    # --------------------------------------------------------------------- working
    def _start(self) -> None:
        """The light threads (``workers``, at the process's priority) and the heavy ones
        (``heavy_limit``, each lowering itself first); called holding the lock."""
        self._threads = [threading.Thread(target=self._work_light, daemon=True,
                                          name=f"image-worker-{i}")
                         for i in range(self.workers)]
        self._threads += [threading.Thread(target=self._work_heavy, daemon=True,
                                           name=f"image-heavy-{i}")
                          for i in range(self.heavy_limit)]
        for t in self._threads:
            t.start()

    def _light_slots(self) -> int:
        """Light jobs that may run at once: every worker, less the heavy jobs that run at
        normal priority (where it cannot be lowered) in a worker's place."""
        return self.workers - self.heavy.sharing

    def _expire(self, job: Job) -> None:
        self.stats["expired"] += 1
        job.finish(error=Busy(
            "the server is busy with large images: this one could not start in time; retry "
            "in a moment" if job.heavy else self.light.full("it could not start in time")))

    def _work_light(self) -> None:
        while True:
            with self._lock:
                while (job := self.light.take(self._light_slots(), time.monotonic(),
                                              self._expire)) is None:
                    self._light_ready.wait(0.5)
            self._execute(job)

    def _work_heavy(self) -> None:
        background = priority.lower()
        with self._lock:
            self.heavy_background = background
        while True:
            with self._lock:
                # a thread at normal priority takes one only into a free worker's slot
                # while no light job waits, and holds that slot while it runs
                while (job := self.heavy.take(
                        background, not self.light.waiting
                        and self.light.running < self._light_slots(),
                        time.monotonic(), self._expire)) is None:
                    self._heavy_ready.wait(0.5)
            self._execute(job)

    def _execute(self, job: Job) -> None:
        """Run one started job on this thread, account for it, and hand its result back."""
        t0 = time.monotonic()
        self._local.job = job if job.heavy else None
        try:
            result, error = job.fn(), None
        except BaseException as exc:  # handed to the waiting request
            result, error = None, exc
        finally:
            self._local.job = None
        took = time.monotonic() - t0
        if job.heavy:
            memory.trim()           # what the large image freed, back to the system now
        with self._lock:
            self.stats["run"] += 1
            if job.heavy:
                self.stats["heavy"] += 1
                self.heavy.finished(job)
            else:
                self.light.finished(job, took)
            self._light_ready.notify_all()
            self._heavy_ready.notify_all()
        job.finish(result, error)

    def snapshot(self) -> dict[str, Any]:
        """The queue as it stands (for /api/health and the tests)."""
        with self._lock:
            return {"workers": self.workers, "heavy_background": self.heavy_background,
                    "light_waiting": self.light.count(),
                    "heavy_waiting": self.heavy.count(),
                    "heavy_running": self.heavy.running,
                    "light_running": self.light.running, **self.stats}
