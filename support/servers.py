"""Shared pieces of the hardening scripts: a fake (optionally slow) detector, the real
one when a model is there, a ``hanafuda serve`` subprocess, a small HTTP client,
percentiles and the memory of a process."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from support.fakes import FakeDetector  # the test double

ROOT = Path(__file__).resolve().parent.parent

CSRF = {"X-Requested-With": "hanafuda"}
FAKE_PILE = ("08-1", "01-1")  # what the benchmarks' fake detector finds in every frame
SECURITY_HEADERS = ("Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options")


# ---------------------------------------------------------------------------- detectors

def shipped_model() -> Path | None:
    """The shipped localiser, if the vision package and its model are there."""
    try:
        from scorer.vision import default_model_path
    except ImportError:
        return None
    path = default_model_path()
    return path if path.is_file() else None


def make_detector(model: str = "auto", delay: float = 0.0) -> tuple[Any, str]:
    """(detector, description): ``auto`` is the shipped model if present, else fake;
    ``fake``; or a path to a localiser .onnx."""
    if model == "fake" or (model == "auto" and shipped_model() is None):
        label = "fake detector" + (f" ({delay * 1e3:.0f} ms)" if delay else "")
        return FakeDetector(FAKE_PILE, delay=delay), label
    from scorer.vision import Detector
    path = shipped_model() if model == "auto" else Path(model)
    return Detector(path, threads=2), f"model {path}"


# ----------------------------------------------------------------------------- servers
def free_port() -> int:
    """A port free on every address (a server may bind 0.0.0.0): on a port that some
    address's client socket still holds (in TIME_WAIT after thousands of loopback
    connections) a wildcard bind fails, where a bind to 127.0.0.1 alone would not."""
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        return s.getsockname()[1]


class Server:
    """``hanafuda serve`` (or any argv) in a subprocess, its output in a file."""

    def __init__(self, argv: list[str], port: int, log: Path, env: dict | None = None) -> None:
        self.port = port
        self.log_path = log
        self._log = open(log, "ab")
        self.proc = subprocess.Popen(argv, stdout=self._log, stderr=subprocess.STDOUT,
                                     cwd=ROOT, env={**os.environ, **(env or {})},
                                     start_new_session=True)

    @classmethod
    def hanafuda(cls, db: Path, log: Path, *extra: str, port: int | None = None) -> "Server":
        port = port or free_port()
        argv = [sys.executable, "-m", "webui", "serve", "--db", str(db),
                "--port", str(port), *extra]
        return cls(argv, port, log)

    def wait_ready(self, timeout: float = 60.0, headers: dict | None = None) -> float:
        """Seconds until ``/api/health`` answers (any status); raises if the server died."""
        import ssl
        unverified = ssl.create_default_context()      # an HTTPS server's own certificate
        unverified.check_hostname, unverified.verify_mode = False, ssl.CERT_NONE
        t0 = time.monotonic()
        tries = 0
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: "
                                   + self.log_path.read_text(errors="replace")[-2000:])
            tries += 1
            try:            # plain HTTP, then HTTPS in turn (a server on the network)
                c = connection(self.port, 2, unverified if tries % 2 == 0 else None)
                c.request("GET", "/api/health", headers=headers or {})
                c.getresponse().read()
                c.close()
                return time.monotonic() - t0
            except (OSError, http.client.HTTPException):
                time.sleep(0.02)
        raise RuntimeError("server did not start in time")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash or a pulled plug of the process."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self._log.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()

    def rss_mib(self) -> float:
        return rss_mib(self.proc.pid)


def rss_mib(pid: int | str = "self") -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class Client:
    """One keep-alive HTTP connection; ``call`` returns (status, JSON or None, headers:
    looked up by any case, as servers may write them lowercase). It names itself to the
    server's turns as the page's camera does (``X-Client``)."""

    def __init__(self, port: int, timeout: float = 30.0, headers: dict | None = None,
                 tls: Any = None) -> None:
        self.port = port
        self.timeout = timeout
        self.headers = {"X-Client": f"bench-{id(self):x}", **(headers or {})}
        self.tls = tls              # an ssl.SSLContext: HTTPS
        self.conn: http.client.HTTPConnection | None = None

    def call(self, method: str, url: str, body: Any = None, raw: bytes | None = None,
             content_type: str = "application/json") -> tuple[int, Any, Any]:
        if self.conn is None:
            self.conn = connection(self.port, self.timeout, self.tls)
        headers = dict(self.headers)
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        if method not in ("GET", "HEAD"):
            headers.update(CSRF)
        if data is not None:
            headers["Content-Type"] = content_type
        try:
            self.conn.request(method, url, body=data, headers=headers)
            resp = self.conn.getresponse()
            payload = resp.read()
        except BaseException:
            self.close()
            raise
        if resp.getheader("Connection", "").lower() == "close":
            self.close()
        try:
            parsed = json.loads(payload) if payload else None
        except ValueError:
            parsed = None
        return resp.status, parsed, resp.headers

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def connection(port: int, timeout: float, tls: Any = None,
               source: tuple[str, int] | None = None) -> http.client.HTTPConnection:
    """An HTTP connection to 127.0.0.1:``port``; HTTPS with ``tls`` (an ssl.SSLContext)."""
    if tls is not None:
        return http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=tls,
                                           source_address=source)
    return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=source)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    k = min(len(v) - 1, max(0, int(round(q / 100 * (len(v) - 1)))))
    return v[k]
