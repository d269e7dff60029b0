"""A Hachi-Hachi game through the JSON API: four at the table (one sits out a month, no
pile saved for him), the field read from the table cards and carried to the next month,
a dealt hand's teyaku, a month ended by a dekiyaku, standings in mon, CSV and JSON
export with kan and mon."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from scorer.cards import DECK
from web_helpers import CSRF, make_app, with_version

CHAFF = [c.code for c in DECK if c.kind.value == "chaff"]
# A month played out with no dekiyaku: 98, 93 and 73 card points.
SPLIT = [["01-1", "11-1", "02-1", "04-1", "06-1", "01-2", "06-2", "04-2", "11-3"] + CHAFF[:8],
         ["03-1", "12-1", "05-1", "07-1", "11-2", "02-2", "09-2", "05-2"] + CHAFF[8:16],
         ["08-1", "08-2", "09-1", "10-1", "03-2", "10-2", "07-2"] + CHAFF[16:]]


@pytest.fixture
def client(tmp_path: Path):
    return make_app(tmp_path).test_client()


def post(client, url, body=None, method="POST"):
    return client.open(url, method=method, json=with_version(client, url, body), headers=CSRF)


def save(client, gid, n, piles):
    for owner, codes in piles.items():
        r = post(client, f"/api/games/{gid}/rounds/{n}/piles", {"owner": owner,
                                                                "codes": codes}, "PUT")
        assert r.status_code == 200, r.json


def confirm(client, gid, n, context):
    return post(client, f"/api/games/{gid}/rounds/{n}/confirm", {"context": context})


def test_presets_and_the_round_form(client) -> None:
    presets = {p["name"]: p for p in client.get("/api/presets").json["presets"]}
    assert (presets["hachihachi"]["min_players"], presets["hachihachi"]["max_players"]) == (3, 7)
    assert presets["hachihachi-half"]["default_rounds"] == 6
    r = post(client, "/api/games", {"preset": "hachihachi", "players": ["A", "B"]})
    assert r.status_code == 400 and "3 to 7 players, not 2" in r.json["error"]
    r = post(client, "/api/games", {"preset": "hachihachi", "players": ["A", "B", "C"]})
    assert r.status_code == 201
    fields = {f["key"]: f for f in r.json["context_fields"]}
    assert fields["dealt_hands"]["kind"] == "codes_per_player" and fields["dealt_hands"]["photo"]
    assert fields["field_cards"]["photo"] and fields["field_cards"]["place"] == "view"
    assert fields["sitting_out"]["min_players"] == 4
    assert fields["field"]["choices"] == ["small", "big", "grand"]


def test_four_at_the_table_a_carried_field_teyaku_and_a_stop(client) -> None:
    r = post(client, "/api/games", {"preset": "hachihachi",
                                    "players": ["Ann", "Bob", "Cy", "Dee"], "rounds": 2})
    assert r.status_code == 201, r.json
    gid = r.json["id"]

    # 1: Dee sits out (no pile saved); the crane and the moon on the table: big field,
    # big carried; Bob shows sanbon from his dealt hand
    save(client, gid, 1, dict(zip(["Ann", "Bob", "Cy"], SPLIT)))
    r = confirm(client, gid, 1, {"stopped_by": None})
    assert r.status_code == 409 and "missing: Dee" in r.json["error"]
    r = confirm(client, gid, 1, {"sitting_out": ["Dee", "Cy"]})
    assert r.status_code == 400 and "name the 1 who sits this month out" in r.json["error"]
    hand = ["03-1", "03-3", "03-4", "05-1", "07-1", "11-2", "02-2"]
    r = confirm(client, gid, 1, {"sitting_out": ["Dee"], "field_cards": ["01-1", "08-1", "09-3",
                                                                          "10-3", "10-4", "12-3"],
                                 "dealt_hands": {"Bob": hand}})
    assert r.status_code == 200, r.json
    result = r.json["round"]["result"]
    # card points ×2: Ann +20, Bob +10, Cy −30; sanbon 2 kan ×2 = 48 mon from each;
    # Dee sat out: 1 kan ×2 to the month's winner, Bob
    assert result["scores"] == {"Ann": 20 - 48, "Bob": 10 + 96 + 24, "Cy": -30 - 48, "Dee": -24}
    bob = result["results"]["Bob"]
    assert [y["name"] for y in bob["yaku"]] == ["sanbon"]
    assert bob["details"]["field"] == {"name": "big", "multiplier": 2, "text": "big field 大場 ×2",
                                       "reason": "01-1 crane, 08-1 moon on the table",
                                       "carry": "big"}
    assert "Cy pays Ann 1 kan 8 mon: card points, Ann 10 over 88 × 2 (big field 大場 ×2)" in \
        result["explanation"]   # 10 × 2 = 20 mon
    assert result["results"]["Dee"]["details"]["role"] == "sitting_out"
    game = r.json["game"]
    assert game["context_defaults"] == {"carried_field": "big"}
    assert game["dealer"] == "Bob"

    # 2: Ann ends the month with akatan; the field carried from month 1 (big)
    save(client, gid, 2, {"Ann": ["01-2", "02-2", "03-2"], "Bob": ["01-3"], "Cy": [],
                          "Dee": ["02-3"]})
    r = confirm(client, gid, 2, {"sitting_out": ["Cy"], "stopped_by": "Ann"})
    assert r.status_code == 200, r.json
    result = r.json["round"]["result"]
    assert result["scores"] == {"Ann": 336 + 24, "Bob": -168, "Cy": -24, "Dee": -168}
    assert r.json["round"]["context"]["carried_field"] == "big"
    standings = r.json["game"]["standings"]
    assert standings["finished"] and sum(standings["totals"].values()) == 0
    assert standings["totals"] == {"Ann": 332, "Bob": -38, "Cy": -102, "Dee": -192}

    rows = list(csv.DictReader(io.StringIO(
        client.get(f"/api/games/{gid}/export.csv").data.decode())))
    assert len(rows) == 8
    by = {(r["month"], r["player"]): r for r in rows}
    assert by["1", "Dee"]["role"] == "sitting_out" and by["1", "Dee"]["score"] == "−2 kan"
    assert by["1", "Bob"]["teyaku"] == "sanbon 2 kan" and by["1", "Bob"]["field"] == "big"
    assert by["2", "Ann"]["dekiyaku"] == "akatan 7 kan"
    assert by["2", "Ann"]["score"] == "30 kan" and by["2", "Ann"]["running_total"] == "27 kan 8 mon"
    assert "Bob pays Ann 14 kan: dekiyaku akatan 7 kan × 2" in by["2", "Ann"]["payments"]
    data = json.loads(client.get(f"/api/games/{gid}/export.json").data)
    assert data["standings"]["totals"]["Ann"] == 332


def test_bad_month_is_a_clear_400(client) -> None:
    gid = post(client, "/api/games", {"preset": "hachihachi",
                                      "players": ["Ann", "Bob", "Cy"]}).json["id"]
    save(client, gid, 1, {"Ann": ["01-1"], "Bob": [], "Cy": []})
    r = confirm(client, gid, 1, {})
    assert r.status_code == 400 and "a month played out captures all 48" in r.json["error"]
    r = confirm(client, gid, 1, {"stopped_by": "Ann"})
    assert r.status_code == 400 and "forms no dekiyaku" in r.json["error"]
    r = confirm(client, gid, 1, {"dealt_hands": {"Bob": "01-2 01-3"}, "stopped_by": "Ann"})
    assert r.status_code == 400 and "Bob's dealt hand has 2 cards; a hand is 7" in r.json["error"]
    r = confirm(client, gid, 1, {"field": "huge"})
    assert r.status_code == 400 and "allowed: small, big, grand" in r.json["error"]


def test_the_presets_say_what_each_game_calls_a_round(client) -> None:
    words = {p["name"]: p["round_word"] for p in client.get("/api/presets").json["presets"]}
    assert {n for n, w in words.items() if w == "month"} == \
        {n for n in words if n.startswith("hachihachi")}
    assert set(words.values()) == {"round", "month"}


@pytest.mark.parametrize("preset, word", [("hachihachi", "month"), ("hachihachi-half", "month"),
                                          ("hachihachi-bga", "month"), ("sakura", "round"),
                                          ("gostop", "round")])
def test_the_page_calls_a_round_a_month_in_hachihachi_only(client, preset, word) -> None:
    """A Hachi-Hachi game's page says month where the others say round: its headers, the
    confirm button and the log (the game's ``round_word``, for what the script draws)."""
    r = post(client, "/api/games", {"preset": preset, "players": ["Ann", "Bob", "Cy"]})
    assert r.status_code == 201 and r.json["round_word"] == word
    page = client.get(f"/games/{r.json['id']}?lang=en").data.decode()   # (Go-Stop starts in Korean)
    Word = word.capitalize()
    for said in (f'<h2 id="round-title">{Word}</h2>', f'<button id="confirm-round">Confirm {word}</button>',
                 f'<h2 id="last-result-title">{Word} result</h2>', f"<h2>{Word}s played</h2>",
                 f'title="each confirmed {word} adds', f"Learn this deck from confirmed {word}s"):
        assert said in page, said
    shown = re.sub(r"<[^>]*>", " ", page)           # the words the page shows, not its ids
    assert word == "round" or "round" not in shown.lower()


def test_the_month_form_as_a_player_keeps_it(client) -> None:
    """Issue 66: the dealt hand in view; a teyaku offered by its Japanese name, shape and
    kan; who sits out ticked (the page drops his pile); no teams offered; the header's
    description counts no months of its own beside the game's."""
    r = post(client, "/api/games", {"preset": "hachihachi", "players": ["A", "B", "C", "D"],
                                    "rounds": 6})
    assert r.status_code == 201, r.json
    fields = {f["key"]: f for f in r.json["context_fields"]}
    assert fields["dealt_hands"]["place"] == "view"
    labels = dict(zip(fields["teyaku_chaff"]["choices"], fields["teyaku_chaff"]["choice_labels"]))
    assert labels["tanichi"] == "短一 Tan-ichi: one ribbon, six chaff · 3 kan (+1 over 88)"
    assert labels["sunashi"] == "素無 Sunashi: seven scoring cards, no chaff · 4 kan"
    sets = dict(zip(fields["teyaku_sets"]["choices"], fields["teyaku_sets"]["choice_labels"]))
    assert sets["sanbontatesanbon"] == "三本立三本 Sanbon-tate-sanbon: a three and a standing " \
                                       "three · 7 kan"
    assert fields["sitting_out"]["sits_out"] is True
    assert "months" not in r.json["ruleset"]["description"]       # the game says "6 months"
    presets = {p["name"]: p for p in client.get("/api/presets").json["presets"]}
    assert presets["hachihachi"]["teams"] is False and presets["sakura"]["teams"] is True


def test_the_teyaku_are_offered_with_their_value_under_the_house_rules(client) -> None:
    """A teyaku's kan on the page is the game's: a house rule's value, no nuke-yaku where the
    house plays none, aka's shape as the house counts it, a teyaku switched off not offered."""
    r = post(client, "/api/games", {"preset": "hachihachi", "players": ["A", "B", "C"],
                                    "options": {"points.sanbon": "3", "nuke_yaku": "false",
                                                "aka_ribbons": "exactly_two",
                                                "yaku.sunashi": "false"}})
    assert r.status_code == 201, r.json
    fields = {f["key"]: f for f in r.json["context_fields"]}
    sets = dict(zip(fields["teyaku_sets"]["choices"], fields["teyaku_sets"]["choice_labels"]))
    assert sets["sanbon"] == "三本 Sanbon: three of a month · 3 kan"
    chaff = dict(zip(fields["teyaku_chaff"]["choices"], fields["teyaku_chaff"]["choice_labels"]))
    assert chaff["tanichi"] == "短一 Tan-ichi: one ribbon, six chaff · 3 kan"
    assert chaff["aka"] == "赤 Aka: two ribbons, five chaff · 3 kan"
    assert "sunashi" not in chaff
