"""Cached synthetic training data: localiser scenes (downscaled) and classifier crops.

A chunk of scenes is rendered at 640x480 from consecutive seeds; each chunk file holds
  loc_img   (S, LOC_H, LOC_W, 3) uint8   the scene resized for the localiser
  loc_cards (K, 7) float32             scene_idx, cx, cy, w, h, theta, visible (LOC scale)
  scene_sets (S, 4) bool               which art sets appear in the scene
  crops     (M, CROP_H, CROP_W, 3) uint8  rectified (jittered) card crops + background crops
  crop_label (M,) int16                class 0..47, 48 = not a card
  crop_set  (M,) int8                  art set index (-1 for background)
Chunks are written atomically, so an interrupted generation resumes where it stopped.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from scorer.vision.geometry import (CROP_H, CROP_W, quad_iou, quad_to_rect, rect_to_quad,
                                    rectify)
from training.data.scenes import ART_SETS, SEED_RANGES, get_library, random_scene

LOC_W, LOC_H = 320, 240
BACKGROUND = 48
MIN_CROP_VIS = 0.3
CHUNK = 200


def jitter_rect(rect, rng, amount=1.0):
    cx, cy, w, h, th = rect
    s = max(w, h)
    cx += rng.normal(0, 0.025 * amount) * s
    cy += rng.normal(0, 0.025 * amount) * s
    sc = math.exp(rng.normal(0, 0.05 * amount))
    return cx, cy, w * sc * math.exp(rng.normal(0, 0.03 * amount)), h * sc, \
        th + rng.normal(0, math.radians(2.5) * amount)


def scene_to_samples(img, cards, rng, loc_size: tuple[int, int] = (LOC_W, LOC_H)):
    """Localiser targets (at ``loc_size``, width x height) + classifier crops of one
    full-resolution scene."""
    H, W = img.shape[:2]
    sx, sy = loc_size[0] / W, loc_size[1] / H
    loc = cv2.resize(img, loc_size, interpolation=cv2.INTER_AREA)
    rows, crops, labels, sets = [], [], [], []
    for c in cards:
        cx, cy, w, h, th = quad_to_rect(c.quad)
        q2 = c.quad * np.array([sx, sy], np.float32)
        r2 = quad_to_rect(q2)
        rows.append([0, r2[0], r2[1], r2[2], r2[3], r2[4], c.visible])
        if c.visible >= MIN_CROP_VIS and h >= 8:
            jr = jitter_rect((cx, cy, w, h, th), rng)
            crops.append(rectify(img, rect_to_quad(*jr)))
            labels.append(c.class_id)
            sets.append(ART_SETS.index(c.art_set))
    # one or two background crops away from visible card centres
    centres = np.array([c.quad.mean(0) for c in cards if c.visible > 0.2]).reshape(-1, 2)
    hs = [c.height for c in cards] or [100.0]
    for _ in range(2 if rng.random() < 0.5 else 1):
        h = float(np.median(hs)) * rng.uniform(0.7, 1.3)
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        if len(centres) and np.min(np.hypot(*(centres - [cx, cy]).T)) < 0.45 * h:
            continue
        q = rect_to_quad(cx, cy, h / 1.6, h, rng.uniform(0, 2 * math.pi))
        crops.append(rectify(img, q))
        labels.append(BACKGROUND)
        sets.append(-1)
    return loc, rows, crops, labels, sets


def _gen_chunk(args):
    out_path, art_dir, seeds, loc_size = args
    out_path = Path(out_path)
    if out_path.exists():
        return str(out_path)
    lib = get_library(art_dir)
    locs, rows, crops, labels, csets, ssets = [], [], [], [], [], []
    for i, seed in enumerate(seeds):
        img, cards, info = random_scene(lib, int(seed))
        rng = np.random.default_rng(int(seed) + 7_777_777)
        loc, r, c, lab, cs = scene_to_samples(img, cards, rng, loc_size)
        locs.append(loc)
        for row in r:
            row[0] = i
            rows.append(row)
        crops += c
        labels += lab
        csets += cs
        ssets.append([s in {cd.art_set for cd in cards} for s in ART_SETS])
    return save_chunk(out_path, loc_img=np.stack(locs),
                      loc_cards=np.array(rows, np.float32).reshape(-1, 7),
                      scene_sets=np.array(ssets, bool), crops=np.stack(crops),
                      crop_label=np.array(labels, np.int16), crop_set=np.array(csets, np.int8))


def generate_cache(cache_dir: Path, art_dir, n_scenes: int, split: str = "train",
                   workers: int = 2, loc_size: tuple[int, int] = (LOC_W, LOC_H)) -> list[Path]:
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    start = SEED_RANGES[split][0]
    prefix = split if tuple(loc_size) == (LOC_W, LOC_H) else \
        f"{split}-{loc_size[0]}x{loc_size[1]}"
    jobs = []
    for k in range(0, n_scenes, CHUNK):
        seeds = list(range(start + k, start + min(k + CHUNK, n_scenes)))
        jobs.append((str(cache_dir / f"{prefix}_{k // CHUNK:04d}.npz"), str(art_dir), seeds,
                     tuple(loc_size)))
    return run_chunks(_gen_chunk, jobs, workers, f"scenes {split} ({CHUNK}/chunk)")


def save_chunk(out_path: Path, **arrays: np.ndarray) -> str:
    """Write a chunk's arrays to ``out_path`` (.npz) whole or not at all: through a
    temporary file, so an interrupted run never leaves half a chunk that looks done."""
    out_path = Path(out_path)
    tmp = out_path.with_suffix(".tmp.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, out_path)
    return str(out_path)


def run_chunks(fn, jobs: list[tuple], workers: int, desc: str) -> list[Path]:
    """Run ``fn`` on each job whose chunk file (the job's first item) is not there yet,
    in ``workers`` processes with a progress bar; the paths of all the jobs' chunks."""
    todo = [j for j in jobs if not Path(j[0]).exists()]
    if todo:
        with ProcessPoolExecutor(max_workers=workers) as ex:
            for _ in tqdm(ex.map(fn, todo), total=len(todo), desc=desc, unit="chunk"):
                pass
    return [Path(j[0]) for j in jobs]


def load_cache(paths) -> dict:
    parts = [dict(np.load(p)) for p in paths]
    out = {}
    offset = 0
    cards = []
    for p in parts:
        lc = p["loc_cards"].copy()
        lc[:, 0] += offset
        offset += len(p["loc_img"])
        cards.append(lc)
    out["loc_img"] = np.concatenate([p["loc_img"] for p in parts])
    out["loc_cards"] = np.concatenate(cards)
    for k in ("scene_sets", "crops", "crop_label", "crop_set"):
        out[k] = np.concatenate([p[k] for p in parts])
    return out


# ------------------------------------------------- crops where the localiser puts them
#
# Measured on 150 validation scenes with the first shipped models: the classifier names
# 94% of cards right on a crop cut from the true rectangle but 76% on the crop the
# localiser's rectangle gives (median centre error 8% of the card height, size 9%, p90
# angle error 30 degrees). Fine-tuning on crops cut where the localiser puts its boxes
# closes that gap. The scenes come from train seeds the localiser was not trained on.

LOCCROP_OFFSET = 50_000  # within each split's seed range, past its cached scenes
LOCCROP_LABEL_IOU = 0.35  # a box this close to a card is that card
LOCCROP_BG_IOU = 0.1  # a box this far from every card is "not a card"


def label_boxes(rects: np.ndarray, cards) -> list[int | None]:
    """The class each localised rectangle should get: the card it covers best, BACKGROUND
    when it covers no card, None when it is ambiguous (part of a card, two cards)."""
    quads = [rect_to_quad(*quad_to_rect(c.quad)) for c in cards]
    out: list[int | None] = []
    for r in rects:
        q = rect_to_quad(*r)
        ious = [quad_iou(q, g) for g in quads]
        best = int(np.argmax(ious)) if ious else -1
        if best >= 0 and ious[best] >= LOCCROP_LABEL_IOU and \
                cards[best].visible >= MIN_CROP_VIS:
            out.append(cards[best].class_id)
        elif not ious or max(ious) < LOCCROP_BG_IOU:
            out.append(BACKGROUND)
        else:
            out.append(None)
    return out


def _crop_set(rect, label: int, cards) -> int:
    """The art set a crop belongs to: its card's, or for "not a card" the nearest card's
    (so that a held-out deck's table never reaches the leave-one-deck-out classifier)."""
    if not cards:
        return -1
    if label != BACKGROUND:
        src = next(c for c in cards if c.class_id == label)
    else:
        src = min(cards, key=lambda c: float(np.hypot(*(c.quad.mean(0) - rect[:2]))))
    return ART_SETS.index(src.art_set)


def _gen_loccrop_chunk(args):
    out_path, art_dir, model_path, seeds, refiner = args
    out_path = Path(out_path)
    if out_path.exists():
        return str(out_path)
    from scorer.vision.detector import Detector

    det = Detector(model_path, threads=1, refiner=refiner)
    lib = get_library(art_dir)
    crops, labels, csets = [], [], []
    for seed in seeds:
        img, cards, _ = random_scene(lib, int(seed))
        rects, _ = det.localise(img)
        keep = [(r, lab) for r, lab in zip(rects, label_boxes(rects, cards)) if lab is not None]
        if not keep:
            continue
        crops += list(det.cut(img, np.array([r for r, _ in keep]))[1])
        labels += [lab for _, lab in keep]
        csets += [_crop_set(r, lab, cards) for r, lab in keep]
    empty = np.zeros((0, CROP_H, CROP_W, 3), np.uint8)
    return save_chunk(out_path, crops=np.stack(crops) if crops else empty,
                      crop_label=np.array(labels, np.int16), crop_set=np.array(csets, np.int8))


def weights_digest(onnx_path: Path) -> str:
    """A short hash of an ONNX model without its metadata (thresholds change there)."""
    import hashlib

    import onnx

    m = onnx.load(str(onnx_path))
    del m.metadata_props[:]
    return hashlib.sha256(m.SerializeToString()).hexdigest()[:12]


def detector_digest(loc_path: Path) -> str:
    """What decides where a detector's boxes fall: the localiser's weights and, when its
    metadata names one, the box refiner's weights and passes (thresholds do not)."""
    import hashlib
    import json

    import onnx

    tag = weights_digest(loc_path)
    meta = {p.key: p.value for p in onnx.load(str(loc_path)).metadata_props}
    cfg = json.loads(meta.get("hanafuda", "{}"))
    if not cfg.get("refiner"):
        return tag
    ref = weights_digest(Path(loc_path).parent / cfg["refiner"])
    both = f"{tag}+{ref}x{cfg.get('refine_passes', 1)}"
    return hashlib.sha256(both.encode()).hexdigest()[:12]


def generate_localiser_crops(cache_dir: Path, art_dir, model_path: Path, n_scenes: int,
                             split: str = "train", workers: int = 2,
                             refiner: bool = True) -> list[Path]:
    """Classifier crops cut at the rectangles ``model_path``'s localiser finds in fresh
    scenes of ``split`` (seeds offset by LOCCROP_OFFSET), labelled by ``label_boxes``.
    Chunks are named after the localiser's (and box refiner's) weights, so a new
    localiser gets new crops; an interrupted run resumes. ``refiner``: the boxes are
    corrected by the box refiner the localiser names (False: the localiser's own)."""
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    tag = detector_digest(model_path) if refiner else weights_digest(model_path)
    start = SEED_RANGES[split][0] + LOCCROP_OFFSET
    if start + n_scenes > SEED_RANGES[split][1]:
        raise ValueError(f"{n_scenes} scenes would run past the {split} seed range")
    jobs = []
    for k in range(0, n_scenes, CHUNK):
        seeds = list(range(start + k, start + min(k + CHUNK, n_scenes)))
        jobs.append((str(cache_dir / f"loccrops-{tag}-{split}_{k // CHUNK:04d}.npz"),
                     str(art_dir), str(model_path), seeds, refiner))
    return run_chunks(_gen_loccrop_chunk, jobs, workers,
                      f"localiser crops {split} ({CHUNK} scenes/chunk)")


def load_crops(paths) -> dict:
    parts = [np.load(p) for p in paths]
    return {k: np.concatenate([p[k] for p in parts])
            for k in ("crops", "crop_label", "crop_set")}
