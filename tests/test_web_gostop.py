"""A 3-player Go-Stop game through the JSON API: a nagari, a go-bak and a pi-bak among its
rounds, the nagari carry taken from the log, standings in points, CSV and JSON export."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from web_helpers import CSRF, make_app, with_version

TEN_PI = ["01-3", "01-4", "02-3", "02-4", "03-3", "03-4", "04-3", "04-4", "05-3", "05-4"]


@pytest.fixture
def client(tmp_path: Path):
    return make_app(tmp_path).test_client()


def post(client, url, body=None, method="POST"):
    return client.open(url, method=method, json=with_version(client, url, body), headers=CSRF)


def play_round(client, gid, n, piles, context):
    for owner, codes in piles.items():
        r = post(client, f"/api/games/{gid}/rounds/{n}/piles", {"owner": owner,
                                                                "codes": codes}, "PUT")
        assert r.status_code == 200, r.json
    r = post(client, f"/api/games/{gid}/rounds/{n}/confirm", {"context": context})
    assert r.status_code == 200, r.json
    return r.json


def test_presets_and_player_counts(client) -> None:
    presets = {p["name"]: p for p in client.get("/api/presets").json["presets"]}
    assert (presets["gostop"]["min_players"], presets["gostop"]["max_players"]) == (3, 3)
    assert (presets["matgo"]["min_players"], presets["matgo"]["max_players"]) == (2, 2)
    r = post(client, "/api/games", {"preset": "gostop", "players": ["A", "B", "C", "D"]})
    assert r.status_code == 400 and "gostop is for 3 players, not 4" in r.json["error"]
    r = post(client, "/api/games", {"preset": "matgo", "players": ["A", "B"]})
    assert r.status_code == 201
    fields = {f["key"]: f for f in r.json["context_fields"]}
    assert fields["nagari"]["kind"] == "count" and fields["outcome"]["kind"] == "choice"
    assert fields["go_order"]["kind"] == "players"
    assert "camera does not read them" in fields["bonus_junk"]["label"]


def test_a_game_with_a_nagari_a_go_bak_and_a_pi_bak(client) -> None:
    r = post(client, "/api/games", {"preset": "gostop", "players": ["Ann", "Bob", "Cy"],
                                    "rounds": 3})
    assert r.status_code == 201, r.json
    gid = r.json["id"]
    assert r.json["context_defaults"] == {"nagari": 0}

    # 1: nobody stops
    done = play_round(client, gid, 1, {"Ann": ["01-1", "03-1", "08-1"], "Bob": [], "Cy": []},
                      {"stopped_by": None})
    assert done["round"]["result"]["winner"] is None
    assert done["game"]["context_defaults"] == {"nagari": 1}
    assert done["game"]["dealer"] == "Ann"

    # 2: Ann stops; Bob had called go: he pays both shares, x2 for the nagari before
    done = play_round(client, gid, 2, {"Ann": ["01-1", "03-1", "08-1"], "Bob": ["10-3"],
                                       "Cy": ["10-4"]},
                      {"stopped_by": "Ann", "goes": {"Bob": 1}})
    result = done["round"]["result"]
    assert result["scores"] == {"Ann": 24, "Bob": -24, "Cy": 0}
    assert "3 × 2 nagari × 2 gwang-bak = 12" in result["results"]["Bob"]["explanation"]
    assert done["round"]["context"]["nagari"] == 1
    assert done["game"]["context_defaults"] == {"nagari": 0}

    # 3: Bob stops with pi; Ann (1 junk) pays pi-bak, Cy (6 junk) does not
    done = play_round(client, gid, 3, {"Bob": TEN_PI + ["12-2", "12-1"],
                                       "Ann": ["06-3", "08-1"],
                                       "Cy": ["07-3", "07-4", "08-3", "08-4", "09-3", "09-4"]},
                      {"stopped_by": "Bob", "nagari": 0, "bonus_junk": {"Cy": 0}})
    assert done["round"]["result"]["scores"] == {"Bob": 9, "Ann": -6, "Cy": -3}
    # the table's line per player: points by role, the baks applied and escaped, why
    res = done["round"]["result"]["results"]
    assert res["Bob"]["card_points"] == 3 and res["Bob"]["details"]["points"]["pi"] == 3
    assert res["Ann"]["penalty"] == 6 and res["Ann"]["details"]["pays"] == 6
    assert [(b["name"], b["applies"], b["reason"]) for b in res["Ann"]["details"]["baks"]] \
        == [("pi-bak", True, "Ann has 1 junk (at most 5)")]     # no bright yaku: no gwang-bak
    assert ("pi-bak", False, "Cy has 6 junk (more than 5)") in \
        {(b["name"], b["applies"], b["reason"]) for b in res["Cy"]["details"]["baks"]}
    standings = done["game"]["standings"]
    assert standings["running"] == [{"Ann": 0, "Bob": 0, "Cy": 0},
                                    {"Ann": 24, "Bob": -24, "Cy": 0},
                                    {"Ann": 18, "Bob": -15, "Cy": -3}]
    assert standings["finished"] and standings["winner"] == "Ann"

    rows = list(csv.DictReader(io.StringIO(
        client.get(f"/api/games/{gid}/export.csv").data.decode())))
    assert len(rows) == 9 and {r["preset"] for r in rows} == {"gostop"}
    by = {(r["round"], r["pile"]): r for r in rows}
    assert by["2", "Bob"]["score"] == "-24" and by["2", "Cy"]["score"] == "0"
    assert by["3", "Ann"]["score"] == "-6" and by["3", "Ann"]["running_total"] == "18"
    assert by["1", "Ann"]["round_winner"] == "" and by["3", "Bob"]["round_winner"] == "Bob"
    # Go-Stop's own columns: who stopped, the calls, the baks applied and escaped
    assert by["1", "Ann"]["stopped_by"] == "nobody" and by["1", "Ann"]["outcome"] == "nagari"
    assert by["2", "Bob"]["goes"] == "1" and "go-bak" in by["2", "Bob"]["baks"]
    assert by["3", "Ann"]["baks"] == "pi-bak: Ann has 1 junk (at most 5)"
    assert by["3", "Ann"]["baks_escaped"] == "" and by["2", "Cy"]["baks_escaped"] != ""
    assert "pi-bak: Cy has 6 junk (more than 5)" in by["3", "Cy"]["baks_escaped"]
    assert by["3", "Ann"]["penalty"] == "-6" and by["3", "Bob"]["pi"] == "3"
    assert by["3", "Bob"]["points"] == "3" and by["3", "Ann"]["multipliers"] == "×2 pi-bak"
    data = json.loads(client.get(f"/api/games/{gid}/export.json").data)
    assert data["standings"]["totals"] == {"Ann": 18, "Bob": -15, "Cy": -3}
    assert [r["result"]["winner"] for r in data["rounds"]] == [None, "Ann", "Bob"]


def test_bad_round_context_is_a_clear_400(client) -> None:
    gid = post(client, "/api/games", {"preset": "gostop",
                                      "players": ["Ann", "Bob", "Cy"]}).json["id"]
    for owner, codes in {"Ann": ["01-1"], "Bob": [], "Cy": []}.items():
        post(client, f"/api/games/{gid}/rounds/1/piles", {"owner": owner, "codes": codes},
             "PUT")
    r = post(client, f"/api/games/{gid}/rounds/1/confirm", {"context": {"stopped_by": "Ann"}})
    assert r.status_code == 400 and "below the stop minimum 3" in r.json["error"]
    r = post(client, f"/api/games/{gid}/rounds/1/confirm",
             {"context": {"stopped_by": None, "goes": {"Zed": 1}}})
    assert r.status_code == 400 and "goes for unknown player 'Zed'" in r.json["error"]


def test_a_card_in_another_pile_is_refused_named_as_the_page_names_cards(client) -> None:
    """The refusal names the card as the page is set to name cards (its ``words``): a
    Go-Stop page set to Japanese names 11-4 the hanafuda way, a Sakura table set to hwatu
    the hwatu way; a write that names no setting, by the game (Go-Stop: hwatu)."""
    gid = post(client, "/api/games", {"preset": "gostop",
                                      "players": ["Ann", "Bob", "Cy"]}).json["id"]
    url = f"/api/games/{gid}/rounds/1"
    assert post(client, f"{url}/piles", {"owner": "Ann", "codes": ["11-4"]}, "PUT").status_code \
        == 200
    assert post(client, f"{url}/piles", {"owner": "Bob", "codes": ["01-1"]}, "PUT").status_code \
        == 200
    japanese = "card 11-4 (Willow: lightning) is already in Ann's pile"
    hwatu = "card 12-4 (비쌍피 bi-ssangpi) is already in Ann's pile"
    for body, said in [
        ({"owner": "Cy", "codes": ["11-4"], "words": "japanese"}, japanese),
        ({"owner": "Cy", "codes": ["11-4"], "words": "hwatu"}, hwatu),
        ({"owner": "Cy", "codes": ["11-4"]}, hwatu),
    ]:
        r = post(client, f"{url}/piles", body, "PUT")
        assert (r.status_code, r.json["error"]) == (400, said), body
    for body, said in [
        ({"owner": "Bob", "action": "add", "new_code": "11-4", "words": "japanese"}, japanese),
        ({"owner": "Bob", "action": "replace", "old_code": "01-1", "new_code": "11-4",
          "words": "japanese"}, japanese),
        ({"owner": "Bob", "action": "add", "new_code": "01-1", "words": "japanese"},
         "card 01-1 (Pine: crane) is already in Bob's pile"),
        ({"owner": "Bob", "action": "remove", "old_code": "02-1", "words": "japanese"},
         "card 02-1 (Plum: bush warbler) is not in Bob's pile"),
    ]:
        r = post(client, f"{url}/corrections", body)
        assert (r.status_code, r.json["error"]) == (400, said), body
    r = post(client, f"{url}/piles", {"owner": "Cy", "codes": [], "words": "klingon"}, "PUT")
    assert r.status_code == 400 and "words must be one of japanese, hwatu" in r.json["error"]

    sid = post(client, "/api/games", {"players": ["Ann", "Bob"]}).json["id"]
    url = f"/api/games/{sid}/rounds/1/piles"
    assert post(client, url, {"owner": "Ann", "codes": ["11-4"]}, "PUT").status_code == 200
    r = post(client, url, {"owner": "Bob", "codes": ["11-4"], "words": "hwatu"}, "PUT")
    assert (r.status_code, r.json["error"]) == (400, hwatu)
    r = post(client, url, {"owner": "Bob", "codes": ["11-4"]}, "PUT")
    assert (r.status_code, r.json["error"]) == (400, japanese)
