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

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from scorer.vision.geometry import quad_iou, quad_to_rect, rect_to_quad
from scorer.vision.stages import as_input
from training.data.realistic import KINDS, realistic_scene, realistic_seed
from training.data.scenes import SEED_RANGES, get_library
from training.nets import checkpoint
from training.nets.networks import build_classifier, freeze_bn
from training.recipe import RealRoundConfig
from training.stages.augment import colour_jitter, turn_half
from training.stages.face_gate import (EXAMPLE_THRESHOLD, FACE_IOU, MIN_VISIBLE,
                                       NO_CARD_IOU)
from training.stages.loop import Schedule, train_loop

NOT_A_CARD = 48
ROUND_SEED_OFFSET = 90_000  # within the train range, past the other stages' scenes


@dataclass
class BoxCrops:
    """Crops (N,H,W,3) uint8 BGR with their classes (48: not a card) and sources (a
    realistic kind, or "photo")."""
    crops: np.ndarray
    labels: np.ndarray
    sources: np.ndarray


def scene_crops(detector, art_dir, per_kind: int, sets=None) -> BoxCrops:
    """The boxes of realistic train scenes, labelled by their overlap with the cards."""
    lib = get_library(art_dir)
    start = SEED_RANGES["train"][0] + ROUND_SEED_OFFSET
    crops, labels, sources = [], [], []
    for kind in KINDS:
        for k in tqdm(range(per_kind), desc=f"round crops {kind}", unit="scene", mininterval=5):
            img, cards, _ = realistic_scene(lib, realistic_seed(start, kind, k), kind, sets)
            rects, _ = detector.localise(img, threshold=EXAMPLE_THRESHOLD)
            if not len(rects):
                continue
            quads, cut = detector.cut(img, rects)
            truth = [(rect_to_quad(*quad_to_rect(c.quad)), c.class_id) for c in cards
                     if c.visible >= MIN_VISIBLE]
            for q, crop in zip(quads, cut):
                best, cid = max(((quad_iou(q, t), i) for t, i in truth),
                                default=(0.0, NOT_A_CARD))
                if best >= FACE_IOU or best < NO_CARD_IOU:
                    crops.append(crop)
                    labels.append(cid if best >= FACE_IOU else NOT_A_CARD)
                    sources.append(kind)
    return _record(crops, labels, sources)


def photo_crops(detector, photos: list) -> BoxCrops:
    """Every box proposed on ``photos`` (no hanafuda in them): "not a card"."""
    import cv2
    crops = []
    for path in tqdm(photos, desc="round crops photos", unit="photo", mininterval=5):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            continue
        rects, _ = detector.localise(img, threshold=EXAMPLE_THRESHOLD)
        if len(rects):
            crops += list(detector.cut(img, rects)[1])
    return _record(crops, [NOT_A_CARD] * len(crops), ["photo"] * len(crops))


def _record(crops: list, labels: list, sources: list) -> BoxCrops:
    shape = (0, 112, 72, 3) if not crops else None
    return BoxCrops(np.stack(crops) if crops else np.zeros(shape, np.uint8),
                    np.array(labels, np.int64), np.array(sources))


def join(parts: list[BoxCrops]) -> BoxCrops:
    return BoxCrops(np.concatenate([p.crops for p in parts]),
                    np.concatenate([p.labels for p in parts]),
                    np.concatenate([p.sources for p in parts]))


def train_round(data: BoxCrops, init: Path, out_dir: Path, cfg: RealRoundConfig,
                seed: int = 0, log=print) -> Path:
    """The classifier from ``init`` trained on ``data`` as the recipe's ``[real_round]``
    says; its checkpoint's path."""
    ck = checkpoint.load(init)
    arch = ck["config"]["arch"]
    net = build_classifier(arch)
    net.load_state_dict(checkpoint.weights(ck, "cls"))
    weight = np.where(data.sources == "photo", cfg.photo_weight, 1.0)
    weight /= weight.sum()
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
        x = turn_half(colour_jitter(x, gen), gen)
        return {"loss": F.cross_entropy(net(x), y, label_smoothing=0.05)}

    net.train()
    train_loop({"cls": net}, opt, batches(), losses,
               Schedule(steps=cfg.steps, warmup=0, floor=0.0),
               ckpt, {**asdict(cfg), "arch": arch, "seed": seed}, log=log,
               desc="classifier round", every_steps=100)
    return checkpoint.save(out_dir / "classifier.pt", {"cls": net}, step=cfg.steps,
                           config={"arch": arch})
