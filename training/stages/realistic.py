"""Fine-tune the chain's networks together on streamed realistic scenes.

The localiser, the box refiner and the classifier start from the earlier stages' torch
checkpoints (``NetSources``: one hand-over format, no weights recovered from ONNX) and
train side by side, batch norms frozen, on the same scenes (``training.data.stream``),
rendered in worker processes.
The localiser and refiner never see the held-out deck (``lodo_set``), so they serve the
leave-one-deck-out classifier (``training.stages.lodo``) too.

Training runs for a number of steps or a time budget (``training.stages.loop``: the learning
rates follow a cosine over it), on a GPU when there is one. It checkpoints every minute
and resumes from its checkpoint.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import torch
import torch.nn.functional as F

from training.stages.augment import colour_jitter, random_window, to_input, turn_half
from training.stages.loop import Schedule, last_record, replayed, train_loop
from training.nets import checkpoint
from training.nets.networks import DELTA_SCALE, LocNet, RefNet, build_classifier, freeze_bn
from training.data.scenes import ART_SETS
from training.data.stream import StreamConfig, scene_loader
from training.stages.loss import loc_loss

CLS_ARCH = "lite0-b8f-x3"


@dataclass(frozen=True)
class FinetuneConfig:
    minutes: float = 8.0  # the time budget, when ``steps`` is 0
    steps: int = 0  # a fixed number of steps instead (reproducible: no clock involved)
    batch: int = 32
    workers: int = 2
    replay: int = 3  # steps per fresh batch (the others on recently seen batches)
    loc_lr: float = 5e-4
    ref_lr: float = 5e-4
    cls_lr: float = 1.5e-4
    loc_crop_w: int = 0  # the localiser trains on random windows of this size (0: whole
    loc_crop_h: int = 0  # frames): the frame's scale at a smaller input's cost
    lodo_set: str = "hwatu-commons"
    seed: int = 0


@dataclass(frozen=True)
class NetSources:
    """The earlier stages' checkpoints the fine-tuning starts from: the localiser
    (``{"model": state}``), the classifier (``model``, ``arch``), the refiner (state)."""
    loc: Path
    cls: Path
    ref: Path

    def missing(self) -> list[Path]:
        return [p for p in (self.loc, self.cls, self.ref) if not Path(p).is_file()]


class Nets:
    """The three networks from their checkpoints, with one optimiser."""

    def __init__(self, sources: NetSources, cfg: FinetuneConfig, device):
        cls_ck = checkpoint.load(sources.cls)
        self.arch = cls_ck["config"].get("arch", CLS_ARCH)
        self.loc = LocNet(1)
        self.loc.load_state_dict(checkpoint.weights(sources.loc, "loc"))
        self.ref = RefNet()
        self.ref.load_state_dict(checkpoint.weights(sources.ref, "ref"))
        self.cls = build_classifier(self.arch)
        self.cls.load_state_dict(checkpoint.weights(cls_ck, "cls"))
        self.all = {"loc": self.loc, "ref": self.ref, "cls": self.cls}
        for m in self.all.values():
            m.to(device)
        lrs = {"loc": cfg.loc_lr, "ref": cfg.ref_lr, "cls": cfg.cls_lr}
        self.opt = torch.optim.AdamW(
            [{"params": [p for p in m.parameters() if p.requires_grad], "base_lr": lrs[k],
              "name": k} for k, m in self.all.items()], lr=1e-4, weight_decay=1e-4)

    def train(self):
        for m in self.all.values():
            m.train()
            freeze_bn(m)  # batches of a few scenes: the batch norms keep their statistics

    def state(self) -> dict:
        return {k: m.state_dict() for k, m in self.all.items()}

    def load(self, state: dict) -> None:
        for k, m in self.all.items():
            m.load_state_dict(state[k])


def _losses(nets: Nets, b: dict, device, gen, lodo_idx: int, crop=(0, 0)) -> dict:
    """The networks' losses on batch ``b``. The localiser and the refiner never see the
    held-out deck (``lodo_idx``), so the leave-one-deck-out figures can use them."""
    keep = ~b["sets"][:, lodo_idx]
    out = {}
    if keep.any():
        x = colour_jitter(to_input(b["img"][keep], device), gen)
        t = [b[k][keep].to(device, non_blocking=True) for k in ("hm", "ign", "reg", "regm")]
        x, t = random_window(x, t, *crop, gen)
        out["loc"] = loc_loss(nets.loc(x), *t, angle_weight=2.0)[0]
    keep = b["ref_set"] != lodo_idx
    if keep.any():
        xr = colour_jitter(to_input(b["ref_x"][keep], device), gen)
        y = (b["ref_y"][keep].to(device) / torch.tensor(DELTA_SCALE, device=device)
             ).clamp(-6, 6)
        out["ref"] = F.smooth_l1_loss(nets.ref(xr), y)
    if len(b["cls_y"]):
        xc = turn_half(colour_jitter(to_input(b["cls_x"], device), gen), gen)
        y = b["cls_y"].to(device)
        out["cls"] = F.cross_entropy(nets.cls(xc), y, label_smoothing=0.05)
    return out


def finetune(sources: NetSources, out_dir: Path, art_dir: str, cfg: FinetuneConfig,
             log=print, device: str = "auto") -> dict:
    """Train for ``cfg.steps`` steps, or else for ``cfg.minutes`` (counting earlier runs
    resumed from ``out_dir``), with the training engine. Its checkpoint,
    ``finetuned.pt``, is what ``training.ship.finetuned`` exports (the networks are under
    ``nets``; ``config`` names the classifier's architecture). Returns the history.
    ``device``: "auto" (a GPU if there is one), "cpu" or "cuda"."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device)
    torch.manual_seed(cfg.seed)
    # batches of crops vary in size every step: benchmarking each new shape costs seconds
    torch.backends.cudnn.benchmark = False
    nets = Nets(sources, cfg, device)
    ckpt = out_dir / "finetuned.pt"
    seen = int(last_record(ckpt, "scenes"))  # a resumed run goes on with unseen scenes
    scfg = StreamConfig(art_dir=str(art_dir))
    loader = scene_loader(scfg, seen, cfg.batch, cfg.workers, pin_memory=device.type == "cuda")
    gen = torch.Generator(device=device)
    gen.manual_seed(cfg.seed + seen)
    lodo_idx = ART_SETS.index(cfg.lodo_set)
    read = {"scenes": seen}

    def fresh_batches():
        for fresh in loader:
            read["scenes"] += len(fresh["img"])
            yield {k: v.to(device, non_blocking=True) for k, v in fresh.items()}

    nets.train()
    schedule = Schedule(steps=cfg.steps, minutes=0.0 if cfg.steps else cfg.minutes,
                        warmup=100, floor=0.05)
    st = train_loop(nets.all, nets.opt, replayed(fresh_batches(), cfg.replay, keep=16),
                    lambda b: _losses(nets, b, device, gen, lodo_idx,
                                      (cfg.loc_crop_w, cfg.loc_crop_h)),
                    schedule, ckpt, {**asdict(cfg), "cls_arch": nets.arch}, log=log,
                    desc="realistic stage", record=lambda: dict(read))
    return {"hist": st.history}
