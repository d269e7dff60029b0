"""Following the live camera's cards between the localiser's frames (issue 51): the page
sends the outlines of its tracks (``scorer.tracking.Follower``), the server refines and
classifies them (``Detector.follow``, ``POST /api/detect?follow=``) without the
localiser; ``detect`` for stills is unchanged."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from scorer.errors import InputError
from scorer.tracking import Follower, StabilityTracker
from scorer.vision import Detector
from scorer.vision.follow import MAX_FOLLOW, lost, parse_follow
from web_helpers import CSRF, FakeDetector, jpeg, make_app

CODES = ["01-1", "03-1", "08-1", "11-1"]


@pytest.fixture(scope="module")
def detector():
    return Detector(threads=1)


def _shifted(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REFLECT)


def _centre(quad) -> np.ndarray:
    return np.asarray(quad, np.float64).mean(0)     # the outline's (a box is clipped)


@pytest.mark.art  # rendered from the card art
def test_a_track_follows_a_moving_card_between_localiser_runs(detector):
    from training.data.scenes import render_scene
    img, _ = render_scene(CODES, seed=3, width=960, height=540)
    step = np.array([8.0, 5.0])                  # the cards move this far each frame
    tracker, follower = StabilityTracker(), Follower(every=3)
    plans, first = [], {}
    for k in range(8):
        frame = _shifted(img, *(step * k))
        plan = follower.plan(tracker)
        plans.append(plan is not None)
        if plan is None:
            found = detector.detect(frame, weak=True)
        else:
            boxes = Follower.boxes(plan)
            found = detector.follow(frame, np.array([b["quad"] for b in boxes]),
                                    np.array([b.get("sure", True) for b in boxes]), weak=True)
            assert "localise" not in found.timings and "follow" in found.timings
        tracker.push(found.to_cards())
        follower.answered(plan)
        if k == 0:
            first = {t.code: (t.id, _centre(t.quad)) for t in tracker.tracks}
    # the localiser until the cards joined (frames 0-3), then on every third frame; the
    # frames between followed the tracks
    assert plans == [False, False, False, False, True, True, False, True]
    assert sorted(tracker.pile) == sorted(CODES) and sorted(first) == sorted(CODES)
    for t in tracker.tracks:            # one track a card, all along, moved with its card
        tid, c0 = first[t.code]
        assert t.id == tid and t.misses == 0
        np.testing.assert_allclose(_centre(t.quad) - c0, step * 7, atol=6)


@pytest.mark.art  # rendered from the card art
def test_follow_drops_boxes_on_no_card_or_off_the_frame_and_keeps_weak_tracks_weak(detector):
    from training.data.scenes import render_scene
    img, _ = render_scene(CODES, seed=3, width=960, height=540)
    cards = detector.detect(img)
    assert sorted(cards.codes) == sorted(CODES)
    table = np.full((540, 960, 3), (60, 90, 120), np.uint8)       # the cards taken away
    assert len(detector.follow(table, cards.quads, weak=True)) == 0
    off = cards.quads[:1] + np.float32([2000, 0])                  # off the frame
    assert len(detector.follow(img, off)) == 0
    # a track last seen weakly comes back weak at best; sure ones as cards
    sure = np.array([False] + [True] * (len(cards) - 1))
    back = detector.follow(img, cards.quads, sure, weak=True)
    assert sorted(back.codes) == sorted(CODES)
    assert back.sure is not None
    assert [bool(s) for c, s in zip(back.codes, back.sure) if c == cards.codes[0]] == [False]
    assert cards.codes[0] not in detector.follow(img, cards.quads, sure).codes
    assert sorted(detector.detect(img).codes) == sorted(CODES)     # detect as it was


def test_the_follower_runs_the_localiser_every_nth_frame_and_after_a_change_of_scene():
    both = [_reading("01-1", 10), _reading("02-1", 100)]
    tracker, follower = StabilityTracker(), Follower(every=3)
    # the localiser until the cards joined (4 frames), then on every third frame
    assert _schedule(follower, tracker, [both] * 7) == "LLLLFFL"
    plan = follower.plan(tracker)
    assert plan is not None and Follower.boxes(plan)[0]["quad"] == both[0]["quad"]
    tracker.push(both[:0])              # the followed frame lost its cards: scene change
    follower.answered(plan)
    assert follower.plan(tracker) is None
    # a card the last frame missed is still followed, where it was; one followed frame
    # that finds it again keeps the scene
    again = StabilityTracker()
    for _ in range(4):
        again.push(both)
    again.push(both[1:])                # the localiser missed 01-1
    f = Follower(every=2)
    f.answered(None)
    plan = f.plan(again)
    assert plan is not None and sorted(t.code for t in plan) == ["01-1", "02-1"]
    again.push(both)
    f.answered(plan)
    assert not f.changed and all(t.misses == 0 for t in again.tracks)
    # every=1 is today's: the localiser on every frame; no tracks: the localiser
    assert Follower(every=1).plan(tracker) is None
    assert Follower(every=4).plan(StabilityTracker()) is None
    with pytest.raises(ValueError):
        Follower(every=0)
    # a track last seen by a weak reading is followed as one
    weak = StabilityTracker()
    weak.push([{**both[0], "sure": False}, both[1]])
    boxes = Follower.boxes(weak.tracks)
    assert [b.get("sure", True) for b in boxes] == [False, True]
    # a card still being judged (seen, not joined) is judged on the localiser's frames
    f = Follower(every=2)
    f.answered(None)
    assert f.plan(weak) is None
    # a track without an outline is followed by its box's corners
    plain = StabilityTracker()
    plain.push([{"code": "03-1", "confidence": 0.9, "box": [1, 2, 3, 4]}])
    assert Follower.boxes(plain.tracks)[0]["quad"] == [[1, 2], [3, 2], [3, 4], [1, 4]]


def _schedule(follower: Follower, tracker: StabilityTracker, frames: list) -> str:
    """The follower's plan for each of ``frames`` in turn: L (the localiser) or F
    (followed), each frame's readings pushed and the plan answered."""
    runs = []
    for frame in frames:
        plan = follower.plan(tracker)
        runs.append("L" if plan is None else "F")
        tracker.push(frame)
        follower.answered(plan)
    return "".join(runs)


def _reading(code: str, x: float, sure: bool = True) -> dict:
    return {"code": code, "confidence": 0.9, "box": [x, 10, x + 50, 90], "sure": sure,
            "quad": [[x, 10], [x + 50, 10], [x + 50, 90], [x, 90]]}


def _joined(pile: list[dict]) -> tuple[StabilityTracker, Follower]:
    """The page's tracker and follower after the localiser's frames that join ``pile``."""
    tracker, follower = StabilityTracker(), Follower()
    while follower.plan(tracker) is None and len(tracker.pile) < len(pile):
        tracker.push(pile)
        follower.answered(None)
    return tracker, follower


def test_the_pages_schedule_localises_every_third_frame_where_the_tracks_hold():
    """Issue 68: the page's follower (its default) follows a pile that holds on the two
    frames after each localiser's frame and runs the localiser on the third; a followed
    frame that lost the pile (a change of scene) runs it on the very next frame."""
    both = [_reading("01-1", 10), _reading("02-1", 100)]
    tracker, follower = StabilityTracker(), Follower()
    # the localiser until the cards joined (4 frames), then not on the 2nd frame after
    # it but on the 3rd
    assert _schedule(follower, tracker, [both] * 11) == "LLLLFFLFFLF"
    plan = follower.plan(tracker)
    assert plan is not None
    tracker.push([])                    # the view moved to another pile: nothing came back
    follower.answered(plan)
    assert follower.plan(tracker) is None


def test_a_track_read_weakly_is_followed_and_one_read_surely_is_judged_by_the_localiser():
    """Issue 68: a faint card (a weak reading, not in the pile) no longer holds the
    localiser on every frame: it is followed, as a weak track; a card read surely that
    has not joined yet is still judged on the localiser's frames."""
    both = [_reading("01-1", 10), _reading("02-1", 100)]
    tracker, follower = _joined(both)
    tracker.push(both + [_reading("03-1", 200, sure=False)])     # the localiser's frame
    follower.answered(None)
    plan = follower.plan(tracker)
    assert plan is not None and sorted(t.code for t in plan) == ["01-1", "02-1", "03-1"]
    assert [b.get("sure", True) for b in Follower.boxes(plan)] == [True, True, False]
    tracker.push(both + [_reading("03-1", 200, sure=False)])     # followed: weak again
    follower.answered(plan)
    assert follower.plan(tracker) is not None                    # the 2nd frame: followed
    tracker, follower = _joined(both)
    tracker.push(both + [_reading("03-1", 200)])                 # read surely: judged
    follower.answered(None)
    assert follower.plan(tracker) is None


def test_parse_follow_takes_quads_and_flags_and_refuses_anything_else():
    quads, sure = parse_follow(json.dumps([{"quad": [[1, 2], [3, 2], [3, 4], [1, 4]]},
                                           {"quad": [[5, 6], [7, 6], [7, 8], [5, 8]],
                                            "sure": False}]))
    assert quads.shape == (2, 4, 2) and sure.tolist() == [True, False]
    assert parse_follow("[]")[0].shape == (0, 4, 2)
    for bad in ("{", "{}", '[{"quad": [[1, 2]]}]', '[[1, 2, 3, 4]]',
                '[{"quad": [[1, 2], [3, 2], [3, 4], [1, "x"]]}]',
                '[{"quad": [[1, 2], [3, 2], [3, 4], [1, 4]], "sure": 1}]',
                json.dumps([{"quad": [[0, 0]] * 4}] * (MAX_FOLLOW + 1))):
        with pytest.raises(InputError) as err:
            parse_follow(bad)
        assert "\n" not in str(err.value) and str(err.value).startswith("follow")
    rects = np.array([[10, 10, 50, 80, 0], [-5, 10, 50, 80, 0], [10, 10, 4, 80, 0]], np.float32)
    assert lost(rects, (100, 100)).tolist() == [False, True, True]


def test_the_detect_api_follows_the_pages_tracks_when_asked(tmp_path):
    det = FakeDetector(codes=["08-1"])
    client = make_app(tmp_path, DETECTOR=det).test_client()
    follow = json.dumps([{"quad": [[10, 10], [40, 10], [40, 60], [10, 60]], "sure": False}])
    r = client.post("/api/detect?weak=1&follow=" + follow, data=jpeg(), headers=CSRF,
                    content_type="image/jpeg")
    assert r.status_code == 200, r.get_json()
    assert [c["code"] for c in r.get_json()["cards"]] == ["08-1"]
    assert det.follow_calls == 1 and det.followed == [[[10, 10], [40, 10], [40, 60], [10, 60]]]
    r = client.post("/api/detect?weak=1", data=jpeg(), headers=CSRF, content_type="image/jpeg")
    assert r.status_code == 200 and det.follow_calls == 1       # without it: the localiser
    r = client.post("/api/detect?follow=%5B%7B%7D%5D", data=jpeg(), headers=CSRF,
                    content_type="image/jpeg")
    assert r.status_code == 400 and "follow[0]" in r.get_json()["error"]
