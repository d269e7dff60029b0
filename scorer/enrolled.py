"""Enrolled decks as one service: enrolment, learning from the rounds played, crops from
games, and the deck profile the recogniser reads with (cached until the deck changes).
``hanafuda enroll``, ``hanafuda detect --deck`` and the web app use it; the app holds one.

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
import threading
from typing import Any, Callable

import cv2

from scorer.errors import Busy, InputError
from scorer.store import Confirmation, GameNotFound, GameStore, RoundRecord
from scorer.store.decks import (DeckCard, DeckNotFound, DeckRecord, DeckStore, SourceGone,
                                check_name)
from scorer.vision.geometry import CROP_H, CROP_W
from scorer.vision.image import check, decode
from scorer.vision.profile import (DeckProfile, embed_cards, profile_from_cards,
                                   require_embedding)

log = logging.getLogger(__name__)
#: runs a job of a cost in pixels (the web's image workers): (cost, job) -> its result
Scheduled = Callable[[int, Callable[[], list[DeckCard]]], list[DeckCard]]
CROP_PIXELS = 96 * 150      # the most a kept crop decodes to (older pages kept this size)


class EnrolledDecks:
    """The enrolled decks of one database, and the games that teach them."""

    def __init__(self, decks: DeckStore, games: GameStore | None = None) -> None:
        self.store = decks
        self.games = games or GameStore(decks.db)
        self._lock = threading.Lock()
        self._profile: tuple[tuple[Any, ...], DeckProfile] | None = None

    # ------------------------------------------------------------ enrolment
    def enrol(self, name: str, cards: list[DeckCard], detector: Any,
              replace: bool = True) -> DeckRecord:
        """Embed the cards' crops with the detector's classifier (the profile's prototypes,
        kept beside the crops) and save them: the one way ``hanafuda enroll`` and the page
        store a deck (its old cards replaced unless ``replace`` is False)."""
        check_name(name)
        embed_cards(cards, detector)
        self.store.save(name, cards, replace=replace)
        return self.store.get(name)

    # -------------------------------------------------------------- profile
    def profile(self, name: str, detector: Any) -> DeckProfile:
        """The profile of deck ``name`` for ``detector``, built once and kept until the
        deck changes: a frame costs one ``SELECT updated_at``, not the deck's crops read
        and decoded. One deck at a time is kept (what a table plays with).
        DeckNotFound (an InputError) for an unknown deck."""
        check_name(name)
        require_embedding(detector)
        key = (name, self.store.updated_at(name), id(detector))
        with self._lock:
            if self._profile is None or self._profile[0] != key:
                cards = self.store.get(name).cards
                self._profile = (key, profile_from_cards(name, cards, detector))
            return self._profile[1]

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

    def learn(self, done: Confirmation, detector: Callable[[], Any],
              schedule: Scheduled | None = None) -> dict[str, Any]:
        """Add the crop of every card of the confirmed round's piles (named as the players
        confirmed it) to the game's deck, when the game has one and learns; embedded as
        ``enrol`` does when ``detector()`` (called only if there are crops; None when
        there is no detector) has card embeddings, else stored without (a profile embeds
        them when it is built). -> ``{"learned": N}``, with a ``"learn_note"`` when
        nothing could be learned although the game learns.

        ``schedule(cost, job)`` runs the decoding and embedding (the web's image workers:
        ``cost`` in pixels); without it they run here.

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
            det = detector() if count else None
            size = (det.crop_w, det.crop_h) if det is not None else (CROP_W, CROP_H)

            def job() -> list[DeckCard]:
                cards = round_crops(game.id, rnd, *size)
                if cards and det is not None and det.has_embedding:
                    embed_cards(cards, det)
                return cards

            cards = schedule(count * CROP_PIXELS, job) if schedule and count else job()
            if not cards:
                self.games.set_learned(game.id, rnd.number, 0)
                return _note("no card crops in this round to learn from (cards seen by the "
                             "camera or in a photo have one)")
            self.store.save(str(game.deck), cards, replace=False, create=False)
            self.games.set_learned(game.id, rnd.number, len(cards))
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
