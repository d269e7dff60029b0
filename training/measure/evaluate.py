"""Evaluation on held-back synthetic scenes (test seeds never used for training or tuning).

A ground-truth card is *required* when at least half of its face is visible (DESIGN.md:
"every card whose face is at least about half visible"); cards less visible are
"don't care" (a detection on them is neither a hit nor a false positive). Card-level
figures compare the codes found in an image with the codes of its required cards;
box-level figures also require the detection's rotated rectangle to overlap the card's
with IoU >= 0.5. The confusion matrix pairs cards and detections at IoU >= 0.3.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from scorer.cards import DECK
from scorer.vision.decision import select_cards
from scorer.vision.geometry import quad_iou, quad_to_rect, rect_to_quad
from training.measure.counting import EQUIV, multiset_hits, prf
from training.data.scenes import ART_SETS, SEED_RANGES, get_library, random_scene

REQUIRED_VIS = 0.5
MATCH_IOU = 0.5


def _required_keys(cards) -> tuple[list[str], list[str]]:
    """Chaff-equivalent keys of a scene's required cards and of its don't-care ones."""
    return ([EQUIV[c.class_id] for c in cards if c.visible >= REQUIRED_VIS],
            [EQUIV[c.class_id] for c in cards if 0 < c.visible < REQUIRED_VIS])


def evaluate(detector, art_dir=None, split: str = "test", n_scenes: int = 600,
             sets=None, out_dir: Path | None = None, tag: str = "test") -> dict:
    """Card level (primary): per image, the multiset of predicted card codes against the
    required cards' codes - what scoring consumes. Box level: each detection matched to
    a card by rotated IoU >= 0.5 (a wrong name there is both an FP and an FN)."""
    lib = get_library(art_dir)
    start = SEED_RANGES[split][0]
    keys = ("exact", "equiv")
    card_c = {k: [0, 0, 0] for k in keys}
    box_c = {k: [0, 0, 0] for k in keys}
    blur_c = {k: [0, 0, 0] for k in keys}
    per_set: dict = {}
    slices = {k: [0, 0, 0] for k in ("all", "upside_down", "overlapped_40", "small_60px",
                                     "in_blurred_scene", "typical")}
    images_ok = {k: 0 for k in keys}
    cm = np.zeros((48, 49), np.int64)  # last column: missed (no detection matched)
    loc_tp = loc_fp = loc_fn = 0
    ms = []
    for k in tqdm(range(n_scenes), desc=f"evaluate {tag}", unit="scene", mininterval=5):
        seed = start + k
        img, cards, info = random_scene(lib, seed, sets=sets)
        det = detector.detect(img)
        ms.append(det.timings["infer"])
        pred = [int(c) for c in det.class_id]
        req = [c for c in cards if c.visible >= REQUIRED_VIS]
        opt = [c for c in cards if 0 < c.visible < REQUIRED_VIS]
        # ---- card level
        for key in keys:
            f = (lambda i: i) if key == "exact" else (lambda i: EQUIV[i])
            tp, fp, fn = multiset_hits([f(i) for i in pred], [f(c.class_id) for c in req],
                                        [f(c.class_id) for c in opt])
            for t, v in enumerate((tp, fp, fn)):
                card_c[key][t] += v
                if info.blurred:
                    blur_c[key][t] += v
            images_ok[key] += int(fp == 0 and fn == 0)
            if key == "equiv":
                sname = info.sets[0] if len(info.sets) == 1 else "mixed"
                ps = per_set.setdefault(sname, {"scenes": 0, "c": [0, 0, 0]})
                ps["scenes"] += 1
                for t, v in enumerate((tp, fp, fn)):
                    ps["c"][t] += v
        pred_exact, pred_eq = set(pred), {EQUIV[i] for i in pred}
        for c in req:
            sl = ["all"]
            if c.upside_down:
                sl.append("upside_down")
            if c.visible <= 0.6:
                sl.append("overlapped_40")
            if c.height <= 60:
                sl.append("small_60px")
            if info.blurred:
                sl.append("in_blurred_scene")
            if c.height > 60 and c.visible >= 0.8:
                sl.append("typical")  # > 60 px tall and at most 20% hidden
            for s in sl:
                slices[s][0] += 1
                slices[s][1] += int(EQUIV[c.class_id] in pred_eq)
                slices[s][2] += int(c.class_id in pred_exact)
        # ---- box level
        gts = req + opt
        pq = det.quads
        pairs = []
        for i, c in enumerate(gts):
            gq = rect_to_quad(*quad_to_rect(c.quad))
            for j in range(len(det)):
                iou = quad_iou(gq, pq[j])
                if iou >= 0.3:
                    pairs.append((i >= len(req), -iou, i, j))
        pairs.sort()
        gt_m, det_m = {}, {}
        for _, negiou, i, j in pairs:
            if i in gt_m or j in det_m:
                continue
            gt_m[i], det_m[j] = (j, -negiou), i
        for i, c in enumerate(req):
            j, iou = gt_m.get(i, (None, 0.0))
            cm[c.class_id, pred[j] if j is not None else 48] += 1
            ok_loc = j is not None and iou >= MATCH_IOU
            loc_tp += int(ok_loc)
            loc_fn += int(not ok_loc)
            for key in keys:
                hit = ok_loc and (pred[j] == c.class_id if key == "exact"
                                  else EQUIV[pred[j]] == EQUIV[c.class_id])
                box_c[key][0] += int(hit)
                box_c[key][2] += int(not hit)
                box_c[key][1] += int(ok_loc and not hit)
        for j in range(len(det)):
            i = det_m.get(j)
            good = i is not None and gt_m[i][1] >= MATCH_IOU
            if not good and not (i is not None and i >= len(req)):
                loc_fp += 1
                for key in keys:
                    box_c[key][1] += 1
    res = {
        "tag": tag, "split": split, "seeds": [start, start + n_scenes - 1],
        "sets": list(sets) if sets else list(ART_SETS), "scenes": n_scenes,
        "required_cards": int(slices["all"][0]),
        "exact": prf(*card_c["exact"]), "equiv": prf(*card_c["equiv"]),
        "images_all_correct": {k: round(v / n_scenes, 4) for k, v in images_ok.items()},
        "box_level_iou50": {k: prf(*v) for k, v in box_c.items()},
        "localisation": prf(loc_tp, loc_fp, loc_fn),
        "blurred_scenes": {k: prf(*v) for k, v in blur_c.items()},
        "slices_recall": {k: {"cards": v[0],
                              "recall_equiv": round(v[1] / v[0], 4) if v[0] else None,
                              "recall_exact": round(v[2] / v[0], 4) if v[0] else None}
                          for k, v in slices.items()},
        "per_set_equiv": {k: {"scenes": v["scenes"], **prf(*v["c"])}
                          for k, v in sorted(per_set.items())},
        "infer_ms_median": round(float(np.median(ms)), 2) if ms else None,
    }
    if out_dir is not None:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"eval-{tag}.json").write_text(json.dumps(res, indent=2) + "\n")
        np.savetxt(out_dir / f"confusion-{tag}.csv", cm, fmt="%d", delimiter=",")
        cv2.imwrite(str(out_dir / f"confusion-{tag}.png"), confusion_png(cm, tag))
    return res


HEIGHT_BINS = (30, 40, 60, 100)


def true_box_ceiling(detector, art_dir=None, split: str = "val", n_scenes: int = 400,
                     sets=None) -> dict:
    """What a perfect localiser would give: every card with any part visible gets its
    true rectangle, classified and picked by the detector's own ``classify`` and
    ``select_cards`` at its thresholds (so the only difference is the boxes). Beside it,
    the detector's card-level figures on the same scenes, and the classifier's
    chaff-equivalent accuracy on the true rectangles of the required cards by height
    (``max_px``: at most that many pixels tall; None: taller than the last bin)."""
    lib = get_library(art_dir)
    start = SEED_RANGES[split][0]
    ceil, pipe = [0, 0, 0], [0, 0, 0]
    bins = {b: [0, 0] for b in HEIGHT_BINS + (None,)}
    for k in tqdm(range(n_scenes), desc=f"true boxes ({split})", unit="scene", mininterval=5):
        img, cards, _ = random_scene(lib, start + k, sets=sets)
        seen = [c for c in cards if c.visible > 0]
        req, opt = _required_keys(seen)
        det = detector.detect(img)
        for t, v in enumerate(multiset_hits([EQUIV[i] for i in det.class_id], req, opt)):
            pipe[t] += v
        if not seen:
            continue
        rects = np.array([quad_to_rect(c.quad) for c in seen], np.float32)
        probs = detector.classify(detector.cut(img, rects)[1])
        cls = probs.argmax(1)[select_cards(np.ones(len(seen), np.float32), probs,
                                           detector.settings.loc_threshold,
                                           detector.settings.cls_threshold)]
        for t, v in enumerate(multiset_hits([EQUIV[i] for i in cls], req, opt)):
            ceil[t] += v
        for c, p in zip(seen, probs.argmax(1)):
            if c.visible < REQUIRED_VIS:
                continue
            b = next((b for b in HEIGHT_BINS if c.height <= b), None)
            bins[b][0] += 1
            bins[b][1] += int(p < len(EQUIV) and EQUIV[p] == EQUIV[c.class_id])
    return {"split": split, "scenes": n_scenes, "sets": list(sets) if sets else list(ART_SETS),
            "true_boxes_equiv": prf(*ceil), "detector_equiv": prf(*pipe),
            "true_box_accuracy_by_height": [
                {"max_px": b, "cards": n, "acc_equiv": round(ok / n, 4) if n else None}
                for b, (n, ok) in bins.items()]}


def confusion_png(cm: np.ndarray, title: str) -> np.ndarray:
    """48x48 confusion matrix (rows: true card, columns: predicted; last column missed),
    row-normalised, log-ish colour scale, drawn with OpenCV."""
    cell = 14
    n = 48
    left, top = 44, 56
    w = left + (n + 1) * cell + 10
    h = top + n * cell + 30
    img = np.full((h, w, 3), 255, np.uint8)
    rows = cm.sum(1, keepdims=True).clip(min=1)
    frac = cm / rows
    for i in range(n):
        for j in range(n + 1):
            v = frac[i, j]
            if v <= 0:
                col = (245, 245, 245)
            else:
                t = min(1.0, math.sqrt(v))
                col = (int(255 * (1 - t)), int(255 * (1 - t) * 0.9), 255) if i != j else \
                    (int(255 * (1 - t)), int(150 + 80 * (1 - t)), int(255 * (1 - t)))
            x0, y0 = left + j * cell, top + i * cell
            cv2.rectangle(img, (x0, y0), (x0 + cell - 1, y0 + cell - 1), col, -1)
        cv2.putText(img, DECK[i].code, (2, top + i * cell + 11), cv2.FONT_HERSHEY_PLAIN, 0.7,
                    (0, 0, 0), 1)
    for j in range(n + 1):
        label = DECK[j].code if j < n else "miss"
        x = left + j * cell + 10
        for k, ch in enumerate(label):
            cv2.putText(img, ch, (x - 8, 12 + k * 9 if k < 5 else 0), cv2.FONT_HERSHEY_PLAIN,
                        0.6, (0, 0, 0), 1)
    for m in range(1, 12):  # month separators
        p = left + m * 4 * cell
        cv2.line(img, (p, top), (p, top + n * cell), (160, 160, 160), 1)
        q = top + m * 4 * cell
        cv2.line(img, (left, q), (left + n * cell, q), (160, 160, 160), 1)
    cv2.putText(img, f"confusion ({title}): rows true, cols predicted, row-normalised",
                (left, h - 10), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 0, 0), 1)
    return img
