"""`hanafuda accuracy --by-round`: the camera's accuracy per round number over games."""

from __future__ import annotations

import json

from scorer.cli import main
from scorer.store import GameStore


def _confirm(store, gid, n):
    store.confirm_round(gid, n)


def test_accuracy_by_round_number(tmp_path, capsys):
    db = tmp_path / "games.db"
    store = GameStore(db)
    for _ in range(2):
        g = store.create_game(preset="sakura", options={}, players=["Ann", "Bob"],
                              teams=None, first_dealer="Ann", rounds_planned=3)
        # round 1: one card of two missed; round 2: all right; round 3 stays open
        store.save_pile(g.id, 1, "Ann", ["08-1", "01-1"], detected=["08-1"],
                        source="camera")
        store.save_pile(g.id, 1, "Bob", ["12-1"], source="manual")
        _confirm(store, g.id, 1)
        store.save_pile(g.id, 2, "Ann", ["08-1", "01-1"], detected=["08-1", "01-1"],
                        source="photo")
        store.save_pile(g.id, 2, "Bob", ["12-1"], source="manual")
        _confirm(store, g.id, 2)
        store.save_pile(g.id, 3, "Ann", ["03-1"], detected=["04-1"], source="camera")
    assert main(["accuracy", "--db", str(db), "--by-round", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rounds"]
    assert [r["round"] for r in rows] == [1, 2]
    assert [r["piles"] for r in rows] == [2, 2]
    assert [r["equivalent"]["recall"] for r in rows] == [0.5, 1.0]
    assert main(["accuracy", "--db", str(db), "--by-round"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[0] == "round" and lines[1].split()[:3] == ["1", "2", "4"]
    assert "50.0%" in lines[1] and "100.0%" in lines[2]
