"""The crop classifier's trainer on cached crops (on the training loop, resumable), with
its augmentations."""

from __future__ import annotations
import math
from pathlib import Path
import numpy as np
import torch
import torch.nn.functional as F
from scorer.cards import DECK
from training.stages.loop import Schedule, seed_all, train_loop
from training.nets.networks import build_classifier
from training.data.scenes import ART_SETS
from training.nets import checkpoint


EQUIV = np.array([DECK[i].equivalence_key for i in range(48)] + ["bg"])


def finished(out_dir: Path, steps: int) -> bool:
    """Whether a training run in ``out_dir`` has reached ``steps`` and saved its model."""
    out_dir = Path(out_dir)
    ckpt = out_dir / "cls_ckpt.pt"
    if not ((out_dir / "classifier.pt").is_file() and ckpt.is_file()):
        return False
    return checkpoint.checkpoint_step(ckpt) >= steps


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
        init_ck = checkpoint.load(init)
        state = checkpoint.weights(init_ck, "cls")
        if arch.startswith(f"{init_ck['config'].get('arch')}-x"):  # grown: the new branch keeps its init
            state = {**model.state_dict(), **state}
        model.load_state_dict(state)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr,
                            weight_decay=0.02)
    ckpt = out_dir / "cls_ckpt.pt"
    rng = np.random.default_rng(seed + checkpoint.checkpoint_step(ckpt))
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
    return checkpoint.save(out_dir / "classifier.pt", {"cls": model}, step=st.step,
                           history=st.history, config={"arch": arch})
