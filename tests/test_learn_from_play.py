"""A game chooses its deck, and its confirmed rounds teach that deck (issue 17, part 3):
the crops of the confirmed cards, named as the players confirmed them, are added to the
deck after the round's transaction, and a failure to learn never fails the confirmation."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.cli import main
from scorer.store import GameStore
from scorer.store.decks import DeckCard, DeckNotFound, DeckStore
from scorer.store.schema import MIGRATIONS, connect, current_version, migrate
from scorer.vision.profile import model_key
from web_helpers import CSRF, jpeg, make_app, with_version
from support.fakes import EmbeddingFakeDetector, FakeDetector


def _url(value: int) -> str:
    """A pile crop as the page sends it: a small JPEG data URL of one grey level."""
    img = np.full((150, 96, 3), value, np.uint8)
    return "data:image/jpeg;base64," + base64.b64encode(cv2.imencode(".jpg", img)[1]).decode()


def _enrol(db: Path, name: str = "home") -> DeckStore:
    decks = DeckStore(db)
    decks.save(name, [DeckCard("08-1", np.full((112, 72, 3), 30, np.uint8), "scan.png")])
    return decks


def _call(client, method, url, body=None):
    return client.open(url, method=method, json=with_version(client, url, body), headers=CSRF)


def _game(client, **setup):
    r = _call(client, "POST", "/api/games", {"players": ["Ann", "Bob"], **setup})
    assert r.status_code == 201, r.json
    return r.json


def _play_round(client, gid, n=1):
    """Ann: 08-1 and 01-1 seen, 01-1 fixed to 01-2, 03-1 added by hand (no crop);
    Bob: 12-1 and 09-1 seen, 09-1 removed. Three cards with a crop stay: 08-1, 01-2, 12-1."""
    base = f"/api/games/{gid}/rounds/{n}"
    for owner, codes, grey in (("Ann", ["08-1", "01-1"], (60, 90)),
                               ("Bob", ["12-1", "09-1"], (120, 150))):
        r = _call(client, "PUT", f"{base}/piles",
                  {"owner": owner, "codes": codes, "detected": codes, "source": "camera",
                   "crops": {c: _url(g) for c, g in zip(codes, grey)}})
        assert r.status_code == 200, r.json
    for fix in ({"owner": "Ann", "action": "replace", "old_code": "01-1", "new_code": "01-2"},
                {"owner": "Ann", "action": "add", "new_code": "03-1"},
                {"owner": "Bob", "action": "remove", "old_code": "09-1"}):
        assert _call(client, "POST", f"{base}/corrections", fix).status_code == 201
    r = _call(client, "POST", f"{base}/confirm", {})
    assert r.status_code == 200, r.json
    return r.json


def _learned_codes(decks: DeckStore, name: str = "home") -> list[str]:
    return sorted(c.code for c in decks.get(name).cards if c.source.startswith("game "))


@pytest.mark.parametrize("detector", [FakeDetector, EmbeddingFakeDetector])
def test_a_confirmed_round_teaches_the_game_deck(tmp_path, detector) -> None:
    det = detector()
    client = make_app(tmp_path, DETECTOR=det).test_client()
    decks = _enrol(tmp_path / "games.db")
    game = _game(client, deck="home")
    assert (game["deck"], game["learn"], game["deck_enrolled"]) == ("home", True, True)
    done = _play_round(client, game["id"])
    assert done["learned"] == 3 and "learn_note" not in done
    assert done["round"]["learned"] == 3
    assert _learned_codes(decks) == ["01-2", "08-1", "12-1"]     # corrected code, not 01-1
    learned = {c.code: c for c in decks.get("home").cards if c.source.startswith("game ")}
    assert learned["01-2"].source == f"game {game['id']} round 1 Ann"
    assert learned["01-2"].crop.shape == (112, 72, 3)              # the classifier's crop
    assert abs(int(learned["01-2"].crop.mean()) - 90) <= 2         # the crop of 01-1 as seen
    if detector is EmbeddingFakeDetector:                          # embedded as enrol does
        assert all(c.embedding.shape == (2, 4) and c.model == model_key(det)
                   for c in learned.values())
    else:
        assert all(c.embedding is None for c in learned.values())
    got = client.get(f"/api/games/{game['id']}").json
    assert got["rounds"][0]["learned"] == 3


def test_learning_off_or_no_deck_adds_nothing(tmp_path) -> None:
    client = make_app(tmp_path).test_client()
    decks = _enrol(tmp_path / "games.db")
    off = _game(client, deck="home", learn=False)
    assert off["learn"] is False
    done = _play_round(client, off["id"])
    assert done["learned"] == 0 and done["round"]["learned"] is None
    plain = _game(client)
    assert plain["deck"] is None
    assert _play_round(client, plain["id"])["learned"] == 0
    assert _learned_codes(decks) == [] and decks.names() == ["home"]


def test_the_learn_switch_and_deck_can_change_later(tmp_path) -> None:
    client = make_app(tmp_path).test_client()
    decks = _enrol(tmp_path / "games.db")
    game = _game(client, deck="home", learn=False)
    r = _call(client, "PATCH", f"/api/games/{game['id']}", {"learn": True})
    assert r.status_code == 200 and r.json["learn"] is True and r.json["deck"] == "home"
    assert _play_round(client, game["id"])["learned"] == 3
    r = _call(client, "PATCH", f"/api/games/{game['id']}", {"learn": False})
    assert r.json["learn"] is False
    assert _play_round(client, game["id"], 2)["learned"] == 0
    assert len(_learned_codes(decks)) == 3
    r = _call(client, "PATCH", f"/api/games/{game['id']}", {"deck": None})
    assert r.status_code == 200 and r.json["deck"] is None
    for body, message in (({"deck": "nope"}, "no deck named 'nope'"),
                          ({"learn": "yes"}, "learn must be true or false"),
                          ({"players": ["X"]}, "cannot be changed"), ({}, "send a JSON")):
        r = _call(client, "PATCH", f"/api/games/{game['id']}", body)
        assert r.status_code == 400 and message in r.json["error"], (body, r.json)
    assert _call(client, "PATCH", "/api/games/999", {"learn": True}).status_code == 404


def test_unknown_deck_at_set_up_is_400(tmp_path) -> None:
    client = make_app(tmp_path).test_client()
    _enrol(tmp_path / "games.db")
    for body, message in (({"deck": "other"}, "no deck named 'other' (decks: home)"),
                          ({"deck": 7}, "deck must be the name"),
                          ({"deck": "home", "learn": 1}, "learn must be true or false")):
        r = _call(client, "POST", "/api/games", {"players": ["Ann", "Bob"], **body})
        assert r.status_code == 400 and message in r.json["error"], r.json
    assert client.get("/api/games").json["games"] == []


def test_a_deleted_deck_breaks_neither_loading_nor_confirming(tmp_path) -> None:
    client = make_app(tmp_path).test_client()
    decks = _enrol(tmp_path / "games.db")
    game = _game(client, deck="home")
    decks.delete("home")
    got = client.get(f"/api/games/{game['id']}")
    assert got.status_code == 200 and got.json["deck"] == "home"
    assert got.json["deck_enrolled"] is False and "no longer enrolled" in got.json["deck_note"]
    assert client.get(f"/games/{game['id']}").status_code == 200
    done = _play_round(client, game["id"])
    assert done["learned"] == 0 and "no longer enrolled" in done["learn_note"]
    assert done["round"]["confirmed"] and done["game"]["open_round"] == 2
    assert decks.names() == []                        # learning did not make it anew
    with pytest.raises(DeckNotFound):                 # nor would it, deleted meanwhile
        decks.save("home", [DeckCard("08-1", np.zeros((112, 72, 3), np.uint8))],
                   replace=False, create=False)
    assert decks.names() == []


def test_a_failure_to_learn_keeps_the_confirmation(tmp_path, monkeypatch) -> None:
    client = make_app(tmp_path).test_client()
    _enrol(tmp_path / "games.db")
    game = _game(client, deck="home")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(DeckStore, "save", broken)
    done = _play_round(client, game["id"])
    assert done["learned"] == 0 and "failed" in done["learn_note"]
    got = client.get(f"/api/games/{game['id']}").json
    assert got["rounds"][0]["confirmed"] and got["open_round"] == 2


def test_detection_reads_with_the_game_deck_and_sees_what_it_learned(tmp_path) -> None:
    det = EmbeddingFakeDetector()
    client = make_app(tmp_path, DETECTOR=det).test_client()
    _enrol(tmp_path / "games.db")
    assert client.get("/api/decks").json["decks"][0]["name"] == "home"
    game = _game(client, deck="home")

    def detect():
        r = client.post(f"/api/detect?deck={game['deck']}", data=jpeg(),
                        headers={**CSRF, "Content-Type": "image/jpeg"})
        assert r.status_code == 200, r.json
        assert r.json["deck"] == "home"
        return det.profiles[-1]

    before = detect()
    assert before.name == "home" and len(before.codes) == 2       # one crop, two turns
    _play_round(client, game["id"])
    after = detect()                    # the profile cache follows the deck's update
    assert sorted(set(after.codes)) == ["01-2", "08-1", "12-1"] and len(after.codes) == 8


def test_a_version_3_database_keeps_its_games(tmp_path) -> None:
    path = tmp_path / "old.db"
    conn = connect(path)
    migrate(conn, MIGRATIONS[:3])
    conn.execute("INSERT INTO games (created_at, preset, options, players, teams, "
                 "first_dealer, rounds_planned) VALUES ('t', 'sakura', '{}', "
                 "'[\"Ann\", \"Bob\"]', NULL, 'Ann', 4)")
    conn.execute("INSERT INTO rounds (game_id, number, dealer, result, confirmed_at) "
                 "VALUES (1, 1, 'Ann', NULL, 't')")
    conn.execute("INSERT INTO piles (round_id, owner, codes, detected, source, updated_at)"
                 " VALUES (1, 'Ann', '[\"08-1\"]', '[\"08-1\"]', 'camera', 't')")
    conn.close()
    store = GameStore(path)
    game = store.get_game(1)
    assert game.players == ["Ann", "Bob"] and game.rounds_planned == 4
    assert game.rounds[0].piles["Ann"].codes == ["08-1"] and game.rounds[0].confirmed
    assert (game.deck, game.learn, game.learns, game.rounds[0].learned) == \
        (None, True, False, None)
    conn = connect(path)
    assert current_version(conn) == len(MIGRATIONS) == 7
    conn.close()


def test_accuracy_by_round_counts_the_crops_learned(tmp_path, capsys) -> None:
    db = tmp_path / "games.db"
    store = GameStore(db)
    game = store.create_game(preset="sakura", options={}, players=["Ann", "Bob"], teams=None,
                             first_dealer="Ann", rounds_planned=2, deck=None)
    store.save_pile(game.id, 1, "Ann", ["08-1"], detected=["08-1"], source="camera")
    store.save_pile(game.id, 1, "Bob", ["12-1"], source="manual")
    store.confirm_round(game.id, 1)
    store.set_learned(game.id, 1, 5)
    assert main(["accuracy", "--db", str(db), "--by-round", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rounds"]
    assert [(r["round"], r["learned"]) for r in rows] == [(1, 5)]
    assert main(["accuracy", "--db", str(db), "--by-round"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[-1] == "learned" and lines[1].split()[-1] == "5"


def test_a_crop_fixed_before_saving_teaches_the_code_chosen_never_the_one_fixed_away(
        tmp_path) -> None:
    """A pile saved with a fix (01-1 read, the players chose 01-2) and 01-1 also added by
    hand: the crop of the card seen is 01-2's, and 01-1 (fixed away) is never taught."""
    client = make_app(tmp_path, DETECTOR=FakeDetector()).test_client()
    decks = _enrol(tmp_path / "games.db")
    gid = _game(client, deck="home")["id"]
    base = f"/api/games/{gid}/rounds/1"
    r = _call(client, "PUT", f"{base}/piles",
              {"owner": "Ann", "codes": ["01-2", "01-1"], "detected": ["1-1"],
               "source": "camera", "fixes": [["01-1", "01-2"]], "crops": {"1-1": _url(90)}})
    assert r.status_code == 200, r.json
    r = _call(client, "PUT", f"{base}/piles",
              {"owner": "Bob", "codes": [], "detected": [], "source": "manual"})
    assert r.status_code == 200, r.json
    done = _call(client, "POST", f"{base}/confirm", {}).json
    assert done["learned"] == 1
    assert _learned_codes(decks) == ["01-2"]
    learned = next(c for c in decks.get("home").cards if c.source.startswith("game "))
    assert abs(int(learned.crop.mean()) - 90) <= 2
