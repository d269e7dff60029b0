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

from scorer.vision.geometry import CROP_H, CROP_W, quad_to_rect, rect_to_quad, rectify
from training.scenes import ART_SETS, SEED_RANGES, get_library, random_scene

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


def scene_to_samples(img, cards, rng):
    """Localiser targets + classifier crops of one full-resolution scene."""
    H, W = img.shape[:2]
    sx, sy = LOC_W / W, LOC_H / H
    loc = cv2.resize(img, (LOC_W, LOC_H), interpolation=cv2.INTER_AREA)
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
    out_path, art_dir, seeds = args
    out_path = Path(out_path)
    if out_path.exists():
        return str(out_path)
    lib = get_library(art_dir)
    locs, rows, crops, labels, csets, ssets = [], [], [], [], [], []
    for i, seed in enumerate(seeds):
        img, cards, info = random_scene(lib, int(seed))
        rng = np.random.default_rng(int(seed) + 7_777_777)
        loc, r, c, lab, cs = scene_to_samples(img, cards, rng)
        locs.append(loc)
        for row in r:
            row[0] = i
            rows.append(row)
        crops += c
        labels += lab
        csets += cs
        ssets.append([s in {cd.art_set for cd in cards} for s in ART_SETS])
    tmp = out_path.with_suffix(".tmp.npz")
    np.savez(tmp, loc_img=np.stack(locs), loc_cards=np.array(rows, np.float32).reshape(-1, 7),
             scene_sets=np.array(ssets, bool), crops=np.stack(crops),
             crop_label=np.array(labels, np.int16), crop_set=np.array(csets, np.int8))
    os.replace(tmp, out_path)
    return str(out_path)


def generate_cache(cache_dir: Path, art_dir, n_scenes: int, split: str = "train",
                   workers: int = 2) -> list[Path]:
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    start = SEED_RANGES[split][0]
    jobs = []
    for k in range(0, n_scenes, CHUNK):
        seeds = list(range(start + k, start + min(k + CHUNK, n_scenes)))
        jobs.append((str(cache_dir / f"{split}_{k // CHUNK:04d}.npz"), str(art_dir), seeds))
    todo = [j for j in jobs if not Path(j[0]).exists()]
    if todo:
        with ProcessPoolExecutor(max_workers=workers) as ex:
            for _ in tqdm(ex.map(_gen_chunk, todo), total=len(todo),
                          desc=f"scenes {split} ({CHUNK}/chunk)", unit="chunk"):
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
