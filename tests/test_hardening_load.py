"""Hardening, load: bench/load_server.py for a few seconds against a `hanafuda serve`-like
subprocess with a slow fake detector, and a deterministic check that a saturated
detector answers 503 at once instead of queueing the frame."""

from __future__ import annotations

import threading
from pathlib import Path

from support.servers import Client, FakeDetector
from bench.load_server import frames, run_load


def test_load_no_errors_and_503_when_saturated() -> None:
    report = run_load(seconds=3, detect_clients=3, game_clients=1, saturate_clients=8,
                      saturate_seconds=2, model="fake", fake_delay=0.1, out=lambda _: None)
    load, sat = report.load, report.saturation
    assert report.server_errors() == 0
    assert not load.errors and not sat.errors
    assert set(load.latencies("detect", 200)) and load.count() > 0
    assert {s for s, _ in load.by_kind["detect"]} <= {200, 503}
    for kind in set(load.by_kind) - {"detect"}:                    # game endpoints
        assert {s for s, _ in load.by_kind[kind]} <= {200, 201}, kind
    assert {s for s, _ in sat.by_kind["detect"]} <= {200, 503}
    assert sat.latencies("detect", 503), "8 clients on 2 detection slots never saw a 503"
    assert sat.retry_after_missing == 0
    assert all(v == v for v in report.rss.values())                # RSS was readable


class GatedDetector(FakeDetector):
    """Holds every detection until the gate opens."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.inside = threading.Semaphore(0)

    def detect(self, image, decode_ms: float = 0.0):
        self.inside.release()
        self.gate.wait(30)
        return super().detect(image, decode_ms)


def test_saturated_detection_answers_503_without_queueing(tmp_path: Path) -> None:
    from waitress.server import create_server

    from webui import create_app
    det = GatedDetector()
    app = create_app({"DB_PATH": tmp_path / "g.db", "DETECTOR": det, "DETECT_CONCURRENCY": 2})
    server = create_server(app, host="127.0.0.1", port=0, threads=4)
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
        # both slots are held and the gate is shut: more frames must be refused now,
        # not queued behind the gate (a queued request would wait 30 s and get a 200)
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
