"""The box refiner: data where the localiser puts its boxes, training, and its figures.

Measured on 200 validation scenes with the localiser the refiner was made for: its box
centres are off by 12-17% of the card's width (standard deviation), its sizes by 15-17% and its angles by
about 7 degrees for cards under 60 px, and the classifier names 92% of cards right on
true-rectangle crops against 85% on the localiser's. The refiner looks at each box with
some context around it and predicts the correction (``scorer.vision.geometry.box_delta``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from scorer.vision.geometry import (REF_H, REF_W, apply_delta, box_delta, context_crop,
                                    quad_iou, quad_to_rect, rect_to_quad)
from training.data.cache import CHUNK, MIN_CROP_VIS, run_chunks, save_chunk, weights_digest
from training.nets.networks import DELTA_SCALE, RefNet
from training.data.scenes import ART_SETS, SEED_RANGES, get_library, random_scene
from training.stages.loop import Schedule, train_loop
from training.stages.classifier import crops_to_tensor, jitter_colour
from training.stages.loop import seed_all
from training.nets import checkpoint

REFCROP_OFFSET = 70_000  # within each split's seed range, past the classifier's crops
MATCH_IOU = 0.3
# extra samples around the true rectangle, for the second pass's smaller errors
JITTER_SD = (0.06, 0.035, 0.07, 0.07, math.radians(3))


def matched_cards(rects: np.ndarray, cards) -> list:
    """For each box, the card it covers best (None under MATCH_IOU)."""
    seen = [c for c in cards if c.visible >= MIN_CROP_VIS]
    tq = [rect_to_quad(*quad_to_rect(c.quad)) for c in seen]
    out = []
    for r in rects:
        q = rect_to_quad(*r)
        ious = [quad_iou(q, g) for g in tq]
        j = int(np.argmax(ious)) if ious else -1
        out.append(seen[j] if j >= 0 and ious[j] >= MATCH_IOU else None)
    return out


def _gen_chunk(args) -> str:
    out_path, art_dir, model_path, seeds = args
    out_path = Path(out_path)
    if out_path.exists():
        return str(out_path)
    from scorer.vision.detector import Detector

    det = Detector(model_path, threads=1, refiner=False)
    lib = get_library(art_dir)
    rng = np.random.default_rng(seeds[0])
    crops, deltas, sets = [], [], []
    for seed in seeds:
        img, cards, _ = random_scene(lib, int(seed))
        rects, _ = det.localise(img)
        boxes = [(r, card) for r, card in zip(rects, matched_cards(rects, cards)) if card is not None]
        boxes += [(apply_delta(quad_to_rect(c.quad), rng.normal(0, JITTER_SD)), c)
                  for c in cards if c.visible >= MIN_CROP_VIS]
        for b, card in boxes:
            crops.append(context_crop(img, b))
            deltas.append(box_delta(b, quad_to_rect(card.quad)))
            sets.append(ART_SETS.index(card.art_set))
    return save_chunk(out_path, crops=np.stack(crops) if crops else
                      np.zeros((0, REF_H, REF_W, 3), np.uint8),
                      delta=np.array(deltas, np.float32).reshape(-1, 5),
                      card_set=np.array(sets, np.int8))


def generate_refiner_crops(cache_dir: Path, art_dir, model_path: Path, n_scenes: int,
                           split: str = "train", workers: int = 2) -> list[Path]:
    """Context crops of the boxes ``model_path``'s localiser finds in fresh scenes of
    ``split``, each with its correction, plus a jittered true rectangle of every card
    that shows (the smaller errors of a second pass).
    Chunks are named after the localiser's weights; an interrupted run resumes."""
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    tag = weights_digest(model_path)
    start = SEED_RANGES[split][0] + REFCROP_OFFSET
    if start + n_scenes > SEED_RANGES[split][1]:
        raise ValueError(f"{n_scenes} scenes would run past the {split} seed range")
    jobs = [(str(cache_dir / f"refcrops2-{tag}-{split}_{k // CHUNK:04d}.npz"), str(art_dir),
             str(model_path), list(range(start + k, start + min(k + CHUNK, n_scenes))))
            for k in range(0, n_scenes, CHUNK)]
    return run_chunks(_gen_chunk, jobs, workers, f"refiner crops {split} ({CHUNK} scenes/chunk)")


def load_refiner_crops(paths, exclude_sets: tuple[str, ...] = ()) -> dict:
    """The cached samples, without the cards of ``exclude_sets`` (a held-out deck)."""
    out = {"crops": [], "delta": []}
    drop = [ART_SETS.index(s) for s in exclude_sets]
    for p in paths:
        with np.load(p) as z:
            keep = ~np.isin(z["card_set"], drop)
            for k in out:
                out[k].append(z[k][keep])
    return {k: np.concatenate(v) for k, v in out.items()}


def augment_refiner(x: torch.Tensor, y: torch.Tensor, rng: np.random.Generator):
    """Photometric changes, plus 180-degree turns and mirror images with their targets
    turned and mirrored too. x: (B,3,H,W) float RGB 0..255; y: (B,5) scaled deltas."""
    b = x.shape[0]
    y = y.clone()
    turn = torch.from_numpy(rng.random(b) < 0.5)
    x = torch.where(turn[:, None, None, None], x.flip(2, 3), x)
    y[turn, :2] *= -1
    mirror = torch.from_numpy(rng.random(b) < 0.5)
    x = torch.where(mirror[:, None, None, None], x.flip(3), x)
    y[mirror, 0] *= -1
    y[mirror, 4] *= -1
    x = jitter_colour(x, rng, (0.7, 1.3), 30)
    x = x + torch.randn_like(x) * torch.from_numpy(rng.uniform(0, 6, (b, 1, 1, 1))).float()
    return x.clamp(0, 255), y


def refiner_batches(data: dict, batch: int, rng: np.random.Generator,
                    keys: tuple[str, ...] = ()) -> Iterator:
    """Endless augmented batches (crops, corrections in training's scaled units, then
    the rows of each of ``keys``) drawn from ``data`` (``crops``, ``delta``, ``keys``)."""
    target = torch.from_numpy(data["delta"]) / torch.tensor(DELTA_SCALE)
    while True:
        idx = rng.integers(0, len(target), batch)
        yield (*augment_refiner(crops_to_tensor(data["crops"][idx]), target[idx], rng),
               *(torch.from_numpy(data[k][idx]) for k in keys))


def refiner_loss(net: torch.nn.Module, b) -> torch.Tensor:
    """The refiner's smooth-L1 loss on a batch of ``refiner_batches``."""
    x, y = b
    return F.smooth_l1_loss(net(x), y.clamp(-6, 6))


@torch.no_grad()
def refiner_error(model, data: dict, batch: int = 512) -> dict:
    """Mean absolute correction error per component, before and after the refiner."""
    model.eval()
    preds = [model(crops_to_tensor(data["crops"][i:i + batch])).numpy()
             for i in range(0, len(data["crops"]), batch)]
    model.train()
    p = np.concatenate(preds) * np.array(DELTA_SCALE, np.float32) if preds else np.zeros((0, 5))
    d = data["delta"]
    names = ("u", "v", "logw", "logh", "angle")
    return {"n": int(len(d)),
            "before": {k: float(np.abs(d[:, i]).mean()) for i, k in enumerate(names)},
            "after": {k: float(np.abs(d[:, i] - p[:, i]).mean()) for i, k in enumerate(names)}}


def train_refiner(data: dict, val: dict, out_dir: Path, steps: int = 5000, batch: int = 128,
                  lr: float = 2e-3, seed: int = 0, log=print) -> Path:
    """Train the refiner with a smooth-L1 loss on the scaled corrections; resumable."""
    if not len(data["crops"]):
        raise ValueError("no refiner training samples: the scenes hold no visible cards")
    seed_all(seed)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    model = RefNet()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    ckpt = out_dir / "ref_ckpt.pt"
    rng = np.random.default_rng(seed + checkpoint.checkpoint_step(ckpt))

    def losses(b) -> dict:
        return {"loss": refiner_loss(model, b)}

    def validation() -> dict:
        if val is None or not len(val["crops"]):
            return {}
        err = refiner_error(model, val)
        return {f"val_abs_error_{when}": {k: round(v, 4) for k, v in err[when].items()}
                for when in ("before", "after")}

    model.train()
    train_loop({"ref": model}, opt, refiner_batches(data, batch, rng), losses,
               Schedule(steps=steps, warmup=100, floor=0.02), ckpt,
               {"steps": steps, "batch": batch, "lr": lr, "seed": seed}, log=log,
               every_s=math.inf, every_steps=1000, desc="refiner", record=validation)
    return checkpoint.save(out_dir / "refiner.pt", {"ref": model}, step=steps)
