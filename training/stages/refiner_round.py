"""A box refiner round on the shipped localiser's own boxes.

The shipped refiner was trained for an earlier localiser (the eighth model's) on true
rectangles moved by an error model. This round reads where the shipped localiser really
puts its boxes on realistic train scenes (the held-out deck left out), before the refiner
and after its first pass (what the second pass sees), and teaches the refiner the
correction from each to the card it covers. It starts from the shipped refiner's weights
(``training.nets.recover.refiner_from_onnx``), batch norms frozen (they hold the folded
biases), on the one training loop, so it resumes where it stopped; its weights are then
blended back towards the start (``real_round.blend_weights``).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import torch

from scorer.vision.geometry import REF_H, REF_W, box_delta, context_crop, quad_to_rect
from training.data.cache import CHUNK, detector_digest, run_chunks, save_chunk
from training.data.scenes import get_library
from training.nets import checkpoint
from training.nets.networks import RefNet, freeze_bn
from training.recipe import RefinerRoundConfig
from training.stages.loop import Schedule, train_loop
from training.stages.real_round import blend_weights
from training.stages.refiner import matched_cards, refiner_batches, refiner_loss

REF_ROUND_SEED_OFFSET = 110_000  # within the train range, past the classifier round's scenes


def own_box_samples(det, img: np.ndarray, cards
                    ) -> tuple[list[np.ndarray], list[np.ndarray], list[float]]:
    """The refiner's samples where ``det`` (a ``scorer.vision.Detector`` with a refiner)
    puts its boxes on one scene: each box before the refiner and after its first pass,
    matched to the card it covers, as (context crops, corrections to that card, the
    share of that card in sight)."""
    raw = det.proposals(img)
    crops: list[np.ndarray] = []
    deltas: list[np.ndarray] = []
    visible: list[float] = []
    if not len(raw) or det.refiner is None:
        return crops, deltas, visible
    for boxes in (raw, det.refiner.refine_once(img, raw)):
        for box, card in zip(boxes, matched_cards(boxes, cards)):
            if card is not None:
                crops.append(context_crop(img, box))
                deltas.append(box_delta(box, quad_to_rect(card.quad)))
                visible.append(float(card.visible))
    return crops, deltas, visible


def _own_chunk(args) -> str:
    out_path, art_dir, model_path, jobs, sets = args
    out_path = Path(out_path)
    if out_path.exists():
        return str(out_path)
    from scorer.vision import Detector
    from training.data.realistic import realistic_scene

    det = Detector(model_path, threads=1)
    lib = get_library(art_dir)
    crops: list[np.ndarray] = []
    deltas: list[np.ndarray] = []
    visible: list[float] = []
    for seed, kind in jobs:
        img, cards, _ = realistic_scene(lib, int(seed), kind, sets)
        c, d, v = own_box_samples(det, img, cards)
        crops += c
        deltas += d
        visible += v
    return save_chunk(out_path, crops=np.stack(crops) if crops else
                      np.zeros((0, REF_H, REF_W, 3), np.uint8),
                      delta=np.array(deltas, np.float32).reshape(-1, 5),
                      visible=np.array(visible, np.float32))


def own_box_data(cache_dir: Path, art_dir, model_path: Path, per_kind: int, sets,
                 workers: int = 2) -> dict:
    """The samples of ``per_kind`` realistic train scenes of each kind (cards of ``sets``
    only), read by the detector ``model_path`` names; cached in chunks named after where
    its boxes fall (the networks and the thresholds that pick the proposals), so an
    interrupted run resumes and other networks or settings never get them."""
    from training.data.realistic import KINDS, realistic_seed
    from training.data.scenes import SEED_RANGES
    import onnx

    start = SEED_RANGES["train"][0] + REF_ROUND_SEED_OFFSET
    jobs = [(realistic_seed(start, kind, k), kind) for kind in KINDS for k in range(per_kind)]
    meta = {p.key: p.value for p in onnx.load(str(model_path)).metadata_props}
    # "visible": chunks that also hold each card's share in sight (older ones do not)
    settings = json.dumps([detector_digest(Path(model_path)), meta.get("hanafuda"), per_kind,
                           list(sets), "visible"])
    tag = hashlib.sha256(settings.encode()).hexdigest()[:12]
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    chunks = [(str(cache_dir / f"ownref-{tag}_{i // CHUNK:04d}.npz"),
               None if art_dir is None else str(art_dir), str(model_path), jobs[i:i + CHUNK],
               list(sets))
              for i in range(0, len(jobs), CHUNK)]
    paths = run_chunks(_own_chunk, chunks, workers, f"refiner round boxes ({CHUNK} scenes/chunk)")
    parts = [dict(np.load(p)) for p in paths]
    return {k: np.concatenate([p[k] for p in parts]) for k in ("crops", "delta", "visible")}


def train_refiner_round(data: dict, start: dict[str, torch.Tensor], out_dir: Path,
                        cfg: RefinerRoundConfig, seed: int = 0, log=print) -> dict:
    """The refiner from the ``start`` weights trained on ``data`` as the recipe's
    ``[refiner_round]`` says, blended back towards ``start`` by ``keep_start``: its
    weights. The resumable state (``round_ckpt.pt``) keeps the round's own.

    With ``hold_visible`` above 0, a box on a card at least that much in sight is taught
    the start's own correction of it (read from a frozen copy on the same augmented crop)
    rather than the card's outline: the classifier, fitted to the start's boxes on whole
    cards, keeps reading them where it learnt to, while boxes on partly hidden cards
    learn where those cards really are."""
    if not len(data["delta"]):
        raise ValueError("no refiner round samples: the localiser found no card")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    net = RefNet()
    net.load_state_dict(start)
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=1e-4)
    ckpt = out_dir / "round_ckpt.pt"
    rng = np.random.default_rng(seed + checkpoint.checkpoint_step(ckpt))

    start_net = RefNet()  # the held boxes' teacher, frozen
    start_net.load_state_dict(start)
    start_net.eval()

    def losses(b) -> dict:
        freeze_bn(net)  # the recovered batch norms hold folded biases: never re-estimated
        x, y, visible = b
        if cfg.hold_visible > 0:
            with torch.no_grad():
                y = torch.where((visible >= cfg.hold_visible)[:, None], start_net(x), y)
        return {"loss": refiner_loss(net, (x, y))}

    train_loop({"ref": net}, opt, refiner_batches(data, cfg.batch, rng, ("visible",)), losses,
               Schedule(steps=cfg.steps, warmup=100, floor=0.02), ckpt,
               {"steps": cfg.steps, "batch": cfg.batch, "lr": cfg.lr, "seed": seed,
                "hold_visible": cfg.hold_visible}, log=log,
               every_s=math.inf, every_steps=500, desc="refiner round")
    return blend_weights(net.state_dict(), start, cfg.keep_start)
