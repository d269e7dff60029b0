"""The localiser's trainer on cached scenes (on the training loop, resumable): scene
augmentation, random windows, validation loss."""

from __future__ import annotations
import math
from pathlib import Path
import numpy as np
import torch
from training.stages.loop import seed_all
from training.stages.loop import Schedule, train_loop
from training.data.targets import loc_targets
from training.stages.loss import loc_loss
from training.nets.networks import build_localiser
from training.data.scenes import ART_SETS
from training.nets import checkpoint


def augment_scenes(imgs: np.ndarray, cards: np.ndarray, rng):
    """Flip scenes (cards are class-agnostic here) and jitter colour."""
    x = imgs.copy()
    c = cards.copy()
    b, h, w = x.shape[:3]
    for i in range(b):
        sel = c[:, 0] == i
        if rng.random() < 0.5:
            x[i] = x[i, :, ::-1]
            c[sel, 1] = w - c[sel, 1]
            c[sel, 5] = math.pi - c[sel, 5]
        if rng.random() < 0.5:
            x[i] = x[i, ::-1]
            c[sel, 2] = h - c[sel, 2]
            c[sel, 5] = -c[sel, 5]
    t = torch.from_numpy(np.ascontiguousarray(x[..., ::-1])).permute(0, 3, 1, 2).float()
    gain = torch.from_numpy(rng.uniform(0.75, 1.25, (b, 3, 1, 1))).float()
    bri = torch.from_numpy(rng.uniform(-25, 25, (b, 1, 1, 1))).float()
    t = (t * gain + bri).clamp(0, 255)
    return t, c


def random_crop_scenes(imgs: np.ndarray, cards: np.ndarray, size: tuple[int, int], rng):
    """Cut a random ``size`` (width, height) window from each scene and move its card rows
    with it, so a stage can learn a larger input's scale at a smaller input's cost. Cards
    whose centre falls outside the window are left to ``loc_targets`` (no positive)."""
    cw, ch = size
    b, h, w = imgs.shape[:3]
    if (cw, ch) == (w, h):
        return imgs, cards
    out = np.empty((b, ch, cw, imgs.shape[3]), imgs.dtype)
    c = cards.copy()
    for i in range(b):
        x0, y0 = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
        out[i] = imgs[i, y0:y0 + ch, x0:x0 + cw]
        sel = c[:, 0] == i
        c[sel, 1] -= x0
        c[sel, 2] -= y0
    return out, c


def batch_cards(data, idx):
    by_scene = data["_cards_by_scene"]
    rows = []
    for j, si in enumerate(idx):
        r = by_scene[si].copy()
        r[:, 0] = j
        rows.append(r)
    return np.concatenate(rows) if rows else np.zeros((0, 7), np.float32)


def index_cards(data):
    cards = data["loc_cards"]
    order = np.argsort(cards[:, 0], kind="stable")
    cards = cards[order]
    n = len(data["loc_img"])
    bounds = np.searchsorted(cards[:, 0], np.arange(n + 1))
    data["_cards_by_scene"] = [cards[bounds[i]:bounds[i + 1]] for i in range(n)]


@torch.no_grad()
def eval_localiser_loss(model, data, idx, batch=32):
    model.eval()
    tot, n = 0.0, 0
    for i in range(0, len(idx), batch):
        sl = idx[i:i + batch]
        c = batch_cards(data, sl)
        x = torch.from_numpy(np.ascontiguousarray(data["loc_img"][sl][..., ::-1])).permute(
            0, 3, 1, 2).float()
        t = [torch.from_numpy(a) for a in loc_targets(c, len(sl), x.shape[2], x.shape[3])]
        loss, _ = loc_loss(model(x), *t)
        tot += loss.item() * len(sl)
        n += len(sl)
    model.train()
    return tot / max(n, 1)


def train_localiser(data: dict, val: dict, out_dir: Path, steps: int = 3000, batch: int = 16,
                    lr: float = 3e-3, seed: int = 0, exclude_sets: tuple[str, ...] = (),
                    threads: int = 2, eval_every: int = 500, log=print,
                    cycles: tuple[int, ...] = (), init: Path | None = None,
                    crop: tuple[int, int] | None = None) -> Path:
    """Cosine cycles with warm restarts: steps [0, cycles[0]) from ``lr`` with the angle
    loss weighted 1; each later cycle (up to the next boundary, the last one up to
    ``steps``) restarts at half the previous peak with the angle loss weighted 2 (the first
    measured cycle under-learnt the card axis; later cycles were added as time allowed).
    ``init``: start from these weights (a localiser trained at another input size).
    ``crop``: train on random windows of this (width, height) cut from the cached scenes;
    validation still runs on whole scenes."""
    bounds = [0] + [b for b in cycles if 0 < b < steps] + [steps]
    torch.set_num_threads(threads)
    seed_all(seed)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    index_cards(data)
    index_cards(val)
    keep = np.ones(len(data["loc_img"]), bool)
    vkeep = np.ones(len(val["loc_img"]), bool)
    for s in exclude_sets:
        keep &= ~data["scene_sets"][:, ART_SETS.index(s)]
        vkeep &= ~val["scene_sets"][:, ART_SETS.index(s)]
    idx_all = np.nonzero(keep)[0]
    vidx = np.nonzero(vkeep)[0][:200]
    model = build_localiser()
    if init is not None:
        model.load_state_dict(checkpoint.weights(init, "loc"))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-3)
    ckpt = out_dir / "loc_ckpt.pt"
    schedule = Schedule(steps=steps, warmup=100, floor=0.02, restarts=tuple(cycles))
    at = {"step": checkpoint.checkpoint_step(ckpt)}

    def batches():
        rng = np.random.default_rng(seed + at["step"])
        while True:
            if at["step"] in bounds:  # each cycle draws its own batches: resuming at a
                rng = np.random.default_rng(seed + at["step"])  # boundary reproduces a run
            idx = rng.choice(idx_all, batch)
            imgs, c = data["loc_img"][idx], batch_cards(data, idx)
            if crop is not None:
                imgs, c = random_crop_scenes(imgs, c, crop, rng)
            x, c = augment_scenes(imgs, c, rng)
            yield x, [torch.from_numpy(a) for a in loc_targets(c, batch, x.shape[2], x.shape[3])]
            at["step"] += 1

    def losses(b) -> dict:
        x, t = b
        # the first cycle from scratch weights the angle 1, later ones 2 (it under-learnt
        # the card axis)
        aw = 1.0 if schedule.cycle(at["step"]) == 0 and init is None else 2.0
        return {"loss": loc_loss(model(x), *t, angle_weight=aw)[0]}

    model.train()
    st = train_loop({"loc": model}, opt, batches(), losses, schedule, ckpt,
                    {"steps": steps, "batch": batch, "lr": lr, "cycles": list(cycles),
                     "crop": list(crop) if crop else None, "seed": seed},
                    log=log, every_s=math.inf, every_steps=eval_every, desc="localiser",
                    record=lambda: {"val_loss": round(eval_localiser_loss(model, val, vidx), 4)})
    return checkpoint.save(out_dir / "localiser.pt", {"loc": model}, step=st.step,
                           history=st.history)
