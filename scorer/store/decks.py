"""Enrolled decks in the game database (tables ``decks`` and ``deck_cards``): their
persistence only. Enrolment, learning from play and profiles are ``scorer.enrolled``'s.

A deck keeps each card's crop (PNG) as the source of truth, and beside it the crop's
embeddings by the classifier named in ``model``: a profile is built from those
(``embeddings``, no crop read); for another classifier the crops are embedded once and
the new embeddings kept (``scorer.enrolled.EnrolledDecks.build_profile``).
"""

from __future__ import annotations

import base64
import builtins
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

import cv2
import numpy as np

from scorer.cards import CODES, card
from scorer.errors import InputError
from scorer.store.database import Database

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}")   # whole names: fullmatch
MAX_CROPS_PER_CARD = 16


class SourceGone(InputError):
    """The game a crop was learned from has been deleted (its crops go with it)."""


class DeckNotFound(InputError):
    """No enrolled deck of this name."""


@dataclass
class DeckCard:
    code: str
    crop: np.ndarray                 # (H,W,3) uint8 BGR
    source: str = ""
    model: str | None = None
    embedding: np.ndarray | None = None   # (2,D): the crop, then turned 180 degrees
    game_id: int | None = None       # the game it was learned from (goes with that game)


@dataclass(frozen=True)
class StoredEmbedding:
    """One kept crop's embeddings as stored (no crop decoded): what a profile is built
    from. ``embedding`` (2,D), None when never embedded; ``model``: its classifier."""

    id: int
    code: str
    model: str | None
    embedding: np.ndarray | None


@dataclass
class DeckRecord:
    name: str
    created_at: str
    updated_at: str
    cards: list[DeckCard] = field(default_factory=list)

    @property
    def codes(self) -> list[str]:
        have = {c.code for c in self.cards}
        return [c for c in CODES if c in have]

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "cards": len(self.codes), "crops": len(self.cards),
                "missing": [c for c in CODES if c not in set(self.codes)],
                "created_at": self.created_at, "updated_at": self.updated_at}

    def to_json(self) -> dict[str, Any]:
        """Portable export: the crops as PNG data URLs (embeddings are model-specific)."""
        return {**self.summary(),
                "crops": [{"code": c.code, "source": c.source, "png": png_url(c.crop)}
                          for c in self.cards]}


def clean_name(name: Any) -> str:
    """A new deck's name as stored: trimmed, inner runs of spaces as one, then checked
    (``"home "`` and ``"home  "`` are ``home``; the page trims the same way)."""
    if isinstance(name, str):
        name = " ".join(name.split())
    return check_name(name)


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise InputError("a deck name is 1-40 letters, digits, spaces, '.', '_' or '-', "
                         "starting with a letter or digit")
    return name


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _png(crop: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", crop)
    if not ok:
        raise InputError("cannot encode a card crop")
    return buf.tobytes()


def png_url(crop: np.ndarray) -> str:
    """A crop as a ``data:image/png;base64,`` URL (the export's and the page's form)."""
    return "data:image/png;base64," + base64.b64encode(_png(crop)).decode("ascii")


class DeckStore:
    """The enrolled decks of one database (the games' one: a ``Database``, or a file
    opened as one)."""

    def __init__(self, db: Database | Path | str) -> None:
        self.db = Database.of(db)

    @property
    def path(self) -> Path:
        return self.db.path

    def names(self) -> list[str]:
        with self.db.connection() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM decks ORDER BY name")]

    def check(self, name: str) -> str:
        """``name`` if it is an enrolled deck, else DeckNotFound naming the decks."""
        if name not in self.names():
            raise self._not_found(name)
        return name

    def _not_found(self, name: str) -> DeckNotFound:
        known = ", ".join(self.names()) or "none yet; enrol one with hanafuda enrol"
        return DeckNotFound(f"no deck named {name!r} (decks: {known})")

    def updated_at(self, name: str) -> str:
        """When deck ``name`` last changed (what a cached profile is checked against)."""
        with self.db.connection() as conn:
            row = conn.execute("SELECT updated_at FROM decks WHERE name = ?",
                               (name,)).fetchone()
        if row is None:
            raise self._not_found(name)
        return str(row[0])

    def list(self) -> list[dict[str, Any]]:
        with self.db.connection() as conn:
            rows = conn.execute(
                "SELECT d.name, d.created_at, d.updated_at, COUNT(c.id) AS crops, "
                "COUNT(DISTINCT c.code) AS cards FROM decks d "
                "LEFT JOIN deck_cards c ON c.deck_id = d.id GROUP BY d.id ORDER BY d.name")
            return [{"name": r["name"], "cards": r["cards"], "crops": r["crops"],
                     "created_at": r["created_at"], "updated_at": r["updated_at"]}
                    for r in rows]

    def get(self, name: str) -> DeckRecord:
        with self.db.connection() as conn:
            d = conn.execute("SELECT * FROM decks WHERE name = ?", (name,)).fetchone()
            if d is None:
                raise self._not_found(name)
            rows = conn.execute("SELECT * FROM deck_cards WHERE deck_id = ? ORDER BY id",
                                (d["id"],)).fetchall()
        cards = []
        for r in rows:
            crop = cv2.imdecode(np.frombuffer(r["crop"], np.uint8), cv2.IMREAD_COLOR)
            if crop is None:        # a stored crop that no longer decodes is left out
                continue
            emb = None
            if r["embedding"] is not None:
                emb = np.frombuffer(r["embedding"], np.float32).reshape(2, -1).copy()
            cards.append(DeckCard(r["code"], crop, r["source"], r["model"], emb, r["game_id"]))
        return DeckRecord(d["name"], d["created_at"], d["updated_at"], cards)

    def embeddings(self, name: str) -> builtins.list[StoredEmbedding]:
        """Deck ``name``'s kept crops as their stored embeddings, no crop read."""
        with self.db.connection() as conn:
            d = conn.execute("SELECT id FROM decks WHERE name = ?", (name,)).fetchone()
            if d is None:
                raise self._not_found(name)
            rows = conn.execute("SELECT id, code, model, embedding FROM deck_cards WHERE "
                                "deck_id = ? ORDER BY id", (d["id"],)).fetchall()
        return [StoredEmbedding(r["id"], r["code"], r["model"], None if r["embedding"] is None
                                else np.frombuffer(r["embedding"], np.float32).reshape(2, -1))
                for r in rows]

    def crops(self, ids: Iterable[int]) -> dict[int, np.ndarray]:
        """The crops of the kept cards ``ids`` (decoded; one that no longer decodes is
        left out)."""
        wanted = list(ids)
        out: dict[int, np.ndarray] = {}
        with self.db.connection() as conn:
            for start in range(0, len(wanted), 500):
                part = wanted[start:start + 500]
                marks = ",".join("?" * len(part))
                for r in conn.execute(f"SELECT id, crop FROM deck_cards WHERE id IN ({marks})",
                                      part):
                    crop = cv2.imdecode(np.frombuffer(r["crop"], np.uint8), cv2.IMREAD_COLOR)
                    if crop is not None:
                        out[int(r["id"])] = crop
        return out

    def set_embeddings(self, found: Iterable[tuple[int, str, np.ndarray]]) -> None:
        """Keep embeddings computed since: (kept card id, classifier key, (2,D) array).
        The deck's ``updated_at`` stays: its cards are the same."""
        with self.db.write() as conn:
            conn.executemany("UPDATE deck_cards SET model = ?, embedding = ? WHERE id = ?",
                             [(model, np.asarray(emb, np.float32).tobytes(), int(i))
                              for i, model, emb in found])

    def drop_learned(self, game_id: int, number: int) -> builtins.list[str]:
        """Forget the crops round ``number`` of game ``game_id`` taught any deck (the round
        is reopened: its piles may change) -> the decks that changed."""
        source = f"game {int(game_id)} round {int(number)} %"
        with self.db.write() as conn:
            rows = conn.execute(
                "SELECT DISTINCT d.id, d.name FROM deck_cards c JOIN decks d ON d.id = "
                "c.deck_id WHERE c.game_id = ? AND c.source LIKE ?",
                (game_id, source)).fetchall()
            conn.execute("DELETE FROM deck_cards WHERE game_id = ? AND source LIKE ?",
                         (game_id, source))
            now = _now()
            for r in rows:
                conn.execute("UPDATE decks SET updated_at = ? WHERE id = ?", (now, r["id"]))
        return [r["name"] for r in rows]

    def save(self, name: str, cards: Iterable[DeckCard], replace: bool = True,
             create: bool = True) -> None:
        """Store ``cards`` as deck ``name`` (its old cards dropped unless ``replace`` is
        False, when they are added to), in one transaction. With ``create`` False a deck
        that does not exist (deleted meanwhile) is DeckNotFound, not made anew."""
        check_name(name)
        cards = list(cards)
        if not cards:
            raise InputError("no cards to save")
        for c in cards:
            card(c.code)
        now = _now()
        with self.db.write() as conn:
            row = conn.execute("SELECT id FROM decks WHERE name = ?", (name,)).fetchone()
            if row is None and not create:
                raise DeckNotFound(f"no deck named {name!r}")
            if row is None:
                deck_id = conn.execute(
                    "INSERT INTO decks (name, created_at, updated_at) VALUES (?, ?, ?)",
                    (name, now, now)).lastrowid
            else:
                deck_id = row[0]
                conn.execute("UPDATE decks SET updated_at = ? WHERE id = ?", (now, deck_id))
                if replace:
                    conn.execute("DELETE FROM deck_cards WHERE deck_id = ?", (deck_id,))
            for c in cards:
                emb = None if c.embedding is None else \
                    np.asarray(c.embedding, np.float32).tobytes()
                try:
                    conn.execute(
                        "INSERT INTO deck_cards (deck_id, code, crop, source, model, "
                        "embedding, created_at, game_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (deck_id, card(c.code).code, _png(c.crop), c.source, c.model, emb,
                         now, c.game_id))
                except sqlite3.IntegrityError:      # the foreign key: that game is gone
                    raise SourceGone(f"game {c.game_id} was deleted: its crops are not "
                                     "kept") from None
            # a card keeps at most its newest MAX_CROPS_PER_CARD crops
            conn.execute(
                "DELETE FROM deck_cards WHERE deck_id = ? AND id NOT IN (SELECT id FROM "
                "(SELECT id, ROW_NUMBER() OVER (PARTITION BY code ORDER BY id DESC) AS n "
                "FROM deck_cards WHERE deck_id = ?) WHERE n <= ?)",
                (deck_id, deck_id, MAX_CROPS_PER_CARD))

    def delete(self, name: str) -> None:
        with self.db.write() as conn:
            if conn.execute("DELETE FROM decks WHERE name = ?", (name,)).rowcount == 0:
                raise DeckNotFound(f"no deck named {name!r}")

