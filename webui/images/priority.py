"""Background priority for one thread: the scheduler's heavy-job threads
(``webui.images.scheduler``) run at it, so the kernel gives a core to a camera's frame the moment
one wakes, and a heavy decode gets the CPU that the cameras leave free.

Sharing the workers' slots is not enough on a small machine: on two cores a 40 MP
progressive JPEG decodes in about 265 ms of one core while the cameras' frames (decode and
inference) want both, so every frame under it waits. Only the kernel can preempt a
decode in the middle of libjpeg, and it does so by the threads' priorities.

* **Linux**: a thread is a task with a nice value and a policy of its own. The thread is
  set to nice 19 and to ``SCHED_IDLE`` (where allowed): it runs on the CPU no other thread
  wants, a waking camera thread preempts it at once, and the kernel places a waking
  thread on a core that runs only such work as on an idle one.
* **Irreversible by design**: an unprivileged process may raise a thread's nice value but
  not lower it back (RLIMIT_NICE is 0 by default), nor leave ``SCHED_IDLE``. So only a
  thread that does nothing but background work is lowered, for its whole life, never a
  request thread or a camera's worker.
* **Elsewhere** (macOS, the BSDs, Windows) ``PRIO_PROCESS`` names the whole process, so
  lowering "this thread" would slow the cameras too: nothing is changed, ``lower`` answers
  False, and the scheduler falls back to giving heavy jobs a share of the workers' slots.
"""

from __future__ import annotations

import os
import sys
import threading

NICE = 19   # the lowest priority a nice value gives


def per_thread() -> bool:
    """Whether a thread's priority is its own here (Linux), not the process's."""
    return sys.platform.startswith("linux") and hasattr(os, "setpriority")


def current() -> tuple[int, int] | None:
    """The calling thread's (scheduling policy, nice value); None where threads have no
    priority of their own."""
    if not per_thread():
        return None
    tid = threading.get_native_id()
    return os.sched_getscheduler(tid), os.getpriority(os.PRIO_PROCESS, tid)


def lower() -> bool:
    """Put the calling thread at background priority for good (see the module). True when
    it now yields to the process's other threads: ``SCHED_IDLE`` was set, or its nice value
    rose (a process already at nice 19 without ``SCHED_IDLE`` cannot go lower: False)."""
    if not per_thread():
        return False
    tid = threading.get_native_id()
    try:
        before = os.getpriority(os.PRIO_PROCESS, tid)
        if before < NICE:
            os.setpriority(os.PRIO_PROCESS, tid, NICE)
    except OSError:
        return False
    idle = False
    policy = getattr(os, "SCHED_IDLE", None)
    if policy is not None:
        try:
            os.sched_setscheduler(tid, policy, os.sched_param(0))
            idle = True
        except OSError:             # a sandbox may refuse it: the nice value still holds
            pass
    return idle or os.getpriority(os.PRIO_PROCESS, tid) > before
