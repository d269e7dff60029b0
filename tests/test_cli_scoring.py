"""The installed `hanafuda` command: yaku, score (flags and ROUND.json) and rules."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def _command() -> list[str]:
    beside = Path(sys.executable).parent / "hanafuda"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("hanafuda")
    return [found] if found else [sys.executable, "-m", "scorer.cli"]


HANAFUDA = _command()


def run(*args, cmd=None):
    return subprocess.run((cmd or HANAFUDA) + [str(a) for a in args], capture_output=True,
                          text=True, timeout=60)


def ok_json(*args):
    proc = run(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def bad(*args, needle=""):
    proc = run(*args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    err = proc.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert needle in err, err
    return err


A1 = "01-1,02-1,03-1,01-2,02-2,03-2,08-1,09-1,12-2"
B1 = "06-2,09-2,10-2,06-1,10-1,11-1,11-3,12-1"


def test_yaku_json_contract():
    out = ok_json("yaku", "--rules", "sakura", *A1.split(","))
    assert out["total"] == 110
    assert sorted(y["name"] for y in out["yaku"]) == ["akatan", "drinking", "spring"]
    assert all(y["points"] == 50 for y in out["yaku"])
    assert {"name", "points", "cards"} <= set(out["yaku"][0])


def test_yaku_with_set_and_commas_and_table():
    out = ok_json("yaku", "--rules", "koikoi", "--set", "viewing=off", "03-1,08-1", "09-1")
    assert out["yaku"] == [] and out["total"] == 0
    proc = run("yaku", "--rules", "hanaawase", "03-1", "08-1", "09-1")
    assert proc.returncode == 0 and "drinking" in proc.stdout and "40" in proc.stdout


def test_score_flags_worked_example():
    out = ok_json("score", "--rules", "sakura", "--pile", f"A={A1}", "--pile", f"B={B1}")
    assert out["scores"] == {"A": 60, "B": -75} and out["winner"] == "A"
    assert out["results"]["B"]["penalty"] == 150
    proc = run("score", "--pile", f"A={A1}", "--pile", f"B={B1}")
    assert proc.returncode == 0 and "-75" in proc.stdout and "A wins" in proc.stdout


def test_score_koikoi_flags():
    out = ok_json("score", "--rules", "koikoi", "--pile", "A=01-1,03-1,08-1,09-1",
                  "--pile", "B=", "--stopped-by", "A", "--koikoi-calls", "B=1")
    assert out["scores"] == {"A": 60, "B": 0}  # 15, x2 at 7+, x2 for B's koi-koi


def test_score_round_file_with_teams(tmp_path):
    f = tmp_path / "round.json"
    f.write_text(json.dumps({
        "rules": "sakura", "options": {"yellow_paulownia": 0},
        "piles": {"A": ["01-2"], "C": "02-2,03-2,12-2", "B": ["01-1"], "D": []},
        "teams": [["A", "C"], ["B", "D"]], "dealer": "B",
    }), encoding="utf-8")
    out = ok_json("score", f)
    assert out["scores"] == {"A+C": 30, "B+D": 20 - 50}
    assert out["winner"] == "A+C" and out["next_dealer"] == "C"
    # --set on the command line overrides the file's options
    out = ok_json("score", f, "--set", "yellow_paulownia=10")
    assert out["scores"]["A+C"] == 40


@pytest.mark.parametrize("content, needle", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must hold a JSON object"),
    ('{"rules": "sakura"}', 'has no "piles"'),
    ('{"piles": {"A": ["01-1"], "B": []}, "colour": 1}', "unknown key 'colour'"),
    ('{"piles": {"A": ["01-1"], "B": ["01-1"]}}', "in two piles"),
    ('{"piles": {"A": ["99-1"], "B": []}}', "unknown card code"),
    ('{"rules": "koikoi", "piles": {"A": ["01-1"], "B": []}, '
     '"context": {"stopped_by": ["A", "B"]}}', "only one player can stop"),
])
def test_score_bad_round_files(tmp_path, content, needle):
    f = tmp_path / "round.json"
    f.write_text(content, encoding="utf-8")
    bad("score", f, needle=needle)


def test_bad_input_exits_2_with_one_line(tmp_path):
    bad("score", tmp_path / "missing.json", needle="not found")
    bad("score", "--pile", "A=01-1", "--pile", "B=01-1", needle="in two piles")
    bad("score", needle="no piles")
    bad("score", "--players", "A,B,C,D", "--pile", "A=01-1", "--pile", "B=02-1",
        "--team", "A+X", "--team", "B+C", needle="unknown player 'X'")
    bad("score", "--pile", "A=01-1", "--pile", "Z=02-1", "--players", "A,B",
        needle="pile for unknown player 'Z'")
    bad("yaku", "13-1", needle="unknown card code '13-1'")
    bad("yaku", "--rules", "nope", "01-1", needle="unknown rules preset")
    bad("yaku", "--set", "yellow_paulownia=5", "01-1", needle="allowed: 10, 0")
    bad("yaku", "--rules", "koikoi", "--month", "13", "01-1", needle="--month")
    bad("rules", "go-stop", needle="unknown rules preset")


def test_rules_lists_every_preset_and_option():
    proc = run("rules")
    assert proc.returncode == 0
    for name in ["sakura", "sakura-victories", "koikoi", "koikoi-modern", "koikoi-classic",
                 "hanaawase", "hanaawase-zero-sum", "yellow_paulownia", "koikoi_multiplier",
                 "settlement"]:
        assert name in proc.stdout
    out = ok_json("rules")
    assert len(out["presets"]) == 12 and set(out["options"]) == {"sakura", "koikoi",
                                                                 "hanaawase", "gostop",
                                                                 "hachihachi"}
    one = ok_json("rules", "koikoi-modern")
    rows = {r["key"]: r for r in one["options"]}
    assert rows["viewing"]["value"] == "off" and rows["viewing"]["default"] == "on"
    assert "with_other" in rows["viewing"]["allowed"]


def test_rules_file_option(tmp_path):
    f = tmp_path / "house.toml"
    f.write_text('preset = "koikoi"\n[options]\nviewing = "off"\n', encoding="utf-8")
    out = ok_json("yaku", "--rules-file", f, "03-1", "09-1")
    assert out["rules"] == "koikoi" and out["yaku"] == []
    f.write_text('preset = "koikoi"\n[options]\nviewing = 3\n', encoding="utf-8")
    bad("yaku", "--rules-file", f, "03-1", needle="option viewing")


def test_python_dash_m_and_help():
    proc = run("yaku", "--json", "01-2", "02-2", "03-2",
               cmd=[sys.executable, "-m", "scorer.cli"])
    assert proc.returncode == 0 and json.loads(proc.stdout)["yaku"][0]["name"] == "akatan"
    for command in ("yaku", "score", "rules"):
        proc = run(command, "--help")
        assert proc.returncode == 0 and "--json" in proc.stdout
    assert "ROUND.json" in run("score", "--help").stdout
