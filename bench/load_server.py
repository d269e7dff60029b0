"""Load on loopback: concurrent clients post camera frames to ``/api/detect`` and play
games through the JSON API against a ``hanafuda serve`` subprocess.

    .venv/bin/python -m bench.load_server [--seconds 60] [--detect-clients 4]
        [--game-clients 2] [--saturate-clients 16] [--saturate-seconds 10]
        [--model auto|fake|PATH] [--fake-delay 0.08] [--fake-cpu]

Phase 1 (``--seconds``): detect clients post 640x480 JPEG frames back to back (on a 503
they wait 50 ms, as the page does, then post the next frame) while game clients create
2-player games, save both piles, correct a card, confirm each round, read the game and
export it. Prints requests/s, p50/p99 latency per kind and the statuses.
Phase 2 (``--saturate-seconds``): many more detect clients than detection slots post
without pausing: the server must answer the excess with 503 (and Retry-After) quickly
rather than queue them; prints the 200 and 503 latencies.
The server's RSS is printed after start-up, after the first detection (model loaded),
after phase 1 and after phase 2. The detector is the shipped model when ``models/`` has
it (``--model auto``), else a fake one that takes ``--fake-delay`` seconds a frame
(asleep, or with ``--fake-cpu`` busy on a core as a model would be).
"""

from __future__ import annotations

import argparse
import http.client
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from support.servers import (Client, Server, free_port, percentile,
                            shipped_model)

DOWN = (OSError, http.client.HTTPException)


# --------------------------------------------------------------------------- frames
def frames(count: int = 8) -> list[bytes]:
    """640x480 JPEG frames of a table of cards (rendered from the card art when the
    training package is there; else plain synthetic frames)."""
    import cv2
    import numpy as np
    out: list[bytes] = []
    try:
        from scorer.cards import CODES
        from training.scenes import render_scene
        rng = np.random.default_rng(7)
        for i in range(count):
            codes = list(rng.choice(CODES, 12, replace=False))
            img, _ = render_scene(codes, seed=5_000 + i, easy=False)
            out.append(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes())
        return out
    except Exception:  # no training package or card art: synthetic frames
        out.clear()
    rng = np.random.default_rng(7)
    for _ in range(count):
        img = np.full((480, 640, 3), 90, np.uint8)
        for _ in range(12):
            x, y = int(rng.integers(0, 560)), int(rng.integers(0, 360))
            cv2.rectangle(img, (x, y), (x + 70, y + 110), tuple(int(c) for c in rng.integers(0, 255, 3)), -1)
        out.append(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes())
    return out


# --------------------------------------------------------------------------- results
@dataclass
class Samples:
    """Latencies (ms) per kind of request and status."""
    by_kind: dict = field(default_factory=lambda: defaultdict(list))   # kind -> [(status, ms)]
    errors: Counter = field(default_factory=Counter)
    retry_after_missing: int = 0
    rss: list = field(default_factory=list)          # server RSS (MiB) during the phase
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, status: int, ms: float) -> None:
        with self.lock:
            self.by_kind[kind].append((status, ms))

    def count(self) -> int:
        return sum(len(v) for v in self.by_kind.values())

    def statuses(self) -> Counter:
        c: Counter = Counter()
        for v in self.by_kind.values():
            c.update(s for s, _ in v)
        return c

    def latencies(self, kind: str, status: int | None = None) -> list[float]:
        return [ms for s, ms in self.by_kind.get(kind, []) if status is None or s == status]


@dataclass
class LoadReport:
    seconds: float = 0.0
    load: Samples = field(default_factory=Samples)
    saturation: Samples = field(default_factory=Samples)
    saturate_seconds: float = 0.0
    rss: dict = field(default_factory=dict)
    detector: str = ""
    slots: int = 2

    def server_errors(self) -> int:
        return sum(n for s, n in (self.load.statuses() + self.saturation.statuses()).items()
                   if s >= 500 and s != 503)

    def report(self, out: Callable[[str], None] = print) -> None:
        out(f"detector: {self.detector}; detection slots: {self.slots}")
        ld = self.load
        out(f"phase 1: {ld.count()} requests in {self.seconds:.1f} s = "
            f"{ld.count() / max(self.seconds, 1e-9):.1f} requests/s; statuses: "
            + ", ".join(f"{k}: {v}" for k, v in sorted(ld.statuses().items()))
            + (f"; connection errors: {dict(ld.errors)}" if ld.errors else ""))
        for kind in sorted(ld.by_kind):
            for status in sorted({s for s, _ in ld.by_kind[kind]}):
                v = ld.latencies(kind, status)
                out(f"  {kind:<8} {status}  n={len(v):<6} {len(v) / max(self.seconds, 1e-9):7.1f}/s"
                    f"  p50 {percentile(v, 50):8.1f} ms  p99 {percentile(v, 99):8.1f} ms")
        games = [ms for k in ld.by_kind if k != "detect" for ms in ld.latencies(k)]
        out(f"  game endpoints together: n={len(games)} p50 {percentile(games, 50):.1f} ms "
            f"p99 {percentile(games, 99):.1f} ms")
        sat = self.saturation
        if sat.count():
            ok, busy = sat.latencies("detect", 200), sat.latencies("detect", 503)
            out(f"phase 2 (saturation): {sat.count()} detect requests in "
                f"{self.saturate_seconds:.1f} s; 200: {len(ok)} (p50 {percentile(ok, 50):.1f} "
                f"ms, p99 {percentile(ok, 99):.1f} ms); 503: {len(busy)} (p50 "
                f"{percentile(busy, 50):.1f} ms, p99 {percentile(busy, 99):.1f} ms); "
                f"503 without Retry-After: {sat.retry_after_missing}"
                + (f"; connection errors: {dict(sat.errors)}" if sat.errors else ""))
        out("server RSS: " + ", ".join(f"{k} {v:.1f} MiB" for k, v in self.rss.items()))
        if ld.rss:
            out("server RSS during phase 1, every sixth: "
                + ", ".join(f"{v:.1f}" for v in ld.rss) + " MiB")
        out(f"500s: {self.server_errors()}")


# --------------------------------------------------------------------------- clients
def detect_client(port: int, data: list[bytes], stop: threading.Event, samples: Samples,
                  pause_on_busy: float) -> None:
    client = Client(port, timeout=60)
    i = 0
    while not stop.is_set():
        frame = data[i % len(data)]
        i += 1
        t0 = time.perf_counter()
        try:
            status, body, headers = client.call("POST", "/api/detect", raw=frame,
                                                content_type="image/jpeg")
        except DOWN as exc:
            with samples.lock:
                samples.errors[type(exc).__name__] += 1
            time.sleep(0.05)
            continue
        samples.add("detect", status, (time.perf_counter() - t0) * 1e3)
        if status == 503:
            if "Retry-After" not in headers:
                with samples.lock:
                    samples.retry_after_missing += 1
            if pause_on_busy:
                time.sleep(pause_on_busy)
    client.close()


def game_client(port: int, stop: threading.Event, samples: Samples, seed: int) -> None:
    import random

    from scorer.cards import CODES
    rng = random.Random(seed)
    client = Client(port, timeout=60)

    def call(kind: str, method: str, url: str, body: Any = None) -> tuple[int, Any]:
        t0 = time.perf_counter()
        status, data, _ = client.call(method, url, body)
        samples.add(kind, status, (time.perf_counter() - t0) * 1e3)
        return status, data

    try:
        while not stop.is_set():
            status, game = call("create", "POST", "/api/games", {"players": ["Ann", "Bob"]})
            if status != 201:
                time.sleep(0.1)
                continue
            gid = game["id"]
            for n in range(1, game["rounds_planned"] + 1):
                if stop.is_set():
                    break
                deck = list(CODES)
                rng.shuffle(deck)
                url = f"/api/games/{gid}/rounds/{n}"
                call("pile", "PUT", url + "/piles", {"owner": "Ann", "codes": deck[:12],
                                                     "detected": deck[1:13], "source": "camera"})
                call("pile", "PUT", url + "/piles", {"owner": "Bob", "codes": deck[20:32]})
                call("correct", "POST", url + "/corrections",
                     {"owner": "Bob", "action": "replace", "old_code": deck[20],
                      "new_code": deck[40]})
                call("confirm", "POST", url + "/confirm", {})
                call("read", "GET", f"/api/games/{gid}")
            call("export", "GET", f"/api/games/{gid}/export.csv")
            call("list", "GET", "/api/games")
    except DOWN as exc:
        with samples.lock:
            samples.errors[type(exc).__name__] += 1
    finally:
        client.close()


def run_phase(port: int, seconds: float, detect_clients: int, game_clients: int,
              data: list[bytes], pause_on_busy: float,
              rss: Callable[[], float] | None = None) -> tuple[Samples, float]:
    """Run the clients for ``seconds``; with ``rss``, sample the server's memory at each
    sixth of the phase (into ``samples.rss``)."""
    samples = Samples()
    stop = threading.Event()
    threads = [threading.Thread(target=detect_client, args=(port, data, stop, samples,
                                                           pause_on_busy), daemon=True)
               for _ in range(detect_clients)]
    threads += [threading.Thread(target=game_client, args=(port, stop, samples, i), daemon=True)
                for i in range(game_clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for _ in range(6 if rss else 1):
        time.sleep(seconds / (6 if rss else 1))
        if rss:
            samples.rss.append(rss())
    stop.set()
    for t in threads:
        t.join(120)
    return samples, time.perf_counter() - t0


# --------------------------------------------------------------------------- servers
def start_server(tmp: Path, model: str, fake_delay: float,
                 fake_cpu: bool = False) -> tuple[Server, str]:
    """``hanafuda serve`` on the model, or the same app and waitress settings with a
    fake detector (``--serve-fake``) when there is no model."""
    path = shipped_model() if model == "auto" else (None if model == "fake" else Path(model))
    db, log = tmp / "games.db", tmp / "server.log"
    if path is not None:
        return Server.hanafuda(db, log, "--model", str(path)), f"model {path}"
    port = free_port()
    argv = [sys.executable, "-m", "bench.load_server", "--serve-fake", "--port", str(port),
            "--db", str(db), "--fake-delay", str(fake_delay)] + (["--fake-cpu"] if fake_cpu else [])
    return Server(argv, port, log), (f"fake detector ({fake_delay * 1e3:.0f} ms a frame, "
                                     f"{'busy on the CPU' if fake_cpu else 'asleep'})")


def serve_fake(port: int, db: Path, delay: float, cpu: bool) -> None:
    from waitress import serve

    from support.servers import FAKE_PILE, FakeDetector
    from webui import create_app
    app = create_app({"DB_PATH": db, "DETECTOR": FakeDetector(FAKE_PILE, delay=delay, cpu=cpu)})
    print(f"Open http://127.0.0.1:{port}/", flush=True)
    serve(app, host="127.0.0.1", port=port, threads=4, ident="hanafuda-scorer",
          clear_untrusted_proxy_headers=True)


def run_load(seconds: float = 60, detect_clients: int = 4, game_clients: int = 2,
             saturate_clients: int = 16, saturate_seconds: float = 10, model: str = "auto",
             fake_delay: float = 0.08, fake_cpu: bool = False,
             out: Callable[[str], None] = print) -> LoadReport:
    report = LoadReport()
    data = frames()
    with tempfile.TemporaryDirectory() as t:
        server, report.detector = start_server(Path(t), model, fake_delay, fake_cpu)
        try:
            server.wait_ready(timeout=120)
            report.rss["after start"] = server.rss_mib()
            warm = Client(server.port, timeout=120)
            status, body, _ = warm.call("POST", "/api/detect", raw=data[0], content_type="image/jpeg")
            warm.close()
            if status != 200:
                raise RuntimeError(f"first detection failed: {status} {body}")
            report.rss["after first detection"] = server.rss_mib()
            out(f"phase 1: {detect_clients} detect clients, {game_clients} game clients, "
                f"{seconds:.0f} s")
            report.load, report.seconds = run_phase(server.port, seconds, detect_clients,
                                                    game_clients, data, pause_on_busy=0.05,
                                                    rss=server.rss_mib)
            report.rss["after phase 1"] = server.rss_mib()
            if saturate_clients and saturate_seconds:
                out(f"phase 2: {saturate_clients} detect clients without pause, "
                    f"{saturate_seconds:.0f} s")
                report.saturation, report.saturate_seconds = run_phase(
                    server.port, saturate_seconds, saturate_clients, 0, data, pause_on_busy=0)
                report.rss["after phase 2"] = server.rss_mib()
        finally:
            server.stop()
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--detect-clients", type=int, default=4)
    p.add_argument("--game-clients", type=int, default=2)
    p.add_argument("--saturate-clients", type=int, default=16)
    p.add_argument("--saturate-seconds", type=float, default=10)
    p.add_argument("--model", default="auto")
    p.add_argument("--fake-delay", type=float, default=0.08)
    p.add_argument("--fake-cpu", action="store_true",
                   help="the fake detector keeps a core busy instead of sleeping")
    p.add_argument("--serve-fake", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--db", type=Path, default=None, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.serve_fake:
        serve_fake(a.port, a.db, a.fake_delay, a.fake_cpu)
        return 0
    report = run_load(a.seconds, a.detect_clients, a.game_clients, a.saturate_clients,
                      a.saturate_seconds, a.model, a.fake_delay, a.fake_cpu)
    report.report()
    return 0 if report.server_errors() == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
