"""Issues 45 and 68, behaviour only (no timing thresholds): many addresses' idle sockets
never lock out a client with the token, no connection is closed to make room for
another (granian holds them outside the interpreter), one greedy address holds at most
its share of the app's turns and of the image workers, asks at most its rate while
others are served, and its excess frames wait for their deadline instead of being
refused at once."""

from __future__ import annotations

import http.client
import socket
import ssl
import sys
import threading
import time
from pathlib import Path

import pytest

from test_web_network import _Task, _wait_started
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
    """300 idle sockets from 5 addresses: a health check with the token on a new
    connection is answered beside them (over HTTPS too, its handshake included)."""
    tls = None
    if https:
        from webui.net.tls import ensure_certificate
        tls = ensure_certificate(tmp_path / "tls", ["localhost"], ["127.0.0.1"])
    port, server = served(tls=(tls.cert, tls.key) if tls else None)
    held = _idle(port, addresses=5, each=60)
    try:
        conn = http.client.HTTPSConnection(
            "127.0.0.1", port, timeout=20, context=ssl.create_default_context(cafile=str(tls.ca))) \
            if tls else http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        assert _health(conn) == 200
        conn.close()
    finally:
        for s in held:
            s.close()


def test_no_connection_is_closed_to_make_room(served) -> None:
    """Issue 68, N12b: the old server closed a camera's kept-alive connection to make
    room for a newcomer when every other connection was busy. Here a camera's
    connection, 200 kept-alive ones with the token from 5 addresses and 200 idle
    strangers' sockets all stay open together, and a new camera is answered beside
    them."""
    port, server = served()
    camera = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    assert _health(camera) == 200
    kept: list[http.client.HTTPConnection] = []
    held = _idle(port, addresses=5, each=40)
    try:
        for a in range(5):
            for _ in range(40):
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20,
                                                  source_address=(f"127.0.0.{10 + a}", 0))
                kept.append(conn)
                assert _health(conn) == 200             # with the token, then kept alive
        newcomer = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        assert _health(newcomer) == 200                 # a camera that never connected
        newcomer.close()
        sock = camera.sock
        assert _health(camera) == 200 and camera.sock is sock     # the same connection
        assert all(_health(conn) == 200 for conn in kept[::20])    # theirs too
    finally:
        camera.close()
        for conn in kept:
            conn.close()
        for s in held:
            s.close()


# ------------------------------------------------------------------ a greedy address
def test_one_address_leaves_turns_for_the_others() -> None:
    from webui.net.shares import Shares
    shares = Shares(running=8)
    log: list = []
    hold = threading.Event()
    greedy = [_Task("10.0.0.2", log, f"G{i}", hold=hold).start(shares) for i in range(12)]
    _wait(lambda: len(log) >= shares.per_address, "the greedy host's requests never started")
    camera = _Task("10.0.0.1", log, "camera").start(shares)
    assert camera.done.wait(30)                         # a turn was kept for it
    assert sum(n.startswith("G") for n in log) == shares.per_address < 8
    hold.set()
    assert all(t.done.wait(30) for t in greedy)


def test_too_many_requests_of_one_address_are_refused_at_once() -> None:
    """One address holds at most ``in_flight`` requests in the server (running or
    waiting), so waiting requests never hold every thread; another address still gets
    in."""
    from webui.net.shares import Crowded, Shares
    shares = Shares(running=2, in_flight=4)
    log: list = []
    hold = threading.Event()
    greedy = [_Task("10.0.0.2", log, f"G{i}", hold=hold).start(shares) for i in range(4)]
    _wait_started(log, "G0")
    _wait(lambda: shares.snapshot()["held"].get("10.0.0.2") == 4, "not all held")
    with pytest.raises(Crowded):
        with shares.entry("10.0.0.2", False):
            pass
    with shares.entry("10.0.0.1", False):               # another address: in
        pass
    hold.set()
    assert all(t.done.wait(30) for t in greedy)
    assert shares.crowded == 1


def test_an_address_asking_faster_than_its_rate_waits_only_beside_others() -> None:
    """Issue 68, N17: pipelined health checks ran Flask back to back beside a camera.
    Alone, an address asks as fast as it likes; while another address is served, one
    past its burst waits for its rate (on its thread, with no CPU)."""
    from webui.net.shares import Shares
    shares = Shares(rate=5, burst=3)
    for _ in range(20):                                 # alone: never slowed
        with shares.entry("10.0.0.2", False), shares.turn("10.0.0.2", False):
            pass
    assert shares.slowed == 0
    with shares.entry("10.0.0.1", False):               # a camera is being served
        for _ in range(6):
            with shares.entry("10.0.0.2", False), shares.turn("10.0.0.2", False):
                pass
    assert shares.slowed >= 1


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
    url = (Path(__file__).resolve().parent.parent / "webui/static/js/framerate.js").as_uri()
    script = f"""
const m = await import({json.dumps(url)});     // from its file: its imports (i18n.js) resolve
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


def test_an_address_refused_often_waits_for_its_refusals() -> None:
    """Issue 68, N13b: 32 connections sending 7,000-cookie requests got 88,000 431s in
    20 s, each one Python's work. After ``free_refusals`` refusals in the window an
    address's further refusals wait ``pit`` seconds each, on at most ``pit_slots``
    threads: past them it is answered at once (a thread is never held for it)."""
    from webui.net.shares import Shares
    shares = Shares(free_refusals=3, pit=0.2, pit_slots=1)
    for _ in range(3):
        shares.tarpit("10.0.0.2")
    assert shares.pitted == 0                           # its first refusals: at once
    done = threading.Event()

    def refused() -> None:
        shares.tarpit("10.0.0.2")
        done.set()
    threading.Thread(target=refused, daemon=True).start()
    _wait(lambda: shares.pitted == 1, "the fourth refusal did not wait")
    assert not done.is_set()
    shares.tarpit("10.0.0.2")                           # its one slot held: at once
    assert shares.pitted == 1
    shares.tarpit("10.0.0.3")                           # another address: at once
    assert done.wait(10)


def test_thousands_of_idle_sockets_never_keep_a_newcomer_waiting(served) -> None:
    """granian holds a connection in about 4 kB outside the interpreter, up to its
    backpressure (16,384 where the descriptor limit allows): 3,000 idle sockets from 40
    addresses (past granian's default of 2,048, where a newcomer waited for the header
    deadline) leave a health check with the token answered at once."""
    import resource
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 6500:
        pytest.skip(f"the test holds both ends of 3,000 sockets: descriptor limit {soft}")
    port, server = served()
    held = _idle(port, addresses=40, each=75)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
        assert _health(conn) == 200                     # within 3 s, not at the deadline
        conn.close()
    finally:
        for s in held:
            s.close()


def _cookie_flood(port: int, source: str, count: int) -> list[int]:
    """``count`` requests with 200 cookie pairs from ``source``, each on a connection of
    its own: their statuses."""
    cookies = "; ".join(f"k{i}=v" for i in range(200))
    out = []
    for _ in range(count):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5,
                                          source_address=(source, 0))
        conn.request("GET", "/api/health", headers={"X-Access-Token": TOKEN, "Cookie": cookies})
        resp = conn.getresponse()
        resp.read()
        out.append(resp.status)
        conn.close()
    return out


def _connects(port: int, source: str, timeout: float = 0.5) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                 source_address=(source, 0)).close()
        return True
    except OSError:                                     # timed out: its SYN dropped
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux socket filter")
def test_an_address_refused_often_from_its_head_is_shut_out_at_the_socket(served) -> None:
    """Issue 68, N13b at 1,001 connections: the tarpit's threads filled and the rest of
    the 7,000-cookie requests were answered at once, 3,650 a second. An address refused
    from its requests' heads more than ``free_refusals`` times is shut out for a while at
    the listening socket: its new connections never reach the server, while another
    address is answered; its time up, it connects again. 127.0.0.1 (this machine's own
    browser) is never shut out."""
    from webui.net.bans import Bans
    from webui.net.shares import Shares
    bans = Bans(seconds=1.5)
    port, _ = served(shares=Shares(free_refusals=3, pit=0.01, bans=bans))
    assert _connects(port, "127.0.0.2")
    assert _cookie_flood(port, "127.0.0.2", 4) == [431] * 4    # the 4th shuts it out
    assert bans.shut_out() == ["127.0.0.2"]
    assert not _connects(port, "127.0.0.2")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5,
                                      source_address=("127.0.0.3", 0))
    assert _health(conn) == 200                         # another address: answered
    conn.close()
    assert _cookie_flood(port, "127.0.0.1", 6) == [431] * 6
    assert _connects(port, "127.0.0.1")                 # spared
    _wait(lambda: not bans.shut_out(), "127.0.0.2 was never let in again")
    assert _connects(port, "127.0.0.2", timeout=3)
    assert bans.count == 1


def test_a_crowded_address_is_never_shut_out() -> None:
    """Only refusals from a request's head shut an address out: an honest laptop whose
    many tabs are answered 503 (crowded) is only made to wait."""
    from webui.net.bans import Bans
    from webui.net.shares import Shares
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    try:
        bans = Bans(seconds=5)
        assert bans.attach(listener)
        shares = Shares(free_refusals=2, pit=0.0, bans=bans)
        for _ in range(5):
            shares.tarpit("10.0.0.2")
        assert bans.shut_out() == []
        for _ in range(5):
            shares.tarpit("10.0.0.2", shut_out=True)
        assert bans.shut_out() == ["10.0.0.2"]
        assert not bans.add("127.0.0.1") and not bans.add("not-an-address")
    finally:
        listener.close()
