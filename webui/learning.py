"""Learning from play: a confirmed round's card crops teach the game's deck.

Called after the round's transaction has committed, so learning can never lose or fail
a confirmation: any failure is logged and reported as ``"learned": 0`` with a note.
"""

from __future__ import annotations

import logging
from typing import Any

from scorer.store import Confirmation, GameStore
from scorer.store.decks import DeckNotFound, DeckStore, round_crops
from scorer.vision.geometry import CROP_H, CROP_W
from scorer.vision.profile import embed_cards
from webui.detection import DetectionService, DetectorUnavailable

log = logging.getLogger(__name__)


def learn(decks: DeckStore, store: GameStore, detection: DetectionService,
          done: Confirmation) -> dict[str, Any]:
    """Add the crop of every card of the confirmed round's piles (named as the players
    confirmed it) to the game's deck, when the game has one and learns; embedded as
    ``hanafuda enroll`` does when the app's detector has card embeddings, else stored
    without (a profile embeds them when it is built). -> ``{"learned": N}``, with a
    ``"learn_note"`` when nothing could be learned although the game learns."""
    game, rnd = done.game, done.round
    if not game.learns:
        return {"learned": 0}
    if not game.deck_enrolled:
        return _deck_gone(game.deck)
    try:
        cards = []
        if any(pile.crops for pile in rnd.piles.values()):
            det = _detector(detection)
            cards = round_crops(game.id, rnd, getattr(det, "crop_w", CROP_W),
                                getattr(det, "crop_h", CROP_H))
        if not cards:
            store.set_learned(game.id, rnd.number, 0)
            return _note("no card crops in this round to learn from (cards seen by the "
                         "camera or in a photo have one)")
        if getattr(det, "has_embedding", False):
            embed_cards(cards, det)
        decks.save(str(game.deck), cards, replace=False, create=False)
        store.set_learned(game.id, rnd.number, len(cards))
        return {"learned": len(cards)}
    except DeckNotFound:                # deleted since the round was confirmed
        return _deck_gone(game.deck)
    except Exception:
        log.exception("learning from game %s round %s failed", game.id, rnd.number)
        return _note("learning from this round failed (see the server's log); the round "
                     "is confirmed")


def _note(text: str) -> dict[str, Any]:
    return {"learned": 0, "learn_note": text}


def _deck_gone(deck: str | None) -> dict[str, Any]:
    return _note(f"deck {deck!r} is no longer enrolled: nothing learned")


def _detector(detection: DetectionService) -> Any:
    """The app's detector (loaded now if need be), or None when there is none."""
    try:
        return detection.detector()
    except DetectorUnavailable:
        return None
