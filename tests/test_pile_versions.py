"""No lost updates (issue 23): every pile write names the version it replaces, a stale
write gets 409 with the pile as it is, a write naming none is refused, and a confirm
racing a delete never answers 404 after it committed. Races are run 20 times each."""

from __future__ import annotations

import base64
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from support.fakes import EmbeddingFakeDetector
from web_helpers import CSRF, make_app

RACES = 20


def call(client, method, url, body=None, headers=None):
    return client.open(url, method=method, json=body, headers={**CSRF, **(headers or {})})


@pytest.fixture
def app(tmp_path: Path):
    return make_app(tmp_path)


def _game(client, **setup) -> int:
    r = call(client, "POST", "/api/games", {"players": ["Ann", "Bob"], **setup})
    assert r.status_code == 201, r.json
    return r.json["id"]


def _pile(client, gid, owner="Ann"):
    rnd = client.get(f"/api/games/{gid}").json["rounds"]
    return rnd[0]["piles"].get(owner) if rnd else None


def _race(*calls):
    """Run the calls at once (a barrier), each in its own thread: their answers."""
    barrier = threading.Barrier(len(calls))
    out: list = [None] * len(calls)

    def run(i, fn):
        barrier.wait()
        out[i] = fn()

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return out


def test_a_write_naming_no_version_is_refused(app) -> None:
    c = app.test_client()
    gid = _game(c)
    url = f"/api/games/{gid}/rounds/1/piles"
    r = call(c, "PUT", url, {"owner": "Ann", "codes": ["08-1"]})
    assert r.status_code == 428 and "version" in r.json["error"]
    r = call(c, "PUT", url, {"owner": "Ann", "codes": ["08-1"], "version": 0})
    assert r.status_code == 200 and r.json["pile"]["version"] == 1 and r.headers["ETag"] == '"1"'
    r = call(c, "POST", f"/api/games/{gid}/rounds/1/corrections",
             {"owner": "Ann", "action": "add", "new_code": "01-1"})
    assert r.status_code == 428
    r = call(c, "POST", f"/api/games/{gid}/rounds/1/corrections",
             {"owner": "Ann", "action": "add", "new_code": "01-1"}, {"If-Match": '"1"'})
    assert r.status_code == 201 and r.json["pile"]["version"] == 2
    assert _pile(c, gid)["version"] == 2


def test_a_stale_write_gets_409_with_the_current_pile(app) -> None:
    c = app.test_client()
    gid = _game(c)
    url = f"/api/games/{gid}/rounds/1/piles"
    assert call(c, "PUT", url, {"owner": "Ann", "codes": ["08-1"], "version": 0}).status_code == 200
    assert call(c, "PUT", url, {"owner": "Ann", "codes": ["01-1"], "version": 1}).status_code == 200
    r = call(c, "PUT", url, {"owner": "Ann", "codes": ["12-1"], "version": 1})   # made on v1
    assert r.status_code == 409 and r.json["stale"] is True
    assert r.json["pile"]["codes"] == ["01-1"] and r.json["pile"]["version"] == 2
    r = call(c, "PUT", url, {"owner": "Ann", "codes": ["12-1"], "version": 0})   # "new" pile
    assert r.status_code == 409
    assert _pile(c, gid)["codes"] == ["01-1"]


def test_a_save_racing_a_correction_loses_no_acknowledged_write(app) -> None:
    c = app.test_client()
    for _ in range(RACES):
        gid = _game(c)
        base = f"/api/games/{gid}/rounds/1"
        assert call(c, "PUT", base + "/piles",
                    {"owner": "Ann", "codes": ["08-1"], "version": 0}).status_code == 200
        save = lambda base=base: call(app.test_client(), "PUT", base + "/piles",    # noqa: E731
                            {"owner": "Ann", "codes": ["08-1", "02-1"], "version": 1})
        fix = lambda base=base: call(app.test_client(), "POST", base + "/corrections",  # noqa: E731
                           {"owner": "Ann", "action": "add", "new_code": "03-1", "version": 1})
        put, corr = _race(save, fix)
        assert sorted([put.status_code, corr.status_code]) in ([200, 409], [201, 409]), \
            (put.json, corr.json)
        won = put if put.status_code == 200 else corr
        lost = corr if won is put else put
        assert _pile(c, gid)["codes"] == won.json["pile"]["codes"]       # the acknowledged one
        assert lost.json["pile"] == {k: v for k, v in _pile(c, gid).items() if k != "crops"}


def test_two_saves_on_one_version_one_wins_the_other_is_told(app) -> None:
    c = app.test_client()
    for _ in range(RACES):
        gid = _game(c)
        url = f"/api/games/{gid}/rounds/1/piles"
        a, b = _race(*[lambda codes=codes, url=url: call(app.test_client(), "PUT", url,
                                                {"owner": "Ann", "codes": codes, "version": 0})
                       for codes in (["08-1"], ["12-1"])])
        assert sorted([a.status_code, b.status_code]) == [200, 409]
        won = a if a.status_code == 200 else b
        assert _pile(c, gid)["codes"] == won.json["pile"]["codes"]


def _crop_url(grey: int) -> str:
    img = np.full((112, 72, 3), grey, np.uint8)
    return "data:image/jpeg;base64," + base64.b64encode(cv2.imencode(".jpg", img)[1]).decode()


def test_a_confirm_racing_a_delete_never_answers_404_after_committing(tmp_path: Path,
                                                                       monkeypatch) -> None:
    from scorer.store import GameStore
    from scorer.store.decks import DeckCard
    app = make_app(tmp_path, DETECTOR=EmbeddingFakeDetector())
    decks = app.extensions["hanafuda"]["decks"].store
    decks.save("home", [DeckCard("01-1", np.full((112, 72, 3), 50, np.uint8), "scan")])
    committed: set[int] = set()
    real = GameStore.confirm_round

    def counting(self, game_id, number, context=None):
        done = real(self, game_id, number, context)
        committed.add(game_id)
        return done

    monkeypatch.setattr(GameStore, "confirm_round", counting)
    c = app.test_client()
    answers = []
    for _ in range(RACES):
        gid = _game(c, deck="home", learn=True)
        base = f"/api/games/{gid}/rounds/1"
        for owner, code, grey in (("Ann", "08-1", 90), ("Bob", "12-1", 140)):
            assert call(c, "PUT", base + "/piles",
                        {"owner": owner, "codes": [code], "detected": [code], "version": 0,
                         "source": "camera", "crops": {code: _crop_url(grey)}}).status_code == 200
        confirm, delete = _race(
            lambda base=base: call(app.test_client(), "POST", base + "/confirm", {}),
            lambda gid=gid: call(app.test_client(), "DELETE", f"/api/games/{gid}"))
        answers.append((gid, confirm.status_code, delete.status_code))
        assert delete.status_code == 200
        if gid in committed:
            assert confirm.status_code == 200 and confirm.json["round"]["confirmed"], confirm.json
        else:
            assert confirm.status_code == 404
    kept = [c.source for c in decks.get("home").cards]
    assert kept == ["scan"], kept                   # no deleted game's crops stay
