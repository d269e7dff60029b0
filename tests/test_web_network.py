"""Issue 30, one test each, small and without timing thresholds: the HTTPS server's start
and its certificate's reuse, the deadline for a request's headers, the cap on
connections per client address (the attacker on 127.0.0.2, the honest client on
127.0.0.1: two hosts of one network), the request threads' and the image workers'
turns per address, requests without the token behind the others, and a progressive
JPEG's real decode cost."""

from __future__ import annotations

import datetime as dt
import http.client
import socket
import ssl
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from support.fakes import FakeDetector
from web_helpers import make_app

TOKEN = "k3J9-xq2Lr8vT0pZ-network"
ATTACKER = "127.0.0.2"


@pytest.fixture
def served(tmp_path: Path):
    """``start(**make_server options)`` -> (port, app, server): the app on ``hanafuda
    serve``'s server, on a free loopback port; closed after the test."""
    from webui.net.server import make_server
    started: list = []

    def start(config: dict | None = None, **options):
        app = make_app(tmp_path, **(config or {}))
        server = make_server(app, "127.0.0.1", 0, **options)
        threading.Thread(target=server.run, daemon=True).start()
        started.append(server)
        return server.effective_port, app, server

    yield start
    for server in started:
        server.close()


def _status(port: int, path: str = "/api/health", context: ssl.SSLContext | None = None,
            host: str = "127.0.0.1", headers: dict | None = None) -> int:
    conn = (http.client.HTTPSConnection(host, port, context=context, timeout=20) if context
            else http.client.HTTPConnection(host, port, timeout=20))
    try:
        conn.request("GET", path, headers=headers or {})
        return conn.getresponse().status
    finally:
        conn.close()


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except (TimeoutError, BlockingIOError):
        return False


# ------------------------------------------------------------------ HTTPS
def test_https_server_serves_with_a_certificate_its_authority_signs(tmp_path, served) -> None:
    from webui.net.tls import ensure_certificate
    cert = ensure_certificate(tmp_path / "tls", ["localhost", "table.local"],
                              ["127.0.0.1", "192.168.1.20"])
    port, _, _ = served(tls=(cert.cert, cert.key))
    trusting = ssl.create_default_context(cafile=str(cert.ca))
    assert _status(port, context=trusting) == 200                       # by address
    assert _status(port, context=trusting, host="localhost") == 200     # by name
    with pytest.raises(ssl.SSLCertVerificationError):                   # not a public one
        _status(port, context=ssl.create_default_context())
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)    # plain HTTP:
    with pytest.raises((OSError, http.client.HTTPException)):          # not served
        conn.request("GET", "/?token=abc", headers={"Host": f"192.168.1.20:{port}"})
        conn.getresponse()
    conn.close()


def test_the_certificate_is_kept_and_made_again_only_when_needed(tmp_path) -> None:
    from cryptography import x509

    from webui.net.tls import ensure_certificate
    folder = tmp_path / "tls"
    first = ensure_certificate(folder, ["localhost", "table.local"], ["127.0.0.1", "192.168.1.20"])
    pem = first.cert.read_bytes()
    again = ensure_certificate(folder, ["localhost"], ["192.168.1.20"])
    assert first.made and not again.made and first.cert.read_bytes() == pem     # reused
    assert (first.key.stat().st_mode & 0o777) == 0o600 == (first.ca_key.stat().st_mode & 0o777)
    moved = ensure_certificate(folder, ["localhost"], ["10.0.0.7"])           # a new Wi-Fi
    assert moved.made and "10.0.0.7" in moved.addresses
    assert moved.fingerprint == first.fingerprint                # the same authority to trust
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=380)
    assert ensure_certificate(folder, ["localhost"], ["10.0.0.7"], now=later).made   # renewed
    public = ensure_certificate(folder, ["localhost"], ["10.0.0.7", "8.8.8.8"])
    assert "8.8.8.8" not in public.addresses                    # outside the authority's names
    ca = x509.load_pem_x509_certificate(first.ca.read_bytes())
    assert ca.extensions.get_extension_for_class(x509.NameConstraints).critical


# ------------------------------------------------------------------ deadlines and caps
def test_a_request_trickling_its_headers_is_closed_at_the_deadline(served) -> None:
    """One header byte every 0.1 s keeps a socket busy, never idle: only a deadline for
    the whole headers closes it (granian's ``header_read_timeout``)."""
    port, _, _ = served(header_deadline=1)
    request = b"GET /api/health HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 300 + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), source_address=(ATTACKER, 0)) as s:
        s.settimeout(0.1)
        sent = 0
        while sent < len(request) - 4 and not _closed_by_server(s):
            try:
                s.send(request[sent:sent + 1])
            except OSError:
                break
            sent += 1
        assert sent < len(request) - 4, "the server kept the trickling request open"
    assert _status(port) == 200


def _answered(held: list, host: str) -> int:
    """How many of the ``held`` sockets get a health check answered (a closed one: none)."""
    answered = 0
    for s in held:
        s.settimeout(20)
        try:
            s.sendall(f"GET /api/health HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            answered += s.recv(12).startswith(b"HTTP/1.1 200")
        except OSError:
            pass
    return answered


def test_idle_sockets_of_one_address_never_stop_another(served) -> None:
    """Issue 68: connections are granian's, read outside the interpreter: 300 idle
    sockets from one address are closed at the header deadline, and another address
    is served beside them at once."""
    port, _, _ = served(header_deadline=1)
    held = [socket.create_connection(("127.0.0.1", port), source_address=(ATTACKER, 0))
            for _ in range(300)]
    try:
        assert _status(port) == 200                   # another address is served
        for s in held:
            s.settimeout(20)
        assert all(_closed_by_server(s) for s in held)  # each closed by the server
    finally:
        for s in held:
            s.close()


def test_127_0_0_2_is_loopback_to_the_token_and_a_client_apart_to_the_caps(tmp_path) -> None:
    """Issue 49: the one rule the README states. A server bound on 127.0.0.2 is a
    loopback server (plain HTTP, no token, its Host answered); the turns still count
    each loopback client address apart (127.0.0.2 and 127.0.0.3 each have their own),
    and the 403 for a foreign Host names the whole loopback range, as ``hanafuda serve
    --help`` does."""
    from webui.command import LOOPBACK, resolve_token
    from webui.app.security import LOOPBACK_ONLY
    from webui.net.server import make_server
    assert resolve_token("127.0.0.2", None) is None
    assert LOOPBACK in LOOPBACK_ONLY and "127.0.0.1 or localhost only" not in LOOPBACK_ONLY
    app = make_app(tmp_path)                                    # no token: a loopback server
    server = make_server(app, "127.0.0.2", 0)
    threading.Thread(target=server.run, daemon=True).start()
    port = server.effective_port
    try:
        assert _status(port, host="127.0.0.2") == 200           # plain HTTP, no token
        conn = http.client.HTTPConnection("127.0.0.2", port, timeout=20)
        conn.request("GET", "/api/health", headers={"Host": "evil.example"})
        refused = conn.getresponse()
        assert refused.status == 403 and LOOPBACK in refused.read().decode()
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.2", port, timeout=20,
                                          source_address=("127.0.0.3", 0))
        conn.request("GET", "/api/health")
        assert conn.getresponse().status == 200
        conn.close()
        served = server.shares.served
        assert served["127.0.0.3"] == 1 and sum(served.values()) == 3   # a client apart
    finally:
        server.close()


# ------------------------------------------------------------------ fair turns
class _Task:
    """A request from ``addr`` taking its turn of ``shares`` on a thread of its own
    (``admitted``: with the token), logging its name when it runs, holding its turn
    until ``hold`` is set."""

    def __init__(self, addr: str, log: list, name: str, admitted: bool = True,
                 hold: threading.Event | None = None) -> None:
        self.addr, self.log, self.name, self.admitted, self.hold = addr, log, name, admitted, hold
        self.done = threading.Event()

    def start(self, shares) -> "_Task":
        def run() -> None:
            with shares.entry(self.addr, not self.admitted), \
                    shares.turn(self.addr, not self.admitted):
                self.log.append(self.name)
                if self.hold is not None:
                    self.hold.wait(30)
            self.done.set()
        threading.Thread(target=run, daemon=True).start()
        return self


def _queued(shares, count: int) -> None:
    """Wait until ``count`` requests wait for their turn (with the token or not)."""
    for _ in range(3000):
        snap = shares.snapshot()
        if sum(snap["waiting"].values()) + snap["guests_waiting"] >= count:
            return
        time.sleep(0.01)
    raise AssertionError(f"{count} never queued: {shares.snapshot()}")


def _wait_started(log: list, name: str) -> None:
    for _ in range(3000):
        if name in log:
            return
        time.sleep(0.01)
    raise AssertionError(f"{name} never started")


def test_request_threads_take_turns_per_address() -> None:
    """One turn, five requests from one address queued before one from another: the
    other address is served second, not last (granian serves first come first)."""
    from webui.net.shares import Shares
    shares = Shares(running=1)
    log: list = []
    gate = threading.Event()
    _Task("10.0.0.1", log, "gate", hold=gate).start(shares)
    _wait_started(log, "gate")
    tasks = []
    for i, (addr, name) in enumerate([("10.0.0.1", f"A{i}") for i in range(5)] + [("10.0.0.2", "B")]):
        tasks.append(_Task(addr, log, name).start(shares))
        _queued(shares, i + 1)
    gate.set()
    assert all(t.done.wait(30) for t in tasks)
    assert log == ["gate", "A0", "B", "A1", "A2", "A3", "A4"]


def test_requests_without_the_token_wait_behind_and_on_few_threads() -> None:
    from webui.net.shares import Shares
    shares = Shares(running=3, guest_running=1, guest_in_flight=8)
    log: list = []
    hold = threading.Event()
    guests = [_Task(ATTACKER, log, f"guest{i}", admitted=False, hold=hold).start(shares)
              for i in range(3)]
    _wait_started(log, "guest0")
    _queued(shares, 2)
    camera = _Task("127.0.0.1", log, "camera").start(shares)
    assert camera.done.wait(30)                # a turn was free for it
    assert [n for n in log if n.startswith("guest")] == ["guest0"]     # one guest at a time
    hold.set()
    assert all(g.done.wait(30) for g in guests)


def test_image_workers_take_turns_per_address() -> None:
    from webui.images.scheduler import Scheduler
    sched = Scheduler(workers=1, deadline=30)
    order: list = []
    gate = threading.Event()
    threads = [threading.Thread(target=sched.run, args=(("A", 0), 1, gate.wait))]
    threads[0].start()
    while sched.snapshot()["light_running"] == 0:
        time.sleep(0.01)
    for client in [("A", 1), ("A", 2), ("A", 3), ("A", 4), ("B", 1)]:
        t = threading.Thread(target=sched.run, args=(client, 1, lambda c=client: order.append(c)))
        t.start()
        threads.append(t)
        while sched.snapshot()["light_waiting"] < len(threads) - 1:
            time.sleep(0.01)
    gate.set()
    for t in threads:
        t.join(30)
    assert order[:2] == [("A", 1), ("B", 1)]         # B's one camera: the second turn


def test_one_address_holds_few_heavy_jobs() -> None:
    from scorer.errors import Busy
    from webui.images.scheduler import Scheduler
    sched = Scheduler(workers=2, heavy_budget=10**9)
    gate = threading.Event()
    held = [threading.Thread(target=sched.run, args=(("A", i), 5_000_000, gate.wait)) for i in range(2)]
    for t in held:
        t.start()
    while sched.snapshot()["heavy_running"] + sched.snapshot()["heavy_waiting"] < 2:
        time.sleep(0.01)
    with pytest.raises(Busy):
        sched.run(("A", 9), 5_000_000, lambda: None)         # a third from A: refused at once
    gate.set()
    for t in held:
        t.join(30)
    assert sched.run(("B", 1), 5_000_000, lambda: "ok") == "ok"


# ------------------------------------------------------------------ decode cost
def test_a_progressive_jpeg_costs_its_whole_decode() -> None:
    from scorer.vision.image import check
    img = cv2.resize(np.random.default_rng(0).integers(0, 255, (30, 40, 3), np.uint8), (4000, 3000))
    base = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()
    prog = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80,
                                      cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
    b, p = check(base), check(prog)
    assert not b.info.progressive and p.info.progressive
    assert b.reduction(960) == p.reduction(960) == 4
    assert b.cost(960) == 1000 * 750 + 4000 * 3000 // 10      # decoded smaller, all read
    assert p.cost(960) >= 4000 * 3000                          # every coefficient held
    from webui.images.scheduler import Scheduler
    heavy = Scheduler().heavy_pixels
    assert b.cost(960) < heavy < p.cost(960)


def test_a_progressive_frame_is_scheduled_heavy(tmp_path) -> None:
    """1600x1200: light as a baseline JPEG (1.9 MP decoded), heavy as a progressive one
    (before, its decoded size alone made it light)."""
    app = make_app(tmp_path, DETECTOR=FakeDetector(["08-1"]))
    img = np.full((1200, 1600, 3), 90, np.uint8)
    c = app.test_client()
    sched = app.extensions["hanafuda"]["detection"].scheduler
    for progressive, heavy in ((0, 0), (1, 1)):
        data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_PROGRESSIVE, progressive])[1].tobytes()
        r = c.post("/api/detect", data=data,
                   headers={"X-Requested-With": "hanafuda", "Content-Type": "image/jpeg"})
        assert r.status_code == 200
        assert sched.snapshot()["heavy"] == heavy


# ------------------------------------------------------------------ joining from a phone
def test_the_page_offers_the_qr_code_and_the_authority(tmp_path) -> None:
    from webui.app.connect import terminal_qr
    from webui.net.tls import ensure_certificate
    cert = ensure_certificate(tmp_path / "tls", ["localhost"], ["192.168.1.20"])
    url = f"https://192.168.1.20:8000/?token={TOKEN}"
    c = make_app(tmp_path, ACCESS_TOKEN=TOKEN, CONNECT_URL=url, TLS_AUTHORITY=cert.ca).test_client()
    c.get(f"/?token={TOKEN}")
    home = c.get("/").get_data(as_text=True)
    assert 'id="connect-qr"' in home and 'id="connect-ca"' in home and TOKEN not in home
    svg = c.get("/connect.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml" and b"<svg" in svg.data
    ca = c.get("/connect/ca.pem")
    assert ca.status_code == 200 and ca.data == cert.ca.read_bytes()
    drawn = terminal_qr(url)
    assert drawn.count("\n") > 10 and TOKEN not in drawn
    plain = make_app(tmp_path / "local").test_client()          # on loopback: none of it
    assert 'id="connect"' not in plain.get("/").get_data(as_text=True)
    assert plain.get("/connect.svg").status_code == 404
    assert plain.get("/connect/ca.pem").status_code == 404
    stranger = make_app(tmp_path / "s", ACCESS_TOKEN=TOKEN, CONNECT_URL=url).test_client()
    assert stranger.get("/connect.svg").status_code == 401       # the token guards the code


def test_serve_on_the_network_starts_https_and_keeps_its_certificate(tmp_path) -> None:
    """`hanafuda serve --host 0.0.0.0` as a user runs it, twice: HTTPS with a certificate
    made beside the database the first time and kept the second (only 127.0.0.1 is
    connected to)."""
    import re

    from support.servers import Server
    kept = None
    for run in range(2):
        log = tmp_path / f"log{run}"
        server = Server.hanafuda(tmp_path / "g.db", log, "--host", "0.0.0.0")
        try:
            server.wait_ready()
            text = log.read_text()
            token = re.search(r"Open https://[^/]+/\?token=([\w-]+)", text).group(1)
            assert ("made" if run == 0 else "kept") in text.split("HTTPS certificate ", 1)[1][:5]
            trusting = ssl.create_default_context(cafile=str(tmp_path / "tls" / "ca.pem"))
            assert _status(server.port, context=trusting,
                           headers={"X-Access-Token": token}) == 200
            assert _status(server.port, context=trusting) == 401
            with pytest.raises((OSError, http.client.HTTPException)):
                _status(server.port)                                # plain HTTP: not served
        finally:
            server.stop()
        pem = (tmp_path / "tls" / "cert.pem").read_bytes()
        assert kept is None or pem == kept
        kept = pem


def test_the_web_process_has_the_decoders_own_limits() -> None:
    """OpenCV's own limits (the library's, behind the header check) are in force in a
    process that loads the web app first: an image wider than 12000 px is refused by
    the decoder itself."""
    import subprocess
    import sys

    from scorer.vision import image
    from webui.images import decoder_limits
    assert (decoder_limits.MAX_PIXELS, decoder_limits.MAX_SIDE) == (image.MAX_PIXELS, image.MAX_SIDE)
    code = ("import webui, cv2, numpy as np\n"
            "wide = cv2.imencode('.png', np.zeros((16, 12001, 3), np.uint8))[1]\n"
            "ok = cv2.imencode('.png', np.zeros((16, 12000, 3), np.uint8))[1]\n"
            "assert cv2.imdecode(ok, cv2.IMREAD_COLOR) is not None\n"
            "try:\n"
            "    print('decoded' if cv2.imdecode(wide, cv2.IMREAD_COLOR) is not None else 'refused')\n"
            "except cv2.error:\n"
            "    print('refused')\n")
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("OPENCV_IO_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "refused"
