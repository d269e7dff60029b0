"""Fair shares of the app per client address (``webui.net.guard`` asks for a turn before
a request reaches Flask).

granian hands every request whose head is complete to a blocking thread, first come
first served: one host with 40 connections would get 40 turns for every one of a camera
beside it. Here a request waits for its **turn** (on its thread, using no CPU):

* at most ``running`` requests run in the app at once; the next turn goes to the
  address with the fewest running (the one waiting longest among equals), and within an
  address its requests go in the order they came; one address runs at most
  ``per_address`` of them (a quarter stays for the others), so a camera beside a greedy
  host starts at once, while 8 tabs of one laptop alone get the whole machine;
* a request **without the access token** (it can only be refused) waits behind every
  one that has it, and at most ``guest_running`` of them run at once;
* one address has at most ``in_flight`` (64) requests in the server (running or
  waiting: 40 connections of one host posting frames wait their turns, using no CPU),
  a guest address ``guest_in_flight`` (4); beyond that it is answered 503 at once, as it is
  when all addresses together hold ``most`` and it holds its fair part of them (8, or
  ``most`` shared among the addresses), so waiting requests never hold every thread;
* an address that asks faster than ``rate`` requests a second (a burst of ``burst``
  aside) **while another address is being served** waits for its next one (issue 68,
  N17: 8 connections pipelining 500 health checks each ran Flask back to back, and the
  camera beside them, whose inference needs the interpreter between its C calls, fell
  to 1.2 fps). Alone, an address is never slowed.
* an address refused more than ``free_refusals`` times in ``refusal_window`` seconds
  (a flood of 7,000-cookie requests, N13b: 88,000 431s in 20 s, 0.9 of a core) has its
  further refusals answered only after ``pit`` seconds (``tarpit``), on at most
  ``pit_slots`` threads per address and ``pit_total`` in all (past them, at once): its
  connections then wait instead of asking again. Refused from its head that often, it
  is also shut out for a while at the listening socket (``webui.net.bans``: at 1,001
  connections the tarpit's threads were full and the rest asked again at once).
"""

from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict, deque
from dataclasses import dataclass, field
from typing import Iterator
from contextlib import contextmanager

from webui.net.bans import Bans


class Crowded(Exception):
    """The address holds too many requests in the server: answered 503 at once."""


@dataclass
class Bucket:
    """A token bucket: ``rate`` a second, ``burst`` at most."""

    rate: float
    burst: float
    level: float = field(default=0.0)
    at: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.level = self.burst

    def take(self, now: float) -> float:
        """Take one token; the seconds to wait for it (0: at once)."""
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        self.level -= 1.0
        return 0.0 if self.level >= 0 else -self.level / self.rate


class Shares:
    """Turns per client address (see the module)."""

    def __init__(self, running: int = 16, guest_running: int = 2, in_flight: int = 64,
                 guest_in_flight: int = 4, most: int = 192, rate: float = 60.0,
                 burst: float = 120.0, together: float = 2.0, free_refusals: int = 20,
                 refusal_window: float = 10.0, pit: float = 1.0, pit_slots: int = 32,
                 pit_total: int = 96, bans: Bans | None = None) -> None:
        self.running_most = max(1, running)
        self.per_address = max(1, running - max(1, running // 4))
        self.guest_running = max(1, guest_running)
        self.in_flight = max(1, in_flight)
        self.guest_in_flight = max(1, guest_in_flight)
        self.most = max(1, most)
        self.rate, self.burst, self.together = rate, burst, together
        self._cv = threading.Condition()
        self._waiting: OrderedDict[str, deque[object]] = OrderedDict()   # with the token
        self._guests: OrderedDict[str, deque[object]] = OrderedDict()    # without
        self._running: Counter[str] = Counter()
        self._held: Counter[str] = Counter()            # in the server: running or waiting
        self._guests_running = 0
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()
        self._seen: OrderedDict[str, float] = OrderedDict()      # address -> last request
        self.served: Counter[str] = Counter()           # turns given per address (tests)
        self.crowded = 0                                # answered 503 at once
        self.slowed = 0                                 # made to wait for its rate
        self.free_refusals, self.refusal_window = free_refusals, refusal_window
        self.pit, self.pit_slots, self.pit_total = pit, pit_slots, pit_total
        self._refusals: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self._pitted: Counter[str] = Counter()
        self.pitted = 0                                 # refusals made to wait
        self.bans = bans or Bans()                      # shut out at the socket

    # ---------------------------------------------------------------- the rate
    def _pace(self, ip: str, now: float) -> float:
        """Seconds ``ip`` waits for its rate (called holding the lock)."""
        self._seen.pop(ip, None)
        self._seen[ip] = now
        while len(self._seen) > 4096:
            self._seen.popitem(last=False)
        bucket = self._buckets.pop(ip, None) or Bucket(self.rate, self.burst)
        self._buckets[ip] = bucket
        while len(self._buckets) > 4096:
            self._buckets.popitem(last=False)
        wait = bucket.take(now)
        if wait <= 0:
            return 0.0
        others = any(a != ip and now - t < self.together for a, t in self._seen.items())
        if not others and not any(a != ip for a in self._held):
            bucket.level += 1.0                         # alone: not counted
            return 0.0
        self.slowed += 1
        return wait

    # ---------------------------------------------------------------- refusals
    def tarpit(self, ip: str, shut_out: bool = False) -> None:
        """Called before a refusal of ``ip`` is answered: wait ``pit`` seconds if the
        address is refused often (see the module), within the slots; ``shut_out`` (a
        refusal from the request's head): the address is then also shut out."""
        now = time.monotonic()
        with self._cv:
            count, since = self._refusals.pop(ip, (0, now))
            if now - since > self.refusal_window:
                count, since = 0, now
            self._refusals[ip] = (count + 1, since)
            while len(self._refusals) > 4096:
                self._refusals.popitem(last=False)
            often = count >= self.free_refusals
        if often and shut_out:
            self.bans.add(ip)
        with self._cv:
            if not often or self._pitted[ip] >= self.pit_slots \
                    or sum(self._pitted.values()) >= self.pit_total:
                return
            self._pitted[ip] += 1
            self.pitted += 1
        try:
            time.sleep(self.pit)
        finally:
            with self._cv:
                self._pitted[ip] -= 1
                if self._pitted[ip] <= 0:
                    del self._pitted[ip]

    # ---------------------------------------------------------------- turns
    def crowded_at(self, ip: str) -> bool:
        """Whether ``ip`` already holds the most any address may (checked before the
        request is read for its token: the cheapest refusal)."""
        if self._held[ip] < self.in_flight:         # a read without the lock: a hint
            return False
        with self._cv:
            if self._held[ip] < self.in_flight:
                return False
            self.crowded += 1
            return True

    @contextmanager
    def entry(self, ip: str, guest: bool) -> Iterator[None]:
        """Hold a place in the server for a request from ``ip`` (``guest``: without the
        token), after its rate's wait; Crowded when it may not even wait."""
        with self._cv:
            held = self._held[ip]
            fair = max(8, self.most // max(1, len(self._held)))
            if held >= (self.guest_in_flight if guest else self.in_flight) or (
                    sum(self._held.values()) >= self.most and held >= fair):
                self.crowded += 1
                raise Crowded(ip)
            self._held[ip] += 1
            pause = self._pace(ip, time.monotonic())
        try:
            if pause > 0:
                time.sleep(pause)
            yield
        finally:
            with self._cv:
                self._held[ip] -= 1
                if self._held[ip] <= 0:
                    del self._held[ip]

    @contextmanager
    def turn(self, ip: str, guest: bool) -> Iterator[None]:
        """Wait for a turn of the app, then hold it (within ``entry``)."""
        ticket = object()
        queues = self._guests if guest else self._waiting
        with self._cv:
            queues.setdefault(ip, deque()).append(ticket)
            try:
                while self._next() is not ticket:
                    self._cv.wait()
            except BaseException:
                self._drop(ip, queues, ticket)
                raise
            self._pop(ip, queues)
            self._running[ip] += 1
            self._guests_running += guest
            self.served[ip] += 1
            self._cv.notify_all()
        try:
            yield
        finally:
            with self._cv:
                self._running[ip] -= 1
                if self._running[ip] <= 0:
                    del self._running[ip]
                self._guests_running -= guest
                self._cv.notify_all()

    def _drop(self, ip: str, queues: OrderedDict[str, deque[object]], ticket: object) -> None:
        waiting = queues.get(ip)
        if waiting is not None and ticket in waiting:
            waiting.remove(ticket)
            if not waiting:
                del queues[ip]
        self._cv.notify_all()

    def _next(self) -> object | None:
        """The ticket whose turn it is now (called holding the lock), or None."""
        if sum(self._running.values()) >= self.running_most:
            return None
        if self._waiting:
            ready = [a for a in self._waiting if self._running[a] < self.per_address]
            if ready:
                who = min(ready, key=lambda a: self._running[a])     # first among ties
                return self._waiting[who][0]
            return None
        if self._guests and self._guests_running < self.guest_running:
            who = min(self._guests, key=lambda a: self._running[a])
            return self._guests[who][0]
        return None

    @staticmethod
    def _pop(ip: str, queues: OrderedDict[str, deque[object]]) -> None:
        waiting = queues.pop(ip)
        waiting.popleft()
        if waiting:
            queues[ip] = waiting                        # to the end: its turn is taken

    def snapshot(self) -> dict[str, object]:
        with self._cv:
            return {"running": dict(self._running), "held": dict(self._held),
                    "waiting": {a: len(q) for a, q in self._waiting.items()},
                    "guests_waiting": sum(len(q) for q in self._guests.values()),
                    "crowded": self.crowded, "slowed": self.slowed}
