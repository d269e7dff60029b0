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
  of the workers (``webui.shares``): a camera's frame starts at once beside a greedy
  host, not after one of its frames.
* **Heavy jobs** (a large photo, an image bomb, an enrolment, learning) cost in proportion
  to their pixels. They run on threads of their own, ``workers - 1`` of them (one with a
  single worker), at background priority (``webui.priority``): a heavy decode takes only
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
  memory and the time of a large image) stays on the heavy thread.

A client is ``(address, connection)``; any other hashable is an address of its own.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter, OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, TypeVar

from scorer.errors import Busy
from webui import priority
from webui.shares import Shares

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
    shares_slot: bool = False       # a heavy job run at normal priority holds a light slot

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
        self._lock = threading.Lock()
        self._light_ready = threading.Condition(self._lock)    # the light threads wait here
        self._heavy_ready = threading.Condition(self._lock)    # the heavy threads here
        # address -> its connections' waiting frames, both in turn order
        self._light: OrderedDict[Hashable, OrderedDict[Hashable, _Job]] = OrderedDict()
        self._heavy: OrderedDict[Hashable, deque[_Job]] = OrderedDict()
        self._heavy_of: dict[Hashable, int] = {}       # per address, waiting and running
        self._heavy_running = 0
        self._sharing = 0               # heavy jobs running in light slots (no priority)
        self._heavy_pixels = 0          # waiting and running
        self._light_running = 0
        self._running_of: Counter[Hashable] = Counter()    # light jobs running per address
        self._shares = Shares()
        self._cameras = Shares()        # the clients (cameras) posting frames lately
        self._light_seconds = 0.05      # running mean of a light job's time (first guess)
        self.stats = {"run": 0, "heavy": 0, "busy": 0, "superseded": 0, "expired": 0,
                      "early": 0}
        self._threads: list[threading.Thread] = []     # started with the first job
        self.heavy_background: bool | None = None      # heavy threads lowered (None: not yet)
        self._local = threading.local()                 # a heavy thread's job (on_worker)

    # ------------------------------------------------------------------ submitting
    def run(self, client: Hashable, cost: int, fn: Callable[[], T],
            heavy: bool | None = None) -> T:
        heavy = cost > self.heavy_pixels if heavy is None else heavy
        now = time.monotonic()
        job = _Job(fn, int(cost), heavy,
                   now + (self.heavy_deadline if heavy else self.deadline), _address(client))
        with self._lock:
            if not self._threads:
                self._start()
            if heavy:
                self._admit_heavy(job)
                self._heavy_ready.notify()
            else:
                self._admit_light(client, job)
                self._light_ready.notify()
        return self._outcome(client, job)

    def on_worker(self, fn: Callable[[], T]) -> T:
        """``fn()`` (a heavy job's inference): called from a heavy job at background
        priority, run as a light job of that job's address on a worker, in its turn (see
        the module); called from anywhere else, run here."""
        heavy: _Job | None = getattr(self._local, "job", None)
        if heavy is None or heavy.shares_slot:      # a worker's place held already: here
            return fn()
        client = (heavy.address, ("heavy job", id(heavy)))     # never superseded
        job = _Job(fn, 1, False, time.monotonic() + self.heavy_deadline, heavy.address)
        with self._lock:
            self._light.setdefault(job.address, OrderedDict())[client] = job
            self._shares.seen(job.address)
            self._light_ready.notify()
        return self._outcome(client, job)

    def _outcome(self, client: Hashable, job: _Job) -> Any:
        """``job``'s result once it has run (its error raised), or ``Busy`` when it did
        not start by its deadline."""
        # a job that has not started by its deadline is refused; a started one runs on
        if not job.done.wait(max(0.0, job.start_by - time.monotonic())):
            with self._lock:
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
        self._shares.seen(job.address)
        self._cameras.seen(client)
        waiting = sum(len(q) for q in self._light.values())
        ahead = self._ahead(job.address)
        free = max(1, self._light_slots())
        if waiting >= self.max_clients or (not mine and
                                           (ahead / free) * self._light_seconds > self.deadline):
            self.stats["busy"] += 1
            if mine is not None and not mine:
                del self._light[job.address]
            raise Busy(self._full(f"{ahead} frames before this one"))
        if mine is None:
            mine = self._light[job.address] = OrderedDict()
        mine[client] = job

    def _full(self, why: str) -> str:
        """A light job's refusal as the camera's page shows it: the laptop is full, and
        how many cameras share it (called holding the lock)."""
        cameras, workers = self._cameras.active(), self.workers
        return ("this laptop is full (detection is busy): "
                f"{cameras} camera{'s' if cameras != 1 else ''} share its {workers} image "
                f"worker{'s' if workers != 1 else ''}, in turn; this frame was skipped ({why})")

    def _ahead(self, address: Hashable) -> int:
        """Frames that start before a new one of ``address``: its own waiting ones, and
        of each other address as many as take turns before it (one more than its own)."""
        own = len(self._light.get(address, ()))
        return own + sum(min(len(q), own + 1) for a, q in self._light.items() if a != address)

    def _admit_heavy(self, job: _Job) -> None:
        refusal = self._heavy_refusal(job.address, job.cost)
        if refusal is not None:
            raise refusal
        self._heavy_pixels += job.cost
        self._heavy_of[job.address] = self._heavy_of.get(job.address, 0) + 1
        self._heavy.setdefault(job.address, deque()).append(job)

    def _heavy_refusal(self, address: Hashable, cost: int) -> Busy | None:
        """Why a heavy job of ``cost`` from ``address`` is refused now (None: it is taken);
        called holding the lock."""
        if self._heavy_of.get(address, 0) >= self.heavy_per_address:
            self.stats["busy"] += 1
            return Busy("this address already has large images waiting; retry when they "
                        "are done", retry_after=2)
        if cost > self.heavy_budget:
            return Busy(f"this image work ({cost / 1e6:.0f} megapixels) is over the "
                        f"server's budget ({self.heavy_budget / 1e6:.0f}); send smaller "
                        "images", retry_after=30)
        if self._heavy_pixels + cost > self.heavy_budget:
            self.stats["busy"] += 1
            return Busy("the server is busy with large images; retry in a moment",
                        retry_after=2)
        return None

    def refusal(self, client: Hashable, cost: int) -> Busy | None:
        """The ``Busy`` that ``run`` would raise now for a job of ``cost`` from ``client``
        (None: it would be taken, or it is light and judged only when it asks): so that
        the server can refuse an upload from its header, before reading its body
        (``webui.early``). Counted in ``stats`` as ``early`` (and ``busy``)."""
        if cost <= self.heavy_pixels:
            return None
        with self._lock:
            refusal = self._heavy_refusal(_address(client), int(cost))
            if refusal is not None:
                self.stats["early"] += 1
            return refusal

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
    def _take(queues: OrderedDict[Hashable, deque[_Job]]) -> _Job:
        """The first job of the first address in turn; that address goes to the end."""
        address, mine = queues.popitem(last=False)
        job = mine.popleft()
        if mine:
            queues[address] = mine
        return job

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
        return self.workers - self._sharing

    def _next_light(self) -> _Job:
        """The next light job to run (called holding the lock; waits for one): of the
        first address in turn that holds less than its share of the workers."""
        while True:
            now = time.monotonic()
            share = self._shares.share(self._light_slots(), now)
            while self._light_running < self._light_slots():
                address = next((a for a in self._light if self._running_of[a] < share), None)
                if address is None:
                    break
                mine = self._light.pop(address)
                job = mine.popitem(last=False)[1]
                if mine:
                    self._light[address] = mine             # to the end: its turn
                if job.start_by >= now:
                    self._light_running += 1
                    self._running_of[address] += 1
                    job.started = True
                    return job
                self._expire(job)
            self._light_ready.wait(0.5)

    def _next_heavy(self, background: bool) -> _Job:
        """The next heavy job for a heavy thread (called holding the lock; waits for one).
        A background thread takes one at once: the kernel makes it yield to the cameras.
        A thread at normal priority takes one only into a free worker's slot while no
        light job waits, and holds that slot while it runs."""
        while True:
            now = time.monotonic()
            while self._heavy and (background or (
                    not self._light and self._light_running < self._light_slots())):
                job = self._take(self._heavy)
                if job.start_by >= now:
                    self._heavy_running += 1
                    job.started = True
                    job.shares_slot = not background
                    self._sharing += job.shares_slot
                    return job
                self._heavy_done(job)
                self._expire(job)
            self._heavy_ready.wait(0.5)

    def _expire(self, job: _Job) -> None:
        self.stats["expired"] += 1
        job.finish(error=Busy(
            "the server is busy with large images: this one could not start in time; retry "
            "in a moment" if job.heavy else self._full("it could not start in time")))

    def _work_light(self) -> None:
        while True:
            with self._lock:
                job = self._next_light()
            self._execute(job)

    def _work_heavy(self) -> None:
        background = priority.lower()
        with self._lock:
            self.heavy_background = background
        while True:
            with self._lock:
                job = self._next_heavy(background)
            self._execute(job)

    def _execute(self, job: _Job) -> None:
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
        with self._lock:
            self.stats["run"] += 1
            if job.heavy:
                self.stats["heavy"] += 1
                self._heavy_running -= 1
                self._sharing -= job.shares_slot
                self._heavy_done(job)
            else:
                self._light_running -= 1
                self._running_of[job.address] -= 1
                if self._running_of[job.address] <= 0:
                    del self._running_of[job.address]
                self._light_seconds = 0.8 * self._light_seconds + 0.2 * took
            self._light_ready.notify_all()
            self._heavy_ready.notify_all()
        job.finish(result, error)

    def snapshot(self) -> dict[str, Any]:
        """The queue as it stands (for /api/health and the tests)."""
        with self._lock:
            return {"workers": self.workers, "heavy_background": self.heavy_background,
                    "light_waiting": sum(len(q) for q in self._light.values()),
                    "heavy_waiting": sum(len(q) for q in self._heavy.values()),
                    "heavy_running": self._heavy_running,
                    "light_running": self._light_running, **self.stats}
