"""`hanafuda score` and `hanafuda rules` for Hachi-Hachi: a month from flags and from a
round file, the payments in the explanation, and bad input as one line (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer.cards import DECK
from scorer.cli import main

CHAFF = [c.code for c in DECK if c.kind.value == "chaff"]
SPLIT = {"Ann": ["01-1", "11-1", "02-1", "04-1", "06-1", "01-2", "06-2", "04-2", "11-3"]
         + CHAFF[:8],
         "Bob": ["03-1", "12-1", "05-1", "07-1", "11-2", "02-2", "09-2", "05-2"] + CHAFF[8:16],
         "Cy": ["08-1", "08-2", "09-1", "10-1", "03-2", "10-2", "07-2"] + CHAFF[16:]}


def score(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["score", "--rules", "hachihachi", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_stopped_month_from_flags(capsys) -> None:
    code, out, _ = score(capsys, "--pile", "Ann=01-1,03-1,08-1,12-1", "--pile", "Bob=01-3",
                         "--pile", "Cy=02-3", "--stopped-by", "Ann", "--field-cards",
                         "01-1,02-4,04-3,05-3,06-3,07-3", "--json")
    assert code == 0
    res = json.loads(out)
    assert res["scores"] == {"Ann": 480, "Bob": -240, "Cy": -240}
    assert res["results"]["Ann"]["details"]["field"]["name"] == "big"
    assert "Bob pays Ann 20 kan: dekiyaku shiko 10 kan × 2 (big field 大場 ×2)" in \
        res["explanation"]


def test_a_month_played_out_from_a_round_file(capsys, tmp_path: Path) -> None:
    path = tmp_path / "month.json"
    path.write_text(json.dumps({
        "rules": "hachihachi", "players": ["Ann", "Bob", "Cy", "Dee"], "piles": SPLIT,
        "context": {"sitting_out": ["Dee"], "field": "grand",
                    "dealt_hands": {"Cy": ["09-3", "09-4", "10-3", "10-4", "12-2", "12-3",
                                           "12-4"]}}}))
    code = main(["score", str(path)])
    out = capsys.readouterr().out
    assert code == 0
    # a standing three (the paulownia chaff) with two pairs is haneken; seven chaff karasu
    assert "Cy: 73 card points, 15 under 88; teyaku haneken 7 kan; teyaku karasu 4 kan" in out
    assert "Ann pays Cy 28 kan: teyaku haneken 7 kan × 4 (grand field 絶場 ×4)" in out
    assert "Cy pays Ann 3 kan 4 mon: card points, Ann 10 over 88 × 4" in out
    assert "Dee pays" in out and "sitting out, 1 kan × 4, to the month's winner" in out


@pytest.mark.parametrize("args, needle", [
    (["--pile", "Ann=01-1", "--pile", "Bob=", "--pile", "Cy="],
     "a month played out captures all 48: 47 missing"),
    (["--pile", "Ann=01-1", "--pile", "Bob=", "--pile", "Cy=", "--stopped-by", "Ann"],
     "Ann ended the month, but their pile forms no dekiyaku"),
    (["--pile", "Ann=01-1", "--pile", "Bob=", "--pile", "Cy=", "--stopped-by", "Ann",
      "--field", "huge"], "field: unknown 'huge' (allowed: small, big, grand)"),
    (["--pile", "Ann=01-1", "--pile", "Bob=", "--pile", "Cy=", "--stopped-by", "Ann",
      "--dealt-hands", "Bob=01-2"], "Bob's dealt hand has 1 cards; a hand is 7"),
    (["--pile", "A=01-1", "--pile", "B="], "hachihachi is for 3 to 7 players, not 2"),
    (["--set", "mon_per_kan=11", "--pile", "A=01-1", "--pile", "B=", "--pile", "C="],
     "option mon_per_kan: bad value '11' (allowed: 12, 10)"),
])
def test_bad_input_is_one_line(capsys, args, needle) -> None:
    code, _, err = score(capsys, *args)
    assert code == 2 and needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_rules_lists_the_house_rules_with_their_sources(capsys) -> None:
    assert main(["rules", "hachihachi", "--json"]) == 0
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)["options"]}
    assert rows["yaku_payment"]["source"] == "HH: KIRISAME, SHIRAGIKU, BGA"
    assert rows["willow_as_chaff"]["sentence"] == \
        "Every willow card counts as a chaff for the yaku: yes."
    assert rows["yaku.rokutan"]["value"] is False and "yaku.kusa" in rows


TANICHI = "01-2,01-3,02-3,03-3,04-3,05-3,06-3"
THREE_RIBBONS = "01-2,02-2,06-2,03-3,04-3,05-3,07-3"


def test_the_nuke_yaku_and_aka_from_the_command_line(capsys) -> None:
    """Issue 66: tan-ichi held by Ann, who ends the month at 98 (over 88): 3 + 1 kan
    [JA-WP]; three ribbons and four chaff are aka unless the house says exactly two."""
    piles = [f"--pile={p}={','.join(c)}" for p, c in SPLIT.items()]
    code, out, _ = score(capsys, *piles, "--dealt-hands", f"Ann={TANICHI}")
    assert code == 0
    assert "teyaku tanichi 4 kan (3 + 1 nuke-yaku)" in out
    assert "Bob pays Ann 4 kan: teyaku tanichi 4 kan (3 + 1 nuke-yaku, 98 card points over 88)" \
        in out
    code, out, _ = score(capsys, *piles, "--dealt-hands", f"Bob={THREE_RIBBONS}")
    assert code == 0 and "teyaku aka 4 kan (3 + 1 nuke-yaku)" in out     # Bob ends at 93
    code, out, _ = score(capsys, *piles, "--dealt-hands", f"Bob={THREE_RIBBONS}",
                         "--set", "aka_ribbons=exactly_two")
    assert code == 0 and "teyaku aka" not in out


def test_a_card_in_two_piles_is_named_in_one_line(capsys) -> None:
    every = ",".join(c.code for c in DECK)
    code, _, err = score(capsys, "--pile", f"Ann={every}", "--pile", "Bob=01-1", "--pile", "Cy=")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "card 01-1" in err and "is in two piles: pile Ann and pile Bob" in err


def test_rules_lists_the_new_house_rules_with_their_sources(capsys) -> None:
    assert main(["rules", "hachihachi", "--json"]) == 0
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)["options"]}
    assert rows["nuke_yaku"]["value"] is True and rows["nuke_yaku"]["source"] == "HH: JA-WP"
    assert rows["aka_ribbons"]["value"] == "two_or_more"
    assert rows["sujuroku_voids_teyaku"]["source"] == "HH: SHIRAGIKU"
