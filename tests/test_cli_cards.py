"""`hanafuda cards` lists the 48 codes with names; `hanafuda score` names a bad code."""

from __future__ import annotations

import json

import pytest

from scorer.cli import main


def test_cards_lists_all_48_with_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards"]) == 0
    out = capsys.readouterr().out
    assert "08-1  bright  Susuki: moon" in out and "12-2" in out
    assert main(["cards", "--json"]) == 0
    cards = json.loads(capsys.readouterr().out)["cards"]
    assert len(cards) == 48 and cards[0] == {"code": "01-1", "month": 1, "kind": "bright",
                                             "name": "Pine: crane", "japanese": cards[0]["japanese"]}


def test_cards_of_one_month_and_a_bad_month(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "--month", "11", "--json"]) == 0
    assert [c["code"] for c in json.loads(capsys.readouterr().out)["cards"]] == \
        ["11-1", "11-2", "11-3", "11-4"]
    assert main(["cards", "--month", "13"]) == 2
    assert "--month must be 1-12" in capsys.readouterr().err


def test_score_names_the_bad_code_before_the_player_count(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "--pile", "Ann=01-1,99-9"]) == 2
    err = capsys.readouterr().err
    assert "'99-9'" in err and "Ann" in err and "players" not in err
