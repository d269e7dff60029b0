"""`hanafuda serve` as a user runs it: a real waitress process on loopback."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

#: a child started with it prints its Python threads' stacks on SIGABRT (see _ended)
DUMPS = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ended(proc: subprocess.Popen, after: str, timeout: float = 30) -> tuple[str, str]:
    """``proc``'s stdout and stderr once it exits, at most ``timeout`` seconds after
    ``after`` (what was sent to it); else a failure with its threads' stacks (SIGABRT
    makes a child started with ``DUMPS`` print them)."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        _, err = proc.communicate(timeout=30)
        pytest.fail(f"still running {timeout:g} s after {after}; its threads:\n{err}")


def test_serve_prints_the_url_and_serves(tmp_path: Path) -> None:
    port = _free_port()
    db = tmp_path / "games.db"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "webui", "serve", "--port", str(port),
                             "--db", str(db)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    try:
        lines = []
        deadline = time.time() + 20
        while time.time() < deadline:
            line = proc.stdout.readline()
            lines.append(line)
            if line.startswith("Open "):
                break
        assert lines[-1].strip() == f"Open http://127.0.0.1:{port}/", lines
        for _ in range(50):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games", timeout=2) as r:
                    assert json.load(r) == {"games": []}
                    assert r.headers["X-Content-Type-Options"] == "nosniff"
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        else:
            raise AssertionError("server did not answer")
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/games", method="POST",
                                     data=b'{"players": ["Ann", "Bob"]}',
                                     headers={"Content-Type": "application/json",
                                              "X-Requested-With": "hanafuda"})
        with urllib.request.urlopen(req, timeout=5) as r:
            assert r.status == 201
        assert db.is_file()
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "webui", "serve", "--port", str(port),
                               "--db", str(tmp_path / "g.db")], capture_output=True, text=True,
                              timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr
    assert f"port {port} is in use" in proc.stderr and f"--port {port + 1}" in proc.stderr
    assert "Open " not in proc.stdout


def test_ctrl_c_stops_the_server_and_frees_its_port(tmp_path: Path) -> None:
    """granian serves from its own threads; Ctrl-C (SIGINT) still ends `hanafuda serve`
    at once, as any command's (status 130, one line, no traceback), and the port is
    free again; SIGTERM ends it with status 0."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "webui", "serve", "--port", str(port),
                             "--db", str(tmp_path / "g.db")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=DUMPS)
    try:
        assert proc.stdout.readline().startswith("hanafuda-scorer: games in")
        assert proc.stdout.readline().startswith("Open ")
        proc.send_signal(signal.SIGINT)
        out, err = _ended(proc, "Ctrl-C")
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err, err
    with socket.socket() as again:
        again.bind(("127.0.0.1", port))
    proc = subprocess.Popen([sys.executable, "-m", "webui", "serve", "--port", str(port),
                             "--db", str(tmp_path / "g.db")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=DUMPS)
    try:
        assert proc.stdout.readline() and proc.stdout.readline().startswith("Open ")
        time.sleep(1)
        proc.terminate()
        out, err = _ended(proc, "SIGTERM")
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "Traceback" not in err, err


#: run() of a served app in the main thread, its signal (argv[1]) raised as the k-th
#: call after ready() returns, for k 1..24: each point of the serving loop (and,
#: after it, of the close) where a signal's handler can run; the loop looks often
SIGNAL_IN_THE_LOOP = """
import signal, sys
from flask import Flask
import webui.net.server as served
from webui.net.server import make_server

served.POLL = 0.002
sig = getattr(signal, sys.argv[1])
for k in range(1, 25):
    server = make_server(Flask("x"), "127.0.0.1", 0)
    returns = []

    def hook(frame, event, arg, k=k, returns=returns):
        if event in ("return", "c_return"):
            returns.append(arg)
            if len(returns) == k:
                signal.raise_signal(sig)

    try:
        server.run(lambda: sys.setprofile(hook))
    except KeyboardInterrupt:
        assert sig == signal.SIGINT
    finally:
        sys.setprofile(None)
print("ended", k)
"""


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_a_signal_anywhere_in_the_serving_loop_ends_it(signame: str) -> None:
    """Wherever in ``Server.run``'s wait a Ctrl-C or a SIGTERM lands, the serve ends.
    The wait was ``Event.wait``, which holds the event's lock at some of these points:
    SIGTERM's handler (``Event.set``) waited there for that lock forever, and a
    KeyboardInterrupt raised just after ``Condition.__enter__`` took it left it taken,
    so that close's ``Event.set`` waited forever (both hung here before)."""
    proc = subprocess.Popen([sys.executable, "-c", SIGNAL_IN_THE_LOOP, signame],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=DUMPS)
    try:
        out, err = _ended(proc, f"the {signame}s")
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and out.strip() == "ended 24", err
