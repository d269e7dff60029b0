"""Hardening, crash safety: bench/kill_server.py at a small count. `hanafuda serve` is
killed with SIGKILL; after each restart the database passes `PRAGMA integrity_check`
and every round (and pile) the API acknowledged is there."""

from __future__ import annotations

from pathlib import Path

from support.servers import Server
from bench.kill_server import (KillReport, Ledger, Player, check_acknowledged,
                               check_database, run_kills)


def test_acknowledged_round_survives_sigkill(tmp_path: Path) -> None:
    """Deterministic: a round is acknowledged, the server is killed at once, and after a
    restart the round is there with its piles."""
    db, log = tmp_path / "games.db", tmp_path / "server.log"
    ledger, report = Ledger(), KillReport()
    server = Server.hanafuda(db, log)
    try:
        server.wait_ready()
        player = Player(server.port, ledger, report, None, seed=3)
        player.step()                      # creates the game
        player.step()                      # plays and confirms round 1
        player.step()                      # and round 2
    finally:
        server.kill()
    assert report.rounds_acked == 2 and len(ledger.rounds) == 2, report.problems
    server = Server.hanafuda(db, log)
    try:
        server.wait_ready()
        check_database(db, report)
        check_acknowledged(server.port, ledger, report)
    finally:
        server.stop()
    assert report.ok(), report.problems


def test_random_kills_lose_nothing_acknowledged(tmp_path: Path) -> None:
    report = run_kills(kills=5, clients=2, seed=4, min_delay=0.2, max_delay=0.8,
                       workdir=tmp_path, out=lambda _: None)
    assert report.kills == 5
    assert report.requests > 0
    assert report.integrity_failures == 0 and report.restart_failures == 0, report.problems
    assert (report.rounds_lost, report.piles_lost, report.games_lost) == (0, 0, 0), \
        report.problems
