"""The realistic test: held-back realistic scenes (``training.data.realistic``), one slice per
scene kind, measured the way scoring uses the cards.

*Realistic framing* (the primary figure) requires every card at least half visible
and at least ``MIN_PX`` pixels tall at the localiser's input; smaller or more hidden
cards are "don't care" there and reported in their own rows: cards under ``MIN_PX``
(the framing hint answers those) and cards only 25-50% visible. The clutter slice
counts false cards per image. Beside the detector, every required card is also read
from its **true outline** by the same classifier, so the gap between the two is what
the box stage costs.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tqdm import tqdm

from scorer.vision.geometry import quad_iou, quad_to_rect, rect_to_quad
from training.measure.calibration import expected_calibration_error
from training.measure.counting import EQUIV, Recall, Tally
from training.data.realistic import KINDS, realistic_scene, realistic_seed
from training.data.scenes import ART_SETS, SEED_RANGES, get_library

MIN_PX = 40
REQUIRED_VIS = 0.5
PARTIAL_VIS = 0.25
# recalls recorded card by card ("kind:scene:card" -> found), so two models' figures on
# the same scenes say which cards one finds and the other loses
PAIRED_SLICES = ("top_card_of_stack", "half_hidden_50_80")


def _true_outline_reads(detector, img, cards) -> list[int]:
    """The classifier's reading of each card cut from its true outline."""
    if not cards:
        return []
    rects = np.array([quad_to_rect(c.quad) for c in cards], np.float32)
    return [int(v) for v in detector.classify(detector.cut(img, rects)[1]).argmax(1)]


def evaluate_realistic(detector, art_dir=None, split: str = "test", per_kind: int = 120,
                       sets=None, kinds=KINDS, out_dir: Path | None = None,
                       tag: str = "realistic-test", profile=None,
                       scene=realistic_scene) -> dict:
    """Realistic framing and its slices for ``per_kind`` scenes of each kind (read with
    ``profile``, a deck profile, when given). ``scene(lib, seed, kind, sets)`` renders
    them: the realistic scenes, or the domain-shift slice's (``training.data.shift``)."""
    lib = get_library(art_dir)
    start = SEED_RANGES[split][0]
    overall = Tally()
    per_kind_t = {k: Tally() for k in kinds}
    recalls = {k: Recall() for k in ("required", "half_hidden_50_80", "partial_25_50",
                                      "under_40px", "upside_down", "top_card_of_stack",
                                      "true_outline", "physical_deck")}
    boxes = {k: Recall() for k in BOX_SLICES}
    hits: dict[str, dict[str, bool]] = {k: {} for k in PAIRED_SLICES}
    loss = Counter()
    months = Counter()
    ms = []
    reported: list[tuple[float, bool]] = []  # each card reported: its confidence, right?
    for kind in kinds:
        for k in tqdm(range(per_kind), desc=f"{tag} {kind}", unit="scene", mininterval=5):
            img, cards, info = scene(lib, realistic_seed(start, kind, k), kind, sets)
            t0 = time.perf_counter()
            found_boxes = detector.candidates(img, profile=profile)
            det = detector.cards(found_boxes)
            ms.append((time.perf_counter() - t0) * 1e3)
            s = min(detector.in_w / img.shape[1], detector.in_h / img.shape[0])
            readable = [c.height * s >= MIN_PX for c in cards]
            req = [c for c, r in zip(cards, readable) if r and c.visible >= REQUIRED_VIS]
            opt = [c for c, r in zip(cards, readable)
                   if c.visible > 0 and not (r and c.visible >= REQUIRED_VIS)]
            pred = [int(i) for i in det.class_id]
            for t in (overall, per_kind_t[kind]):
                t.add(pred, [c.class_id for c in req], [c.class_id for c in opt])
            found = {EQUIV[i] for i in pred}
            present = {EQUIV[c.class_id] for c in cards if c.visible > 0}
            reported += [(float(p), EQUIV[i] in present) for i, p in zip(pred, det.confidence)]
            reads = _true_outline_reads(detector, img, req)
            top = cards[-1] if cards else None
            for i, (c, r) in enumerate(zip(cards, readable)):
                hit = EQUIV[c.class_id] in found
                card_id = f"{kind}:{k}:{i}"
                if c.visible >= REQUIRED_VIS and not r:
                    recalls["under_40px"].add(hit)
                if not r:
                    continue
                if PARTIAL_VIS <= c.visible < REQUIRED_VIS:
                    recalls["partial_25_50"].add(hit)
                if c.visible < REQUIRED_VIS:
                    continue
                recalls["required"].add(hit)
                if c.visible < 0.8:
                    recalls["half_hidden_50_80"].add(hit)
                    hits["half_hidden_50_80"][card_id] = hit
                if c.upside_down:
                    recalls["upside_down"].add(hit)
                if info.physical:
                    recalls["physical_deck"].add(hit)
                if c is top and len(cards) > 1:
                    recalls["top_card_of_stack"].add(hit)
                    hits["top_card_of_stack"][card_id] = hit
            for key, sits in box_quality(found_boxes.quads, req,
                                         top if len(cards) > 1 else None):
                boxes[key].add(sits)
            months.update(month_misreads(det, req))
            for c, r in zip(req, reads):
                ok_read = r < 48 and EQUIV[r] == EQUIV[c.class_id]
                recalls["true_outline"].add(ok_read)
                if ok_read and EQUIV[c.class_id] not in found:
                    loss[why_lost(det.quads, found_boxes.quads, c)] += 1
    res = {"tag": tag, "split": split, "sets": list(sets) if sets else list(ART_SETS),
           "per_kind_scenes": per_kind, "min_px": MIN_PX,
           "realistic_framing": overall.report(),
           "kinds": {k: v.report() for k, v in per_kind_t.items()},
           "recall": {k: v.report() for k, v in recalls.items()},
           "card_hits": hits,
           "box_quality": {k: {"cards": v.n, f"iou_{BOX_IOU:.1f}": v.share()}
                           for k, v in boxes.items()},
           "lost_though_read_right_on_true_outline": dict(loss),
           "month_misreads": dict(months.most_common()),
           "calibration": expected_calibration_error([c for c, _ in reported],
                                                     [r for _, r in reported]),
           "infer_ms_median": round(float(np.median(ms)), 2) if ms else None}
    if out_dir is not None:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"eval-{tag}.json").write_text(json.dumps(res, indent=2) + "\n")
    return res


BOX_IOU = 0.8  # a box that sits on its card
BOX_SLICES = ("required", "top_card", "fully_visible", "partly_hidden")


def box_quality(quads: Sequence[np.ndarray], cards, top) -> list[tuple[str, bool]]:
    """(slice, sits) for each required card in ``cards``: whether the localiser's (and
    refiner's) best box on it has IoU >= ``BOX_IOU`` with its true outline. The slices:
    every required card, the top card of a pile (``top``, None for a lone card), cards
    fully visible, cards partly hidden (50-99% visible)."""
    out = []
    for c in cards:
        gq = rect_to_quad(*quad_to_rect(c.quad))
        sits = max((quad_iou(gq, q) for q in quads), default=0.0) >= BOX_IOU
        out += [("required", sits),
                ("fully_visible" if c.visible >= 0.99 else "partly_hidden", sits)]
        if c is top:
            out.append(("top_card", sits))
    return out


def month_misreads(det, cards) -> list[str]:
    """"true month -> read month" for each required card whose best-aligned box (IoU at
    least 0.5) was read as another month's card, e.g. "04->07" (April read as July)."""
    out = []
    for c in cards:
        gq = rect_to_quad(*quad_to_rect(c.quad))
        ious = [quad_iou(gq, q) for q in det.quads]
        if not ious or max(ious) < 0.5:
            continue
        read = int(det.class_id[int(np.argmax(ious))])
        if read // 4 != c.class_id // 4:
            out.append(f"{c.class_id // 4 + 1:02d}->{read // 4 + 1:02d}")
    return out


def why_lost(kept: Sequence[np.ndarray], boxes: Sequence[np.ndarray], card) -> str:
    """Where a card the classifier reads right from its true outline went missing, from
    the detections ``kept`` and every box the localiser found (``boxes``, quads): kept
    as a poorly aligned box (IoU < 0.5) or an aligned one, either read as another card;
    or not kept: the localiser's box on it (IoU >= 0.3) was dropped by its read, or the
    localiser found no box on it."""
    gq = rect_to_quad(*quad_to_rect(card.quad))
    best, found = (max((quad_iou(gq, q) for q in quads), default=0.0) for quads in (kept, boxes))
    if best >= 0.3:
        return "skewed_box" if best < 0.5 else "aligned_box_misread_or_dropped"
    return "box_dropped_by_its_read" if found >= 0.3 else "no_box"


def summary_rows(res: dict) -> list[tuple[str, str]]:
    """(name, figure) rows for a report table."""
    rf = res["realistic_framing"]
    rows = [("realistic framing F1 (equiv)", f"{rf['equiv']['f1']:.3f}"),
            ("  P / R", f"{rf['equiv']['precision']:.3f} / {rf['equiv']['recall']:.3f}"),
            ("  images all right", f"{rf['images_all_correct']:.3f}")]
    for k, v in res["kinds"].items():
        rows.append((f"{k}: F1 / all right / false cards per image",
                     f"{v['equiv']['f1']:.3f} / {v['images_all_correct']:.3f} / "
                     f"{v['false_cards_per_image']:.3f}"))
    for k, v in res["recall"].items():
        if v["recall_equiv"] is not None:
            rows.append((f"recall {k} ({v['cards']} cards)", f"{v['recall_equiv']:.3f}"))
    return rows


RECALL_PREFIX = "recall "  # a scene that only counts one recall (``recalls``)


def realistic_candidates(detector, art_dir=None, split: str = "val", per_kind: int = 60,
                         sets=None, kinds=KINDS, loc_threshold: float = 0.1,
                         scene=realistic_scene, prefix: str = "",
                         recalls: bool = False) -> list:
    """Each scene's candidates (every box at or above ``loc_threshold``, classified) with
    its required and don't-care card ids, for choosing how the cards are picked.
    ``scene(lib, seed, kind, sets)`` renders them (the realistic scenes, or the shift
    slice's); ``prefix`` goes before each scene's kind (``"shift "``). With ``recalls``,
    each scene also comes twice more as the ship rule's recalls read it, the other
    visible cards don't-care: its top card alone required (kind ``"recall <prefix>top"``,
    when it is required and on others) and its 50-80% visible cards (``"... half"``)."""
    lib = get_library(art_dir)
    start = SEED_RANGES[split][0]
    out = []
    detector = at_threshold(detector, loc_threshold)
    for kind in kinds:
        for k in tqdm(range(per_kind), desc=f"candidates {split} {kind}", unit="scene",
                      mininterval=5):
            img, cards, _ = scene(lib, realistic_seed(start, kind, k), kind, sets)
            s = min(detector.in_w / img.shape[1], detector.in_h / img.shape[0])
            req = [c.class_id for c in cards
                   if c.visible >= REQUIRED_VIS and c.height * s >= MIN_PX]
            opt = [c.class_id for c in cards if c.visible > 0 and
                   not (c.visible >= REQUIRED_VIS and c.height * s >= MIN_PX)]
            cand = detector.candidates(img)
            out.append((prefix + kind, cand, req, opt))
            if not recalls:
                continue
            seen = req + opt
            top = cards[-1] if len(cards) > 1 else None
            if top is not None and top.class_id in req:
                out.append((RECALL_PREFIX + prefix + "top", cand, [top.class_id],
                            [i for i in seen if i != top.class_id]))
            half = [c.class_id for c in cards if c.class_id in req and c.visible < 0.8]
            if half:
                out.append((RECALL_PREFIX + prefix + "half", cand, half,
                            [i for i in seen if i not in half]))
    return out


def photo_candidates(detector, photos_dir, loc_threshold: float = 0.1,
                     part: str = "train", val_share: float = 0.25) -> list:
    """The candidates in each photograph of the real photos' *train* part (``part``
    "train"), or of its validation share (``part`` "val": each sitting's last
    ``val_share``, which no classifier round reads), as scenes without cards for
    ``score_selection`` (no hanafuda in them: every card picked there is a false one):
    tuning then weighs the phantom cards a real table brings."""
    from training.data.real_photos import split_photos, split_by_sitting
    photos = split_photos(photos_dir)["train"]
    if part == "val":
        photos = split_by_sitting(photos, val_share)[1]
    return candidates_of_photos(at_threshold(detector, loc_threshold), photos)


def candidates_of_photos(detector, photos: list) -> list:
    """Each of ``photos``' candidates (at the detector's thresholds) as a scene without
    cards (kind "photo")."""
    import cv2
    out = []
    for path in tqdm(photos, desc="candidates photos", unit="photo", mininterval=5):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is not None:
            out.append(("photo", detector.candidates(img), [], []))
    return out


def at_threshold(detector, loc_threshold: float):
    """The detector over the same networks with both localiser thresholds at
    ``loc_threshold`` (candidates for the tuning grid)."""
    return detector.with_settings(detector.settings.but(loc_threshold=loc_threshold,
                                                        large_threshold=loc_threshold))


def score_selection(scenes: list, select) -> dict:
    """Realistic-framing F1 when ``select(candidates) -> class ids`` picks the cards."""
    return score_by_kind(scenes, select)[0]


def score_by_kind(scenes: list, select) -> tuple[dict, dict[str, dict]]:
    """``score_selection``'s report over all ``scenes`` (but those that only count a
    recall, ``RECALL_PREFIX``) and for each kind of scene, in one pass."""
    overall, kinds = Tally(), {}
    for kind, cand, req, opt in scenes:
        pred = [int(i) for i in select(cand)]
        kinds.setdefault(kind, Tally()).add(pred, req, opt)
        if not kind.startswith(RECALL_PREFIX):
            overall.add(pred, req, opt)
    return overall.report(), {k: v.report() for k, v in kinds.items()}


def pick(cand, settings):
    """The class ids the detector's decision (``scorer.vision.decision.pick``) keeps from
    ``cand`` with ``settings`` (a ``DetectionSettings``: the tuning's points are the
    model's settings with the thresholds and rules it tries)."""
    from scorer.vision.decision import pick as decide_pick
    return cand.class_id[decide_pick(cand, settings)]
