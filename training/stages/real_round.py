"""A classifier round on the localiser's own boxes, with real photographs as "not a
card" (issue 43): the classifier is read where the shipped localiser and refiner really
put boxes on realistic train scenes (a box on a card, IoU >= 0.5, is that card; a box on
none, IoU < 0.1, is "not a card"; half boxes are left out), and every box they propose on
the real photos' train part (fit share: playing cards, hands, phones, tables) is "not a
card". It starts from the shipped classifier's weights (``training/campaign/
classifier.pt``, recovered from its ONNX file), batch norms frozen, on the one training
loop, so it resumes where it stopped.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from scorer.vision.stages import as_input
from training.data.boxes import BoxCrops
from training.nets import checkpoint
from training.nets.networks import build_classifier, freeze_bn
from training.recipe import RealRoundConfig
from training.stages.augment import camera_jitter, colour_jitter, cover_edge, turn_half
from training.stages.loop import Schedule, train_loop

ROUND_SEED_OFFSET = 90_000  # within the train range, past the other stages' scenes


def sampling_weights(data: BoxCrops, cfg: RealRoundConfig) -> np.ndarray:
    """How often each box is drawn (summing to 1): a real photo's ``photo_weight`` times,
    a partly hidden card's ``band_weight`` times, the others once."""
    weight = np.where(data.sources == "photo", cfg.photo_weight, 1.0)
    weight *= np.where(data.band, cfg.band_weight, 1.0)
    return weight / weight.sum()


def blend_weights(trained: dict[str, torch.Tensor], start: dict[str, torch.Tensor],
                  keep_start: float) -> dict[str, torch.Tensor]:
    """The weights ``keep_start`` of the way from ``trained`` back to ``start`` (the
    network the round began from). Fine-tuning fits the round's own boxes; a point
    between the two keeps more of what the start read well under other cameras
    (weight-space ensembling of a fine-tuned network with its start). Counters and other
    integer buffers are the trained network's."""
    if not 0.0 <= keep_start <= 1.0:
        raise ValueError(f"keep_start must lie in 0..1, not {keep_start}")
    if trained.keys() != start.keys():
        raise ValueError("the trained and the start networks differ in their weights' names")
    return {k: (torch.lerp(t.float(), start[k].float(), keep_start).to(t.dtype)
                if t.is_floating_point() else t) for k, t in trained.items()}


def train_round(data: BoxCrops, init: Path, out_dir: Path, cfg: RealRoundConfig,
                seed: int = 0, log=print) -> Path:
    """The classifier from ``init`` trained on ``data`` as the recipe's ``[real_round]``
    says (its weights blended back towards ``init``'s by ``keep_start``); its
    checkpoint's path. The resumable state keeps the round's own weights."""
    ck = checkpoint.load(init)
    arch = ck["config"]["arch"]
    net = build_classifier(arch)
    start = checkpoint.weights(ck, "cls")
    net.load_state_dict(start)
    weight = sampling_weights(data, cfg)
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=cfg.lr,
                            weight_decay=1e-4)
    ckpt = out_dir / "round_ckpt.pt"
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed + checkpoint.checkpoint_step(ckpt))

    def batches():
        while True:
            idx = rng.choice(len(data.labels), cfg.batch, p=weight)
            yield (torch.from_numpy(np.ascontiguousarray(as_input(data.crops[idx]))),
                   torch.from_numpy(data.labels[idx]))

    def losses(batch) -> dict:
        x, y = batch
        freeze_bn(net)  # the recovered batch norms hold folded biases: never re-estimated
        x = camera_jitter(colour_jitter(x, gen), gen, cfg.camera_jitter)
        x = turn_half(cover_edge(x, gen, cfg.cover_edge), gen)
        return {"loss": F.cross_entropy(net(x), y, label_smoothing=0.05)}

    net.train()
    train_loop({"cls": net}, opt, batches(), losses,
               Schedule(steps=cfg.steps, warmup=0, floor=0.0),
               ckpt, {**asdict(cfg), "arch": arch, "seed": seed}, log=log,
               desc="classifier round", every_steps=100)
    weights = blend_weights(net.state_dict(), start, cfg.keep_start)
    if cfg.keep_start:
        log(f"exported weights: {cfg.keep_start:.2f} of the start's, the rest the round's")
    return checkpoint.save(out_dir / "classifier.pt", {"cls": weights}, step=cfg.steps,
                           config={"arch": arch})
