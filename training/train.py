"""The localiser and crop classifier trainers on cached scenes (on the training engine,
resumable), their targets, augmentations and losses."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from scorer.cards import DECK
from training.engine import Schedule, checkpoint_step, train_loop
from training.models import build_classifier, build_localiser
from training.scenes import ART_SETS

STRIDE = 4
EQUIV = np.array([DECK[i].equivalence_key for i in range(48)] + ["bg"])


def seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def finished(out_dir: Path, steps: int) -> bool:
    """Whether a training run in ``out_dir`` has reached ``steps`` and saved its model."""
    out_dir = Path(out_dir)
    ckpt = out_dir / "cls_ckpt.pt"
    if not ((out_dir / "classifier.pt").is_file() and ckpt.is_file()):
        return False
    return torch.load(ckpt, map_location="cpu", weights_only=False)["step"] >= steps


def jitter_colour(x: torch.Tensor, rng: np.random.Generator, contrast: tuple[float, float],
                  brightness: float) -> torch.Tensor:
    """Per-image channel gains (0.8..1.2), then contrast about the mean and a brightness
    shift drawn from the given ranges. x: (B,3,H,W) float 0..255."""
    b = x.shape[0]
    x = x * torch.from_numpy(rng.uniform(0.8, 1.2, (b, 3, 1, 1))).float()
    mean = x.mean((1, 2, 3), keepdim=True)
    con = torch.from_numpy(rng.uniform(*contrast, (b, 1, 1, 1))).float()
    bri = torch.from_numpy(rng.uniform(-brightness, brightness, (b, 1, 1, 1))).float()
    return (x - mean) * con + mean + bri


def augment_crops(x: torch.Tensor, rng: np.random.Generator, strong: bool = True) -> torch.Tensor:
    """x: (B,3,H,W) float 0..255 RGB. Geometry jitter, 180-degree turns, colour, occlusion."""
    b, _, h, w = x.shape
    # random 180-degree turn: the localiser only knows the card's axis, not its top
    flip = torch.from_numpy(rng.random(b) < 0.5)
    x = torch.where(flip[:, None, None, None], x.flip(2, 3), x)
    # small affine jitter (localisation error)
    ang = torch.from_numpy(rng.normal(0, 0.03, b)).float()
    sc = torch.from_numpy(np.exp(rng.normal(0, 0.05, b))).float()
    tx = torch.from_numpy(rng.normal(0, 0.04, b)).float()
    ty = torch.from_numpy(rng.normal(0, 0.03, b)).float()
    cos, sin = torch.cos(ang) * sc, torch.sin(ang) * sc
    theta = torch.stack([torch.stack([cos, -sin * h / w, tx], 1),
                         torch.stack([sin * w / h, cos, ty], 1)], 1)
    grid = F.affine_grid(theta, x.shape, align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    if strong:
        # colour: per-channel gain, brightness, contrast, saturation, greyscale
        x = jitter_colour(x, rng, (0.65, 1.35), 35)
        grey = x.mean(1, keepdim=True)
        sat = torch.from_numpy(rng.uniform(0.4, 1.4, (b, 1, 1, 1))).float()
        sat[torch.from_numpy(rng.random(b) < 0.1)] = 0.0
        x = grey + (x - grey) * sat
        # occlusion from one side (another card lying on top) or a random patch
        occ = np.nonzero(rng.random(b) < 0.25)[0]
        for i in occ:
            col = torch.from_numpy(rng.uniform(0, 255, (3, 1, 1))).float()
            side = rng.integers(4)
            f = rng.uniform(0.1, 0.4)
            if side == 0:
                x[i, :, : int(f * h)] = col
            elif side == 1:
                x[i, :, h - int(f * h):] = col
            elif side == 2:
                x[i, :, :, : int(f * w)] = col
            else:
                x[i, :, :, w - int(f * w):] = col
        noise = torch.from_numpy(rng.uniform(0, 8, (b, 1, 1, 1))).float()
        x = x + torch.randn_like(x) * noise
    return x.clamp(0, 255)


def crops_to_tensor(crops: np.ndarray) -> torch.Tensor:
    """(B,H,W,3) uint8 BGR -> (B,3,H,W) float RGB 0..255."""
    return torch.from_numpy(np.ascontiguousarray(crops[..., ::-1])).permute(0, 3, 1, 2).float()


@torch.no_grad()
def eval_classifier(model, crops, labels, batch=256) -> dict:
    model.eval()
    preds = []
    for i in range(0, len(crops), batch):
        preds.append(model(crops_to_tensor(crops[i:i + batch])).argmax(1).numpy())
    model.train()
    p = np.concatenate(preds) if preds else np.zeros(0, int)
    lab = labels.astype(int)
    return {"n": int(len(lab)), "acc": float((p == lab).mean()) if len(lab) else float("nan"),
            "acc_equiv": float((EQUIV[p] == EQUIV[lab]).mean()) if len(lab) else float("nan")}


def train_classifier(data: dict, val: dict, out_dir: Path, arch: str = "small",
                     steps: int = 3000, batch: int = 64, lr: float = 2e-3, seed: int = 0,
                     exclude_sets: tuple[str, ...] = (), threads: int = 2,
                     eval_every: int = 500, log=print, extra_crops: dict | None = None,
                     extra_share: float = 0.5, init: Path | None = None) -> Path:
    """Train (or, from ``init``'s weights, fine-tune) a crop classifier. With ``extra_crops``
    (another crop set, e.g. crops cut where the localiser puts its boxes) each batch takes
    ``extra_share`` of its crops from it."""
    torch.set_num_threads(threads)
    seed_all(seed)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    def usable(d):
        keep = np.ones(len(d["crop_label"]), bool)
        for s in exclude_sets:
            keep &= d["crop_set"] != ART_SETS.index(s)
        return np.nonzero(keep)[0]

    idx_all = usable(data)
    idx_extra = usable(extra_crops) if extra_crops is not None else np.zeros(0, int)
    n_extra = int(round(batch * extra_share)) if len(idx_extra) else 0
    model = build_classifier(arch)
    if init is not None:
        init_ck = torch.load(init, map_location="cpu", weights_only=False)
        state = init_ck["model"]
        if arch.startswith(f"{init_ck.get('arch')}-x"):  # grown: the new branch keeps its init
            state = {**model.state_dict(), **state}
        model.load_state_dict(state)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr,
                            weight_decay=0.02)
    ckpt = out_dir / "cls_ckpt.pt"
    rng = np.random.default_rng(seed + checkpoint_step(ckpt))
    vsets = {"all": np.ones(len(val["crop_label"]), bool)}
    for s in ART_SETS:
        vsets[s] = val["crop_set"] == ART_SETS.index(s)

    def batches():
        while True:
            idx = rng.choice(idx_all, batch - n_extra)
            crops, labels = data["crops"][idx], data["crop_label"][idx]
            if n_extra:
                jdx = rng.choice(idx_extra, n_extra)
                crops = np.concatenate([crops, extra_crops["crops"][jdx]])
                labels = np.concatenate([labels, extra_crops["crop_label"][jdx]])
            yield augment_crops(crops_to_tensor(crops), rng), \
                torch.from_numpy(labels.astype(np.int64))

    def losses(b) -> dict:
        x, y = b
        return {"loss": F.cross_entropy(model(x), y, label_smoothing=0.1)}

    def validation() -> dict:
        res = {k: eval_classifier(model, val["crops"][m], val["crop_label"][m])
               for k, m in vsets.items()}
        return {**{f"val_{k}_acc": round(v["acc"], 4) for k, v in res.items()},
                **{f"val_{k}_acc_equiv": round(v["acc_equiv"], 4) for k, v in res.items()}}

    model.train()
    st = train_loop({"cls": model}, opt, batches(), losses,
                    Schedule(steps=steps, warmup=100, floor=0.02), ckpt,
                    {"arch": arch, "steps": steps, "batch": batch, "lr": lr, "seed": seed},
                    log=log, every_s=math.inf, every_steps=eval_every,
                    desc=f"classifier {arch}", record=validation)
    torch.save({"model": model.state_dict(), "arch": arch, "hist": st.history},
               out_dir / "classifier.pt")
    return out_dir / "classifier.pt"


# -------------------------------------------------------------------- localiser

def loc_targets(cards: np.ndarray, b: int, h: int, w: int):
    """cards rows: (batch_idx, cx, cy, w, h, theta, visible[, px, py, depth]) at input
    scale.

    With the last three columns, a card's heatmap peak sits at (px, py), the point of
    the card that shows most (``training.scenes.seen_point``), its spread at most the
    exposed depth, and the offset maps point from that cell to the card's true centre:
    a stacked card is found where it is seen, not at a centre hidden under the card
    above (where two stacked cards' peaks would merge). The detector decodes both alike
    (centre = cell + offset)."""
    oh, ow = h // STRIDE, w // STRIDE
    hm = np.zeros((b, oh, ow), np.float32)
    ign = np.zeros((b, oh, ow), np.float32)
    reg = np.zeros((b, 6, oh, ow), np.float32)
    regm = np.zeros((b, oh, ow), np.float32)
    ys, xs = np.mgrid[0:oh, 0:ow].astype(np.float32)
    for row in cards:
        bi, cx, cy, cw, ch, th, vis = row[:7]
        if vis < 0.25 or cw < 2 or ch < 2:
            continue
        bi = int(bi)
        x, y = cx / STRIDE - 0.5, cy / STRIDE - 0.5  # the true centre, in cells
        wo, ho = cw / STRIDE, ch / STRIDE
        spread = min(wo, ho)
        if len(row) >= 10 and row[9] > 0:  # the most exposed point and its depth
            px, py = row[7] / STRIDE - 0.5, row[8] / STRIDE - 0.5
            spread = min(spread, 2 * row[9] / STRIDE)
        else:
            px, py = x, y
        sig = max(0.6, spread / 6.0)
        r = int(3 * sig) + 1
        x0, x1 = max(int(px) - r, 0), min(int(px) + r + 2, ow)
        y0, y1 = max(int(py) - r, 0), min(int(py) + r + 2, oh)
        if x1 <= x0 or y1 <= y0:
            continue
        g = np.exp(-((xs[y0:y1, x0:x1] - px) ** 2 + (ys[y0:y1, x0:x1] - py) ** 2)
                   / (2 * sig * sig))
        if vis < 0.5:
            ign[bi, y0:y1, x0:x1] = np.maximum(ign[bi, y0:y1, x0:x1], (g > 0.05))
            continue
        hm[bi, y0:y1, x0:x1] = np.maximum(hm[bi, y0:y1, x0:x1], g)
        ix, iy = int(round(px)), int(round(py))
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                jx, jy = ix + dx, iy + dy
                if 0 <= jx < ow and 0 <= jy < oh:
                    wgt = 1.0 if dx == 0 and dy == 0 else 0.5
                    if regm[bi, jy, jx] >= wgt and not (dx == 0 and dy == 0):
                        continue
                    reg[bi, :, jy, jx] = (math.log(wo), math.log(ho), math.cos(2 * th),
                                          math.sin(2 * th), x - jx, y - jy)
                    regm[bi, jy, jx] = wgt
        if 0 <= ix < ow and 0 <= iy < oh:
            hm[bi, iy, ix] = 1.0 if abs(px - ix) < 0.5 and abs(py - iy) < 0.5 else hm[bi, iy, ix]
    ign[hm > 0.05] = 0
    return hm, ign, reg, regm


def band_mask(cards: np.ndarray, b: int, h: int, w: int,
              band: tuple[float, float] = (0.5, 0.8)) -> np.ndarray:
    """(b, h/STRIDE, w/STRIDE): 1 on the 3x3 cells about the peak of each card whose
    visible share is in ``band`` (half-hidden cards, the ones real piles lose), 0
    elsewhere; a trainer weights the localiser's losses there."""
    oh, ow = h // STRIDE, w // STRIDE
    out = np.zeros((b, oh, ow), np.float32)
    for row in cards:
        vis = row[6]
        if not band[0] <= vis < band[1]:
            continue
        px, py = (row[7], row[8]) if len(row) >= 10 and row[9] > 0 else (row[1], row[2])
        ix, iy = int(round(px / STRIDE - 0.5)), int(round(py / STRIDE - 0.5))
        bi = int(row[0])
        out[bi, max(iy - 1, 0):iy + 2, max(ix - 1, 0):ix + 2] = 1.0
    return out


def focal_loss(logit, hm, ign, pos_weight=None):
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = (hm >= 0.999).float()
    neg = (1 - pos) * (1 - ign)
    pl = -torch.log(p) * (1 - p) ** 2 * pos * (1 if pos_weight is None else pos_weight)
    nl = -torch.log(1 - p) * p ** 2 * (1 - hm) ** 4 * neg
    npos = pos.sum().clamp(min=1)
    return (pl.sum() + nl.sum()) / npos


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


def loc_loss(out, hm, ign, reg, regm, angle_weight=1.0, weights=None):
    """The localiser's loss; ``weights`` (per output cell) scales the positive and
    regression terms (e.g. up on half-hidden cards, ``band_mask``)."""
    l_hm = focal_loss(out[:, 0], hm, ign, weights)
    if weights is not None:
        regm = regm * weights
    m = regm[:, None]
    den = regm.sum().clamp(min=1)
    l_wh = (F.l1_loss(out[:, 1:3], reg[:, 0:2], reduction="none") * m).sum() / den
    l_an = (F.l1_loss(out[:, 3:5], reg[:, 2:4], reduction="none") * m).sum() / den
    l_of = (F.l1_loss(out[:, 5:7], reg[:, 4:6], reduction="none") * m).sum() / den
    return l_hm + l_wh + angle_weight * l_an + 0.5 * l_of, \
        (l_hm.item(), l_wh.item(), l_an.item(), l_of.item())


def _batch_cards(data, idx):
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
        c = _batch_cards(data, sl)
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
        model.load_state_dict(torch.load(init, map_location="cpu", weights_only=False)["model"])
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-3)
    ckpt = out_dir / "loc_ckpt.pt"
    schedule = Schedule(steps=steps, warmup=100, floor=0.02, restarts=tuple(cycles))
    at = {"step": checkpoint_step(ckpt)}

    def batches():
        rng = np.random.default_rng(seed + at["step"])
        while True:
            if at["step"] in bounds:  # each cycle draws its own batches: resuming at a
                rng = np.random.default_rng(seed + at["step"])  # boundary reproduces a run
            idx = rng.choice(idx_all, batch)
            imgs, c = data["loc_img"][idx], _batch_cards(data, idx)
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
    torch.save({"model": model.state_dict(), "hist": st.history}, out_dir / "localiser.pt")
    return out_dir / "localiser.pt"
