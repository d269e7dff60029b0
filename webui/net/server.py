"""The server ``hanafuda serve`` runs: granian (Rust: hyper and tokio) serving the Flask
app through WSGI, in this process, with our thin layers in front of the app
(``webui.net.guard``).

Why granian (issue 68; the figures in the README's *Strangers on the Wi-Fi*): the
hand-hardened waitress layer read every byte of every connection on a Python event loop
that shared the interpreter with the cameras' inference; nineteen holes were found in it
over four rounds (chunked bodies copied per chunk, busy slow readers never closed,
7,000 cookie pairs, pipelined requests, ...). Here the connections, TLS, the HTTP/1.1
parsing (headers, chunked bodies, pipelining), slow readers and idle sockets are
granian's, outside the interpreter: Python runs only for a request whose head is
complete, on one of granian's blocking threads. What stays ours is what only the app
can judge, as a WSGI middleware before Flask parses anything (``webui.net.guard``): the
limits on a request's work, the fair shares per client address, and the early refusal
of an image upload from its header.

granian's own limits, as set here:

* ``header_read_timeout`` 10 s: a request's head (and a kept-alive connection's next
  one) must arrive within it, else the connection is closed;
* at most 100 header lines (hyper's fixed limit; a browser sends about 20): more are
  answered 431 before Python sees the request;
* ``backpressure`` 16,384 connections held at once (past it a newcomer waits for one
  to close), ``backlog`` 2048; the process's descriptor limit is raised to fit them, and
  the backpressure lowered to fit the limit where it cannot be raised. An idle
  connection costs granian about 4 kB (3,000 idle ones: 8 MB); at 2,048 of them a
  health check waited 9.4 s for the header deadline to close some;
* ``blocking_threads`` (``THREADS``, 256): the threads that run the app. Most of them
  wait (for a turn, an image worker, a body): ``webui.net.shares`` decides who runs,
  ``TURNS`` (16) at once (``hanafuda serve --threads``).

granian is driven through its worker class directly (``_granian.WSGIWorker``, as its
own ``granian.server.mt`` does for each worker thread), so that the app built here (with
the detector a test injects) is the one served and ``make_server`` keeps its shape:
bind (a port in use is ``OSError``), then ``run()``, ``close()``. The version is pinned
(pyproject.toml) and ``tests/test_web_serve.py`` runs it as a user does.

``LARGE_BLOCK`` 4 MiB: glibc's malloc hands blocks this large straight back to the
system when freed (``M_MMAP_THRESHOLD``; by default the threshold climbs to 32 MiB and
each thread keeps what it freed in its own arena).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import resource
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any, Callable

from granian._futures import _new_cbscheduler
from granian._granian import SocketHolder, WorkerSignal, WSGIWorker
from granian._loops import loops
from granian.http import HTTP1Settings
from granian.wsgi import _callback_wrapper

from webui.net.guard import Guard, Limits
from webui.net.shares import Shares

THREADS = 256               # granian's blocking threads: most wait (see the module)
TURNS = 16                  # requests running in the app at once (webui.net.shares)
BACKLOG = 2048
CONNECTIONS = 16384         # connections held at once (granian's backpressure)
HEADER_DEADLINE = 10.0
LARGE_BLOCK = 4 * 1024 * 1024
POLL = 0.1                  # the main thread's sleep between looks at a stop flag


class Server:
    """A bound granian server for a WSGI app: ``run()`` serves until ``close()``."""

    def __init__(self, app: Any, sock: socket.socket, threads: int,
                 tls: tuple[Path, Path] | None, header_deadline: float,
                 connections: int = CONNECTIONS) -> None:
        self.app = app
        self.shares: Shares | None = app.shares if isinstance(app, Guard) else None
        self.socket = sock
        self.effective_host, self.effective_port = sock.getsockname()[:2]
        self._signal = WorkerSignal()
        self._stopped = threading.Event()
        self._terminated = False                # set by the SIGTERM handler (no lock)
        self._drained = threading.Event()       # granian's runtime has stopped
        self._signal.add_cb(self._drained.set)
        self._started = False
        self._closed = False
        self._lock = threading.Lock()
        cert, key = (str(tls[0]), str(tls[1])) if tls is not None else (None, None)
        # granian.server.mt's worker thread, as it builds one: worker id, socket, IPC,
        # runtime threads, runtime blocking threads, blocking (Python) threads and their
        # idle timeout, backpressure, HTTP/1 only, its settings, no HTTP/2, no static
        # files, TLS (enabled, certificate, key, key password, minimum protocol, client
        # CA, CRLs, client verification), no metrics
        self._worker = WSGIWorker(
            1, (None, SocketHolder(os.dup(sock.fileno()), False, BACKLOG)), None,
            1, 512, max(1, threads), 30, connections, "1",
            HTTP1Settings(header_read_timeout=int(header_deadline * 1000), keep_alive=True),
            None, None, tls is not None, cert, key, None, "tls1.2", None, [], False,
            (None, None))
        self._loop = loops.get("asyncio")
        self._scheduler = _new_cbscheduler(self._loop, _callback_wrapper(app, {}, None),
                                           impl_asyncio=False)

    def start(self) -> None:
        """Serve in granian's threads; returns at once."""
        with self._lock:
            if not self._started and not self._closed:
                self._started = True
                self._worker.serve_mtr(self._scheduler, self._loop, self._signal)

    def run(self, ready: Callable[[], None] | None = None) -> None:
        """Serve until ``close()``; in the main thread also until SIGTERM (then return)
        or Ctrl-C (KeyboardInterrupt, as anywhere else in the command: granian's
        runtime takes SIGINT over as it starts, so Python's handler is put back). A Ctrl-C
        while it starts closes it too: granian's threads left serving as the interpreter
        ends abort the process. ``ready`` is called once it serves and Python's handlers
        are back (the command says where to open the page then)."""
        try:
            self.start()
            main = threading.current_thread() is threading.main_thread()
            if main:
                signal.signal(signal.SIGINT, signal.default_int_handler)
                signal.signal(signal.SIGTERM, self._on_sigterm)
            if ready is not None:
                ready()
            if main:
                while not (self._terminated or self._stopped.is_set()):
                    time.sleep(POLL)            # see _wait: no lock held here
            else:
                self._stopped.wait()
        finally:
            self.close()

    def _on_sigterm(self, signum: int, frame: object) -> None:
        """SIGTERM's handler: only a flag, read by ``run``'s loop (see ``_wait``)."""
        self._terminated = True

    def close(self, wait: float = 10.0) -> None:
        """Stop serving: the requests being served are finished (for at most ``wait``
        seconds), so that granian's threads are done with Python before it exits."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._stopped.set()
            started = self._started
            if started:
                self._signal.set()
        self.socket.close()
        if started:
            _wait(self._drained, wait)


def _wait(event: threading.Event, timeout: float) -> bool:
    """Wait at most ``timeout`` seconds for ``event``; whether it is set. In the main
    thread it sleeps and looks at the event's flag, holding no lock, instead of
    ``Event.wait``: Python runs a signal's handler in the main thread between any two
    bytecodes, also while ``Event.wait`` holds the event's lock. A SIGTERM handler that
    set the event there waited for that lock forever, and a Ctrl-C's KeyboardInterrupt
    raised just after ``Condition.__enter__`` took it left it taken (no ``__exit__``), so
    that ``close()``'s ``set()`` waited forever: ``hanafuda serve`` hung after SIGTERM or
    Ctrl-C in about 1 run in 40 (``tests/test_web_serve.py``)."""
    if threading.current_thread() is not threading.main_thread():
        return event.wait(timeout)
    deadline = time.monotonic() + timeout
    while not event.is_set():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(POLL, left))
    return True


def _return_large_blocks(size: int = LARGE_BLOCK) -> bool:
    """Make malloc give blocks of ``size`` bytes or more back to the system when they
    are freed (glibc ``mallopt(M_MMAP_THRESHOLD)``); False where that is not glibc."""
    m_mmap_threshold = -3
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(m_mmap_threshold, size))
    except (OSError, AttributeError):
        return False


def _raise_fd_limit(connections: int) -> int:
    """Room for ``connections`` sockets and the files beside them (SQLite, models); the
    connections that fit the limit as it is then."""
    spare = 256
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = connections + spare
    if soft != resource.RLIM_INFINITY and soft < want:
        soft = want if hard == resource.RLIM_INFINITY else min(want, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        except (ValueError, OSError):
            soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return connections
    return max(64, min(connections, soft - spare))


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (OSError when it cannot be bound)."""
    host = host.strip("[]") or "0.0.0.0"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    infos = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # no Nagle: an answer's head and body go out at once, never 40 ms apart waiting
        # for the client's delayed ACK (the accepted connections inherit it on Linux)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(infos[0][4])
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def make_server(app: Any, host: str, port: int, threads: int = TURNS,
                tls: tuple[Path, Path] | None = None, *,
                header_deadline: float = HEADER_DEADLINE,
                limits: Limits | None = None, shares: Shares | None = None) -> Server:
    """granian serving ``app`` (behind ``webui.net.guard``, ``threads`` requests in the
    app at once) on ``host:port``, HTTPS with ``tls`` (the certificate and key files).
    OSError when the address cannot be bound."""
    connections = _raise_fd_limit(CONNECTIONS)
    _return_large_blocks()
    sock = listen(host, port)
    guarded = Guard.for_app(app, limits=limits, shares=shares or Shares(running=threads))
    guarded.shares.bans.attach(sock)        # addresses refused often shut out at the socket
    return Server(guarded, sock, THREADS, tls, header_deadline, connections)
