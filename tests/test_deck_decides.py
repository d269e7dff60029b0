"""The deck decides (issue 67): with an enrolled deck, a box whose crop matches an enrolled
card well is that card even where the generic thresholds drop it, a box that matches no
card of a whole enrolled deck is not a card, and each card is read at most once."""

from __future__ import annotations

import numpy as np
import pytest

from gate import SCENE_JPEG
from scorer.vision import Detector, decode_image
from scorer.vision.decision import decide, deck_decides
from scorer.vision.detections import Detections
from scorer.vision.geometry import rect_to_quad
from scorer.vision.profile import DeckProfile
from scorer.vision.settings import DeckRule



def _boxes(xs: list[float], loc: list[float], reads: list[tuple[int, float]],
           sims: list[dict[int, float]]) -> Detections:
    """Boxes at ``xs`` on a 640x480 frame, their localiser scores, their likeliest card
    and its probability, and their similarity to the enrolled cards (others -inf)."""
    quads = np.stack([rect_to_quad(x, 200, 60, 96, 0.0) for x in xs])
    probs = np.zeros((len(xs), 49), np.float32)
    for i, (c, p) in enumerate(reads):
        probs[i] = (1 - p) / 48
        probs[i, c] = p
    sim = np.full((len(xs), 48), -np.inf, np.float32)
    for i, row in enumerate(sims):
        for c, v in row.items():
            sim[i, c] = v
    return Detections.from_quads(quads, np.array(loc, np.float32), probs, (640, 480),
                                 similarity=sim)


RULE = DeckRule(loc_threshold=0.1, accept=0.85, refuse=0.02, min_cards=48)


def test_a_box_the_deck_knows_is_its_card_though_the_thresholds_drop_it():
    pool = _boxes([100, 300], [0.9, 0.15], [(3, 0.95), (48, 0.6)],
                  [{3: 0.9, 7: 0.2}, {7: 0.91, 3: 0.3}])
    kept, (cls, conf) = deck_decides(pool, np.array([True, False]), RULE, 48)
    assert kept.tolist() == [True, True] and cls.tolist() == [3, 7]
    assert conf[1] >= 0.91                 # as sure as its match to the enrolled card


def test_a_box_under_the_deck_rules_localiser_threshold_is_not_read_by_it():
    pool = _boxes([100, 300], [0.9, 0.05], [(3, 0.95), (7, 0.2)], [{3: 0.9}, {7: 0.95}])
    kept, _ = deck_decides(pool, np.array([True, False]), RULE, 48)
    assert kept.tolist() == [True, False]


def test_each_card_once_and_never_on_a_card_kept():
    # box 1 matches the card box 0 holds; box 2 sits on box 0's place
    pool = _boxes([100, 300, 104], [0.9, 0.2, 0.2], [(3, 0.95), (48, 0.5), (48, 0.5)],
                  [{3: 0.9}, {3: 0.88}, {9: 0.95}])
    kept, (cls, _) = deck_decides(pool, np.array([True, False, False]), RULE, 48)
    assert kept.tolist() == [True, False, False] and cls[0] == 3


def test_the_deck_renames_a_kept_box_and_frees_its_old_card_for_another():
    # box 0 was read 03-4 (class 11) though it matches 03-1 (8); box 1 matches 03-4
    pool = _boxes([100, 300], [0.9, 0.2], [(11, 0.6), (48, 0.5)], [{8: 0.95}, {11: 0.9}])
    kept, (cls, _) = deck_decides(pool, np.array([True, False]), RULE, 48)
    assert kept.tolist() == [True, True] and sorted(cls.tolist()) == [8, 11]


def test_a_kept_box_like_no_card_of_a_whole_deck_is_refused_a_partial_deck_refuses_none():
    pool = _boxes([100, 300], [0.9, 0.9], [(3, 0.95), (20, 0.9)], [{3: 0.9}, {3: 0.3}])
    picked = np.array([True, True])
    assert deck_decides(pool, picked, RULE, 48, floor=0.5)[0].tolist() == [True, False]
    assert deck_decides(pool, picked, RULE, 12, floor=0.5)[0].tolist() == [True, True]
    assert deck_decides(pool, picked, RULE, 48, floor=None)[0].tolist() == [True, True]


def test_without_a_profile_the_decision_is_the_generic_one():
    from scorer.vision.settings import DetectionSettings
    pool = _boxes([100, 300], [0.9, 0.15], [(3, 0.95), (7, 0.6)], [{3: 0.9}, {7: 0.95}])
    s = DetectionSettings(loc_threshold=0.4, cls_threshold=0.4, deck=RULE)
    assert decide(pool, s).class_id.tolist() == [3]


def test_a_profile_takes_its_floor_once_and_again_when_calibrated_anew(monkeypatch):
    """``decide`` asks for the floor every frame: the quantile of the deck's own partial
    views is taken once a share, and again when ``own`` is replaced; the decisions are
    those of the quantile taken each frame."""
    from scorer.cards import CODES
    from scorer.vision.cells import CellPrototypes
    from scorer.vision.settings import DetectionSettings
    quantile, calls = np.quantile, []

    def counted(*args, **kw):
        calls.append(args[1])
        return quantile(*args, **kw)

    monkeypatch.setattr(np, "quantile", counted)
    cells = CellPrototypes(np.random.default_rng(0).normal(size=(48, 4, 2, 2)), np.arange(48))
    own = np.linspace(0.4, 0.8, 400)
    profile = DeckProfile("whole", list(CODES), np.eye(48, dtype=np.float32), own=own,
                          cells=cells)
    # box 1, read surely, is a little under the floor of 0.02 (0.408) and a little over 0.01's
    pool = _boxes([100, 300], [0.9, 0.9], [(3, 0.95), (20, 0.9)], [{3: 0.9}, {20: 0.405}])
    s = DetectionSettings(loc_threshold=0.4, cls_threshold=0.4, deck=RULE)
    for _ in range(5):
        assert decide(pool, s, profile).class_id.tolist() == [3]
    assert calls == [0.02] and profile.floor(0.02) == float(quantile(own, 0.02))
    looser = s.but(deck=DeckRule(loc_threshold=0.1, accept=0.85, refuse=0.01, min_cards=48))
    for _ in range(3):
        assert decide(pool, looser, profile).class_id.tolist() == [3, 20]
    assert calls == [0.02, 0.01]
    profile.own = np.linspace(0.2, 0.8, 400)          # calibrated anew: a lower floor
    assert decide(pool, s, profile).class_id.tolist() == [3, 20]
    assert calls == [0.02, 0.01, 0.02]
    assert profile.floor(0.02) == float(quantile(profile.own, 0.02))


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector(threads=1)


def test_a_profile_adds_the_cards_the_generic_decision_drops(detector):
    """The frame's cards enrolled from their own crops; a classifier threshold the least
    sure card misses: without the deck that card is dropped, with it every card is read,
    each once; with no card kept at all, the deck adds none (the rule's ``alone``)."""
    img = decode_image(SCENE_JPEG.read_bytes())
    seen = detector.detect(img, crops=True)
    assert len(seen) == 4 and seen.crops is not None
    profile = DeckProfile.from_crops("table", seen.codes, seen.crops, detector)
    probs = np.sort(detector.candidates(img).confidence)[::-1]
    cut = float(probs[2] + probs[3]) / 2           # between the two least sure cards
    strict = detector.with_settings(detector.settings.but(cls_threshold=cut,
                                                          large_cls_threshold=cut))
    assert len(strict.detect(img)) == 3
    assert sorted(strict.detect(img, profile=profile).codes) == sorted(seen.codes)
    live = strict.detect(img, profile=profile, weak=True)
    assert sorted(live.codes) == sorted(seen.codes) and bool(live.sure.all())
    none = detector.with_settings(detector.settings.but(cls_threshold=1.01,
                                                        large_cls_threshold=1.01))
    assert none.detect(img, profile=profile).codes == []
    alone = none.with_settings(none.settings.but(deck=DeckRule(alone=True)))
    assert sorted(alone.detect(img, profile=profile).codes) == sorted(seen.codes)


def test_the_measurement_reads_a_still_once_and_decides_as_detect(detector, monkeypatch):
    """``training.measure.deck_decides.read_frame`` (``Detector.read_still``): one
    classifier run for the candidates, read with and without the deck as ``candidates``
    reads them, and decided as ``detect`` decides, with and without the deck; with the
    grid, the weaker boxes down to the weak readings' threshold."""
    from training.measure.deck_decides import read_frame
    img = decode_image(SCENE_JPEG.read_bytes())
    seen = detector.detect(img, crops=True)
    profile = DeckProfile.from_crops("table", seen.codes, seen.crops, detector)
    probs = np.sort(detector.candidates(img).confidence)[::-1]
    cut = float(probs[2] + probs[3]) / 2           # the least sure card only the deck reads
    strict = detector.with_settings(detector.settings.but(cls_threshold=cut,
                                                          large_cls_threshold=cut))
    runs: list[int] = []
    read = strict.classifier.read
    monkeypatch.setattr(strict.classifier, "read",
                        lambda crops, **kw: runs.append(len(crops)) or read(crops, **kw))
    frame = read_frame(strict, profile, img, "scene", [])
    assert runs == [len(frame.found)] + ([len(frame.extra)] if len(frame.extra) else [])
    np.testing.assert_array_equal(frame.plain.probs, strict.candidates(img).probs)
    deck = strict.candidates(img, profile=profile)
    np.testing.assert_array_equal(frame.found.probs, deck.probs)
    np.testing.assert_array_equal(frame.found.similarity, deck.similarity)
    s = strict.settings
    assert decide(frame.plain, s).codes == strict.detect(img).codes
    assert len(decide(frame.plain, s)) == 3
    assert decide(frame.found, s, profile, frame.extra).codes == \
        strict.detect(img, profile=profile).codes
    assert sorted(decide(frame.found, s, profile, frame.extra).codes) == sorted(seen.codes)
    grid = read_frame(strict, profile, img, "scene", [], grid=True)
    np.testing.assert_array_equal(grid.found.similarity, frame.found.similarity)
    assert len(grid.extra) >= len(frame.extra) and grid.extra.similarity is not None


@pytest.mark.art
def test_a_whole_enrolled_deck_refuses_drawn_western_cards_read_surely(detector):
    """Every box the localiser proposes on the drawn Western pile, read surely as a
    hanafuda card (as piece 13 read one of them as 10-1 at 0.95): the generic decision
    keeps them all; a whole enrolled deck (an art set's 48 card images) finds none of
    them like its cards' own partial views, and refuses every one."""
    from scorer.vision.enrol import enrol_folder
    from training import DEFAULT_ART_DIR
    img = decode_image((SCENE_JPEG.parent / "western-drawn-pile.jpg").read_bytes())
    cards = enrol_folder(DEFAULT_ART_DIR / "louie-mantia", detector.crop_w, detector.crop_h)
    profile = DeckProfile.from_crops("louie", [c.code for c in cards],
                                     np.stack([c.crop for c in cards]), detector)
    loose = detector.with_settings(detector.settings.but(
        loc_threshold=0.1, large_threshold=0.1, beside=None))
    found = loose.candidates(img, profile=profile)
    assert len(found) >= 5
    sure = np.full((len(found), 49), 0.001, np.float32)
    sure[np.arange(len(found)), np.arange(len(found)) % 48] = 0.95   # one card each
    read = Detections.from_quads(found.quads, found.loc_score, sure, found.image_size,
                                 similarity=found.similarity)
    assert len(decide(read, loose.settings)) == len(found)
    assert len(decide(read, loose.settings, profile)) == 0
    # each of them under the floor of the deck's own partial views
    assert profile.floor(loose.settings.deck.refuse) > float(found.similarity.max())
