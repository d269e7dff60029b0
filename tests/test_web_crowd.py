"""Issue 45, behaviour only (no timing thresholds): many addresses' idle sockets never
lock out a client with the token (the unproven ones are capped and shed, the proven
ones kept), one greedy address holds at most its share of the request threads and of
the image workers, and its excess frames wait for their deadline instead of being
refused at once."""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from pathlib import Path

import pytest

from test_web_network import _Task
from web_helpers import make_app

TOKEN = "k3J9-xq2Lr8vT0pZ-crowd"


@pytest.fixture
def served(tmp_path: Path):
    """``start(**make_server options)`` -> (port, server): an app with the token on
    ``hanafuda serve``'s server, on a free loopback port."""
    from webui.net.server import make_server
    started: list = []

    def start(**options):
        app = make_app(tmp_path, ACCESS_TOKEN=TOKEN)
        server = make_server(app, "127.0.0.1", 0, **options)
        threading.Thread(target=server.run, daemon=True).start()
        started.append(server)
        return server.effective_port, server

    yield start
    for server in started:
        server.close()
        server.task_dispatcher.shutdown(timeout=1)


def _health(conn: http.client.HTTPConnection) -> int:
    conn.request("GET", "/api/health", headers={"X-Access-Token": TOKEN})
    resp = conn.getresponse()
    resp.read()
    return resp.status


def _idle(port: int, addresses: int, each: int) -> list[socket.socket]:
    return [socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.0.{2 + a}", 0))
            for a in range(addresses) for _ in range(each)]


def _wait(predicate, what: str) -> None:
    for _ in range(2000):
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError(what)


@pytest.mark.parametrize("https", [False, True])
def test_idle_sockets_of_many_addresses_leave_room_for_the_token(served, tmp_path, https) -> None:
    """Each address under its cap, together more than the unproven may hold: the oldest
    idle ones are closed, and a health check with the token is answered (over HTTPS
    too, its handshake on a new connection)."""
    tls = None
    if https:
        from webui.net.tls import ensure_certificate
        tls = ensure_certificate(tmp_path / "tls", ["localhost"], ["127.0.0.1"])
    port, server = served(connection_limit=40, unproven_limit=20, per_address=8,
                          tls=tls.context() if tls else None)
    held = _idle(port, addresses=5, each=8)             # 40: the whole connection limit
    try:
        _wait(lambda: server.connections.unproven() <= 20, "the idle sockets were not shed")
        conn = http.client.HTTPSConnection(
            "127.0.0.1", port, timeout=20, context=ssl.create_default_context(cafile=str(tls.ca))) \
            if tls else http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        assert _health(conn) == 200
        conn.close()
        assert server.connections.shed >= 20
    finally:
        for s in held:
            s.close()


def test_a_connection_that_showed_the_token_is_never_shed(served) -> None:
    port, server = served(unproven_limit=10, per_address=8)
    camera = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    assert _health(camera) == 200                       # proven: a request with the token
    stranger = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.9", 0))
    held = _idle(port, addresses=4, each=6)             # 24 newer unproven sockets
    try:
        _wait(lambda: server.connections.shed >= 14, "the unproven sockets were not shed")
        stranger.settimeout(5)
        try:
            closed = stranger.recv(1) == b""
        except ConnectionResetError:
            closed = True
        assert closed                                   # the oldest unproven one went
        assert _health(camera) == 200                   # the same socket, still open
        assert camera.sock is not None
    finally:
        camera.close()
        stranger.close()
        for s in held:
            s.close()


def test_kept_alive_connections_with_the_token_leave_room_for_a_new_camera(served) -> None:
    """Issue 49: a guest with the token proves every connection it opens; from 5
    addresses, 8 each (each under its cap), they are the whole connection limit. The
    oldest idle ones are closed for newcomers, so a camera that never connected, and a
    health check on a new connection, are answered beside them."""
    port, server = served(connection_limit=40, per_address=8)
    held: list[http.client.HTTPConnection] = []
    try:
        for a in range(5):
            for _ in range(8):
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3,
                                                  source_address=(f"127.0.0.{2 + a}", 0))
                held.append(conn)
                try:
                    _health(conn)                   # proven, then kept alive
                except OSError:
                    pass                            # not accepted (before issue 49)
        camera = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        assert _health(camera) == 200               # a camera that never connected
        health = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        assert _health(health) == 200               # and a health check beside it
        assert _health(camera) == 200               # the camera's connection kept
        assert server.connections.crowded >= 1
        assert server.connections.total() < 40 - 2  # room kept under the limit
        camera.close(), health.close()
    finally:
        for conn in held:
            conn.close()


def test_room_is_made_from_the_address_holding_the_most_idle_connections() -> None:
    from webui.net.connections import Connections
    conns = Connections(per_address=100, unproven_limit=100, most=5)
    greedy = [_Channel("10.0.0.2") for _ in range(3)]
    camera, busy = _Channel("10.0.0.1"), _Channel("10.0.0.3", reading=True)
    for i, c in enumerate([*greedy, camera, busy]):
        c.last_activity = float(i)
        conns.opened(c)
        conns.proven(c)                             # every one with the token
    assert conns.full("10.0.0.2")                   # at the limit, the greediest waits
    assert not conns.full("10.0.0.9") and not conns.full("10.0.0.1")
    assert conns.make_room() == [greedy[0]]         # the greedy address's longest idle
    greedy[0].requests = [object()]                 # ... now serving a request
    assert conns.make_room() == [greedy[1]]         # busy ones are never closed
    conns.closed(greedy[1])
    assert conns.make_room() == []                  # room for one more already


class _Channel:
    def __init__(self, ip: str, reading: bool = False) -> None:
        self.addr = (ip, 1)
        self.requests: list = []
        self.request = type("R", (), {"headers_finished": True})() if reading else None


def test_strangers_idle_sockets_are_shed_before_uploads_and_known_addresses() -> None:
    from webui.net.connections import Connections
    conns = Connections(per_address=100, unproven_limit=3)
    friend_spare, upload, idle = _Channel("10.0.0.1"), _Channel("10.0.0.2", reading=True), \
        _Channel("10.0.0.3")
    proven = _Channel("10.0.0.1")
    for c in (proven, friend_spare, upload, idle):
        conns.opened(c)
    conns.proven(proven)                                # 10.0.0.1 showed the token
    assert conns.unproven() == 3
    assert not conns.full("10.0.0.3")
    assert conns.victims() == [idle]                    # one more: the idle stranger's
    assert conns.full("10.0.0.3")                       # ... whose address must wait now
    conns.closed(idle)
    conns.opened(_Channel("10.0.0.4"))
    conns.opened(_Channel("10.0.0.5"))
    victims = conns.victims()                           # two over: the idle ones first
    assert len(victims) == 2 and upload not in victims and friend_spare not in victims
    assert proven not in victims
    assert not conns.full("10.0.0.1")                   # a known address is never barred


# ------------------------------------------------------------------ a greedy address
def test_one_address_leaves_request_threads_for_the_others() -> None:
    from webui.net.dispatcher import FairDispatcher
    d = FairDispatcher()
    d.set_thread_count(8)
    log: list = []
    hold = threading.Event()
    greedy = [_Task("10.0.0.2", log, f"G{i}", hold=hold) for i in range(12)]
    for t in greedy:
        d.add_task(t)
    _wait(lambda: len(log) >= d.per_address, "the greedy host's requests never started")
    camera = _Task("10.0.0.1", log, "camera")
    d.add_task(camera)
    assert camera.done.wait(30)                         # a thread was kept for it
    assert sum(n.startswith("G") for n in log) == d.per_address < 8
    hold.set()
    assert all(t.done.wait(30) for t in greedy)
    d.shutdown(timeout=1)


def test_a_camera_keeps_its_share_of_workers_beside_a_greedy_address() -> None:
    """Two workers: an address alone runs on both; once another address has posted,
    the greedy one holds one worker, and the other's frame runs at once beside it."""
    from webui.images.scheduler import Scheduler
    sched = Scheduler(workers=2, deadline=30)
    gate = threading.Event()
    alone = [threading.Thread(target=sched.run, args=(("A", i), 1, gate.wait)) for i in range(2)]
    for t in alone:
        t.start()
    _wait(lambda: sched.snapshot()["light_running"] == 2, "an address alone did not get both")
    gate.set()
    for t in alone:
        t.join(30)
    assert sched.run(("B", 1), 1, lambda: "seen") == "seen"     # B posts a frame
    gate.clear()
    greedy = [threading.Thread(target=sched.run, args=(("A", i), 1, gate.wait)) for i in range(4)]
    for t in greedy:
        t.start()
    _wait(lambda: sched.snapshot()["light_waiting"] == 3, "A's frames were not queued")
    assert sched.snapshot()["light_running"] == 1               # A: its share, one worker
    assert sched.run(("B", 1), 1, lambda: "at once") == "at once"   # while A's still wait
    gate.set()
    for t in greedy:
        t.join(30)


def test_a_greedy_address_waits_for_its_refusals() -> None:
    """With the queue too long for a frame to start in time, a new address is refused
    at once (its camera learns it now), but an address with a frame already waiting has
    its next one queued until its deadline: a host posting on many connections is not
    answered as fast as it can ask."""
    from scorer.errors import Busy
    from webui.images.scheduler import Scheduler
    sched = Scheduler(workers=1, deadline=30)
    sched.light.seconds = 60.0         # each frame looks a minute long: nothing fits
    gate = threading.Event()
    threads = [threading.Thread(target=sched.run, args=(("A", 0), 1, gate.wait))]
    threads[0].start()
    _wait(lambda: sched.snapshot()["light_running"] == 1, "A's first frame did not start")
    for i in (1, 2):                    # A's next two: queued, not refused
        threads.append(threading.Thread(target=sched.run, args=(("A", i), 1, lambda: None)))
        threads[-1].start()
        _wait(lambda i=i: sched.snapshot()["light_waiting"] == i, "A's frame was refused")
    with pytest.raises(Busy):
        sched.run(("B", 1), 1, lambda: None)    # behind A's waiting frame: refused now
    gate.set()
    for t in threads:
        t.join(30)


# ------------------------------------------------------------------ club night
def test_a_skipped_frame_says_the_laptop_is_full_and_how_many_share_it() -> None:
    from scorer.errors import Busy
    from webui.images.scheduler import Scheduler
    sched = Scheduler(workers=1, deadline=30)
    sched.light.seconds = 60.0         # each frame looks a minute long: nothing fits
    gate = threading.Event()
    held = threading.Thread(target=sched.run, args=(("A", 1), 1, gate.wait))
    held.start()
    _wait(lambda: sched.snapshot()["light_running"] == 1, "the first frame did not start")
    waiting = threading.Thread(target=sched.run, args=(("A", 2), 1, lambda: None))
    waiting.start()
    _wait(lambda: sched.snapshot()["light_waiting"] == 1, "the second frame was refused")
    with pytest.raises(Busy, match=r"this laptop is full .*: 3 cameras share its 1 image worker"):
        sched.run(("B", 1), 1, lambda: None)
    gate.set()
    held.join(30), waiting.join(30)


def test_each_camera_shows_its_own_frame_rate_and_the_laptop_full() -> None:
    """framerate.js under node (the page's own module): frames answered over the last
    five seconds, and the status line of a skipped frame."""
    import json
    import shutil
    import subprocess
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node here")
    src = (Path(__file__).resolve().parent.parent / "webui/static/js/framerate.js").read_text()
    script = f"""
const m = await import("data:text/javascript," + encodeURIComponent({json.dumps(src)}));
const r = new m.FrameRate();
for (let t = 0; t < 10000; t += 500) r.answered(t);          // 2 a second for 10 s
const slow = new m.FrameRate();
for (let t = 0; t < 10000; t += 1000) slow.answered(t);      // 1 a second
console.log(JSON.stringify([r.perSecond(9500), slow.perSecond(9500),
  m.busyText(slow, 9500, "this laptop is full (detection is busy): 8 cameras share it"),
  new m.FrameRate().perSecond(0)]));
"""
    out = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    fast, slow, busy, none = json.loads(out)
    assert fast == 2.2 and slow == 1.0 and none == 0    # 11 and 5 frames in the 5 s window
    assert busy.startswith("1.0 frames a second here: this laptop is full")
