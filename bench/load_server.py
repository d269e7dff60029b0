"""Load on loopback: concurrent clients post camera frames to ``/api/detect`` and play
games through the JSON API against a ``hanafuda serve`` subprocess.

    .venv/bin/python -m bench.load_server [--seconds 60] [--detect-clients 4]
        [--game-clients 2] [--saturate-clients 16] [--saturate-seconds 10]
        [--model auto|fake|PATH] [--fake-delay 0.08] [--fake-cpu]

    .venv/bin/python -m bench.load_server --club 8 --fps 4 --seconds 30 [--bombs 2]
        [--target-port PORT] [--follow [N]]

Club night (``--club N``): N cameras post 960x540 JPEG frames (q0.85, as the page does)
at ``--fps`` each, at random phases, each waiting for its answer as camera.js does;
``--bombs K`` adds K clients posting a 117 kB PNG that decodes to 12000x3333 back to
back. Prints per client the 503s, p50/p99 of the answered frames and the answered fps,
then the slowest and fastest camera (a fair share: close together) and the load average
(the machine may be shared: read the figures with it).
``--follow N`` (issue 51): each camera films one pile as the page does: ``?crops=1&weak=1``,
the answers tracked (``scorer.tracking``), the localiser on every Nth frame only
(``Follower``; N=1: on every frame; ``--follow`` alone: the page's ``FOLLOW_EVERY``) and
the tracks' outlines sent to follow on the others.

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
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from scorer.tracking import FOLLOW_EVERY
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
        from training.data.scenes import render_scene
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


def club_frames(count: int = 8, width: int = 960, height: int = 540,
                quality: int = 85) -> list[bytes]:
    """Frames as the page posts them: ``width`` x ``height`` JPEGs at ``quality`` (the
    page's 960 px, 0.85), of piles rendered from the card art (else ``frames``' plain
    ones, resized)."""
    import cv2
    import numpy as np
    out: list[bytes] = []
    try:
        from scorer.cards import CODES
        from training.data.scenes import render_scene
        rng = np.random.default_rng(11)
        for i in range(count):
            codes = list(rng.choice(CODES, 14, replace=False))
            img, _ = render_scene(codes, seed=7_000 + i, easy=False, width=width, height=height)
            out.append(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes())
        return out
    except Exception:  # no training package or card art
        pass
    for data in frames(count):
        img = cv2.resize(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR),
                         (width, height))
        out.append(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes())
    return out


def png_bomb(width: int = 12_000, height: int = 3_333) -> bytes:
    """A small PNG (about 120 kB) that decodes to ``width`` x ``height`` (40 megapixels:
    inside the caps)."""
    import cv2
    import numpy as np
    return cv2.imencode(".png", np.zeros((height, width, 3), np.uint8),
                        [cv2.IMWRITE_PNG_COMPRESSION, 9])[1].tobytes()


# --------------------------------------------------------------------------- club night
@dataclass
class CameraLog:
    """One camera client's frames: the status and latency (ms) of each."""
    name: str
    sent: list = field(default_factory=list)         # (status, ms)
    errors: int = 0
    followed: int = 0                                # frames answered without the localiser

    def line(self, seconds: float) -> str:
        ok = [ms for s, ms in self.sent if s == 200]
        busy = sum(1 for s, _ in self.sent if s == 503)
        other = Counter(s for s, _ in self.sent if s not in (200, 503))
        return (f"  {self.name:<9} sent {len(self.sent):4d}  200 {len(ok):4d}  503 {busy:4d}"
                f" ({100 * busy / max(len(self.sent), 1):4.1f}%)"
                + (f"  other {dict(other)}" if other else "")
                + (f"  conn errors {self.errors}" if self.errors else "")
                + f"  p50 {percentile(ok, 50):6.1f} ms  p99 {percentile(ok, 99):6.1f} ms"
                f"  answered {len(ok) / max(seconds, 1e-9):4.2f} fps"
                + (f"  followed {self.followed}" if self.followed else ""))


def camera_client(port: int, data: list[bytes], stop: threading.Event, log: CameraLog,
                  fps: float, phase: float, headers: dict | None = None,
                  tls: Any = None, follow: int = 0) -> None:
    """Posts as camera.js does: a frame, its answer awaited, then the rest of the
    1/``fps`` interval; starting ``phase`` seconds in (over HTTPS with ``tls``). With
    ``follow`` N: the page's capture of one pile (``data[0]``): weak readings asked for,
    the answers tracked, the localiser on every Nth frame and the tracks followed on the
    others (``scorer.tracking.Follower``)."""
    from urllib.parse import quote

    from scorer.tracking import Follower, StabilityTracker
    client = Client(port, timeout=60, headers=headers, tls=tls)
    interval = 1.0 / fps
    tracker, follower = StabilityTracker(), Follower(max(follow, 1))
    if stop.wait(phase):
        return
    i = 0
    while not stop.is_set():
        t0 = time.perf_counter()
        url, plan = "/api/detect?crops=1", None
        if follow:
            plan = follower.plan(tracker)
            url += "&weak=1" + ("" if plan is None else "&follow=" + quote(
                json.dumps(Follower.boxes(plan), separators=(",", ":"))))
        try:
            status, body, _ = client.call("POST", url, raw=data[0 if follow else i % len(data)],
                                          content_type="image/jpeg")
            log.sent.append((status, (time.perf_counter() - t0) * 1e3))
            if follow and status == 200:
                tracker.push(body["cards"])
                follower.answered(plan)
                log.followed += plan is not None
        except DOWN:
            log.errors += 1
        i += 1
        stop.wait(max(0.0, interval - (time.perf_counter() - t0)))
    client.close()


def bomb_client(port: int, bomb: bytes, stop: threading.Event, log: CameraLog,
                headers: dict | None = None) -> None:
    """Posts the PNG bomb to /api/detect back to back (on a 503, after its Retry-After
    would be polite: it does not wait)."""
    client = Client(port, timeout=120, headers=headers)
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            status, _, _ = client.call("POST", "/api/detect", raw=bomb, content_type="image/png")
            log.sent.append((status, (time.perf_counter() - t0) * 1e3))
        except DOWN:
            log.errors += 1
            time.sleep(0.05)
    client.close()


def run_for(threads: list[threading.Thread], stop: threading.Event, seconds: float,
            join: float = 120) -> float:
    """Start ``threads``, let them run ``seconds``, then set ``stop`` and join them;
    returns the seconds it all took."""
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(join)
    return time.perf_counter() - t0


def club_night(port: int, clients: int = 8, fps: float = 4.0, seconds: float = 30.0,
               bombs: int = 0, seed: int = 1, headers: dict | None = None,
               out: Callable[[str], None] = print, follow: int = 0) -> list[CameraLog]:
    """``clients`` cameras at ``fps`` at random phases, and ``bombs`` clients posting PNG
    bombs, for ``seconds`` against the server on ``port``; prints per client its 503s,
    p50/p99 and answered fps. ``follow`` N: each camera films one pile as the page does,
    the localiser on every Nth frame (``camera_client``)."""
    import random
    rng = random.Random(seed)
    data = club_frames()
    bomb = png_bomb() if bombs else b""
    stop = threading.Event()
    cams = [CameraLog(f"camera {i + 1}") for i in range(clients)]
    evil = [CameraLog(f"bomb {i + 1}") for i in range(bombs)]
    threads = [threading.Thread(target=camera_client, daemon=True,
                                args=(port, data[k % len(data):] + data[:k % len(data)], stop,
                                      log, fps, rng.random() / fps, headers, None, follow))
               for k, log in enumerate(cams)]
    threads += [threading.Thread(target=bomb_client, args=(port, bomb, stop, log, headers),
                                 daemon=True) for log in evil]
    out(f"club night: {clients} cameras at {fps:g} fps (960x540 JPEG q85, "
        f"{sum(map(len, data)) // len(data) // 1000} kB a frame, random phases)"
        + (f", {bombs} clients posting a {len(bomb) // 1000} kB PNG of 12000x3333" if bombs
           else "") + f", {seconds:g} s"
        + (f"; each camera one pile as the page films it, the localiser on every "
           f"{follow} frame(s), the tracks followed between" if follow else ""))
    took = run_for(threads, stop, seconds)
    for log in cams + evil:
        out(log.line(took))
    sent = [s for log in cams for s, _ in log.sent]
    ok = [ms for log in cams for s, ms in log.sent if s == 200]
    rates = [sum(1 for s, _ in c.sent if s == 200) / took for c in cams]
    five = sum(1 for s in sent if s >= 500)
    out(f"  cameras together: {len(sent)} frames, 5xx {five} ({100 * five / max(len(sent), 1):.1f}%), "
        f"answered {100 * len(ok) / max(len(sent), 1):.1f}%, p50 {percentile(ok, 50):.1f} ms, "
        f"p99 {percentile(ok, 99):.1f} ms, slowest camera {min(rates, default=0):.2f} fps, "
        f"fastest {max(rates, default=0):.2f} fps"
        + (f", {100 * sum(c.followed for c in cams) / max(len(ok), 1):.0f}% of the answered "
           f"frames followed" if follow else "") + "; load average "
        + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return cams + evil


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
                                                     "detected": deck[1:13], "source": "camera",
                                                     "version": 0})
                _, saved = call("pile", "PUT", url + "/piles", {"owner": "Bob", "codes": deck[20:32],
                                                                "version": 0})
                call("correct", "POST", url + "/corrections",
                     {"owner": "Bob", "action": "replace", "old_code": deck[20],
                      "new_code": deck[40],
                      "version": (saved or {}).get("pile", {}).get("version", 1)})
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
                 fake_cpu: bool = False, token: str | None = None,
                 https: bool = False) -> tuple[Server, str]:
    """``hanafuda serve`` on the model, or the same app and waitress settings with a
    fake detector (``--serve-fake``) when there is no model; ``token``: the access token
    it requires (on loopback too); ``https``: on every address (``--host 0.0.0.0``), so
    HTTPS with its own certificate, as for phones (the model only)."""
    path = shipped_model() if model == "auto" else (None if model == "fake" else Path(model))
    db, log = tmp / "games.db", tmp / "server.log"
    need = ["--token", token] if token else []
    if https:
        need += ["--host", "0.0.0.0", "--tls-dir", str(tmp / "tls")]
    if path is not None:
        return Server.hanafuda(db, log, "--model", str(path), *need), f"model {path}"
    if https:
        raise SystemExit("--https needs the model (hanafuda serve)")
    port = free_port()
    argv = [sys.executable, "-m", "bench.load_server", "--serve-fake", "--port", str(port),
            "--db", str(db), "--fake-delay", str(fake_delay), *need] \
        + (["--fake-cpu"] if fake_cpu else [])
    return Server(argv, port, log), (f"fake detector ({fake_delay * 1e3:.0f} ms a frame, "
                                     f"{'busy on the CPU' if fake_cpu else 'asleep'})")


def serve_fake(port: int, db: Path, delay: float, cpu: bool, token: str | None = None) -> None:
    from support.servers import FAKE_PILE, FakeDetector
    from webui import create_app
    from webui.net.server import make_server
    app = create_app({"DB_PATH": db, "DETECTOR": FakeDetector(FAKE_PILE, delay=delay, cpu=cpu),
                      "ACCESS_TOKEN": token})
    server = make_server(app, "127.0.0.1", port)         # hanafuda serve's settings
    print(f"Open http://127.0.0.1:{port}/", flush=True)
    server.run()


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


def run_club(a: argparse.Namespace) -> int:
    """Club night against ``--target-port``, or a ``hanafuda serve`` started for it."""
    if a.target_port:
        logs = club_night(a.target_port, a.club, a.fps, a.seconds, a.bombs, follow=a.follow)
    else:
        with tempfile.TemporaryDirectory() as t:
            server, what = start_server(Path(t), a.model, a.fake_delay, a.fake_cpu)
            try:
                server.wait_ready(timeout=120)
                warm = Client(server.port, timeout=120)
                warm.call("POST", "/api/detect", raw=club_frames(1)[0], content_type="image/jpeg")
                warm.close()
                print(f"detector: {what}")
                print(f"start: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
                logs = club_night(server.port, a.club, a.fps, a.seconds, a.bombs,
                                  follow=a.follow)
                print(f"server RSS after: {server.rss_mib():.1f} MiB")
            finally:
                server.stop()
    return 0 if all(s < 500 or s == 503 for log in logs for s, _ in log.sent) else 1


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
    p.add_argument("--club", type=int, default=0, metavar="N",
                   help="club night: N cameras posting 960x540 frames at --fps, at random "
                        "phases, for --seconds (no game clients, no saturation phase)")
    p.add_argument("--fps", type=float, default=4.0)
    p.add_argument("--bombs", type=int, default=0,
                   help="club night: this many clients posting a PNG bomb back to back")
    p.add_argument("--target-port", type=int, default=0,
                   help="club night against a server already running on this port")
    p.add_argument("--follow", type=int, nargs="?", const=FOLLOW_EVERY, default=0,
                   metavar="N",
                   help="club night: each camera films one pile as the page does, the "
                        "localiser on every Nth frame and the tracks followed between "
                        f"(without N: the page's, {FOLLOW_EVERY})")
    p.add_argument("--serve-fake", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--db", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--token", default=None, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.serve_fake:
        serve_fake(a.port, a.db, a.fake_delay, a.fake_cpu, a.token)
        return 0
    if a.club or a.bombs:
        return run_club(a)
    report = run_load(a.seconds, a.detect_clients, a.game_clients, a.saturate_clients,
                      a.saturate_seconds, a.model, a.fake_delay, a.fake_cpu)
    report.report()
    return 0 if report.server_errors() == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
