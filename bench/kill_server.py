"""Crash safety of the game log: SIGKILL ``hanafuda serve`` at random moments while
clients save piles, correct cards and confirm rounds through the HTTP API; after each
restart check ``PRAGMA integrity_check`` and that everything the API acknowledged is
there.

    .venv/bin/python -m bench.kill_server [--kills 100] [--clients 3] [--seed 0]

Each cycle starts ``hanafuda serve --db <tmp>/games.db`` in a subprocess, lets the
clients resume their games where the server has them (a request in flight at the kill
may or may not have been committed) and play on, and kills the server with SIGKILL
after a random delay (one cycle in ten during start-up, before it answers). After each
restart: ``PRAGMA integrity_check`` is ``ok``, ``PRAGMA foreign_key_check`` finds
nothing, and every acknowledged game, confirmed round (with its piles) and saved pile
is present as acknowledged. Prints kills, acknowledged rounds, rounds lost.
"""

from __future__ import annotations

import argparse
import http.client
import random
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from support.servers import Client, Server

PLAYERS = ["Ann", "Bob"]
ROUNDS_PER_GAME = 48
DOWN = (OSError, http.client.HTTPException)       # the server went away mid-request


@dataclass
class Ledger:
    """What the API acknowledged (a 2xx answer), and what was in flight at a kill."""
    games: set = field(default_factory=set)
    rounds: dict = field(default_factory=dict)       # (game, n) -> {owner: codes}
    piles: dict = field(default_factory=dict)        # (game, n, owner) -> codes
    in_flight: dict = field(default_factory=dict)    # (game, n, owner) -> codes maybe saved
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class KillReport:
    kills: int = 0
    kills_during_startup: int = 0
    rounds_acked: int = 0
    games_acked: int = 0
    piles_acked: int = 0
    requests: int = 0
    cut_off: int = 0              # requests in flight when the server was killed
    rounds_lost: int = 0
    piles_lost: int = 0
    games_lost: int = 0
    integrity_failures: int = 0
    restart_failures: int = 0
    statuses: Counter = field(default_factory=Counter)
    problems: list = field(default_factory=list)

    def ok(self) -> bool:
        return not (self.rounds_lost or self.piles_lost or self.games_lost
                    or self.integrity_failures or self.restart_failures)

    def report(self, out: Callable[[str], None] = print) -> None:
        out(f"kills: {self.kills} (SIGKILL; {self.kills_during_startup} during start-up)")
        out(f"requests answered: {self.requests}; cut off by a kill: {self.cut_off}; statuses: "
            + ", ".join(f"{k}: {v}" for k, v in sorted(self.statuses.items())))
        out(f"acknowledged: {self.games_acked} games, {self.rounds_acked} confirmed rounds, "
            f"{self.piles_acked} pile saves/corrections")
        out(f"rounds lost: {self.rounds_lost}; piles lost: {self.piles_lost}; "
            f"games lost: {self.games_lost}")
        integrity = (f"{self.integrity_failures} FAILED" if self.integrity_failures
                     else "ok after every restart")
        out(f"integrity_check: {integrity}"
            f"; restarts that failed: {self.restart_failures}")
        for p in self.problems[:10]:
            out("  " + str(p)[:300])


class Player(threading.Thread):
    """One client: plays its own game (two players, up to 48 rounds), round after round,
    until the server dies under it."""

    def __init__(self, port: int, ledger: Ledger, report: KillReport, game: int | None,
                 seed: int) -> None:
        super().__init__(daemon=True)
        self.client = Client(port, timeout=20)
        self.ledger = ledger
        self.report = report
        self.game = game
        self.rng = random.Random(seed)

    def call(self, method: str, url: str, body: Any = None) -> tuple[int, Any]:
        status, data, _ = self.client.call(method, url, body)
        with self.ledger.lock:
            self.report.requests += 1
            self.report.statuses[status] += 1
        return status, data

    def run(self) -> None:
        try:
            while True:
                self.step()
        except DOWN:
            with self.ledger.lock:
                self.report.cut_off += 1
        finally:
            self.client.close()

    def step(self) -> None:
        led = self.ledger
        if self.game is None:
            status, data = self.call("POST", "/api/games",
                                     {"players": PLAYERS, "rounds": ROUNDS_PER_GAME})
            if status == 201:
                with led.lock:
                    led.games.add(data["id"])
                self.game = data["id"]
            return
        status, game = self.call("GET", f"/api/games/{self.game}")
        if status != 200:
            self.report.problems.append(("game unreadable", self.game, status, game))
            self.game = None
            return
        n = game["open_round"]
        if n is None:                                    # finished: start another
            self.game = None
            return
        from scorer.cards import CODES
        deck = list(CODES)                  # the same deal when a round is resumed
        deal = random.Random(self.game * 1000 + n)
        deal.shuffle(deck)
        piles = {"Ann": deck[:deal.randint(0, 20)], "Bob": deck[20:20 + deal.randint(0, 20)]}
        spare = {"Ann": deck[45], "Bob": deck[46]}
        url = f"/api/games/{self.game}/rounds/{n}"
        for owner, codes in piles.items():
            key = (self.game, n, owner)
            with led.lock:
                led.in_flight[key] = codes
            saved = next((r["piles"].get(owner) for r in game["rounds"] if r["number"] == n),
                         None)             # a resumed round: the version it has now
            status, data = self.call("PUT", url + "/piles", {"owner": owner, "codes": codes,
                                                             "version": saved["version"]
                                                             if saved else 0})
            if status != 200:
                self.report.problems.append(("pile refused", key, status, data))
                return
            self.ack_pile(key, data["pile"]["codes"])
            if codes and self.rng.random() < 0.3:        # a hand correction
                old = codes[0]
                new = spare[owner]
                with led.lock:
                    led.in_flight[key] = [new] + codes[1:]
                status, data = self.call("POST", url + "/corrections",
                                         {"owner": owner, "action": "replace",
                                          "old_code": old, "new_code": new,
                                          "version": data["pile"]["version"]})
                if status != 201:
                    self.report.problems.append(("correction refused", key, status, data))
                    return
                self.ack_pile(key, data["pile"]["codes"])
        status, data = self.call("POST", url + "/confirm", {})
        if status != 200:
            self.report.problems.append(("confirm refused", (self.game, n), status, data))
            return
        stored = {o: p["codes"] for o, p in
                  next(r for r in data["game"]["rounds"] if r["number"] == n)["piles"].items()}
        with led.lock:
            led.rounds[(self.game, n)] = stored
            self.report.rounds_acked += 1

    def ack_pile(self, key: tuple, codes: list[str]) -> None:
        with self.ledger.lock:
            self.ledger.piles[key] = list(codes)
            self.ledger.in_flight.pop(key, None)
            self.report.piles_acked += 1


def check_database(db: Path, report: KillReport) -> None:
    conn = sqlite3.connect(str(db), timeout=30)
    try:
        result = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
        fk = conn.execute("PRAGMA foreign_key_check").fetchall()
    finally:
        conn.close()
    if result != ["ok"] or fk:
        report.integrity_failures += 1
        report.problems.append(("integrity", result[:3], fk[:3]))


def check_acknowledged(port: int, ledger: Ledger, report: KillReport) -> None:
    """Everything acknowledged is there: games, confirmed rounds with their piles, and
    the last acknowledged state of each pile of an open round (or its in-flight one)."""
    client = Client(port, timeout=30)
    with ledger.lock:
        games = sorted(ledger.games)
        rounds = dict(ledger.rounds)
        piles = dict(ledger.piles)
        in_flight = dict(ledger.in_flight)
    try:
        for gid in games:
            status, game, _ = client.call("GET", f"/api/games/{gid}")
            if status != 200:
                report.games_lost += 1
                report.problems.append(("game lost", gid, status))
                continue
            stored = {r["number"]: r for r in game["rounds"]}
            for (g, n), acked in rounds.items():
                if g != gid:
                    continue
                r = stored.get(n)
                have = {o: p["codes"] for o, p in r["piles"].items()} if r else None
                if not r or not r["confirmed"] or have != acked:
                    report.rounds_lost += 1
                    report.problems.append(("round lost", g, n, acked, r and r["confirmed"], have))
            for (g, n, owner), codes in piles.items():
                if g != gid or (g, n) in rounds:
                    continue
                r = stored.get(n)
                have = r["piles"].get(owner, {}).get("codes") if r else None
                if have != codes and have != in_flight.get((g, n, owner)):
                    report.piles_lost += 1
                    report.problems.append(("pile lost", g, n, owner, codes, have))
    finally:
        client.close()


def run_kills(kills: int = 100, clients: int = 3, seed: int = 0, min_delay: float = 0.05,
              max_delay: float = 1.2, workdir: Path | None = None,
              out: Callable[[str], None] = print) -> KillReport:
    rng = random.Random(seed)
    report = KillReport()
    ledger = Ledger()
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        db = Path(tmp) / "games.db"
        log = Path(tmp) / "server.log"
        games: list[int | None] = [None] * clients
        t0 = time.perf_counter()
        for cycle in range(kills + 1):
            server = Server.hanafuda(db, log)
            if cycle < kills and rng.random() < 0.1:          # die while starting up
                time.sleep(rng.uniform(0.0, 0.6))
                server.kill()
                report.kills += 1
                report.kills_during_startup += 1
                continue
            try:
                server.wait_ready(timeout=60)
            except RuntimeError as exc:
                report.restart_failures += 1
                report.problems.append(("restart failed", str(exc)[-300:]))
                server.kill()
                break
            check_database(db, report)
            check_acknowledged(server.port, ledger, report)
            if cycle == kills:                                # the final check only
                server.stop()
                break
            players = [Player(server.port, ledger, report, games[i], seed * 1000 + cycle * 10 + i)
                       for i in range(clients)]
            for p in players:
                p.start()
            time.sleep(rng.uniform(min_delay, max_delay))
            server.kill()
            report.kills += 1
            for i, p in enumerate(players):
                p.join(30)
                games[i] = p.game
            if (cycle + 1) % 10 == 0:
                out(f"  {cycle + 1} kills, {report.rounds_acked} rounds acknowledged, "
                    f"{report.rounds_lost} lost, {time.perf_counter() - t0:.0f} s")
        report.games_acked = len(ledger.games)
        # the last verification, after a clean final restart, covers everything
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kills", type=int, default=100)
    p.add_argument("--clients", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-delay", type=float, default=1.2,
                   help="longest run before a kill, seconds (default 1.2)")
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    report = run_kills(a.kills, a.clients, a.seed, max_delay=a.max_delay)
    report.report()
    print(f"took {time.perf_counter() - t0:.0f} s")
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
