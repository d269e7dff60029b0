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


def _count(monkeypatch, name: str) -> list[str]:
    """The calls of ``DeckStore.<name>`` from now on (the deck each read)."""
    calls: list[str] = []
    real = getattr(DeckStore, name)
    monkeypatch.setattr(DeckStore, name, lambda self, arg, *a, **k: calls.append(arg) or
                        real(self, arg, *a, **k))
    return calls


def test_a_profile_is_built_from_the_stored_embeddings_once_until_the_deck_changes(
        tmp_path, monkeypatch) -> None:
    decks = EnrolledDecks(DeckStore(tmp_path / "games.db"))
    det = EmbeddingFakeDetector()
    decks.enrol("home", [DeckCard("08-1", _crop(30)), DeckCard("01-1", _crop(90))], det)
    reads, pngs, gets = (_count(monkeypatch, n) for n in ("embeddings", "crops", "get"))
    first = decks.profile("home", det)
    assert decks.profile("home", det) is first and reads == ["home"]
    decks.store.save("home", [DeckCard("12-1", _crop(150))], replace=False)
    assert decks.cached_profile("home", det) is None         # the deck changed
    again = decks.profile("home", det)
    assert again is not first and reads == ["home", "home"]
    assert sorted(set(again.codes)) == ["01-1", "08-1", "12-1"]
    # 12-1 was saved without embeddings: embedded once from its PNG, then kept
    assert len(pngs) == 1 and gets == []
    decks.store.save("home", [DeckCard("12-2", _crop(200), embedding=None)], replace=False)
    decks.profile("home", det)
    assert len(pngs) == 2                                    # only the new crop's
    stored = decks.store.embeddings("home")
    assert all(r.embedding is not None for r in stored)
    with pytest.raises(DeckNotFound, match="no deck named 'away'"):
        decks.profile("away", det)


def test_the_profiles_of_several_decks_are_kept_at_once(tmp_path, monkeypatch) -> None:
    """Two tables on two decks: each frame finds its deck's profile kept."""
    decks = EnrolledDecks(DeckStore(tmp_path / "games.db"), kept=2)
    det = EmbeddingFakeDetector()
    for name, grey in (("home", 30), ("club", 90), ("cafe", 150)):
        decks.enrol(name, [DeckCard("08-1", _crop(grey))], det)
    reads = _count(monkeypatch, "embeddings")
    home, club = decks.profile("home", det), decks.profile("club", det)
    for _ in range(3):
        assert decks.profile("home", det) is home and decks.profile("club", det) is club
    assert reads == ["home", "club"]
    decks.profile("cafe", det)                      # a third deck: the least used goes
    assert decks.cached_profile("home", det) is None
    assert decks.cached_profile("club", det) is club


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


def test_a_deck_saved_in_the_database_decides_with_its_first_and_latest_crops(tmp_path) -> None:
    """With the shipped classifier (it has cell maps) a profile built from the database
    decides: it holds the cells of each card's first and latest crop (upright and turned)
    and its floor from the deck's own partial views, so a game's deck refuses too."""
    from gate import SCENE_JPEG
    from scorer.cards import card
    from scorer.vision import Detector, decode_image
    from scorer.vision.profile import PARTIAL_VIEWS

    det = Detector(threads=1)
    seen = det.detect(decode_image(SCENE_JPEG.read_bytes()), crops=True)
    assert seen.crops is not None
    decks = EnrolledDecks(DeckStore(tmp_path / "games.db"))
    first = seen.codes[0]
    decks.enrol("table", [DeckCard(c, k) for c, k in zip(seen.codes, seen.crops)], det)
    for shade in (40, 80, 120):             # three crops learnt later for one card
        decks.store.save("table", [DeckCard(first, np.full_like(seen.crops[0], shade))],
                         replace=False)
    profile = decks.profile("table", det)
    assert profile.decides and profile.cells is not None
    assert profile.own is not None and len(profile.own) == len(seen) * PARTIAL_VIEWS
    assert sorted(profile.cells.ids.tolist()) == sorted(card(c).class_index for c in seen.codes)
    assert len(profile.cells) == 2 * (len(seen) + 1)     # the first card: its first and latest
