"""Heavy image work yields the CPU to the cameras (issue 30): heavy jobs run on threads of
their own at background priority, never on a camera's worker or a request's thread, and
where a thread cannot be lowered they share the workers' slots as before."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from webui.images import priority
from webui.images.scheduler import Scheduler

linux = pytest.mark.skipif(not sys.platform.startswith("linux"),
                           reason="a thread's own priority is Linux's")
HEAVY = 10_000_000          # pixels: over the heavy class


def _this_thread() -> tuple[int, int]:
    """The calling thread's scheduling policy and nice value, read from the kernel."""
    return os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def _can_lower() -> bool:
    """Whether a thread of this process can yield to the others (a process already at
    nice 19 still can, by SCHED_IDLE, unless a sandbox refuses it)."""
    out: list[bool] = []
    probe = threading.Thread(target=lambda: out.append(priority.lower()))
    probe.start()
    probe.join(10)
    return out == [True]


def _yields(low: tuple[int, int], normal: tuple[int, int]) -> bool:
    """``low`` gives way to ``normal`` under the kernel's scheduler."""
    idle = getattr(os, "SCHED_IDLE", None)
    return (low[0] == idle != normal[0]) or (low[0] == normal[0] and low[1] > normal[1])


@linux
def test_heavy_jobs_run_below_the_cameras_and_leave_the_request_thread_as_it_was() -> None:
    if not _can_lower():
        pytest.skip("this process cannot lower a thread's priority")
    sched = Scheduler(workers=2)
    request = _this_thread()
    light = sched.run(("cam", 1), 1, _this_thread)
    heavy = sched.run(("big", 1), HEAVY, _this_thread)
    assert light == request                         # a camera's frame: the process's own
    assert _yields(heavy, light)                    # a heavy one: below it
    assert heavy[1] == priority.NICE
    assert _this_thread() == request                # the request thread was never lowered
    assert sched.run(("cam", 1), 1, _this_thread) == light      # nor a camera's worker
    assert sched.snapshot()["heavy_background"] is True


@linux
def test_a_running_heavy_job_leaves_every_worker_to_the_cameras() -> None:
    """One worker, a heavy job held on it: a camera's frame still runs at once (before,
    the heavy job held the only worker and the frame waited for it)."""
    if not _can_lower():
        pytest.skip("this process cannot lower a thread's priority")
    sched = Scheduler(workers=1, deadline=30)
    gate, inside = threading.Event(), threading.Event()
    heavy = threading.Thread(target=sched.run,
                             args=(("big", 1), HEAVY, lambda: inside.set() or gate.wait(30)))
    heavy.start()
    try:
        assert inside.wait(30)
        assert sched.run(("cam", 1), 1, lambda: "frame") == "frame"
        assert sched.snapshot()["heavy_running"] == 1
    finally:
        gate.set()
        heavy.join(30)


def test_without_a_thread_priority_heavy_jobs_share_the_workers(monkeypatch) -> None:
    """Where a thread cannot be lowered (not Linux), a heavy job takes a worker's slot:
    with one worker, a camera's frame waits for it, and runs once it is done."""
    monkeypatch.setattr(priority, "lower", lambda: False)
    sched = Scheduler(workers=1, deadline=30)
    gate, inside, framed = threading.Event(), threading.Event(), threading.Event()
    heavy = threading.Thread(target=sched.run,
                             args=(("big", 1), HEAVY, lambda: inside.set() or gate.wait(30)))
    heavy.start()
    assert inside.wait(30)
    camera = threading.Thread(target=sched.run, args=(("cam", 1), 1, framed.set))
    camera.start()
    try:
        while sched.snapshot()["light_waiting"] == 0:
            gate.wait(0.01)
        assert not framed.is_set()                  # the one slot is the heavy job's
        assert sched.snapshot()["heavy_background"] is False
    finally:
        gate.set()
        heavy.join(30)
    camera.join(30)
    assert framed.is_set()


def test_off_linux_nothing_is_lowered(monkeypatch) -> None:
    """PRIO_PROCESS names the whole process off Linux: lowering would slow the cameras."""
    monkeypatch.setattr(priority.sys, "platform", "darwin")
    assert priority.lower() is False and priority.current() is None


def test_opencv_work_stays_on_the_jobs_thread(tmp_path) -> None:
    """OpenCV's own pool would run a heavy job's work at the cameras' priority (and, first
    started by a heavy thread, the cameras' at background priority)."""
    import cv2

    from webui.images.detection import DetectionService
    DetectionService()
    assert cv2.getNumThreads() == 1


@linux
def test_a_heavy_jobs_detection_waits_for_a_worker_never_beside_them(tmp_path) -> None:
    """Issue 49: a heavy job's inference (``on_worker``) runs on one of the workers, in
    its address's turn: with both workers held by cameras' frames it waits, queued as a
    light job, and runs once one is free; so never more than ``workers`` inferences hold
    onnxruntime's buffers at once. Called from anywhere else it runs where it is."""
    if not _can_lower():
        pytest.skip("this process's threads cannot be lowered here")
    import time

    from web_helpers import make_app
    sched = Scheduler(workers=2, heavy_budget=10**9)
    gate = threading.Event()
    cameras = [threading.Thread(target=sched.run, args=((f"10.0.0.{i}", 1), 1, gate.wait))
               for i in (1, 2)]
    for t in cameras:
        t.start()
    while sched.snapshot()["light_running"] < 2:
        time.sleep(0.01)
    ran: list[str] = []

    def inference() -> str:
        ran.append(threading.current_thread().name)
        return "read"

    out: list = []
    upload = threading.Thread(target=lambda: out.append(
        sched.run(("10.0.0.3", 1), HEAVY, lambda: sched.on_worker(inference))))
    upload.start()
    while sched.snapshot()["light_waiting"] < 1:        # the inference waits its turn
        time.sleep(0.01)
    assert ran == [] and sched.snapshot()["heavy_running"] == 1
    gate.set()
    upload.join(30)
    for t in cameras:
        t.join(30)
    assert out == ["read"] and ran[0].startswith("image-worker")
    assert sched.on_worker(lambda: threading.current_thread().name) \
        == threading.current_thread().name                  # not from a heavy job: here
    service = make_app(tmp_path).extensions["hanafuda"]["detection"]
    assert service.images(("a", 1)).detector() is service.images(("b", 2)).detector()
    from webui.images.detection import OnWorkers

    class Nets:                                             # an enrolment's calls
        crop_w = 96

        def classify(self, crops: list) -> str:
            return threading.current_thread().name

    nets = OnWorkers(Nets(), sched)
    assert sched.run(("10.0.0.4", 1), HEAVY, lambda: nets.classify([])).startswith(
        "image-worker") and nets.crop_w == 96


def test_a_heavy_job_gives_what_it_freed_back(monkeypatch) -> None:
    """Issue 49: after each heavy job (never a camera's frame) the heavy thread hands the
    free memory of malloc's arenas back to the system (``webui.images.memory``)."""
    from webui.images import memory
    trims: list[str] = []
    monkeypatch.setattr(memory, "trim", lambda: trims.append(threading.current_thread().name))
    sched = Scheduler(workers=2, heavy_budget=10**9)
    assert sched.run(("10.0.0.1", 1), 1, lambda: "frame") == "frame"
    assert trims == []
    assert sched.run(("10.0.0.1", 2), HEAVY, lambda: "photo") == "photo"
    assert len(trims) == 1 and trims[0].startswith("image-heavy")
    monkeypatch.undo()
    assert memory.trim() is sys.platform.startswith("linux") or not memory.trim()
