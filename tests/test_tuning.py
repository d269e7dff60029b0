"""Threshold choice under the ship rule's guard (training.stages.tuning)."""

import json

import pytest

from training.stages.tuning import by_kind, choose, eligible, record_text


def _point(loc, f1, closeup_f1, pile_f1, photo_fp, all_right=0.5):
    return {"loc_threshold": loc, "f1": f1, "images_all_correct": all_right,
            "kinds": {"closeup": {"f1": closeup_f1, "false_cards": 0},
                      "pile": {"f1": pile_f1, "false_cards": 3},
                      "photo": {"f1": 0.0, "false_cards": photo_fp}}}


REFERENCE = {"closeup": {"f1": 0.93, "false_cards": 0}, "pile": {"f1": 0.92, "false_cards": 4},
             "photo": {"f1": 0.0, "false_cards": 60}}


def test_without_a_reference_the_best_pooled_f1_wins():
    grid = [_point(0.3, 0.90, 0.93, 0.92, 50), _point(0.35, 0.91, 0.90, 0.93, 40)]
    c = choose(grid)
    assert c.best["loc_threshold"] == 0.35 and c.eligible is None and not c.fallback


def test_the_guard_refuses_a_setting_that_trades_a_kind_away():
    strict = _point(0.35, 0.91, 0.90, 0.93, 40)  # close-ups 0.03 below the reference's
    kept = _point(0.3, 0.90, 0.925, 0.92, 50)
    c = choose([kept, strict], REFERENCE, guard=0.01)
    assert c.best is kept and c.eligible == 1 and not c.fallback


def test_the_guard_refuses_more_false_cards_on_the_photos():
    assert not eligible(_point(0.3, 0.95, 0.95, 0.95, 61), REFERENCE, 0.01)
    assert eligible(_point(0.3, 0.95, 0.95, 0.95, 60), REFERENCE, 0.01)
    assert eligible(_point(0.3, 0.95, 0.921, 0.911, 0), REFERENCE, 0.01)


def test_when_nothing_is_eligible_the_point_nearest_the_reference_is_taken_and_said():
    grid = [_point(0.3, 0.90, 0.80, 0.92, 50), _point(0.35, 0.91, 0.81, 0.93, 40)]
    c = choose(grid, REFERENCE, guard=0.01)  # close-ups 0.13 and 0.12 below
    assert c.fallback and c.eligible == 0 and c.best["loc_threshold"] == 0.35
    near = _point(0.4, 0.88, 0.915, 0.90, 55)  # its worst kind 0.02 below
    precise = _point(0.3, 0.93, 0.85, 0.94, 20)  # the best pooled F1, close-ups 0.08 below
    more_photo = _point(0.35, 0.90, 0.93, 0.92, 61)  # no kind below, a photo card more
    c = choose([precise, more_photo, near], REFERENCE, guard=0.005, fallback_guard=0.01)
    assert c.fallback and c.best is near


def test_with_none_in_the_guard_the_wider_guard_chooses_and_the_photos_guard_stays():
    near = _point(0.4, 0.90, 0.922, 0.92, 60)  # close-ups 0.008 below, photos level
    more_photo = _point(0.35, 0.92, 0.925, 0.92, 61)  # one more false card on the photos
    best_pooled = _point(0.3, 0.93, 0.90, 0.93, 30)  # close-ups 0.03 below
    c = choose([near, more_photo, best_pooled], REFERENCE, guard=0.005, fallback_guard=0.01)
    assert c.best is near and c.widened and not c.fallback and c.eligible == 1
    c = choose([more_photo, best_pooled], REFERENCE, guard=0.005, fallback_guard=0.01)
    assert c.best is best_pooled and c.widened and c.fallback and c.eligible == 0
    c = choose([near, best_pooled], REFERENCE, guard=0.01, fallback_guard=0.02)
    assert c.best is near and not c.widened  # met under the guard: never widened


def test_ties_go_to_more_images_all_right_then_the_lower_threshold():
    a, b = _point(0.3, 0.9, 0.93, 0.92, 1), _point(0.2, 0.9, 0.93, 0.92, 1)
    assert choose([a, b]).best is b
    c = _point(0.4, 0.9, 0.93, 0.92, 1, all_right=0.6)
    assert choose([a, b, c], REFERENCE, 0.01).best is c


def test_kinds_are_scored_apart():
    # (kind, candidates, required, don't care): the selection picks what the candidates say
    scenes = [("pile", [1, 2], [1, 2], []), ("pile", [3], [3, 4], []),
              ("photo", [5], [], []), ("photo", [], [], [])]
    res = by_kind(scenes, lambda cand: cand)
    assert set(res) == {"pile", "photo"}
    assert res["pile"]["equiv"]["tp"] == 3 and res["pile"]["equiv"]["fn"] == 1
    assert res["photo"]["equiv"]["fp"] == 1 and res["photo"]["images"] == 2


def test_a_recall_kind_guards_its_recall_and_counts_only_there():
    from training.measure.slices import RECALL_PREFIX, score_by_kind
    top = RECALL_PREFIX + "shift top"
    # one shift scene, and the same scene as its top card's recall: card 7 on top, 3 under
    scenes = [("shift pile", [3], [3, 7], []), (top, [3], [7], [3])]
    pooled, kinds = score_by_kind(scenes, lambda cand: cand)
    assert pooled["images"] == 1 and pooled["equiv"]["fn"] == 1  # the recall scene is not pooled
    assert kinds[top]["equiv"]["recall"] == 0.0 and kinds[top]["equiv"]["fp"] == 0
    ref = {top: {"f1": 0.9, "false_cards": 0, "recall": 0.90}}
    point = {"kinds": {top: {"f1": 0.0, "false_cards": 0, "recall": 0.894}}}
    assert not eligible(point, ref, 0.005)  # a recall 0.006 below the reference's
    point["kinds"][top]["recall"] = 0.896
    assert eligible(point, ref, 0.005)


@pytest.mark.parametrize("record", [
    {"best": {"f1": 0.9, "kinds": {"pile": {"f1": 0.9}}}, "eligible": 2, "fallback": False,
     "grid": [{"loc_threshold": 0.1, "f1": 0.8}, {"loc_threshold": 0.2, "f1": 0.9}]},
    {"best": None, "grid": []},
    {"grid": [{"f1": 1.0}]},
    {"best": {"f1": 0.5}},
])
def test_a_tuning_record_reads_back_the_same_with_its_grid_one_point_a_line(record):
    text = record_text(record)
    assert json.loads(text) == record
    lines = text.splitlines()
    for point in record.get("grid", []):
        assert any(line.strip().rstrip(",") == json.dumps(point) for line in lines)
