"""Hardening, load: bench/load_server.py for a few seconds against a `hanafuda serve`-like
subprocess with a slow fake detector, and a deterministic check that frames wait their
turn and only a frame that cannot start by its deadline gets 503."""

from __future__ import annotations

import threading
from pathlib import Path

from support.servers import Client, FakeDetector
from bench.load_server import frames, run_load


def test_load_no_errors_and_no_503_while_the_turns_fit_the_deadline() -> None:
    report = run_load(seconds=3, detect_clients=3, game_clients=1, saturate_clients=8,
                      saturate_seconds=2, model="fake", fake_delay=0.1, out=lambda _: None)
    load, sat = report.load, report.saturation
    assert report.server_errors() == 0
    assert not load.errors and not sat.errors
    assert set(load.latencies("detect", 200)) and load.count() > 0
    assert {s for s, _ in load.by_kind["detect"]} <= {200, 503}
    for kind in set(load.by_kind) - {"detect"}:                    # game endpoints
        assert {s for s, _ in load.by_kind[kind]} <= {200, 201}, kind
    # 8 clients posting back to back on one worker a core: each waits its turn, and a
    # turn (8 frames of 0.1 s over the workers) fits the 1 s deadline: no frame refused
    assert {s for s, _ in sat.by_kind["detect"]} == {200}
    assert sat.retry_after_missing == 0
    assert all(v == v for v in report.rss.values())                # RSS was readable


class GatedDetector(FakeDetector):
    """Holds every detection until the gate opens."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.inside = threading.Semaphore(0)

    def detect(self, image, **kw):
        self.inside.release()
        self.gate.wait(30)
        return super().detect(image, **kw)


def test_frames_past_their_deadline_answer_503_and_never_run(tmp_path: Path) -> None:
    from webui import create_app
    from webui.net.server import make_server
    det = GatedDetector()
    app = create_app({"DB_PATH": tmp_path / "g.db", "DETECTOR": det, "DETECT_WORKERS": 2,
                      "DETECT_DEADLINE": 0.3})
    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    port = server.effective_port
    frame = frames(1)[0]
    held: list = []
    try:
        def post() -> None:
            held.append(Client(port, timeout=60).call("POST", "/api/detect", raw=frame,
                                                      content_type="image/jpeg")[0])
        holders = [threading.Thread(target=post) for _ in range(2)]
        for t in holders:
            t.start()
        assert det.inside.acquire(timeout=30) and det.inside.acquire(timeout=30)
        # both workers are held and the gate is shut: a frame waits its deadline, then is
        # refused (a frame kept queued behind the gate would wait 30 s and get a 200)
        client = Client(port, timeout=60)
        for _ in range(5):
            status, body, headers = client.call("POST", "/api/detect", raw=frame,
                                                content_type="image/jpeg")
            assert status == 503 and "busy" in body["error"] and headers["Retry-After"]
        assert not det.gate.is_set()
        status, _, _ = client.call("GET", "/api/games")            # the rest still answers
        assert status == 200
        det.gate.set()
        for t in holders:
            t.join(30)
        assert held == [200, 200]
        assert client.call("POST", "/api/detect", raw=frame, content_type="image/jpeg")[0] == 200
        assert det.calls == 3                  # the refused frames never reached the model
    finally:
        det.gate.set()
        server.close()
