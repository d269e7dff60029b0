"""The server's peak memory for large uploads through the upload path (issue 49.12):
``hanafuda serve`` with the shipped model, one camera frame first (the detector loaded:
the baseline), then ``--senders`` clients posting a progressive JPEG of ``--megapixels``
to /api/detect, ``--uploads`` each, back to back. Prints the server's peak RSS (VmHWM)
after the baseline and after the uploads, its RSS at the end, and the load average
beside them (the machine is shared: read the figures with it).

    .venv/bin/python -m bench.upload_memory [--megapixels 12] [--senders 2] [--uploads 8]
        [--cameras 0] [--seconds 0] [--model auto|PATH]

The target (issue 49): the peak at most 350 MiB for 12 MP progressive JPEGs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.attack_server import load, peak_mib, progressive_jpeg
from bench.load_server import CameraLog, camera_client, club_frames, start_server
from support.servers import CSRF, connection


def post(port: int, body: bytes, times: int, statuses: list[int]) -> None:
    """``body`` to /api/detect ``times`` times on one keep-alive connection."""
    conn = connection(port, 120)
    for _ in range(times):
        conn.request("POST", "/api/detect", body=body,
                     headers={**CSRF, "Content-Type": "image/jpeg"})
        resp = conn.getresponse()
        resp.read()
        statuses.append(resp.status)
        if resp.getheader("Connection", "").lower() == "close":
            conn.close()
            conn = connection(port, 120)
    conn.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--megapixels", type=float, default=12)
    p.add_argument("--senders", type=int, default=2)
    p.add_argument("--uploads", type=int, default=8, help="uploads per sender")
    p.add_argument("--cameras", type=int, default=0,
                   help="cameras at 4 fps beside the uploads (their frames' work too)")
    p.add_argument("--seconds", type=float, default=0,
                   help="the cameras run at least this long (with --senders 0: alone)")
    p.add_argument("--model", default="auto", help="auto (the shipped model) or a localiser")
    a = p.parse_args(argv)
    body = progressive_jpeg(a.megapixels)
    with tempfile.TemporaryDirectory() as t:
        server, what = start_server(Path(t), a.model, 0.0)
        server.wait_ready(timeout=120)
        try:
            statuses: list[int] = []
            post(server.port, club_frames(1)[0], 1, statuses)
            base = peak_mib(server.proc.pid)
            print(f"server: {what}; after one camera frame: peak {base:.1f} MiB; {load()}")
            stop = threading.Event()
            frames = club_frames(4)
            logs = [CameraLog(f"camera {i + 1}") for i in range(a.cameras)]
            cams = [threading.Thread(target=camera_client, daemon=True,
                                     args=(server.port, frames, stop, log, 4.0, i / 4))
                    for i, log in enumerate(logs)]
            for c in cams:
                c.start()
            time.sleep(2.0 if cams else 0.0)
            t0 = time.perf_counter()
            senders = [threading.Thread(target=post, args=(server.port, body, a.uploads, statuses))
                       for _ in range(a.senders)]
            for s in senders:
                s.start()
            for s in senders:
                s.join()
            time.sleep(max(0.0, a.seconds - (time.perf_counter() - t0)))
            took = time.perf_counter() - t0
            stop.set()
            for c in cams:
                c.join(30)
            frames_ok = sum(1 for log in logs for st, _ in log.sent if st == 200)
            answered = {s: statuses[1:].count(s) for s in sorted(set(statuses[1:]))}
            print(f"{a.senders} senders x {a.uploads} progressive JPEGs of {a.megapixels:g} MP "
                  f"beside {a.cameras} cameras ({frames_ok} frames answered) "
                  f"({len(body) / 1e6:.1f} MB) in {took:.1f} s, answers {answered}: peak "
                  f"{peak_mib(server.proc.pid):.1f} MiB, RSS at the end {server.rss_mib():.1f} "
                  f"MiB; {load()}")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
