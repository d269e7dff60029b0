"""The waitress server ``hanafuda serve`` runs, with its connection settings chosen for a
LAN of phones and laptops where a stranger on the Wi-Fi may be hostile, HTTPS when it is
given a TLS context, and its own error answers (400 for a malformed request, 413, 431
for a huge header, 500) carrying the page's security headers.

waitress reads every request (headers and body) on its one event loop and hands only a
complete one to a request thread, so a slow sender never holds a thread. What it lacks,
added here. Its rules count clients by their IP address, loopback ones too: 127.0.0.2 is
loopback (this machine: a loopback server asks it no token, ``webui.app.security.is_loopback``),
and a client apart from 127.0.0.1 (as the tests and ``bench.attack_server`` use it):

* **A deadline for a whole request's headers** (``header_deadline`` 10 s): a connection
  must have sent its request line and headers within 10 s of its first byte (and of
  its opening, with TLS its handshake included); one byte every few seconds no longer
  keeps a socket for ever. A body must be complete within ``request_deadline`` (120 s).
* **A cap on connections per client address** (``per_address`` 32): beyond it a new
  connection from that address is closed at once, so one host cannot take the
  ``connection_limit`` for everyone. Pending connections are accepted in batches.
* **Room for the clients with the token** (``webui.net.connections``): a connection is
  unproven until a request of its own carries the token; unproven ones together are
  capped at ``unproven_limit`` (768), the oldest idle one closed for a new arrival, so
  many addresses' idle sockets never fill the ``connection_limit`` and a camera or a
  health check with the token always gets in.
* **Room for a new connection** (``webui.net.connections``): all connections together,
  with the token or not, stay ``ROOM`` under the ``connection_limit``; past that, an
  idle one of the address holding the most is closed for the newcomer, so a guest with
  the token cannot fill the limit with kept-alive connections either.
* **Fair request threads** (``webui.net.dispatcher``): turns per client address, and the
  requests without the access token behind the others, on at most two threads.

Why each number (waitress's defaults in brackets):

* ``connection_limit`` 1000 [100]: at the limit waitress stops accepting until a
  connection closes. A connection costs a file descriptor and a few kB, so the limit is
  high and the process's descriptor limit is raised to fit it. Connections without the
  token are kept under ``UNPROVEN_LIMIT`` (768), so only the clients with it could
  ever bring it to that limit.
* ``channel_timeout`` 15 s [120] and ``cleanup_interval`` 2 s [30]: an idle connection
  is closed 15-17 s after its last byte. A camera posts every 250 ms and a page polls
  never, so only idle and stalled sockets are closed; a browser reconnects by itself.
* ``asyncore_use_poll`` [off]: select() cannot watch more than 1024 descriptors.
* ``threads`` 16 [4]: the request threads mostly wait for the image workers
  (``webui.images.scheduler``, one a core) or SQLite; every camera's request should be in
  the scheduler's fair queue, not in a first-come queue before it.
* ``max_request_header_size`` 64 kB [256 kB]: the page's headers are under 2 kB.
* ``recv_bytes`` 256 kB [8 kB]: the event loop (which every camera frame comes through,
  holding the GIL) takes each body in pieces of this size. At 8 kB, a 7.8 MB photo took
  950 turns of the loop, each a recv and an append to the body's buffer (a temporary
  file: a tell, two seeks and a write); 256 kB is the size waitress copies such a buffer
  in. Over TLS a read still returns at most one record (16 kB).
* ``max_request_body_size``: the app's upload cap and a little: waitress buffers a body
  before the app sees it, so it refuses the larger ones itself [1 GB]: it reads a body
  up to ``webui.net.oversize.DRAIN_MAX`` into nothing (under the request deadline) and
  answers the API's JSON 413, so the client reads the status instead of a connection
  reset; over TLS the same.
* ``LARGE_BLOCK`` 4 MiB: glibc's malloc hands blocks this large straight back to the
  system when freed (``M_MMAP_THRESHOLD``; by default the threshold climbs to 32 MiB and
  each thread keeps what it freed in its own arena): beside two senders of 40 MP
  progressive JPEGs the server held 370 MiB, every request thread keeping a 6 MB body
  and every image worker a 120 MB decode it had long finished with.
"""

from __future__ import annotations

import ctypes
import functools
import ctypes.util
import logging
import resource
import socket
import ssl
import struct
import threading
import time
from typing import Any, Callable

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ErrorTask

from webui.net.connections import Connections, peer
from webui.net.dispatcher import FairDispatcher
from webui.net import early
from webui.net.oversize import DRAIN_MAX
from webui.app import edge
from webui.app.edge import security_headers

SETTINGS: dict[str, Any] = {
    "connection_limit": 1000,
    "channel_timeout": 15,
    "cleanup_interval": 2,
    "asyncore_use_poll": True,
    "max_request_header_size": 64 * 1024,
    "recv_bytes": 256 * 1024,
    "ident": "hanafuda-scorer",
    "clear_untrusted_proxy_headers": True,
}
THREADS = 16
HEADER_DEADLINE = 10.0
REQUEST_DEADLINE = 120.0
PER_ADDRESS = 32
UNPROVEN_LIMIT = 768        # connections without the token yet, of the 1000
ROOM = 16                   # of the connection limit: the listening sockets' (and a margin)
GUEST_THREADS = 2
ACCEPT_BATCH = 64
LARGE_BLOCK = 4 * 1024 * 1024
log = logging.getLogger("webui.net.server")


class HeaderedErrorTask(ErrorTask):
    """waitress's own error answer, with the security headers every answer carries."""

    def execute(self) -> None:
        # ErrorTask.execute, with the headers added before the body is written (the
        # first write sends the header)
        status, headers, body = self.request.error.to_response(self.channel.server.adj.ident)
        self.status = status
        self.response_headers.extend(headers)
        self.response_headers.extend(security_headers("/api/"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class Channel(HTTPChannel):
    """A connection: waitress's, timing the request it is reading (``started``: when its
    first byte came, or when the connection opened for the first request)."""

    error_task_class = HeaderedErrorTask

    def __init__(self, server: Any, sock: socket.socket, addr: Any, adj: Any,
                 map: Any = None) -> None:
        self.started: float | None = time.monotonic()     # before the first request
        self.addr = addr                # counted per address as the loop adds it
        self._counted = False
        parser = type(self).parser_class
        if isinstance(parser, type) and issubclass(parser, early.PeekingParser):
            # each request's parser knows its peer's address (for webui.net.early)
            self.parser_class = functools.partial(parser, peer=peer(addr))
        super().__init__(server, sock, addr, adj, map=map)

    def received(self, data: bytes) -> bool:
        if self.request is None and self.started is None and data:
            self.started = time.monotonic()
        done = super().received(data)
        if self.request is None:                # nothing half-read: no deadline runs
            self.started = None
        return done

    def overdue(self, now: float, header_deadline: float, request_deadline: float) -> bool:
        """Whether the request being read has run past its deadline (never while one
        is being served: then the client waits for us)."""
        if self.started is None or self.will_close or self.requests:
            return False
        took = now - self.started
        request = self.request
        if request is None or not request.headers_finished:
            return took > header_deadline
        return took > request_deadline

    def add_channel(self, map: Any = None) -> None:
        super().add_channel(map)
        if not self._counted:
            self._counted = True
            self.server.connections.opened(self)

    def del_channel(self, map: Any = None) -> None:
        if self._counted:
            self._counted = False
            self.server.connections.closed(self)
        super().del_channel(map)


class TLSChannel(Channel):
    """A connection over TLS on waitress's event loop: the handshake is driven by the
    loop without blocking, every byte read is drained from the TLS layer at once (so no
    request waits in its buffer unseen by poll), and the TLS object is used by one thread
    at a time. A plain-HTTP request is answered with a redirect to ``https://``."""

    def __init__(self, server: Any, sock: socket.socket, addr: Any, adj: Any,
                 map: Any = None) -> None:
        self._tls_lock = threading.RLock()
        self._handshaken = False
        self._wrapped = False
        self._want_write = False
        self._plain: bytes | None = None        # a plain-HTTP request's bytes so far
        super().__init__(server, sock, addr, adj, map=map)

    # ---------------------------------------------------------------- handshake
    def _handshake(self) -> bool:
        """One step of the handshake; True once it is done."""
        if not self._wrapped:
            if not self._looks_like_tls():
                return False
            self.socket: Any = self.server.tls.wrap_socket(
                self.socket, server_side=True, do_handshake_on_connect=False)
            self._wrapped = True
        try:
            with self._tls_lock:
                self.socket.do_handshake()
        except ssl.SSLWantReadError:
            self._want_write = False
            return False
        except ssl.SSLWantWriteError:
            self._want_write = True
            return False
        except (ssl.SSLError, OSError, ValueError):
            self.handle_close()
            return False
        self._want_write = False
        self._handshaken = True
        return True

    def _looks_like_tls(self) -> bool:
        """The first byte says it: a TLS handshake record, else a plain-HTTP request,
        read (not peeked, so the loop does not spin on it) until its headers end and
        answered with a redirect."""
        try:
            if self._plain is None:
                first = self.socket.recv(1, socket.MSG_PEEK)
                if first and first[0] == 0x16:
                    return True
                self._plain = b""
                if not first:
                    self.handle_close()
                    return False
            chunk = self.socket.recv(4096)
        except BlockingIOError:
            return False
        except OSError:
            self.handle_close()
            return False
        if not chunk:
            self.handle_close()
            return False
        self._plain += chunk
        if b"\r\n\r\n" in self._plain or len(self._plain) >= 4096:
            self._redirect(self._plain)
        return False

    def _redirect(self, head: bytes) -> None:
        """A plain-HTTP request on the HTTPS port: 301 to the same URL over https."""
        lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        path = parts[1] if len(parts) == 3 and parts[1].startswith("/") \
            and not parts[1].startswith("//") and parts[1].isprintable() else "/"
        host = next((line.split(":", 1)[1].strip() for line in lines[1:]
                     if line.lower().startswith("host:")), "")
        if not host or any(c in host for c in " /\\@?#") or not host.isprintable():
            body, status, location = b"This server speaks HTTPS only.\n", "400 Bad Request", ""
        else:
            body, status = b"Use https.\n", "301 Moved Permanently"
            location = f"Location: https://{host}{path}\r\n"
        extra = "".join(f"{k}: {v}\r\n" for k, v in security_headers("/api/"))
        answer = (f"HTTP/1.1 {status}\r\n{location}Content-Type: text/plain\r\n"
                  f"Content-Length: {len(body)}\r\nConnection: close\r\n{extra}\r\n"
                  ).encode("latin-1") + body
        try:
            self.socket.send(answer)
        except OSError:
            pass
        self.handle_close()

    # ---------------------------------------------------------------- the loop's hooks
    def readable(self) -> bool:
        return (not self._handshaken and not self._want_write) or super().readable()

    def writable(self) -> bool:
        if not self._handshaken:
            return self._want_write or self.will_close
        return bool(super().writable())

    def handle_read(self) -> None:
        if not self._handshaken:
            if not self._handshake():
                return
        while self.socket is not None:
            try:
                with self._tls_lock:
                    data = self.socket.recv(self.adj.recv_bytes)
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
                break
            except (ssl.SSLError, OSError, ValueError):
                self.handle_close()
                return
            if not data:                        # the client closed the connection
                self.handle_close()
                return
            self.last_activity = time.time()
            self.received(data)

    def handle_write(self) -> None:
        if not self._handshaken:
            if self.will_close:
                self.handle_close()
            elif self._handshake():
                self.handle_read()              # a request may have come with it
            return
        super().handle_write()

    def send(self, data: bytes, do_close: bool = True) -> int:
        if not self._handshaken:
            return 0
        try:
            with self._tls_lock:
                if self.socket is None:
                    return 0
                return int(self.socket.send(data))
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
            return 0
        except (ssl.SSLError, OSError, ValueError):
            if do_close:
                self.handle_close()
            return 0

    def close(self) -> None:
        with self._tls_lock:
            super().close()


class Server(TcpWSGIServer):
    """waitress's TCP server with the per-address cap and the request deadlines."""

    connections: Connections
    tls: ssl.SSLContext | None = None
    header_deadline = HEADER_DEADLINE
    request_deadline = REQUEST_DEADLINE

    def handle_accept(self) -> None:
        for _ in range(ACCEPT_BATCH):           # drain the backlog: refusing is cheap
            try:
                pair = self.accept()
                if pair is None:
                    return
                conn, addr = pair
                if self.connections.full(peer(addr)):
                    self.connections.refused += 1
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                    struct.pack("ii", 1, 0))     # reset: no TIME_WAIT here
                    conn.close()
                    continue
                self.set_socket_options(conn)
            except OSError:
                return
            for victim in self.connections.victims():
                self.connections.shed += 1
                _reset(victim)
            for victim in self.connections.make_room():
                self.connections.crowded += 1
                _reset(victim)
            self.channel_class(self, conn, self.fix_addr(addr), self.adj, map=self._map)

    def maintenance(self, now: float) -> None:
        super().maintenance(now)                # idle connections
        mono = time.monotonic()
        for channel in list(self.active_channels.values()):
            if isinstance(channel, Channel) and \
                    channel.overdue(mono, self.header_deadline, self.request_deadline):
                channel.will_close = True       # closed by the loop's next turn


def _reset(channel: Any) -> None:
    """Close a connection at once, with a reset (no TIME_WAIT kept here for it)."""
    try:
        channel.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except (OSError, AttributeError):
        pass
    channel.handle_close()


def _return_large_blocks(size: int = LARGE_BLOCK) -> bool:
    """Make malloc give blocks of ``size`` bytes or more back to the system when they
    are freed (glibc ``mallopt(M_MMAP_THRESHOLD)``); False where that is not glibc."""
    m_mmap_threshold = -3
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(m_mmap_threshold, size))
    except (OSError, AttributeError):
        return False


def _raise_fd_limit(connections: int) -> None:
    """Room for ``connections`` sockets and the files beside them (SQLite, models)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = connections + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))


def make_server(app: Any, host: str, port: int, threads: int = THREADS,
                tls: ssl.SSLContext | None = None, *,
                header_deadline: float = HEADER_DEADLINE,
                request_deadline: float = REQUEST_DEADLINE,
                per_address: int = PER_ADDRESS, guest_threads: int = GUEST_THREADS,
                unproven_limit: int = UNPROVEN_LIMIT,
                admits: Callable[[Any], bool] | None = None,
                judge: edge.Judge | None = None, **overrides: Any) -> Any:
    """A waitress server for ``app`` on ``host:port`` with ``SETTINGS`` (``overrides``
    win; the tests shorten the timeouts), HTTPS with ``tls``. ``admits(channel)``: whether
    the request a channel is about to serve carries the access token (default: the
    app's ``webui.app.security.admits``). OSError when the address cannot be bound."""
    settings = {**SETTINGS, **overrides}
    app_cap = int(app.config.get("MAX_CONTENT_LENGTH") or 8 * 1024 * 1024)
    cap = int(settings.pop("max_request_body_size", 0) or app_cap + 65536)
    settings["max_request_body_size"] = max(cap + 1, DRAIN_MAX)
    if tls is not None:
        settings["url_scheme"] = "https"
    _raise_fd_limit(int(settings["connection_limit"]))
    _return_large_blocks()
    # waitress warns "Task queue depth is N" whenever a request waits for a thread (a page
    # load fetches a few files at once): ordinary here, and alarming to read
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    adj = Adjustments(host=host, port=port, threads=threads, **settings)
    if admits is None:
        admits = edge.admits_for(app)
    most = max(1, int(settings["connection_limit"]) - ROOM)
    shared = Connections(per_address, max(1, min(unproven_limit, most)), most)
    dispatcher = FairDispatcher(admits, guest_threads, proven=shared.proven)
    dispatcher.set_thread_count(threads)
    if judge is None and "hanafuda" in getattr(app, "extensions", {}):
        judge = edge.judge_for(app)
    # bodies over the cap drained and answered with the JSON 413 (webui.net.oversize), the
    # uploads the scheduler would refuse with a 503 (webui.net.early), on plain and TLS
    # connections alike
    channel_class = type("Channel", (TLSChannel if tls is not None else Channel,),
                         {"parser_class": early.parser_for(cap, app_cap, judge)})
    socket_map: dict = {}
    servers = []
    try:
        for sockinfo in adj.listen:
            server = Server(app, socket_map, dispatcher=dispatcher, adj=adj, sockinfo=sockinfo)
            server.channel_class = channel_class
            server.tls, server.connections = tls, shared
            server.header_deadline, server.request_deadline = header_deadline, request_deadline
            servers.append(server)
    except OSError:
        for s in servers:
            s.close()
        dispatcher.shutdown()
        raise
    if len(servers) == 1:
        return servers[0]
    listen = [(s.effective_host, s.effective_port) for s in servers]
    multi = MultiSocketServer(socket_map, adj, listen, dispatcher, servers[-1].log_info)
    multi.effective_port = servers[0].effective_port
    return multi
