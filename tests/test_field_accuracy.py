"""The camera's accuracy in real games: detected piles against the confirmed ones."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from scorer.cli import main
from scorer.field_accuracy import Counts, compare, field_accuracy
from scorer.store import GameStore


@dataclass
class Pile:
    codes: list[str]
    detected: list[str]
    source: str = "camera"


def test_compare_counts_found_extra_and_missed_cards():
    assert compare(["01-1", "02-1", "03-1"], ["01-1", "02-1", "04-1"]) == Counts(2, 1, 1)
    assert compare([], ["01-1"]) == Counts(0, 0, 1)
    assert compare(["01-1"], []) == Counts(0, 1, 0)


def test_a_plain_chaff_mix_up_is_right_only_modulo_equivalence():
    assert compare(["01-3"], ["01-4"]) == Counts(0, 1, 1)
    assert compare(["01-3"], ["01-4"], equivalent=True) == Counts(1, 0, 0)
    # 12-2 (yellow) is not a plain chaff, and willow's 11-4 is the lightning
    assert compare(["12-2"], ["12-3"], equivalent=True) == Counts(0, 1, 1)
    assert compare(["11-3"], ["11-4"], equivalent=True) == Counts(0, 1, 1)


def test_counts_give_precision_recall_f1_and_none_without_cards():
    c = Counts(tp=6, fp=2, fn=4)
    assert (c.precision, c.recall) == (0.75, 0.6)
    assert c.f1 == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    assert Counts().to_dict()["f1"] is None
    assert Counts(0, 3, 2).f1 == 0.0


def test_field_accuracy_totals_camera_and_photo_piles_and_skips_manual_ones():
    piles = [Pile(["01-1", "02-1", "03-3"], ["01-1", "03-4"]),            # chaff swap, miss
             Pile(["08-1"], ["08-1", "09-1"], "photo"),                     # one extra
             Pile(["10-1", "11-1"], [], "manual")]                          # nothing detected
    acc = field_accuracy(piles)
    assert (acc.piles, acc.cards) == (2, 4)
    assert acc.exact == Counts(2, 2, 2)
    assert acc.equivalent == Counts(3, 1, 1)
    assert acc.by_source == {"camera": Counts(2, 0, 1), "photo": Counts(1, 1, 0)}
    empty = field_accuracy([Pile(["01-1"], [], "manual")]).to_dict()
    assert empty["piles"] == 0 and empty["equivalent"]["recall"] is None


def _played(db: Path) -> None:
    """One game: round 1 confirmed (Ann's pile from the camera, fixed by hand; Bob's typed
    in), round 2 saved from a photo but not confirmed."""
    store = GameStore(db)
    g = store.create_game(preset="sakura", options={}, players=["Ann", "Bob"], teams=None,
                          first_dealer="Ann", rounds_planned=4)
    store.save_pile(g.id, 1, "Ann", ["01-1", "02-1", "03-1"], detected=["01-1", "02-1", "05-1"],
                    source="camera")
    store.save_pile(g.id, 1, "Bob", ["12-1"])
    store.confirm_round(g.id, 1)
    store.save_pile(g.id, 2, "Ann", ["04-1"], detected=["07-1"], source="photo")


def test_only_confirmed_rounds_count(tmp_path):
    db = tmp_path / "games.db"
    _played(db)
    piles = GameStore(db).scored_piles()
    assert [(p.owner, p.source) for p in piles] == [("Ann", "camera"), ("Bob", "manual")]
    assert field_accuracy(piles).equivalent == Counts(2, 1, 1)


def test_the_accuracy_command_reports_the_games(tmp_path, capsys):
    db = tmp_path / "games.db"
    _played(db)
    assert main(["accuracy", "--db", str(db), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["piles"] == 1 and doc["cards"] == 3
    assert doc["equivalent"]["tp"] == 2 and doc["equivalent"]["recall"] == pytest.approx(0.6667)
    assert set(doc["by_source"]) == {"camera"}
    assert main(["accuracy", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "1 pile from the camera or a photo, 3 cards" in out and "recall 66.7%" in out


@pytest.mark.parametrize("content", [None, b"not a database at all"])
def test_a_missing_or_foreign_database_is_a_one_line_error(tmp_path, capsys, content):
    db = tmp_path / "x.db"
    if content is not None:
        db.write_bytes(content)
    assert main(["accuracy", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "database" in err[0]
    assert not db.exists() if content is None else db.read_bytes() == content
