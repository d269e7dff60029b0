"""`hanafuda score` for Go-Stop and Matgo as a new user meets it: nothing is scored that
the players did not say (who stopped), and the errors name the flags they typed."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli_scoring import bad, ok_json, run

THREE = ("--pile", "A=01-1,03-1,08-1", "--pile", "B=10-3", "--pile", "C=10-4")


def test_score_without_a_stopper_is_refused_naming_the_flag() -> None:
    err = bad("score", "--rules", "gostop", *THREE, needle="--stopped-by")
    assert "--stopped-by nobody (nagari)" in err and "stopped_by" not in err
    bad("score", "--rules", "matgo", "--pile", "A=01-1", "--pile", "B=", needle="--stopped-by")
    bad("score", "--rules", "koikoi", "--pile", "A=01-1", "--pile", "B=",
        needle="--stopped-by nobody (a draw)")


def test_nobody_and_an_outcome_say_it() -> None:
    nagari = ok_json("score", "--rules", "gostop", *THREE, "--stopped-by", "nobody")
    assert nagari["winner"] is None and set(nagari["scores"].values()) == {0}
    assert ok_json("score", "--rules", "gostop", *THREE, "--outcome", "nagari")["winner"] is None
    won = ok_json("score", "--rules", "gostop", *THREE, "--stopped-by", "A")
    assert won["winner"] == "A" and won["scores"]["A"] > 0


def test_a_round_file_without_a_stopper_names_both(tmp_path: Path) -> None:
    f = tmp_path / "round.json"
    f.write_text(json.dumps({"rules": "gostop", "piles": {"A": ["01-1"], "B": [], "C": []}}))
    err = bad("score", f, needle="--stopped-by")
    assert '"stopped_by" in the round file' in err
    assert run("score", f, "--stopped-by", "nobody").returncode == 0


def test_nobody_is_a_value_unless_a_player_has_that_name() -> None:
    from scorer.rules.gostop import GostopContext
    assert GostopContext.parse({"stopped_by": "Nobody"}, ["A", "B", "C"]).stopped_by is None
    assert GostopContext.parse({"stopped_by": "nobody"}, ["nobody", "B", "C"]).stopped_by == "nobody"
    schema = {f["key"]: f for f in GostopContext.schema()}
    assert schema["stopped_by"]["required"] and schema["stopped_by"]["nobody"] == "nobody (nagari)"
    assert [f.key for f in GostopContext.missing({})] == ["stopped_by"]
    assert GostopContext.missing({"outcome": "nagari"}) == []


def test_texts_read_right() -> None:
    """The junk yaku's label names its value (no '+1' running into the points); a loser's
    pile that forms yaku says so without a minus; multipliers are written ×."""
    junk = ["01-3", "01-4", "02-3", "02-4", "03-3", "03-4", "04-3", "04-4", "05-3", "05-4", "06-3"]
    out = ok_json("score", "--rules", "gostop", "--pile", "A=" + ",".join(junk + ["08-1"]),
                  "--pile", "B=04-2,05-2,07-2", "--pile", "C=", "--stopped-by", "A",
                  "--set", "stop_minimum=2")
    pi = out["results"]["A"]["yaku"][0]
    assert pi["label"] == "Pi 피 (junk value 11)" and pi["points"] == 2
    assert out["results"]["B"]["explanation"].endswith("; the pile forms 3 (chodan, not scored)")
    text = run("score", "--rules", "gostop", "--pile", "A=" + ",".join(junk), "--pile", "B=",
               "--pile", "C=", "--stopped-by", "nobody").stdout
    assert "×2" in text and " x2" not in text
    sakura = ok_json("score", "--rules", "sakura", "--pile", "A=01-1,01-2,02-2,03-2", "--pile", "B=")
    assert "cards 0 \u2212 50 × 1 opponents' yaku" in sakura["results"]["B"]["explanation"]


def test_errors_name_the_flags() -> None:
    err = bad("score", *THREE, "--stopped-by", "A", "--goes", "B=1", needle="--rules")
    assert err.startswith("hanafuda score: error: --stopped-by is for") and "gostop" in err
    assert "stopped_by" not in err
    err = bad("score", "--rules", "gostop", "--pile", "A=01-1,03-1,08-1", "--pile", "B=01-3",
              "--pile", "C=01-4", "--stopped-by", "A", "--goes", "B=1", "--goes", "C=1",
              needle="give --go-order")
    assert "go_order" not in err
    bad("score", "--rules", "koikoi", "--pile", "A=01-1", "--pile", "B=", "--goes", "A=1",
        needle="--goes is for Go-Stop, not the rules koikoi")


def test_help_has_go_stop_and_matgo_examples_that_run() -> None:
    top = run("--help").stdout
    assert "Go-Stop" in top and "--rules gostop" in top
    helptext = run("score", "--help").stdout
    assert '"go_order"' in helptext and '"shakes"' in helptext and "nobody" in helptext
    for line in ("pi and ssangpi mean", "locked means animal", "chongtong"):
        assert line in " ".join(helptext.split()), line
    examples = [line.strip() for line in helptext.replace("\\\n", " ").splitlines()
                if line.strip().startswith("hanafuda score --rules") and
                ("gostop" in line or "matgo" in line)]
    assert len(examples) == 2
    for example in examples:
        proc = run(*example.split()[1:])
        assert proc.returncode == 0 and "wins the round" in proc.stdout, (example, proc.stderr)


def test_a_losers_shake_is_refused_and_bonus_junk_is_shown() -> None:
    err = bad("score", "--rules", "gostop", *THREE, "--stopped-by", "A", "--shakes", "B=1",
              needle="B's 1 shake does not count: only the winner's shakes multiply")
    assert err.endswith("leave it out of --shakes")
    out = run("score", "--rules", "gostop", *THREE, "--stopped-by", "A", "--bonus-junk", "C=2")
    assert "C: pays 3 × 2 gwang-bak = 6; 2 bonus junk counted among its 3 junk" in out.stdout
