"""Which of a frame's classified boxes are cards: the one place the detector decides.

``decide`` takes the classified candidates (``Detections`` with ``probs``) and the
settings (``scorer.vision.settings.DetectionSettings``) and applies the rules in order:

1. ``pick``: each box's localiser score and likeliest card's probability against their
   thresholds (close-ups have their own), the face gate, the card checks' shape, one box
   a card (the likeliest; ``select_cards``), the overlap rule, the card checks' scale,
   and the beside rule (a second, lower pair of thresholds near the cards kept);
2. ``deck_decides``, with an enrolled deck whose profile decides (a classifier with cell
   maps, ``DeckProfile.decides``): a box that matches an enrolled card well is
   that card even where step 1 dropped it, a kept box that matches no card of the deck
   is not a card;
3. the cards in deck order; with ``weak``, the weak readings after them (``sure``
   False: what the networks still read as a card below the still thresholds);
4. the confidence each card reports (``confidence_map``).

The network passes (localiser, refiner, classifier) live in ``Detector``; the second,
zoomed-out look and the beside rule's weaker boxes are boxes the localiser gives, so they
are found there. Training's measurement and tuning call the same functions with the
settings they try.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scorer.cards import DECK
from scorer.vision.beside import beside_boxes
from scorer.vision.card_checks import on_scale, shaped_like_cards
from scorer.vision.detections import NUM_CARDS, Detections
from scorer.vision.geometry import quad_iou
from scorer.vision.settings import (WEAK_CLS_THRESHOLD, WEAK_LOC_THRESHOLD, DeckRule,
                                    DetectionSettings)

__all__ = ["decide", "deck_decides", "pick", "select_cards", "weak_readings"]

WEAK_IOU = 0.3      # a weak box overlapping a card's (or a surer weak box's) this much is it
DECK_IOU = 0.3      # a box the deck names overlapping a card kept this much is that card


def decide(found: Detections, s: DetectionSettings, profile: Any = None,
           extra: Detections | None = None, weak: bool = False,
           picked: np.ndarray | None = None) -> Detections:
    """The cards among ``found`` in deck order (see the module); ``profile``: the enrolled
    deck (``scorer.vision.profile.DeckProfile``) whose similarities ``found.similarity``
    (and ``extra``'s) hold; ``extra``: weaker boxes beyond ``found`` (below the localiser's
    thresholds) that only the deck and the weak readings read; ``weak``: the weak readings
    after the cards; ``picked``: ``pick(found, s)`` when the caller has it already."""
    picked = pick(found, s) if picked is None else picked
    pool = found if extra is None else Detections.join([found, extra])
    kept = np.concatenate([picked, np.zeros(len(pool) - len(found), bool)])
    if profile is not None and profile.decides and pool.similarity is not None:
        floor = profile.floor(s.deck.refuse) if s.deck.refuse > 0 else None
        kept, named = deck_decides(pool, kept, s.deck, len(profile.cards), floor)
        pool = pool[np.arange(len(pool))]
        pool.class_id, pool.confidence = named[0], named[1]
    cards = deck_order(pool[kept])
    if weak:
        faint = deck_order(pool[~kept][weak_readings(pool[~kept], cards, s)])
        faint.sure = np.zeros(len(faint), bool)
        cards = Detections.join([cards, faint])
    return reported(cards, s)


def reported(cards: Detections, s: DetectionSettings) -> Detections:
    """``cards`` with the confidence they report (``confidence_map``): after every
    decision, which reads the classifier's probabilities."""
    if s.confidence_map is not None and len(cards):
        cards.confidence = s.confidence_map(cards.confidence)
    return cards


def deck_order(cards: Detections) -> Detections:
    order = sorted(range(len(cards)), key=lambda i: (DECK[cards.class_id[i]].month,
                                                      DECK[cards.class_id[i]].index))
    return cards[np.array(order, np.int64)]


# ---------------------------------------------------------------- 1. the generic pick
def pick(found: Detections, s: DetectionSettings) -> np.ndarray:
    """The boolean mask of the candidates the generic rules keep as cards (step 1)."""
    if found.probs is None:
        raise ValueError("candidates without probs (Detections.probs) cannot be picked")
    heights, frame_h = found.heights(), found.image_size[1]
    close_up = s.close_ups(heights, frame_h)
    loc_thr, cls_thr = s.box_thresholds(heights, frame_h), s.cls_thresholds(heights, frame_h)
    faces = None if s.face_gate is None or found.face is None else \
        s.face_gate.lets_through(found.face, close_up)
    checks = s.card_checks
    if checks.on:
        shaped = shaped_like_cards(found.quads, close_up, checks)
        faces = shaped if faces is None else faces & shaped
    picked = select_cards(found.loc_score, found.probs, loc_thr, cls_thr, found.quads,
                          s.overlap_iou, faces)
    if checks.on:
        picked = on_scale(found.quads, picked, checks)
    if s.beside is None or not picked.any():
        return picked
    near = beside_boxes(found.loc_score, found.probs, loc_thr, close_up, found.quads, picked,
                        s.beside)
    if not near.any():
        return picked
    picked = select_cards(found.loc_score, found.probs,
                          np.where(near, s.beside.loc_threshold, loc_thr),
                          np.where(near, s.beside.cls_threshold, cls_thr), found.quads,
                          s.overlap_iou, faces)
    return on_scale(found.quads, picked, checks) if checks.on else picked


def select_cards(loc_score: np.ndarray, probs: np.ndarray, loc_threshold: float | np.ndarray,
                 cls_threshold: float | np.ndarray, quads: np.ndarray | None = None,
                 overlap_iou: float | None = None,
                 faces: np.ndarray | None = None) -> np.ndarray:
    """The boxes that are cards, as a boolean mask over the candidates (their class is
    each row's likeliest: ``probs.argmax(1)``).

    A box is kept when its localiser score and its likeliest card's probability reach
    the thresholds and that card is not "not a card". A physical deck holds each card
    once, so a card claimed by several boxes goes to the likeliest of them and the
    others are dropped. (Giving those boxes their next-likeliest card instead, as the
    first four model pairs did, scored validation F1 0.836 against 0.854 for dropping
    them: the second guess was mostly wrong.) With ``quads`` and ``overlap_iou``, a box
    that overlaps an already kept, likelier box by more than that IoU is the same
    physical card seen twice and is dropped too. ``faces``: a boolean mask of the boxes
    the face gate lets through (None: every box)."""
    mask = np.zeros(len(probs), bool)
    if not len(probs):
        return mask
    cls = probs.argmax(1)
    conf = probs[np.arange(len(cls)), cls]
    ok = (loc_score >= loc_threshold) & (cls < NUM_CARDS) & (conf >= cls_threshold)
    if faces is not None:
        ok &= faces
    idx = np.nonzero(ok)[0]
    idx = idx[np.argsort(-conf[idx], kind="stable")]
    kept: list[int] = []
    taken: set[int] = set()
    for i in idx:
        if int(cls[i]) in taken:
            continue
        if overlap_iou is not None and quads is not None and any(
                quad_iou(quads[i], quads[j]) > overlap_iou for j in kept):
            continue
        kept.append(int(i))
        taken.add(int(cls[i]))
    mask[kept] = True
    return mask


# ---------------------------------------------------------------- 2. the deck decides
def deck_decides(pool: Detections, kept: np.ndarray, rule: DeckRule, enrolled: int,
                 floor: float | None = None
                 ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Step 2 over ``pool`` (boxes with ``similarity``, (N,48), each box's similarity to
    each enrolled card, ``DeckProfile.read``, -inf for cards not enrolled) and the
    generic decision ``kept``: the new mask, and each box's card and confidence.

    A box at least ``rule.loc_threshold`` from the localiser whose best similarity reaches
    ``rule.accept`` is the card it matches, with at least that similarity as its
    confidence (the likeliest such boxes first; each card once, and not on a card kept,
    ``DECK_IOU``). With a whole deck enrolled (``rule.min_cards``), a kept box whose best
    similarity is under ``floor`` (the deck's ``DeckProfile.floor`` at ``rule.refuse``) is
    not a card."""
    sim = np.asarray(pool.similarity, np.float32)
    best, named = sim.max(1), sim.argmax(1).astype(np.int64)
    cls, conf = pool.class_id.copy(), pool.confidence.copy()
    kept = kept.copy()
    if enrolled >= rule.min_cards and floor is not None:
        kept &= best >= floor
    taken = {int(c): int(i) for i, c in enumerate(cls) if kept[i]}
    sure = (best >= rule.accept) & (pool.loc_score >= rule.loc_threshold)
    if not kept.any() and not rule.alone:
        sure[:] = False
    if rule.scale is not None and kept.any():
        heights = pool.heights()
        ratio = heights / float(np.median(heights[kept]))
        sure &= kept | ((ratio >= rule.scale) & (ratio <= 1 / rule.scale))
    for i in np.nonzero(sure)[0][np.argsort(-best[sure], kind="stable")]:
        card = int(named[i])
        if kept[i] and cls[i] == card:
            conf[i] = max(conf[i], best[i])
            continue
        if card in taken:
            continue
        if not kept[i] and any(quad_iou(pool.quads[i], pool.quads[j]) > DECK_IOU
                               for j in np.nonzero(kept)[0]):
            continue
        if kept[i]:
            taken.pop(int(cls[i]), None)
        kept[i], cls[i], conf[i] = True, card, max(float(pool.probs[i, card])
                                                  if pool.probs is not None else 0.0,
                                                  float(best[i]))
        taken[card] = int(i)
    return kept, (cls, conf)


# ---------------------------------------------------------------- 3. weak readings
def weak_readings(found: Detections, cards: Detections, s: DetectionSettings) -> np.ndarray:
    """The boolean mask of the boxes of ``found`` (classified boxes that are not
    ``cards``) that are weak readings: read as a card, not "not a card", with at least
    ``WEAK_CLS_THRESHOLD`` and a localiser score of ``WEAK_LOC_THRESHOLD``, through the
    face gate when the model has one, and neither a card of ``cards`` nor on one of
    their boxes (IoU over ``WEAK_IOU``); of two such boxes of one card or on one place,
    the likelier."""
    mask = np.zeros(len(found), bool)
    if not len(found):
        return mask
    conf, cls = found.confidence, found.class_id
    ok = (cls < NUM_CARDS) & (conf >= WEAK_CLS_THRESHOLD) & \
        (found.loc_score >= WEAK_LOC_THRESHOLD)
    if s.face_gate is not None and found.face is not None:
        ok &= s.face_gate.lets_through(
            found.face, s.close_ups(found.heights(), found.image_size[1]))
    taken = {int(c) for c in cards.class_id}
    kept = list(cards.quads)
    for i in np.nonzero(ok)[0][np.argsort(-conf[ok], kind="stable")]:
        if int(cls[i]) in taken or any(quad_iou(found.quads[i], q) > WEAK_IOU
                                       for q in kept):
            continue
        mask[i] = True
        taken.add(int(cls[i]))
        kept.append(found.quads[i])
    return mask
