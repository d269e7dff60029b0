"""Enrolled decks as one service: enrolment, learning from the rounds played, crops from
games, and the deck profile the recogniser reads with (cached until the deck changes).
``hanafuda enrol``, ``hanafuda detect --deck`` and the web app use it; the app holds one.

The names, one thing each:
- *the deck*: the 48 cards (``scorer.cards.DECK``; the page's ``static/js/cards.js``);
- an *enrolled deck*: one table's physical set, by name, with its cards' crops
  (``DeckRecord`` of ``DeckCard``s, kept by ``scorer.store.decks.DeckStore``, shown by
  the *Your decks* page, ``static/js/decks.js``);
- a game's ``deck``: the name of the enrolled deck its cards are read with;
- a *deck profile*: an enrolled deck's embeddings as the recogniser uses them
  (``scorer.vision.profile.DeckProfile``).

The store keeps the rows; this module is where they meet the recogniser.
"""

from __future__ import annotations

import base64
import logging
import sqlite3
import threading
from collections import OrderedDict
from typing import Any

import cv2
import numpy as np

from scorer.errors import Busy, InputError
from scorer.store import Confirmation, GameNotFound, GameStore, RoundRecord
from scorer.store.decks import (DeckCard, DeckNotFound, DeckRecord, DeckStore, SourceGone,
                                check_name)
from scorer.vision.geometry import CROP_H, CROP_W
from scorer.vision.image import check, decode
from scorer.images import Images, detector_or_none
from scorer.vision.profile import (DeckProfile, calibrated, cell_prototypes, embed_cards,
                                   embed_crops, first_and_latest, model_key,
                                   require_embedding)

log = logging.getLogger(__name__)
PROFILES_KEPT = 8           # deck profiles kept at once: the tables of one server
PROFILE_PIXELS = 100_000    # a profile built from stored embeddings: a small job
CROP_PIXELS = 96 * 150      # the most a kept crop decodes to (older pages kept this size)


class EnrolledDecks:
    """The enrolled decks of one database, and the games that teach them."""

    def __init__(self, decks: DeckStore, games: GameStore | None = None,
                 kept: int = PROFILES_KEPT) -> None:
        self.store = decks
        self.games = games or GameStore(decks.db)
        self.kept = max(1, int(kept))
        self._lock = threading.Lock()
        # deck name -> ((its updated_at, the detector), its profile), newest used last
        self._profiles: OrderedDict[str, tuple[tuple[str, int], DeckProfile]] = OrderedDict()

    # ------------------------------------------------------------ enrolment
    def enrol(self, name: str, cards: list[DeckCard], detector: Any,
              replace: bool = True) -> DeckRecord:
        """Embed the cards' crops with the detector's classifier (the profile's prototypes,
        kept beside the crops) and save them: the one way ``hanafuda enrol`` and the page
        store a deck (its old cards replaced unless ``replace`` is False)."""
        check_name(name)
        embed_cards(cards, detector)
        self.store.save(name, cards, replace=replace)
        return self.store.get(name)

    # -------------------------------------------------------------- profile
    def profile(self, name: str, detector: Any) -> DeckProfile:
        """The profile of deck ``name`` for ``detector``: the one kept since the deck last
        changed, else built now (``build_profile``). DeckNotFound (an InputError) for an
        unknown deck."""
        return self.cached_profile(name, detector) or self.build_profile(name, detector)

    def cached_profile(self, name: str, detector: Any) -> DeckProfile | None:
        """The profile kept for deck ``name`` if the deck has not changed since (a frame
        costs one ``SELECT updated_at``), else None. The last ``kept`` decks used are
        kept (the tables of one server, each on its deck)."""
        check_name(name)
        require_embedding(detector)
        key = (self.store.updated_at(name), id(detector))
        with self._lock:
            kept = self._profiles.get(name)
            if kept is None or kept[0] != key:
                return None
            self._profiles.move_to_end(name)
            return kept[1]

    def build_profile(self, name: str, detector: Any) -> DeckProfile:
        """Build deck ``name``'s profile from its stored embeddings and keep it. Crops
        never embedded, or embedded by another classifier, are embedded once from their
        PNGs and the embeddings stored, so the next build reads embeddings only."""
        check_name(name)
        require_embedding(detector)
        stamp = self.store.updated_at(name)
        rows = self.store.embeddings(name)
        key = model_key(detector)
        fresh: dict[int, np.ndarray] = {r.id: r.embedding for r in rows
                                        if r.embedding is not None and r.model == key}
        stale = [r for r in rows if r.id not in fresh]
        if stale:
            crops = self.store.crops(r.id for r in stale)
            ids = [r.id for r in stale if r.id in crops]
            if ids:
                emb = embed_crops(detector, np.stack([crops[i] for i in ids]))
                n = len(ids)
                found = {i: np.stack([emb[k], emb[n + k]]) for k, i in enumerate(ids)}
                try:                        # kept, so the next build reads them only
                    self.store.set_embeddings((i, key, e) for i, e in found.items())
                except sqlite3.Error as exc:    # a read-only database: built all the same
                    log.warning("deck %r: embeddings not kept (%s)", name, exc)
                fresh.update(found)
        kept = [(r.code, fresh[r.id]) for r in rows if r.id in fresh]
        if not kept:
            raise InputError(f"deck {name!r} has no cards")
        profile = DeckProfile(name, [code for code, e in kept for _ in range(len(e))],
                              np.concatenate([e for _, e in kept]))
        if detector.has_cells:
            profile = self._deciding(profile, rows, detector)
        with self._lock:
            self._profiles[name] = ((stamp, id(detector)), profile)
            self._profiles.move_to_end(name)
            while len(self._profiles) > self.kept:
                self._profiles.popitem(last=False)
        return profile

    def _deciding(self, profile: DeckProfile, rows: list, detector: Any) -> DeckProfile:
        """``profile`` with its cards' cell maps and its floor (``cell_prototypes``,
        ``calibrated``), read from the crops: what lets the deck decide. A few hundred
        crops read once a build, never stored (they follow the classifier)."""
        crops = self.store.crops(rows[i].id for i in first_and_latest([r.code for r in rows]))
        read = [r for r in rows if r.id in crops]
        if not read:
            return profile
        codes, stack = [r.code for r in read], np.stack([crops[r.id] for r in read])
        profile.cells = cell_prototypes(detector, codes, stack)
        return calibrated(profile, codes, stack, detector)

    # ----------------------------------------------------- learning from play
    def crops_from_games(self, game_ids: list[int] | None, crop_w: int,
                         crop_h: int) -> list[DeckCard]:
        """The crop of every card of the confirmed rounds (all games, or ``game_ids``),
        named as the players confirmed it (a corrected card's crop follows the
        correction)."""
        out: list[DeckCard] = []
        with self.games.db.connection():        # one connection for every game read
            ids = game_ids or [g.id for g in self.games.list_games(limit=100_000)]
            for gid in ids:
                try:
                    game = self.games.get_game(gid)
                except GameNotFound:
                    raise InputError(f"no game {gid}") from None
                for rnd in game.confirmed_rounds:
                    out += round_crops(gid, rnd, crop_w, crop_h)
        if not out:
            raise InputError("no card crops in the confirmed rounds of "
                             + (f"game {', '.join(map(str, ids))}" if game_ids else "any game")
                             + " (crops are kept for cards seen by the camera)")
        return out

    def learn(self, done: Confirmation, images: Images) -> dict[str, Any]:
        """Add the crop of every card of the confirmed round's piles (named as the players
        confirmed it) to the game's deck, when the game has one and learns; embedded as
        ``enrol`` does when ``images`` has a detector with card embeddings, else stored
        without (a profile embeds them when it is built). The decoding and embedding run
        on ``images``; then the deck's profile is built anew there (``refresh``), so the
        next frame read with the deck finds it ready. -> ``{"learned": N}``, with a
        ``"learn_note"`` when nothing could be learned although the game learns.

        Called after the round's transaction has committed, so learning can never lose or
        fail a confirmation: any failure is logged and reported as ``"learned": 0``. The
        crops keep their game, and go with it when it is deleted (a delete since the
        confirm leaves nothing learned)."""
        game, rnd = done.game, done.round
        if not game.learns:
            return {"learned": 0}
        if not game.deck_enrolled:
            return _deck_gone(game.deck)
        try:
            count = sum(len(p.crops) for p in rnd.piles.values())
            det = detector_or_none(images) if count else None
            size = (det.crop_w, det.crop_h) if det is not None else (CROP_W, CROP_H)

            def job() -> list[DeckCard]:
                cards = round_crops(game.id, rnd, *size)
                if cards and det is not None and det.has_embedding:
                    embed_cards(cards, det)
                return cards

            cards = images.run(count * CROP_PIXELS, job) if count else []
            if not cards:
                self.games.set_learned(game.id, rnd.number, 0)
                return _note("no card crops in this round to learn from (cards seen by the "
                             "camera or in a photo have one)")
            self.store.save(str(game.deck), cards, replace=False, create=False)
            self.games.set_learned(game.id, rnd.number, len(cards))
            self.refresh(str(game.deck), images)
            return {"learned": len(cards)}
        except DeckNotFound:                # deleted since the round was confirmed
            return _deck_gone(game.deck)
        except SourceGone:                  # the game was deleted since: its crops go too
            return _note(f"game {game.id} was deleted: nothing learned from it")
        except Busy:
            return _note("the server was too busy to learn from this round's crops; the "
                         "round is confirmed")
        except Exception:
            log.exception("learning from game %s round %s failed", game.id, rnd.number)
            return _note("learning from this round failed (see the server's log); the "
                         "round is confirmed")

    def unlearn(self, game_id: int, number: int, images: Images) -> None:
        """Forget what round ``number`` of game ``game_id`` taught (it is reopened), and
        build the profiles of the decks that changed anew."""
        for name in self.store.drop_learned(game_id, number):
            self.refresh(name, images)

    def refresh(self, name: str, images: Images) -> None:
        """Build deck ``name``'s profile anew as a job on ``images`` (the deck changed),
        when there is a detector that reads with profiles; otherwise, or if the job cannot
        run now, the next frame read with the deck builds it."""
        det = detector_or_none(images)
        if det is None or not det.has_embedding:
            return
        try:
            images.run(PROFILE_PIXELS, lambda: self.build_profile(name, det))
        except (Busy, InputError):
            log.info("deck %r: its profile is built by the next frame instead", name)


def _note(text: str) -> dict[str, Any]:
    return {"learned": 0, "learn_note": text}


def _deck_gone(deck: str | None) -> dict[str, Any]:
    return _note(f"deck {deck!r} is no longer enrolled: nothing learned")


def round_crops(game_id: int, rnd: RoundRecord, crop_w: int, crop_h: int) -> list[DeckCard]:
    """The crop of every card of one round's piles that has one, named as the pile holds
    it now (a corrected card under its new code; a removed card is gone, a card added by
    hand has no crop), resized to ``crop_w`` x ``crop_h``."""
    out: list[DeckCard] = []
    for owner, pile in rnd.piles.items():
        for code, url in pile.crops.items():
            if code not in pile.codes:
                continue
            try:
                data = base64.b64decode(url.split(",", 1)[1])
            except (IndexError, ValueError):
                continue
            if not data:
                continue
            try:                            # the image gate, as every upload
                img = decode(check(data), 2 * max(crop_w, crop_h)).image
            except InputError:
                continue
            crop = cv2.resize(img, (crop_w, crop_h), interpolation=cv2.INTER_AREA)
            out.append(DeckCard(code, crop, f"game {game_id} round {rnd.number} {owner}",
                                game_id=game_id))
    return out
