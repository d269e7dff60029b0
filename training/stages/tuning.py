"""Choosing a model's thresholds on validation scenes, under the ship rule.

The grid is scored on the candidates of every validation scene (realistic kinds and,
when tuning counts them, the real photos' train part). Pooled F1 alone trades one kind
for another: a stricter close-up threshold removes phantom cards on real tables and
drops close-up cards with them, which the ship rule then refuses on the test. With a
``guard``, only settings that keep every realistic kind within ``guard`` of the
reference model's validation F1 (read at its own thresholds) and bring no more false
cards on the photos than it does are eligible; the best of those wins. When none is,
the kinds' guard widens to ``fallback_guard`` (the ship rule's own tolerance), the photos'
stays: the ship rule allows a kind a small loss but no more false cards a photo.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass

from scorer.vision.settings import DetectionSettings
from training.measure.counting import EQUIV
from training.measure.slices import RECALL_PREFIX, pick, score_by_kind, score_selection

PHOTO_KIND = "photo"  # the kind ``photo_candidates`` gives its scenes
SHIFT_PREFIX = "shift "  # before the kinds of the shift slice's validation scenes


@dataclass(frozen=True)
class Choice:
    """The chosen grid point, and how many were eligible under the guard (None: no
    guard); ``widened``: none was, so they were counted under the wider fallback guard;
    ``fallback``: none was under either, so the point nearest the reference was taken
    (``shortfall``)."""
    best: dict
    eligible: int | None = None
    fallback: bool = False
    widened: bool = False


def by_kind(scenes: list, select) -> dict[str, dict]:
    """``score_selection``'s report for each kind of scene among ``scenes``."""
    return score_by_kind(scenes, select)[1]


def _summary(report: dict) -> dict:
    return {"f1": report["equiv"]["f1"], "false_cards": report["equiv"]["fp"],
            "recall": report["equiv"]["recall"]}


def stand_in(scenes: list) -> list:
    """The scenes that stand in for the real world: the shift slice's and the real
    photos' (none when the shift slice is not among ``scenes``)."""
    if not any(s[0].startswith(SHIFT_PREFIX) for s in scenes):
        return []
    return [s for s in scenes if s[0].startswith(SHIFT_PREFIX) or s[0] == PHOTO_KIND]


def reported_cards(det, scenes: list) -> tuple[list[float], list[bool]]:
    """Each card ``det`` picks in the stand-in's whole scenes (``stand_in``): the
    classifier's probability of it, and whether that card is in the scene (a card
    picked on a real photo is wrong): what the reported confidence is fitted on."""
    conf: list[float] = []
    right: list[bool] = []
    for _, cand, req, opt in whole(stand_in(scenes)):
        if not len(cand):
            continue
        present = {EQUIV[i] for i in [*req, *opt]}
        kept = cand[det.pick(cand)]
        conf += [float(p) for p in kept.confidence]
        right += [EQUIV[int(i)] in present for i in kept.class_id]
    return conf, right


def whole(scenes: list) -> list:
    """The scenes without the ones that only count a recall (``RECALL_PREFIX``)."""
    return [s for s in scenes if not s[0].startswith(RECALL_PREFIX)]


def _point(scenes: list, real: list, select, **settings) -> dict:
    """One setting's pooled figures (over whole scenes), each kind's (the recalls' too),
    and the stand-in's ``objective_f1``."""
    r, kinds = score_by_kind(scenes, select)
    point = {**settings, **r["equiv"], "images_all_correct": r["images_all_correct"],
             "kinds": {k: _summary(v) for k, v in kinds.items()}}
    if real:
        point["objective_f1"] = score_selection(real, select)["equiv"]["f1"]
    return point


def score_grid(scenes: list, t) -> list[dict]:
    """Every setting of the grid ``t`` (a ``TuneConfig``) scored on ``scenes``: pooled
    figures plus each kind's F1 and false cards, and, when the shift slice's scenes are
    among them, ``objective_f1``: the pooled F1 of those and the photos. A grid value 0
    means "the same as the others" for the close-up thresholds and "off" for the
    overlap."""
    real = stand_in(whole(scenes))
    grid = []
    for ov, lt, ct, large, large_cls in itertools.product(
            [v or None for v in t.overlap_grid], t.loc_grid, t.cls_grid,
            [v or None for v in t.large_grid], [v or None for v in t.large_cls_grid]):
        point = DetectionSettings(loc_threshold=lt, cls_threshold=ct, overlap_iou=ov,
                                  large_threshold=large, large_box=t.large_box,
                                  large_cls_threshold=large_cls)

        def select(c, point=point):
            return pick(c, point)
        grid.append(_point(scenes, real, select, loc_threshold=lt, cls_threshold=ct,
                           overlap_iou=ov, large_threshold=large,
                           large_cls_threshold=large_cls))
    return grid


def settings_at(best: dict, t, **rules) -> DetectionSettings:
    """The settings at the thresholds ``best`` chose (``t``: the ``TuneConfig``), with
    ``rules`` (the card checks, the beside rule)."""
    return DetectionSettings(
        loc_threshold=best["loc_threshold"], cls_threshold=best["cls_threshold"],
        overlap_iou=best["overlap_iou"], large_threshold=best["large_threshold"],
        large_box=t.large_box, large_cls_threshold=best["large_cls_threshold"], **rules)


def pick_at(cand, best: dict, t, **rules):
    """``pick`` at ``settings_at(best, t, **rules)``."""
    return pick(cand, settings_at(best, t, **rules))


def score_checks(scenes: list, best: dict, t) -> list[dict]:
    """Every combination of the card checks (``scorer.vision.card_checks``; each grid of
    ``t`` holds 0 for off) at the thresholds ``best`` chose, scored as ``score_grid``
    scores its points; the first is all off."""
    from scorer.vision.card_checks import CardChecks
    real = stand_in(whole(scenes))
    out = []
    for aspect, span, scale in itertools.product(t.aspect_grid, t.span_grid, t.scale_grid):
        checks = CardChecks(aspect or None, int(span) or None, scale or None)

        def select(c, checks=checks):
            return pick_at(c, best, t, card_checks=checks)
        out.append(_point(scenes, real, select, card_checks=checks.to_config()))
    return out


def score_beside(scenes: list, best: dict, checks: dict, t) -> list[dict]:
    """Every setting of the second pair for boxes beside the cards
    (``scorer.vision.beside``; ``t``'s grids, a localiser threshold of 0 for off) at the
    thresholds ``best`` chose and the card ``checks`` (their config), scored as
    ``score_grid`` scores its points; the first is off."""
    from scorer.vision.beside import Beside
    real = stand_in(whole(scenes))
    card_checks = DetectionSettings.from_metadata({"card_checks": checks}).card_checks
    rules: list[Beside | None] = [None] + [
        Beside(lt, ct, d) for lt, ct, d in itertools.product(
            [v for v in t.beside_loc_grid if v], t.beside_cls_grid, t.beside_distance_grid)]
    out = []
    for rule in rules:
        def select(c, rule=rule):
            return pick_at(c, best, t, card_checks=card_checks, beside=rule)
        out.append(_point(scenes, real, select,
                          beside=None if rule is None else rule.to_config()))
    return out


def reference_figures(detector, scenes: list, checks: bool = True,
                      beside: bool = True) -> dict[str, dict]:
    """Each kind's F1 and false cards for ``detector`` at its own thresholds, on the
    candidates it gave for ``scenes`` (drawn at or below its own localiser threshold);
    without ``checks`` or ``beside``, without its card checks or its beside rule: what
    a point of a tuning stage before them is compared with (like with like)."""
    from scorer.vision.card_checks import CardChecks
    rules = detector.settings
    if not checks:
        rules = rules.but(card_checks=CardChecks())
    if not beside:
        rules = rules.but(beside=None)

    def select(c):
        return pick(c, rules)
    return {k: _summary(v) for k, v in by_kind(scenes, select).items()}


def shortfall(point: dict, reference: dict[str, dict]) -> tuple[bool, float]:
    """How far ``point`` is from the guard: whether it finds more false cards on the
    photos than the reference, and the most any other kind falls below the reference's
    F1 (a recall's kind: its recall)."""
    more_photo, worst = False, 0.0
    for kind, ref in reference.items():
        mine = point["kinds"].get(kind)
        if mine is None:
            continue
        if kind == PHOTO_KIND:
            more_photo = mine["false_cards"] > ref["false_cards"]
        else:
            key = "recall" if kind.startswith(RECALL_PREFIX) else "f1"
            worst = max(worst, ref[key] - mine[key])
    return more_photo, worst


def eligible(point: dict, reference: dict[str, dict], guard: float) -> bool:
    """No kind more than ``guard`` below the reference's F1 (a recall's kind: its
    recall), and no more false cards on the photos than the reference."""
    more_photo, worst = shortfall(point, reference)
    return not more_photo and worst <= guard


def rank(g: dict) -> tuple:
    return (g.get("objective_f1", g["f1"]), g["f1"], g["images_all_correct"],
            -g.get("loc_threshold", 0.0))


def choose(grid: list[dict], reference: dict[str, dict] | None = None,
           guard: float = 0.0, fallback_guard: float = 0.0) -> Choice:
    """The best ``objective_f1`` where measured, else pooled F1 (ties: pooled F1, more
    images all right, then the lower localiser threshold); with a ``reference``, among
    the eligible points only, when there are any (under ``guard``, else under
    ``fallback_guard`` when it is wider). When none is, the point that falls least below
    the reference on its worst kind (and finds no more false cards on the photos, where
    one does): the best pooled F1 would trade the guarded kinds for the stand-in's
    precision, as the ship rule, which guards each kind, never does."""
    if reference is None:
        return Choice(max(grid, key=rank))
    ok = [g for g in grid if eligible(g, reference, guard)]
    widened = not ok and fallback_guard > guard
    if widened:
        ok = [g for g in grid if eligible(g, reference, fallback_guard)]
    if ok:
        return Choice(max(ok, key=rank), len(ok), False, widened)
    def nearness(g: dict) -> tuple:
        more_photo, worst = shortfall(g, reference)
        return (not more_photo, -worst, rank(g))
    return Choice(max(grid, key=nearness), 0, True, widened)


def choose_or_off(points: list[dict], reference: dict[str, dict] | None, t) -> dict:
    """``choose`` among ``points`` whose first is an option turned off (the card
    checks, the beside rule); the off point stays unless the chosen one ranks above it."""
    picked = choose(points, reference, t.guard, t.fallback_guard).best
    return picked if rank(picked) > rank(points[0]) else points[0]


def record_text(record: dict) -> str:
    """A tuning record as JSON text with its ``grid`` one point a line: the same data,
    about 60% of the indented text (the grids are the largest figure files kept)."""
    def field(key: str, value) -> str:
        if key == "grid":
            return '  "grid": [\n    ' + ",\n    ".join(map(json.dumps, value)) + "\n  ]"
        return f"  {json.dumps(key)}: " + json.dumps(value, indent=2).replace("\n", "\n  ")
    return "{\n" + ",\n".join(field(k, v) for k, v in record.items()) + "\n}\n"
