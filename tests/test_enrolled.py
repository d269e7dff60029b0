"""scorer.enrolled: the enrolled decks as one service. A deck profile is built once and
kept until the deck changes (each frame checks one ``updated_at``); the app holds one
deck store, so a request runs no migrations."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.enrolled import EnrolledDecks
from scorer.store import database
from scorer.store.decks import DeckCard, DeckNotFound, DeckStore
from support.fakes import EmbeddingFakeDetector
from web_helpers import CSRF, jpeg, make_app


def _crop(value: int) -> np.ndarray:
    return np.full((112, 72, 3), value, np.uint8)


def test_a_profile_is_read_once_until_the_deck_changes(tmp_path, monkeypatch) -> None:
    decks = EnrolledDecks(DeckStore(tmp_path / "games.db"))
    det = EmbeddingFakeDetector()
    decks.enrol("home", [DeckCard("08-1", _crop(30)), DeckCard("01-1", _crop(90))], det)
    reads = []
    real_get = DeckStore.get
    monkeypatch.setattr(DeckStore, "get", lambda self, name: reads.append(name) or
                        real_get(self, name))
    first = decks.profile("home", det)
    assert decks.profile("home", det) is first and reads == ["home"]
    decks.store.save("home", [DeckCard("12-1", _crop(150))], replace=False)
    again = decks.profile("home", det)
    assert again is not first and reads == ["home", "home"]
    assert sorted(set(again.codes)) == ["01-1", "08-1", "12-1"]
    with pytest.raises(DeckNotFound, match="no deck named 'away'"):
        decks.profile("away", det)


def test_requests_run_no_migrations(tmp_path, monkeypatch) -> None:
    app = make_app(tmp_path, DETECTOR=EmbeddingFakeDetector())
    client = app.test_client()
    app.extensions["hanafuda"]["decks"].enrol("home", [DeckCard("08-1", _crop(30))],
                                              EmbeddingFakeDetector())
    ran = []
    real = database.migrate
    monkeypatch.setattr(database, "migrate", lambda *a, **k: ran.append(1) or real(*a, **k))
    assert client.get("/api/decks").status_code == 200
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "deck": "home"},
                    headers=CSRF)
    assert r.status_code == 201, r.json
    r = client.post("/api/detect?deck=home", data=jpeg(), headers={**CSRF,
                    "Content-Type": "image/jpeg"})
    assert r.status_code == 200 and r.json["deck"] == "home"
    assert ran == []
    DeckStore(tmp_path / "games.db")                 # what a request did before
    assert ran == [1]
