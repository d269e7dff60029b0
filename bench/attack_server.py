"""A stranger on the Wi-Fi against ``hanafuda serve`` (issues 30 and 45), measured on
loopback as hosts of one network: the attacker on 127.0.0.2 (or on ``--addresses`` of
them, 127.0.0.2 onwards), the honest cameras and a health check on 127.0.0.1, against a
server that requires an access token.

    .venv/bin/python -m bench.attack_server --attack trickle [--sockets 1001]
        [--addresses 1] [--https] [--seconds 60] [--quiet-seconds 10] [--cameras 1] [--fps 4]
        [--model auto|fake|PATH] [--fake-delay 0.03] [--target-port PORT --token T]

The spread attack of issue 45: ``--attack idle --addresses 40 --sockets 1000`` (25 idle
sockets from each of 40 addresses; ``--attack reopen``: each re-opened as soon as the
server closes it, as fast as this machine can).

Attacks (``--attack``; idle, trickle, reopen and headers without the token, the others with it):

* ``idle``: ``--sockets`` connections that send nothing (not re-opened).
* ``trickle``: ``--sockets`` connections, each sending one header byte every
  ``--interval`` seconds (5), re-opened when the server closes one.
* ``reopen``: ``--sockets`` connections, each re-opened as soon as it is closed.
* ``flood``: ``--sockets`` connections (say 40) posting camera frames back to back.
* ``progressive``: ``--sockets`` clients (say 2) posting a progressive JPEG of
  ``--megapixels`` (40: about 7 MB; refused from its header, over the 12 MP cap for
  progressive ones; 12: the largest decoded) back to back; ``--comment BYTES`` puts
  comment segments of that many bytes before its frame header (issue 49: 140000).
* ``kept`` (issue 49, with the token): ``--sockets`` connections, each asking one health
  check with the token and then kept alive idle (re-opened when closed): 1000 from 40
  ``--addresses``.
* ``headers`` (issue 49): ``--sockets`` connections (say 32) from one host, each sending
  requests of ``--header-count`` one-line headers (7000: 55 kB) back to back, without
  the token (``--guest-token`` to send it too).

Issue 68's holes (each in a process of its own; ``--guest-token`` sends the token too):

* ``chunked`` (N15): ``--sockets`` connections posting an endless chunked upload in
  1-byte chunks to /api/detect, without the token.
* ``cookies`` / ``query`` (N13b): ``--sockets`` connections from one host asking health
  checks back to back with ``--header-count`` (7000) pairs in one Cookie header, or as
  many query parameters.
* ``pipeline`` (N17): ``--sockets`` (8) kept-alive connections with the token, each
  sending ``--pipeline`` (500) health checks at once, then reading their answers.
* ``slowread`` (N18): ``--sockets`` connections from ``--addresses`` (1000 from 40),
  each asking 50 pipelined health checks without the token and reading 1 byte a second.
* ``png`` (N19): ``--sockets`` (2) senders of a PNG of ``--megapixels`` (40: about
  120 kB) back to back, with the token.
* ``nested`` (N16): ``--sockets`` senders of a camera frame with ``?follow=`` of 5,000
  nested ``[``, with the token (the answers' statuses show 400 or 500).

N12b (a camera's kept-alive connection closed to make room) shows as the cameras'
``conn errors`` under ``kept``.

The socket attacks run in a process of their own (another host's CPU, not the cameras'
clients' interpreter); the senders too with ``--apart``. First the cameras run alone for
``--quiet-seconds`` (the quiet figure), then beside the attack for ``--seconds``. Prints
for both the cameras' frames answered, p50/p99 and the slowest camera's fps, the health
checks answered (one a second) and the longest gap between two answered ones, the server's
RSS, and the load average beside each figure (the machine is shared: read the figures with
it). The detector is the shipped model (``--model auto``; ``fake`` costs nothing and
flatters every figure). The targets (issue 45): 95% or more of the health checks and a
camera at 3.5 fps or more under the spread attack, 3.5 fps or more beside 40 connections
from one host, p99 at most 1.5x the quiet one and RSS at most 350 MiB beside two
progressive senders."""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import os
import resource
import selectors
import signal
import socket
import ssl
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from bench.load_server import (DOWN, CameraLog, camera_client, club_frames, run_for,
                               start_server)
from support.servers import CSRF, connection, percentile, rss_mib

ATTACKER = "127.0.0.2"
NEW = ("chunked", "cookies", "query", "pipeline", "png", "nested")     # issue 68's
TOKEN = "bench-attack-token-0123456789"


@dataclass
class Health:
    asked: int = 0
    answered: int = 0
    ms: list = field(default_factory=list)
    at: list = field(default_factory=list)          # when each answered one was asked
    start: float = 0.0                              # perf_counter at the checks' start
    end: float = 0.0

    def longest_gap(self, start: float, end: float) -> float:
        """The longest time (s) without an answered health check in [start, end]."""
        times = [start, *self.at, end]
        return max(b - a for a, b in zip(times, times[1:]))


def load() -> str:
    """The load average (1, 5, 15 min), to print beside every figure."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def attacker(i: int, addresses: int) -> str:
    """The ``i``-th attacking socket's source address: 127.0.0.2 onwards, in turn."""
    return f"127.0.0.{2 + i % max(1, addresses)}"


def health_checks(port: int, stop: threading.Event, out: Health, headers: dict,
                  tls: ssl.SSLContext | None = None) -> None:
    """GET /api/health once a second on a fresh connection (5 s to answer)."""
    while not stop.is_set():
        t0 = time.perf_counter()
        out.asked += 1
        try:
            c = connection(port, 5, tls)
            c.request("GET", "/api/health", headers=headers)
            if c.getresponse().status == 200:
                out.answered += 1
                out.ms.append((time.perf_counter() - t0) * 1e3)
                out.at.append(t0)
            c.close()
        except DOWN:
            pass
        stop.wait(max(0.0, 1.0 - (time.perf_counter() - t0)))


def sockets_attack(port: int, stop: threading.Event, count: int, mode: str,
                   interval: float, tally: dict, addresses: int = 1) -> None:
    """``count`` connections from ``addresses`` attacking addresses in one thread: idle,
    trickling, or re-opened as soon as they close (trickle re-opens too)."""
    sel = selectors.DefaultSelector()
    last_sent: dict[socket.socket, float] = {}
    header = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100_000
    ask = f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Access-Token: {TOKEN}\r\n\r\n" \
        .encode()

    opened = [0]

    def open_one() -> None:
        s = socket.socket()
        s.setblocking(False)
        try:
            s.bind((attacker(opened[0], addresses), 0))
            opened[0] += 1
            s.connect_ex(("127.0.0.1", port))
        except OSError:
            s.close()
            tally["open_errors"] = tally.get("open_errors", 0) + 1
            return
        sel.register(s, selectors.EVENT_WRITE if mode == "kept" else selectors.EVENT_READ)
        last_sent[s] = time.monotonic() - interval * (len(last_sent) % 50) / 50
        tally["opened"] = tally.get("opened", 0) + 1

    def close(s: socket.socket) -> None:
        sel.unregister(s)
        last_sent.pop(s, None)
        s.close()
        tally["closed_by_server"] = tally.get("closed_by_server", 0) + 1

    for _ in range(count):
        open_one()
    sent: dict[socket.socket, int] = {}
    while not stop.is_set():
        for key, events in sel.select(timeout=0.1):
            s = key.fileobj
            if events & selectors.EVENT_WRITE:      # kept: connected, ask once
                try:
                    s.send(ask)
                    sel.modify(s, selectors.EVENT_READ)
                except OSError:
                    close(s)
                continue
            try:
                data = s.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                close(s)
                sent.pop(s, None)
        if mode == "trickle":
            now = time.monotonic()
            for s, t in list(last_sent.items()):
                if now - t >= interval:
                    i = sent.get(s, 0)
                    try:
                        s.send(header[i:i + 1])
                        sent[s] = i + 1
                    except OSError:
                        pass
                    last_sent[s] = now
        if mode in ("trickle", "reopen", "kept"):
            while len(last_sent) < count and not stop.is_set():
                open_one()
    for s in list(last_sent):
        sel.unregister(s)
        s.close()


def attack_process(port: int, stop: Any, count: int, mode: str, interval: float,
                   addresses: int, tallies: Any) -> None:
    """``sockets_attack`` in a process of its own; its tally put on ``tallies``."""
    tally: dict = {}
    sockets_attack(port, stop, count, mode, interval, tally, addresses)
    tallies.put(tally)


def senders_process(target: Callable[..., None], count: int, args: tuple, stop: Any,
                    tallies: Any) -> None:
    """``count`` threads of ``target(*args, tally)`` in a process of their own (``--apart``):
    the senders' interpreter is not the cameras' clients'. The tallies summed on
    ``tallies`` when ``stop`` is set."""
    tally: dict = {}
    threads = [threading.Thread(target=target, args=(*args, tally), daemon=True)
               for _ in range(count)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    tallies.put(tally)


def with_comment(jpeg: bytes, size: int) -> bytes:
    """``jpeg`` with comment segments of ``size`` bytes in all right after its start, so
    that its frame header lies that much further in."""
    out, left = [jpeg[:2]], size
    while left > 0:
        n = min(left, 65533)
        out.append(b"\xff\xfe" + (n + 2).to_bytes(2, "big") + b"c" * n)
        left -= n
    return b"".join(out) + jpeg[2:]


def header_flood(port: int, stop: threading.Event, count: int, headers: dict,
                 tally: dict) -> None:
    """Requests of ``count`` one-line headers (``1b57:v``: 7000 in 56 kB) on one keep-alive
    connection from ATTACKER, back to back (a new one when the server closes it)."""
    lines = "".join(f"{i:x}:v\r\n" for i in range(count))
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    request = f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}{lines}\r\n".encode()
    _send_again(port, stop, request, tally)


def _send_again(port: int, stop: threading.Event, request: bytes, tally: dict,
                pipelined: int = 0) -> None:
    """``request`` sent again and again on one keep-alive connection from ATTACKER, each
    answer's status counted (a new connection when the server closes it, or refuses the
    request); ``pipelined``: the request holds that many, whose answers are all read."""
    s = None
    while not stop.is_set():
        try:
            if s is None:
                s = socket.create_connection(("127.0.0.1", port), timeout=30,
                                             source_address=(ATTACKER, 0))
            s.sendall(request)
            got, answer = 0, b"HTTP/1.1 200"
            while got < max(pipelined, 1) and not stop.is_set():
                answer = s.recv(1 << 20 if pipelined else 65536)
                if not answer:
                    raise ConnectionResetError
                got += answer.count(b"HTTP/1.1 ") if pipelined else 1
                _statuses(answer if pipelined else answer[:12], tally)
            if not pipelined and (answer[9:12] != b"200"
                                  or b"connection: close" in answer.lower()):
                s.close()
                s = None
        except (OSError, ValueError):
            _count(tally, "conn_errors")
            if s is not None:
                s.close()
            s = None
            stop.wait(0.05)
    if s is not None:
        s.close()


def _count(tally: dict, key: Any) -> None:
    tally[key] = tally.get(key, 0) + 1


def _statuses(data: bytes, tally: dict) -> None:
    """Count the status lines of the answers in ``data`` (pipelined ones included)."""
    for part in data.split(b"HTTP/1.1 ")[1:]:
        _count(tally, part[:3].decode("latin-1", "replace"))


def chunked_upload(port: int, stop: threading.Event, headers: dict, tally: dict) -> None:
    """N15: an endless chunked upload in 1-byte chunks from ATTACKER (a new connection
    when the server closes it)."""
    extra = "".join(f"{k}: {v}\r\n" for k, v in {**headers, **CSRF}.items())
    head = (f"POST /api/detect HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}Content-Type: image/jpeg"
            "\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    chunks = b"1\r\nx\r\n" * 20_000
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5,
                                          source_address=(ATTACKER, 0)) as s:
                s.sendall(head)
                s.setblocking(False)
                while not stop.is_set():
                    try:
                        s.send(chunks)
                        _count(tally, "chunk batches")
                    except BlockingIOError:
                        pass
                    try:
                        answer = s.recv(65536)
                        if not answer:
                            _count(tally, "closed")
                            break
                        _statuses(answer, tally)
                        break
                    except BlockingIOError:
                        stop.wait(0.001)
        except OSError:
            _count(tally, "conn_errors")
            stop.wait(0.05)


def pairs_flood(port: int, stop: threading.Event, count: int, headers: dict, tally: dict,
                where: str = "cookies") -> None:
    """N13b: health checks back to back on one connection from ATTACKER with ``count``
    pairs in one Cookie header (``where`` cookies) or in the query (``query``)."""
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    pairs = [f"k{i:x}=v" for i in range(count)]
    if where == "cookies":
        line, extra = "/api/health", extra + "Cookie: " + "; ".join(pairs) + "\r\n"
    else:
        line = "/api/health?" + "&".join(pairs)
    request = f"GET {line} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode()
    _send_again(port, stop, request, tally)


def pipeliner(port: int, stop: threading.Event, depth: int, headers: dict,
              tally: dict) -> None:
    """N17: ``depth`` health checks sent at once on a kept-alive connection from
    ATTACKER, their answers read, again."""
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    burst = (f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n" * depth).encode()
    _send_again(port, stop, burst, tally, depth)


def slow_readers(port: int, stop: Any, count: int, addresses: int, tallies: Any) -> None:
    """N18 (in a process of its own): ``count`` connections from ``addresses`` asking 50
    pipelined health checks each without the token, each reading 1 byte a second."""
    tally: dict = {}
    burst = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 50
    socks: list[socket.socket] = []

    def open_one(i: int) -> None:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            s.bind((attacker(i, addresses), 0))
            s.settimeout(5)
            s.connect(("127.0.0.1", port))
            s.sendall(burst)
            s.setblocking(False)
            socks.append(s)
            _count(tally, "opened")
        except OSError:
            s.close()
            _count(tally, "open_errors")

    for i in range(count):
        if stop.is_set():
            break
        open_one(i)
    i = count
    while not stop.is_set():
        t0 = time.monotonic()
        for s in list(socks):
            try:
                if s.recv(1) == b"":
                    raise ConnectionResetError
            except BlockingIOError:
                pass
            except OSError:
                socks.remove(s)
                s.close()
                _count(tally, "closed_by_server")
                open_one(i)
                i += 1
        stop.wait(max(0.0, 1.0 - (time.monotonic() - t0)))
    for s in socks:
        s.close()
    tallies.put(tally)


def png_bomb(megapixels: float = 40) -> bytes:
    """A PNG of ``megapixels`` of one colour (40: 7680x5200, about 120 kB): decoded whole,
    120 MB of pixels."""
    import struct
    import zlib
    height = int(round((megapixels * 1e6 / 1.477) ** 0.5))
    width = int(height * 1.477)
    row = b"\x00" + b"\x80" * (3 * width)
    pack = zlib.compressobj(9)
    body = b"".join(pack.compress(row) for _ in range(height)) + pack.flush()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                                 0, 0, 0)) \
        + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def progressive_jpeg(megapixels: float = 40) -> bytes:
    """A progressive JPEG of ``megapixels`` (40: 7680x5200, about 7 MB, under the 8 MiB
    upload cap; the server takes at most 12 MP of a progressive one)."""
    import cv2
    import numpy as np
    rng = np.random.default_rng(3)
    height = int(round((megapixels * 1e6 / 1.477) ** 0.5))
    img = cv2.resize(rng.integers(0, 255, (270, 480, 3), dtype=np.uint8),
                     (int(height * 1.477), height))
    img = cv2.GaussianBlur(img, (0, 0), 3)
    for q in (90, 85, 80, 70):
        data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q,
                                          cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
        if len(data) < 8 * 1024 * 1024 - 100_000:
            return data
    return data


def sender(port: int, stop: threading.Event, payload: bytes, headers: dict, tally: dict,
           content_type: str = "image/jpeg", tls: ssl.SSLContext | None = None,
           url: str = "/api/detect") -> None:
    """Posts ``payload`` to ``url`` back to back from ATTACKER, on one keep-alive
    connection (a new one when the server closes it)."""
    head = {**headers, **CSRF, "Content-Type": content_type}
    conn = None
    while not stop.is_set():
        try:
            if conn is None:
                conn = connection(port, 60, tls, (ATTACKER, 0))
            conn.request("POST", url, body=payload, headers=head)
            resp = conn.getresponse()
            resp.read()
            tally[resp.status] = tally.get(resp.status, 0) + 1
            if resp.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except DOWN:
            tally["conn_errors"] = tally.get("conn_errors", 0) + 1
            if conn is not None:
                conn.close()
            conn = None
            stop.wait(0.05)
    if conn is not None:
        conn.close()


def cameras(port: int, count: int, fps: float, seconds: float, headers: dict,
            tls: ssl.SSLContext | None = None) -> tuple[list[CameraLog], Health, float]:
    data = club_frames(4)
    stop = threading.Event()
    logs = [CameraLog(f"camera {i + 1}") for i in range(count)]
    health = Health()
    threads = [threading.Thread(target=camera_client, daemon=True,
                                args=(port, data, stop, log, fps, i / (fps * max(count, 1)),
                                      headers, tls))
               for i, log in enumerate(logs)]
    threads.append(threading.Thread(target=health_checks, args=(port, stop, health, headers, tls),
                                    daemon=True))
    health.start = time.perf_counter()
    took = run_for(threads, stop, seconds, join=60)
    health.end = health.start + took
    return logs, health, took


def summary(label: str, logs: list[CameraLog], health: Health, took: float,
            out: Callable[[str], None]) -> float:
    sent = [s for log in logs for s, _ in log.sent]
    ok = [ms for log in logs for s, ms in log.sent if s == 200]
    errors = sum(log.errors for log in logs)
    slowest = min((sum(1 for s, _ in c.sent if s == 200) / took for c in logs), default=0)
    p99 = percentile(ok, 99)
    out(f"{label}: frames {len(sent)}, answered {100 * len(ok) / max(len(sent) + errors, 1):.1f}%"
        f" (conn errors {errors}), p50 {percentile(ok, 50):.1f} ms, p99 {p99:.1f} ms, "
        f"slowest camera {slowest:.2f} fps; health checks {health.answered} of {health.asked}"
        f" answered ({100 * health.answered / max(health.asked, 1):.0f}%), longest gap "
        f"{health.longest_gap(health.start, health.end):.1f} s; {load()}")
    return p99


def peak_mib(pid: int) -> float:
    """The peak RSS of process ``pid`` so far (VmHWM; nan where unreadable)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far (nan where unreadable)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def run(a: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, a.sockets + 512))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    headers = {"X-Access-Token": a.token or TOKEN}
    tls = None
    if a.https:                 # the server's own certificate: not checked here
        tls = ssl.create_default_context()
        tls.check_hostname, tls.verify_mode = False, ssl.CERT_NONE
    with tempfile.TemporaryDirectory() as t:
        server = None
        if a.target_port:
            port = a.target_port
        else:
            server, what = start_server(Path(t), a.model, a.fake_delay, token=TOKEN,
                                        https=a.https)
            server.wait_ready(timeout=120)
            port = server.port
            out(f"server: {what}, token required" + (", HTTPS" if a.https else ""))
        try:
            logs, health, took = cameras(port, a.cameras, a.fps, a.quiet_seconds, headers, tls)
            quiet = summary("quiet", logs, health, took, out)
            stop: Any = threading.Event()
            tally: dict = {}
            attackers: list[Any]
            if a.attack == "slowread":
                fork = multiprocessing.get_context("fork")
                stop, tallies = fork.Event(), fork.Queue()
                attackers = [fork.Process(target=slow_readers, daemon=True,
                                          args=(port, stop, a.sockets, a.addresses, tallies))]
            elif a.attack in NEW:
                guest = headers if a.guest_token else {}
                if a.attack == "chunked":
                    target, args = chunked_upload, (port, stop, guest)
                elif a.attack in ("cookies", "query"):
                    target = functools.partial(pairs_flood, where=a.attack)
                    args = (port, stop, a.header_count, guest)
                elif a.attack == "pipeline":
                    target, args = pipeliner, (port, stop, a.pipeline, headers)
                elif a.attack == "png":
                    target = functools.partial(sender, content_type="image/png", tls=tls)
                    args = (port, stop, png_bomb(a.megapixels), headers)
                else:                       # nested
                    target = functools.partial(sender, tls=tls,
                                               url="/api/detect?follow=" + "[" * 5000)
                    args = (port, stop, club_frames(1)[0], headers)
                fork = multiprocessing.get_context("fork")
                stop, tallies = fork.Event(), fork.Queue()
                args = (port, stop, *args[2:])
                attackers = [fork.Process(target=senders_process, daemon=True,
                                          args=(target, a.sockets, args, stop, tallies))]
            elif a.attack in ("idle", "trickle", "reopen", "kept"):
                # a process of its own, as another host: its loop does not take the GIL
                # from the cameras' clients
                fork = multiprocessing.get_context("fork")
                stop, tallies = fork.Event(), fork.Queue()
                attackers = [fork.Process(target=attack_process, daemon=True,
                                          args=(port, stop, a.sockets, a.attack, a.interval,
                                                a.addresses, tallies))]
            else:
                if a.attack == "headers":
                    target: Callable[..., None] = header_flood
                    args: tuple = (port, stop, a.header_count,
                                   headers if a.guest_token else {})
                else:
                    payload = club_frames(1)[0] if a.attack == "flood" else \
                        with_comment(progressive_jpeg(a.megapixels), a.comment)
                    target = functools.partial(sender, content_type="image/jpeg", tls=tls)
                    args = (port, stop, payload, headers)
                if a.apart:
                    fork = multiprocessing.get_context("fork")
                    stop, tallies = fork.Event(), fork.Queue()
                    args = (port, stop, *args[2:])
                    attackers = [fork.Process(target=senders_process, daemon=True,
                                              args=(target, a.sockets, args, stop, tallies))]
                else:
                    attackers = [threading.Thread(target=target, daemon=True, args=(*args, tally))
                                 for _ in range(a.sockets)]
            source = ATTACKER if a.addresses <= 1 or \
                a.attack not in ("idle", "trickle", "reopen", "kept", "slowread") \
                else f"{a.addresses} addresses ({ATTACKER} to {attacker(a.addresses - 1, a.addresses)})"
            what = f" ({a.megapixels:g} MP, {len(payload) / 1e6:.1f} MB" \
                f"{f', a {a.comment:,}-byte comment first' if a.comment else ''})" \
                if a.attack == "progressive" else \
                f" ({a.header_count} headers{', with the token' if a.guest_token else ''})" \
                if a.attack in ("headers", "cookies", "query") else \
                f" ({a.pipeline} pipelined)" if a.attack == "pipeline" else ""
            out(f"attack: {a.attack}{what} with {a.sockets} from {source}, {a.seconds:g} s")
            for th in attackers:
                th.start()
            time.sleep(min(2.0, a.seconds / 4))           # let it take hold
            cpu0 = cpu_seconds(server.proc.pid) if server else float("nan")
            logs, health, took = cameras(port, a.cameras, a.fps, a.seconds, headers, tls)
            rss = server.rss_mib() if server else rss_mib()
            peak = peak_mib(server.proc.pid) if server else float("nan")
            cpu = cpu_seconds(server.proc.pid) - cpu0 if server else float("nan")
            stop.set()
            if a.attack in ("idle", "trickle", "reopen", "kept", "slowread", *NEW) or a.apart:
                tally = tallies.get(timeout=60)
            join_all(attackers, 60.0)
            loud = summary("under attack", logs, health, took, out)
            out(f"  attacker: {dict(sorted(tally.items(), key=str))}")
            out(f"  camera p99 {quiet:.1f} -> {loud:.1f} ms ({loud / max(quiet, 1e-9):.2f}x); "
                f"server RSS under attack {rss:.1f} MiB (peak {peak:.1f}), its CPU "
                f"{cpu / took:.2f} cores; {load()}")
        finally:
            if server is not None:
                server.stop()
    return 0


def join_all(workers: list[Any], seconds: float,
             clock: Callable[[], float] = time.monotonic) -> None:
    """Wait for the attacking threads or processes together at most ``seconds`` (each
    waited for what is left): a thousand of them blocked in a connect that the server's
    ban drops would otherwise take a minute each."""
    deadline = clock() + seconds
    for worker in workers:
        worker.join(max(0.0, deadline - clock()))


def main(argv: list[str] | None = None) -> int:
    # a SIGTERM (``timeout``) ends the run through its ``finally``: the server it started
    # is stopped instead of left serving
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--attack", choices=["idle", "trickle", "reopen", "flood", "progressive",
                                        "kept", "headers", "slowread", *NEW],
                   default="trickle", help="what the stranger does (see above)")
    p.add_argument("--sockets", type=int, default=1001,
                   help="attacking connections (flood: say 40; progressive: say 2)")
    p.add_argument("--seconds", type=float, default=60, help="seconds under attack")
    p.add_argument("--quiet-seconds", type=float, default=10,
                   help="seconds of the cameras alone first")
    p.add_argument("--interval", type=float, default=5.0,
                   help="trickle: seconds between a connection's bytes")
    p.add_argument("--https", action="store_true",
                   help="the server on every address, so over HTTPS (as for phones)")
    p.add_argument("--megapixels", type=float, default=40,
                   help="progressive: the JPEG's size (the server takes at most 12)")
    p.add_argument("--apart", action="store_true",
                   help="flood, progressive, headers: the senders in a process of their own "
                        "(else threads beside the cameras' clients, sharing their interpreter)")
    p.add_argument("--comment", type=int, default=0,
                   help="progressive: bytes of comment segments before the frame header")
    p.add_argument("--header-count", type=int, default=7000,
                   help="headers: one-line headers a request")
    p.add_argument("--guest-token", action="store_true",
                   help="headers, cookies, query, chunked: the attacking requests carry the token")
    p.add_argument("--pipeline", type=int, default=500,
                   help="pipeline: health checks sent at once on each connection")
    p.add_argument("--addresses", type=int, default=1,
                   help="idle, trickle, reopen, kept: spread the sockets over this many addresses, "
                        "127.0.0.2 onwards (issue 45: 40 addresses x 25 sockets)")
    p.add_argument("--cameras", type=int, default=1, help="honest cameras on 127.0.0.1")
    p.add_argument("--fps", type=float, default=4.0, help="frames a second per camera")
    p.add_argument("--model", default="auto",
                   help="auto (the shipped model), fake or a localiser .onnx")
    p.add_argument("--fake-delay", type=float, default=0.03,
                   help="seconds the fake detector takes a frame")
    p.add_argument("--target-port", type=int, default=0,
                   help="attack a server already running on this port (with --token)")
    p.add_argument("--token", default=None, help="that server's access token")
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
