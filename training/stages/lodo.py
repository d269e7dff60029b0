"""A leave-one-deck-out classifier, trained alone on streamed crops.

The shipped localiser and box refiner never saw the held-out deck (``lodo_set``), so a
classifier trained from ImageNet weights on the other decks' crops, put beside them,
makes a detector that has never seen that deck: the baseline a deck profile
(``scorer.vision.profile``) is measured against.

Only the classifier trains, so each scene gives many crops (``cls_per_scene``) and no
localiser pass is spent. Time- or steps-budgeted, resumable from its checkpoint (saved
every minute), with a progress bar: ``python -m training lodo`` (the recipe's ``[lodo]``
table) trains it and writes the three ONNX files (``training.ship.finetuned.export_lodo``).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import torch
import torch.nn.functional as F

from training.stages.loop import Schedule, last_record, train_loop
from training.stages.augment import colour_jitter, to_input, turn_half
from training.nets.networks import build_classifier
from training.recipe import LodoConfig
from training.data.stream import StreamConfig, scene_loader
from training.nets import checkpoint


def crop_batches(loader, batch: int):
    """Fixed-size batches of (crops, labels, scenes read so far) from the scene stream."""
    xs, ys, n, scenes = [], [], 0, 0
    for b in loader:
        xs.append(b["cls_x"])
        ys.append(b["cls_y"])
        n += len(b["cls_y"])
        scenes += len(b["img"])
        while n >= batch:
            x, y = torch.cat(xs), torch.cat(ys)
            yield x[:batch], y[:batch], scenes
            xs, ys, n = [x[batch:]], [y[batch:]], n - batch


def train_lodo(art_dir: str, out_dir: Path, cfg: LodoConfig, lodo_set: str,
               seed: int = 0, workers: int = 1, threads: int = 2, log=print) -> Path:
    """Train (or resume) the classifier without ``lodo_set`` with the training engine
    (checkpoint ``lodo_ckpt.pt``); writes ``out_dir/classifier.pt`` (``model`` and
    ``arch``, what the export reads)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    model = build_classifier(cfg.arch)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=cfg.lr,
                            weight_decay=1e-4)
    ck_path = out_dir / "lodo_ckpt.pt"
    start = int(last_record(ck_path, "scenes"))  # a resumed run goes on with unseen scenes
    scfg = StreamConfig(art_dir=str(art_dir), exclude_sets=(lodo_set,),
                        cls_per_scene=cfg.cls_per_scene, ref_per_scene=0)
    loader = scene_loader(scfg, start, 4, workers)
    gen = torch.Generator().manual_seed(seed + start)
    read = {"scenes": start}

    def batches():
        for x, y, n in crop_batches(loader, cfg.batch):
            read["scenes"] = start + n
            yield x, y

    def losses(batch) -> dict:
        x, y = batch
        xc = turn_half(colour_jitter(to_input(x, "cpu"), gen), gen)
        return {"loss": F.cross_entropy(model(xc), y, label_smoothing=0.05)}

    def save_classifier(_=None) -> None:
        checkpoint.save(out_dir / "classifier.pt", {"cls": model}, config={"arch": cfg.arch})

    model.train()
    schedule = Schedule(steps=cfg.steps, minutes=0.0 if cfg.steps else cfg.minutes,
                        warmup=cfg.warmup, floor=cfg.floor)
    train_loop({"cls": model}, opt, batches(), losses, schedule, ck_path,
               {**asdict(cfg), "lodo_set": lodo_set, "seed": seed}, log=log,
               desc="lodo classifier", on_checkpoint=save_classifier,
               record=lambda: dict(read))
    save_classifier()
    return out_dir / "classifier.pt"
