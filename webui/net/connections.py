"""The open connections of ``hanafuda serve``, counted per client address, and the ones
that have not yet shown the access token shed first when there are too many.

Issue 45: 25 idle sockets from each of 40 addresses stay under the per-address cap, but
together they filled waitress's connection limit, and at the limit waitress stops
accepting: a camera or a health check with the token could not even connect. Here a
connection is **unproven** until a request of its own carries the token (or the
cookie), as the request threads judge it (``webui.net.dispatcher``); then it is **proven**
and never shed for a stranger. Unproven connections together are capped
(``unproven_limit``, below the connection limit, so room is always left for the proven
ones and waitress never stops accepting because of strangers): when a new connection
would pass the cap, the oldest unproven one is closed first, preferring, in order,

1. one from an address that never showed the token, with no request half-read or
   waiting to be served (an idle or trickling socket: what an attacker holds);
2. one from such an address that is reading a request (its headers done, its body
   still coming: a large upload whose token is not yet seen is spared while there is
   anything idler to close);
3. any unproven one, the oldest first (an address that showed the token may have
   opened it, a browser's spare connection: it reconnects by itself).

A new connection is the newest, so it is closed last: it has ``unproven_limit`` newer
arrivals' time to send its request, and a client's request arrives in milliseconds.

An address that never showed the token and had a connection closed this way may open
no new one for ``PENALTY`` seconds (refused at accept, as over the per-address cap):
else it re-opens each one at once, and every new connection costs the event loop a
channel (and over TLS a handshake's start) only to close an older one. Measured with 40
addresses re-opening 1000 sockets over HTTPS: about 11,000 connections a second and
0.6 of a core on the event loop, the camera beside it at 2.7 frames a second.

**Room for a new connection** (issue 49): a guest with the token proves every
connection it opens, and 25 kept-alive ones from each of 40 addresses filled the
connection limit all the same: waitress stopped accepting, and a camera that had never
connected (or a health check on a new connection) got nothing. So all connections
together, proven or not, are kept under ``most`` (the connection limit less a little,
for the listening sockets): when a new one would pass it, an idle connection (no
request being read, served or answered) of the address holding the most connections is
closed first, the longest idle of them; and at that limit a new connection from the
address holding the most is refused at accept instead (it would only close one of its
own, and re-opening as fast as it can would cost the event loop a channel each time).
A camera has one or two connections, so it is never the one; a browser whose spare
kept-alive connection is closed opens another. Only when every connection is busy does
the server stop accepting, as waitress does.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict
from typing import Any

KNOWN_FOR = 600.0           # seconds an address counts as known after its last token
KNOWN_MOST = 4096           # addresses remembered at most
PENALTY = 10.0              # seconds a stranger's address may not connect after a shed


def peer(addr: Any) -> str:
    """The IP of a socket address (``?`` when there is none)."""
    return str(addr[0]) if isinstance(addr, tuple) and addr else "?"


class Connections:
    """Open connections per client address, shared by the listening sockets, and the
    unproven ones in the order they opened (see the module)."""

    def __init__(self, per_address: int, unproven_limit: int, most: int | None = None) -> None:
        self.per_address = per_address
        self.unproven_limit = unproven_limit
        self.most = most if most is not None else 1 << 30     # all connections together
        self.count: Counter[str] = Counter()
        self.refused = 0                # closed at accept: over the per-address cap
        self.shed = 0                   # unproven ones closed for a newer connection
        self.crowded = 0                # idle ones closed to keep room for a new one
        self._unproven: OrderedDict[Any, None] = OrderedDict()
        self._open: dict[str, dict[Any, None]] = {}            # address -> its connections
        self._known: OrderedDict[str, float] = OrderedDict()    # address -> last token
        self._barred: OrderedDict[str, float] = OrderedDict()   # address -> until when
        self._lock = threading.Lock()   # proven() comes from the request threads

    def full(self, addr: str) -> bool:
        """Whether a new connection from ``addr`` is refused at accept: over the
        per-address cap, holding the most connections when all of them are at ``most``,
        or barred for a while after one of its sockets was shed."""
        held = self.count[addr]
        if held >= self.per_address:
            return True
        if held and self.total() >= self.most and held >= max(self.count.values()):
            return True                 # at the limit, the greediest address waits
        until = self._barred.get(addr)
        if until is None:
            return False
        if time.monotonic() < until:
            return True
        del self._barred[addr]
        return False

    def opened(self, channel: Any) -> None:
        ip = peer(channel.addr)
        self.count[ip] += 1
        with self._lock:
            self._unproven[channel] = None
            self._open.setdefault(ip, {})[channel] = None

    def closed(self, channel: Any) -> None:
        ip = peer(channel.addr)
        self.count[ip] -= 1
        if self.count[ip] <= 0:
            del self.count[ip]
        with self._lock:
            self._unproven.pop(channel, None)
            mine = self._open.get(ip)
            if mine is not None:
                mine.pop(channel, None)
                if not mine:
                    del self._open[ip]

    def total(self) -> int:
        return sum(self.count.values())

    def make_room(self) -> list[Any]:
        """The idle connections to close so that one more fits under ``most``: each the
        longest idle of the address holding the most connections (see the module);
        called on the event loop, after ``victims``."""
        over = self.total() - self.most + 1
        if over <= 0:
            return []
        chosen: list[Any] = []
        with self._lock:
            held = Counter({ip: len(mine) for ip, mine in self._open.items()})
            while len(chosen) < over and held:
                ip, _ = held.most_common(1)[0]
                idle = [c for c in self._open.get(ip, ()) if c not in chosen and not _busy(c)]
                if not idle:
                    del held[ip]                # all busy: the next address
                    continue
                chosen.append(min(idle, key=lambda c: getattr(c, "last_activity", 0.0)))
                held[ip] -= 1
        return chosen

    def proven(self, channel: Any) -> None:
        """``channel`` served a request with the token: never shed for a stranger."""
        with self._lock:
            self._unproven.pop(channel, None)
            ip = peer(getattr(channel, "addr", None))
            self._known.pop(ip, None)
            self._known[ip] = time.monotonic()
            while len(self._known) > KNOWN_MOST:
                self._known.popitem(last=False)

    def unproven(self) -> int:
        with self._lock:
            return len(self._unproven)

    def known(self, ip: str, now: float | None = None) -> bool:
        """Whether ``ip`` showed the token within ``KNOWN_FOR`` seconds."""
        seen = self._known.get(ip)
        return seen is not None and (now or time.monotonic()) - seen < KNOWN_FOR

    def victims(self) -> list[Any]:
        """The unproven connections to close so that one more fits under the cap, in
        the module's order of preference (called on the event loop)."""
        with self._lock:
            over = len(self._unproven) - self.unproven_limit + 1
            if over <= 0:
                return []
            now = time.monotonic()
            ranked: list[list[Any]] = [[], [], []]
            for channel in self._unproven:
                if self.known(peer(channel.addr), now):
                    ranked[2].append(channel)
                elif _reading(channel):
                    ranked[1].append(channel)
                else:
                    ranked[0].append(channel)
                if len(ranked[0]) >= over:
                    break
            chosen = [c for rank in ranked for c in rank][:over]
            for channel in chosen:
                ip = peer(channel.addr)
                if not self.known(ip, now):
                    self._barred.pop(ip, None)
                    self._barred[ip] = now + PENALTY
            while len(self._barred) > KNOWN_MOST:
                self._barred.popitem(last=False)
            return chosen


def _reading(channel: Any) -> bool:
    """Whether a connection has a whole request's headers in (its body coming, or it
    waiting to be served): not idle, not trickling its headers."""
    request = getattr(channel, "request", None)
    return bool(getattr(channel, "requests", None)) or \
        (request is not None and bool(getattr(request, "headers_finished", False)))


def _busy(channel: Any) -> bool:
    """Whether a connection is reading a request, serving one or sending its answer (a
    connection between kept-alive requests is idle)."""
    return bool(getattr(channel, "requests", None)) or getattr(channel, "request", None) \
        is not None or bool(getattr(channel, "total_outbufs_len", 0)) \
        or bool(getattr(channel, "will_close", False))
