"""Training samples rendered on the fly, in DataLoader worker processes.

Each scene (realistic or random, by a fixed share) gives at once:
- the localiser's input, letterboxed to its frame exactly as ``Detector.localise`` does
  (resized to fit, padded by repeating the last row and column), with its targets;
- box refiner samples: each card's true rectangle moved by an error like the
  localiser's, cut with context, and the correction back to the truth;
- classifier crops cut where a refined box lands (small errors), some cut badly (large
  errors: labelled by what they cover, "not a card" when they cover no card well),
  and crops of the table and its clutter ("not a card").

Seeds are drawn from the train range only (``SEED_RANGES['train']``), one per scene.
"""

from __future__ import annotations

import math
import os
from contextlib import contextmanager
from dataclasses import dataclass

import cv2
import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

from scorer.vision.geometry import (CROP_H, CROP_W, REF_H, REF_W, box_delta, context_crop,
                                    quad_iou, quad_to_rect, rect_to_quad, rectify)
from training.data.realistic import FRAMING_WEIGHTS, FRAMINGS, SceneVariation, realistic_scene
from training.data.scenes import ART_SETS, SEED_RANGES, compose_scene, get_library, random_scene
from training.data.targets import band_mask, loc_targets

BACKGROUND = 48
MIN_VIS = 0.3
# localiser box errors (u, v, log w, log h, angle), about the measured ones
LOC_ERROR_SD = (0.12, 0.07, 0.14, 0.14, 0.1)
# errors left after the refiner, for the classifier's usual crops
REFINED_ERROR_SD = (0.06, 0.04, 0.07, 0.06, 0.045)


@dataclass(frozen=True)
class StreamConfig:
    art_dir: str
    first_seed: int = 200_000
    realistic_share: float = 0.65
    loc_size: tuple[int, int] = (640, 480)
    exclude_sets: tuple[str, ...] = ()
    ref_per_scene: int = 6
    cls_per_scene: int = 8
    variation: SceneVariation = SceneVariation()  # training's additions to realistic scenes
    negatives: float = 0.0  # share of scenes that are a real photo without hanafuda


def letterbox(img: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, float]:
    """``img`` resized to fit ``size`` (width, height), padded right and below by
    repeating its last column and row: the localiser's input. Returns (canvas, scale)."""
    w_in, h_in = size
    h, w = img.shape[:2]
    s = min(w_in / w, h_in / h)
    nw, nh = max(int(round(w * s)), 1), max(int(round(h * s)), 1)
    small = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
    canvas = np.zeros((h_in, w_in, 3), np.uint8)
    canvas[:nh, :nw] = small
    if nw < w_in:
        canvas[:, nw:] = canvas[:, nw - 1:nw]
    if nh < h_in:
        canvas[nh:] = canvas[nh - 1:nh]
    return canvas, s


def perturb(rect, rng: np.random.Generator, sd, scale: float = 1.0):
    """``rect`` moved by a random error of standard deviations ``sd`` x ``scale`` in the
    box's own frame (the inverse direction of ``box_delta``)."""
    cx, cy, w, h, th = rect
    e = rng.normal(0, 1, 5) * np.array(sd) * scale
    c, s = math.cos(th), math.sin(th)
    return (cx + e[0] * w * c - e[1] * h * s, cy + e[0] * w * s + e[1] * h * c,
            w * math.exp(e[2]), h * math.exp(e[3]), th + e[4])


def _seen(c, rect) -> tuple[float, float, float]:
    """The card's most exposed point (x, y, depth); its centre when unknown."""
    return c.seen_at if c.seen_at is not None else (rect[0], rect[1], 0.0)


def _flip(img: np.ndarray, cards, horizontal: bool):
    """Mirror a scene, its card rectangles and their most exposed points (the localiser
    is class-agnostic)."""
    h, w = img.shape[:2]
    out = img[:, ::-1] if horizontal else img[::-1]
    rects, seen = [], []
    for c in cards:
        cx, cy, cw, ch, th = quad_to_rect(c.quad)
        px, py, d = _seen(c, (cx, cy))
        rects.append((w - cx, cy, cw, ch, math.pi - th) if horizontal else
                     (cx, h - cy, cw, ch, -th))
        seen.append((w - 1 - px, py, d) if horizontal else (px, h - 1 - py, d))
    return np.ascontiguousarray(out), rects, seen


def negative_scene(lib, seed: int, cfg: StreamConfig):
    """A real photograph of playing cards (the train part), framed like a player's
    frame, through training's camera chain: every card in it is a false card."""
    from training.data.real_photos import photo_table
    rng = np.random.default_rng(seed + 3_333_333)
    w, h = FRAMINGS[rng.choice(len(FRAMINGS), p=FRAMING_WEIGHTS)]
    bg = photo_table(rng, w, h, cfg.variation.photos_dir)
    return compose_scene(lib, rng, [], w, h, card_h=h * 0.3, positions=[], background=bg,
                         perspective=0.0)


def scene_sample(lib, seed: int, cfg: StreamConfig) -> dict:
    rng = np.random.default_rng(seed + 5_555_555)
    sets = [s for s in lib.sets if s not in cfg.exclude_sets]
    if cfg.negatives and rng.random() < cfg.negatives:
        img, cards, _ = negative_scene(lib, seed, cfg)
    elif rng.random() < cfg.realistic_share:
        img, cards, _ = realistic_scene(lib, seed, sets=sets, variation=cfg.variation)
    else:
        img, cards, _ = random_scene(lib, seed, sets=sets)
    rects = [quad_to_rect(c.quad) for c in cards]
    flip = rng.random()  # mirrored scenes for the class-agnostic localiser only
    loc_img, loc_rects, loc_seen = _flip(img, cards, flip < 0.25) if flip < 0.4 else \
        (img, rects, [_seen(c, r) for c, r in zip(cards, rects)])
    canvas, s = letterbox(loc_img, cfg.loc_size)
    rows = np.array([[0, r[0] * s, r[1] * s, r[2] * s, r[3] * s, r[4], c.visible,
                      p[0] * s, p[1] * s, p[2] * s]
                     for r, c, p in zip(loc_rects, cards, loc_seen)], np.float32).reshape(-1, 10)
    hm, ign, reg, regm = loc_targets(rows, 1, cfg.loc_size[1], cfg.loc_size[0])
    band = band_mask(rows, 1, cfg.loc_size[1], cfg.loc_size[0])
    # the refiner and the classifier see real faces only
    seen = [(r, c) for r, c in zip(rects, cards)
            if c.visible >= MIN_VIS and r[3] >= 8 and not c.decoy]
    ref_x, ref_y, ref_set = [], [], []
    for k in rng.permutation(len(seen))[: cfg.ref_per_scene]:
        true = seen[k][0]
        ref_set.append(ART_SETS.index(seen[k][1].art_set))
        box = perturb(true, rng, LOC_ERROR_SD, rng.choice([0.5, 1.0, 1.5]))
        ref_x.append(context_crop(img, box))
        ref_y.append(box_delta(box, true))
    cls_x, cls_y, cls_set = [], [], []
    true_quads = [rect_to_quad(*r) for r, _ in seen]
    for k in rng.permutation(len(seen))[: cfg.cls_per_scene]:
        r, c = seen[k]
        if rng.random() < 0.8:
            cls_x.append(rectify(img, rect_to_quad(*perturb(r, rng, REFINED_ERROR_SD))))
            cls_y.append(c.class_id)
            cls_set.append(ART_SETS.index(c.art_set))
            continue
        bad = perturb(r, rng, LOC_ERROR_SD, 2.5)  # a skewed or straddling box
        q = rect_to_quad(*bad)
        ious = [quad_iou(q, t) for t in true_quads]
        j = int(np.argmax(ious))
        if ious[j] >= 0.55:
            cls_x.append(rectify(img, q))
            cls_y.append(seen[j][1].class_id)
            cls_set.append(ART_SETS.index(seen[j][1].art_set))
        elif ious[j] < 0.3:
            cls_x.append(rectify(img, q))
            cls_y.append(BACKGROUND)
            cls_set.append(-1)
    hs = [r[3] for r, _ in seen] or [img.shape[0] * 0.25]
    centres = np.array([r[:2] for r, _ in seen], np.float32).reshape(-1, 2)
    for _ in range(2):  # table and clutter
        h = float(np.median(hs)) * rng.uniform(0.7, 1.3)
        cx, cy = rng.uniform(0, img.shape[1]), rng.uniform(0, img.shape[0])
        if len(centres) and np.min(np.hypot(*(centres - [cx, cy]).T)) < 0.45 * h:
            continue
        cls_x.append(rectify(img, rect_to_quad(cx, cy, h / 1.6, h, rng.uniform(0, 2 * np.pi))))
        cls_y.append(BACKGROUND)
        cls_set.append(-1)
    in_set = [s in {c.art_set for c in cards} for s in ART_SETS]
    return {"img": canvas, "hm": hm[0], "ign": ign[0], "reg": reg[0], "regm": regm[0],
            "band": band[0],
            "ref_x": np.array(ref_x, np.uint8).reshape(-1, REF_H, REF_W, 3),
            "ref_y": np.array(ref_y, np.float32).reshape(-1, 5),
            "ref_set": np.array(ref_set, np.int8),
            "cls_x": np.array(cls_x, np.uint8).reshape(-1, CROP_H, CROP_W, 3),
            "cls_y": np.array(cls_y, np.int64),
            "cls_set": np.array(cls_set, np.int8),
            "sets": np.array(in_set, bool)}


def collate(samples: list[dict]) -> dict:
    out = {}
    for k in ("img", "hm", "ign", "reg", "regm", "band", "sets"):
        out[k] = torch.from_numpy(np.stack([s[k] for s in samples]))
    for k in ("ref_x", "ref_y", "ref_set", "cls_x", "cls_y", "cls_set"):
        out[k] = torch.from_numpy(np.concatenate([s[k] for s in samples]))
    return out


class SceneStream(IterableDataset):
    """Endless samples; worker ``i`` of ``n`` renders seeds first+i, first+i+n, ...
    (``start`` skips the seeds a resumed run has already used)."""

    def __init__(self, cfg: StreamConfig, start: int = 0):
        self.cfg = cfg
        self.start = start
        lo, hi = SEED_RANGES["train"]
        if not lo <= cfg.first_seed < hi:
            raise ValueError(f"first seed {cfg.first_seed} is outside the train range")

    def __iter__(self):
        info = get_worker_info()
        wid, nw = (info.id, info.num_workers) if info else (0, 1)
        lib = get_library(self.cfg.art_dir)
        k = self.start + wid
        hi = SEED_RANGES["train"][1]
        while True:
            seed = self.cfg.first_seed + k
            if seed >= hi:
                return
            yield scene_sample(lib, seed, self.cfg)
            k += nw


# thread pools a rendering worker must not start: the workers are the parallelism (with
# many workers on a big machine, each one's default pools oversubscribe every core)
_ONE_THREAD = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def _worker_init(_: int) -> None:
    import cv2

    cv2.setNumThreads(1)
    torch.set_num_threads(1)


@contextmanager
def _one_thread_env():
    """Spawned workers inherit the environment as it is when they start."""
    old = {k: os.environ.get(k) for k in _ONE_THREAD}
    os.environ.update({k: "1" for k in _ONE_THREAD})
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def scene_loader(cfg: StreamConfig, start: int, batch: int, workers: int,
                 pin_memory: bool = False):
    """Batches of ``scene_sample``s from seed ``start`` on, rendered in ``workers``
    spawned processes (0: in this one). Forked from a process whose other threads hold
    locks (onnxruntime, OpenCV, a test's server), a worker can hang for ever: spawned."""
    loader = DataLoader(SceneStream(cfg, start=start), batch_size=batch, num_workers=workers,
                        collate_fn=collate, prefetch_factor=4 if workers else None,
                        persistent_workers=bool(workers), pin_memory=pin_memory,
                        worker_init_fn=_worker_init,
                        multiprocessing_context="spawn" if workers else None)
    with _one_thread_env():  # the workers start with the iterator
        batches = iter(loader)
    yield from batches
