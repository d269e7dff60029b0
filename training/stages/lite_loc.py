"""The localiser on ImageNet features (``training.nets.networks.LiteLoc``), trained on streamed
scenes by the training engine (``training.ship.export.export_lite_loc`` exports it beside
the shipped classifier and refiner).

Only the localiser trains here: the classifier already reads 97% of the required cards
right from their true outlines, and the refiner corrects boxes from a crop. The frozen
stem and first blocks are computed once per fresh batch and replayed (``replay`` steps
per batch): they are most of the forward cost, and no gradient flows into them.
"""

from __future__ import annotations

import re
from dataclasses import asdict, replace
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
import torch

from training.nets import checkpoint
from training.nets.checkpoint import checkpoint_step
from training.stages.loop import RunState, Schedule, last_record, replayed, train_loop
from training.stages.augment import colour_jitter, random_window, to_input
from training.nets.networks import LiteLoc
from training.data.realistic import SceneVariation, layout_weights
from training.recipe import LiteLocConfig, RecipeError
from training.data.stream import StreamConfig, scene_loader
from training.stages.loss import loc_loss


def feature_batches(net: LiteLoc, loader, cfg: LiteLocConfig, device, seed: int = 0
                    ) -> Iterator[tuple]:
    """(frozen features, targets) for each step: each fresh batch once, then ``replay`` - 1
    recently seen ones."""
    gen = torch.Generator()
    gen.manual_seed(seed)

    def fresh():
        for b in loader:
            x = to_input(b["img"], "cpu")
            maps = [b[k] for k in ("hm", "ign", "reg", "regm", "band")]
            x, maps = random_window(colour_jitter(x, gen, 0.25, 25.0), maps, *cfg.window, gen, align=16)
            with torch.no_grad():
                f = net.frozen_features(x.to(device))
            yield f, [m.to(device) for m in maps]

    return replayed(fresh(), cfg.replay, keep=12, gen=gen)


def stream_config(art_dir: str, cfg: LiteLocConfig, exclude_sets=(),
                  photos_dir: str | Path = "") -> StreamConfig:
    """The scene stream the lite localiser trains on: the recipe's shares of real
    tables, real negatives, decoy faces, staggered stacks and heaps (those that need the
    real photographs check that they are there)."""
    if cfg.photo_tables or cfg.negatives or cfg.decoy_faces:
        from training.data.real_photos import split_photos
        split_photos(photos_dir)  # PhotosUnavailable, with where to get them
    var = SceneVariation(photos_dir=str(photos_dir), photo_tables=cfg.photo_tables,
                         decoy_faces=cfg.decoy_faces,
                         layout_weights=layout_weights(cfg.staggered, cfg.heaps),
                         closeups=cfg.closeups)
    return StreamConfig(art_dir=str(art_dir), realistic_share=cfg.realistic_share,
                        exclude_sets=tuple(exclude_sets), ref_per_scene=0, cls_per_scene=0,
                        variation=var, negatives=cfg.negatives)


def train_lite_loc(art_dir: str, out_dir: Path, cfg: LiteLocConfig, exclude_sets=(),
                   log=print, device: str = "auto", workers: int = 1, seed: int = 0,
                   pretrained: bool = True, photos_dir: str | Path = "",
                   stop_after_s: float = 0.0) -> Path:
    """Train (or resume) into ``out_dir/lite_loc.pt``; returns the checkpoint's path.
    ``stop_after_s`` > 0: stop at the first snapshot step past that many seconds (the
    checkpoint is saved there; running again goes on)."""
    if stop_after_s and not cfg.snapshot_every:
        raise RecipeError("stopping early stops at a snapshot: the recipe's [lite_localiser] "
                          "snapshot_every must be more than 0")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    dev = torch.device("cuda" if device == "auto" and torch.cuda.is_available() else
                       ("cpu" if device == "auto" else device))
    torch.manual_seed(seed)
    ckpt = out_dir / "lite_loc.pt"
    # a resumed run loads every weight from its checkpoint: no ImageNet file needed
    net = LiteLoc(pretrained=pretrained and not ckpt.is_file()).to(dev)
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=cfg.lr,
                            weight_decay=1e-4, fused=True)
    read = {"scenes": resume_scene(ckpt, cfg)}  # a resumed stream goes on with unseen scenes
    loader = counted(scene_loader(stream_config(art_dir, cfg, exclude_sets, photos_dir),
                                  read["scenes"], cfg.batch, workers), read)

    def losses(batch) -> dict:
        f, (hm, ign, reg, regm, band) = batch
        weights = 1 + (cfg.band_weight - 1) * band if cfg.band_weight != 1.0 else None
        return {"loc": loc_loss(net.forward_features(f), hm, ign, reg, regm,
                                angle_weight=cfg.angle_weight, weights=weights)[0]}

    net.train()  # the stem and the frozen blocks stay in eval mode (LiteLoc.train)
    schedule = Schedule(steps=cfg.steps, minutes=0.0 if cfg.steps else cfg.minutes,
                        warmup=cfg.warmup, floor=cfg.floor, restarts=tuple(cfg.restarts),
                        peaks=tuple(cfg.peaks))

    def snapshot(st: RunState) -> None:
        if cfg.snapshot_every and st.step % cfg.snapshot_every == 0:
            save_weights(snapshot_path(out_dir, st.step), net, st.step)

    train_loop({"loc": net}, opt, feature_batches(net, loader, cfg, dev, seed), losses, schedule,
               ckpt, {**asdict(cfg), "seed": seed}, log=log, desc="lite localiser",
               on_checkpoint=snapshot, every_steps=cfg.snapshot_every, record=lambda: dict(read),
               stop_after_s=stop_after_s)
    return ckpt


def resume_scene(ckpt: Path, cfg: LiteLocConfig) -> int:
    """The first scene a run resumed from ``ckpt`` reads: the scenes its history says were
    read, or, in a history from before that record, its steps' worth at ``cfg``'s batch
    and replay (a piece that changes the batch still goes on past every scene read)."""
    if not Path(ckpt).is_file():
        return 0
    ck = checkpoint.load(ckpt)
    return int(last_record(ck, "scenes", ck["step"] // cfg.replay * cfg.batch))


def counted(batches, read: dict) -> Iterator:
    """``batches`` as they are, adding each one's scenes to ``read["scenes"]``."""
    for b in batches:
        read["scenes"] += len(b["img"])
        yield b


def save_weights(path: Path, net: torch.nn.Module, step: int = 0) -> Path:
    """The network's weights alone, in float16 (a snapshot for the curve)."""
    return checkpoint.save(path, {"loc": net}, step=step, half=True)


def load_lite_loc(path: Path) -> LiteLoc:
    """The lite localiser from a training checkpoint or a snapshot (``save_weights``)."""
    net = LiteLoc(pretrained=False)
    net.load_state_dict(checkpoint.weights(path, "loc"))
    return net.eval()


def averaged_weights(paths: Sequence[Path], frames: np.ndarray | None, out: Path,
                     batch: int = 8) -> Path:
    """The mean of the lite localiser's weights in ``paths`` (checkpoints or snapshots),
    saved as a snapshot at ``out``. With ``frames`` ((N,H,W,3) uint8 BGR training frames)
    the trained blocks' batch-norm statistics are then measured again on them; with None
    they are the mean of the networks' own statistics, gathered over their training. On
    the shift slice's validation seeds, measuring them again on 256 letterboxed frames
    lost partly hidden cards (docs/history/v6-5-classifier-blend.md). The frozen stem and blocks keep
    theirs (the same in every snapshot)."""
    if not paths:
        raise ValueError("no weights to average")
    states = [load_lite_loc(p).state_dict() for p in paths]
    net = LiteLoc(pretrained=False)
    net.load_state_dict({k: torch.stack([s[k] for s in states]).mean(0)
                         if v.is_floating_point() else v for k, v in states[-1].items()})
    if frames is not None:
        measure_norms(net, frames, batch)
    save_weights(Path(out), net.eval())
    return Path(out)


def measure_norms(net: LiteLoc, frames: np.ndarray, batch: int = 8) -> None:
    """Measure the trained blocks' batch-norm statistics again on ``frames``, a cumulative
    mean over every batch; the frozen stem and blocks keep theirs."""
    frozen = {id(m) for part in (net.stem, net.frozen) for m in part.modules()}
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d) and id(m) not in frozen:
            m.reset_running_stats()
            m.momentum = None
    net.train()
    with torch.no_grad():
        for k in range(0, len(frames), batch):
            net(to_input(torch.from_numpy(frames[k:k + batch]), "cpu"))


def snapshot_path(out_dir: Path, step: int) -> Path:
    """Where the run in ``out_dir`` keeps its weights at ``step`` (``snapshot_step``
    reads the step back)."""
    return Path(out_dir) / "snapshots" / f"step-{step:06d}.pt"


def snapshot_step(path: Path) -> int:
    """The step in a snapshot's file name (``step-001000.pt``), -1 for any other name."""
    m = re.search(r"step-(\d+)", Path(path).name)
    return int(m.group(1)) if m else -1


def weights_to_average(out_dir: Path, ckpt: Path, first_step: int) -> list[Path]:
    """The snapshots in ``out_dir/snapshots`` from ``first_step`` on, and the checkpoint
    ``ckpt`` unless a snapshot already holds its step."""
    snaps = sorted((p for p in (Path(out_dir) / "snapshots").glob("step-*.pt")
                    if snapshot_step(p) >= first_step), key=snapshot_step)
    last = checkpoint_step(ckpt)
    if last >= first_step and last not in {snapshot_step(p) for p in snaps}:
        snaps.append(Path(ckpt))
    return snaps


def calibration_frames(stream: StreamConfig, n: int = 64,
                       first_seed: int = 900_000) -> np.ndarray:
    """``n`` letterboxed 640x480 frames of the lite localiser's training stream
    (``stream``: real tables, negatives and decoys included, so the int8 ranges cover
    the textures it meets), for int8 calibration; seeds apart from training's."""
    from training.data.scenes import get_library
    from training.data.stream import scene_sample

    lib = get_library(stream.art_dir)
    cfg = replace(stream, first_seed=first_seed)
    return np.stack([scene_sample(lib, first_seed + k, cfg)["img"] for k in range(n)])
