"""The request threads of ``hanafuda serve``, shared fairly per client address.

waitress hands a connection's complete request (headers and body already read, so a
slow sender never holds a thread) to its thread pool first come, first served: one
client with 40 connections gets 40 turns for every one of a camera beside it. Here the
pool takes turns by **client address** instead:

* The next free thread goes to the address with the fewest requests running (the one
  longest without a turn among equals); within an address its connections are served in
  the order they asked, so cameras behind one address share its turns evenly. An address
  alone gets every thread (8 cameras in 8 tabs of one laptop still get the machine).
* A request **without the access token** (``admits`` says so; it can only be refused)
  waits behind every one that has it, and at most ``guest_threads`` of them run at once:
  strangers on the Wi-Fi can never hold the threads the cameras need.
* One address runs at most ``threads - reserve`` requests at once (``reserve``: a
  quarter of the threads), so another address always finds a thread free at once: a
  greedy host's 40 connections wait here, in its own queue, not in the cameras' way.
* A connection whose request has the token is ``proven`` (``webui.net.connections``): it is
  never closed to make room for a stranger's socket.
"""

from __future__ import annotations

import logging
from collections import Counter, OrderedDict, deque
from typing import Any, Callable

from waitress.task import ThreadedTaskDispatcher

log = logging.getLogger("waitress")


def address(task: Any) -> str:
    """The client address of a waitress task (a channel): its peer's IP."""
    addr = getattr(task, "addr", None)
    return str(addr[0]) if isinstance(addr, tuple) and addr else "?"


class FairDispatcher(ThreadedTaskDispatcher):
    """waitress's thread pool with turns per client address (see the module)."""

    def __init__(self, admits: Callable[[Any], bool] | None = None,
                 guest_threads: int = 2,
                 proven: Callable[[Any], None] | None = None) -> None:
        super().__init__()
        self.admits = admits or (lambda task: True)
        self.proven = proven
        self.guest_threads = max(1, int(guest_threads))
        self.per_address = 1                        # set with the thread count
        self._waiting: OrderedDict[str, deque[Any]] = OrderedDict()   # with the token
        self._guests: OrderedDict[str, deque[Any]] = OrderedDict()    # without
        self._running: Counter[str] = Counter()
        self._guests_running = 0
        self.served: Counter[str] = Counter()       # requests begun per address (tests)

    def add_task(self, task: Any) -> None:
        try:
            guest = not self.admits(task)
        except Exception:   # a request that cannot be read for a token is a guest's
            guest = True
        if not guest and self.proven is not None:
            self.proven(task)
        with self.lock:
            queues = self._guests if guest else self._waiting
            queues.setdefault(address(task), deque()).append((task, guest))
            self.queue_cv.notify()

    def _pop(self) -> tuple[Any, str, bool] | None:
        """The next task (called holding the lock): with the token first, the address
        with the fewest running; then a guest's, within the guests' threads."""
        for queues, open_ in ((self._waiting, True),
                              (self._guests, self._guests_running < self.guest_threads)):
            if not queues or not open_:
                continue
            who = min(queues, key=lambda a: self._running[a])    # the first among ties
            if open_ and queues is self._waiting and self._running[who] >= self.per_address:
                continue                    # every waiting address holds its share
            waiting = queues.pop(who)
            task, guest = waiting.popleft()
            if waiting:
                queues[who] = waiting                            # to the end: its turn
            return task, who, guest
        return None

    def set_thread_count(self, count: int) -> None:
        with self.lock:
            self.per_address = max(1, count - max(1, count // 4))
        super().set_thread_count(count)

    def handler_thread(self, thread_no: int) -> None:
        while True:
            with self.lock:
                while True:
                    if self.stop_count > 0:
                        self.active_count -= 1
                        self.stop_count -= 1
                        self.threads.discard(thread_no)
                        self.thread_exit_cv.notify()
                        return
                    item = self._pop()
                    if item is not None:
                        break
                    self.active_count -= 1
                    self.queue_cv.wait()
                    self.active_count += 1
                task, who, guest = item
                self._running[who] += 1
                self._guests_running += guest
                self.served[who] += 1
            try:
                task.service()
            except BaseException:
                log.exception("Exception when servicing %r", task)
            finally:
                with self.lock:
                    self._running[who] -= 1
                    if self._running[who] <= 0:
                        del self._running[who]
                    self._guests_running -= guest
                    self.queue_cv.notify()          # a guest's thread may be free now

    def shutdown(self, cancel_pending: bool = True, timeout: int = 5) -> bool:
        with self.lock:
            for queues in (self._waiting, self._guests):
                for waiting in queues.values():
                    self.queue.extend(task for task, _ in waiting)
                queues.clear()
        return bool(super().shutdown(cancel_pending, timeout))

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {"running": dict(self._running),
                    "waiting": {a: len(q) for a, q in self._waiting.items()},
                    "guests_waiting": sum(len(q) for q in self._guests.values())}
