"""``python -m training COMMAND``: from the card art to the shipped models.

    python -m training all          # cache -> localiser -> classifier -> export -> box
                                    #   refiner -> fine-tuning -> tune -> evaluate
                                    #   -> leave-one-deck-out classifier + evaluation
    python -m training cache | train-loc | train-cls | train-ref | finetune-cls | export
                     | tune | evaluate | lodo
    python -m training ceiling      # validation F1 with the true boxes: what boxes cost

Every stage is resumable: cached chunks are kept, training resumes from its checkpoint
in ``--run-dir`` (default runs/main, git-ignored). Seeds are fixed (see
training.scenes.SEED_RANGES: train, val, test and lodo_test are disjoint).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from training import DEFAULT_ART_DIR, REPO_ROOT

LODO_SET = "hwatu-commons"


@dataclass(frozen=True)
class LocStage:
    """A later localiser stage: continues the previous stage's weights at ``size``."""
    name: str
    size: tuple[int, int]
    steps: int
    scenes: int
    lr: float
    crop: tuple[int, int] | None = None


def _size(text: str, option: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        w = h = 0
    if min(w, h) < 32 or w % 4 or h % 4:
        raise ValueError(f"{option} must be WIDTHxHEIGHT, multiples of 4 and >= 32: {text!r}")
    return w, h


def _loc_stages(a) -> list[LocStage]:
    """The second and third localiser stages that have steps; a stage needs the ones
    before it, so a third stage without a second is an error."""
    if a.loc3_steps and not a.loc2_steps:
        raise ValueError("--loc3-steps needs --loc2-steps: each stage starts from the last")
    stages = []
    if a.loc2_steps:
        stages.append(LocStage("loc2", _size(a.loc2_size, "--loc2-size"), a.loc2_steps,
                               a.loc2_scenes, a.loc2_lr))
    if a.loc3_steps:
        size, crop = _size(a.loc3_size, "--loc3-size"), _size(a.loc3_crop, "--loc3-crop")
        if crop[0] > size[0] or crop[1] > size[1]:
            raise ValueError(f"--loc3-crop {a.loc3_crop} is larger than --loc3-size "
                             f"{a.loc3_size}")
        stages.append(LocStage("loc3", size, a.loc3_steps, a.loc3_scenes, a.loc3_lr,
                               None if crop == size else crop))
    return stages


@dataclass(frozen=True)
class FtRound:
    """A round of fine-tuning the classifier on localiser crops, from ``base``'s weights."""
    sub: str
    base: str
    arch: str
    steps: int
    lr: float
    scenes: int
    seed: int
    refined: bool = False  # crops cut at the box refiner's boxes, not the localiser's


def _ft_rounds(a, prefix: str = "cls") -> list[FtRound]:
    """The fine-tuning rounds that have steps; each starts from the one before."""
    if not a.ft_steps:
        return []
    rounds = [FtRound(f"{prefix}-ft", prefix, a.cls_arch, a.ft_steps, a.ft_lr, a.ft_scenes,
                      a.seed + 1)]
    if a.ft2_steps:
        if a.ft2_grow < 0 or (a.ft2_grow and not a.cls_arch.startswith("lite0-b")):
            raise ValueError(f"--ft2-grow {a.ft2_grow}: only a truncated EfficientNet-Lite0 "
                             f"classifier (lite0-bN) can grow; use --ft2-grow 0 with "
                             f"{a.cls_arch}")
        arch = f"{a.cls_arch}-x{a.ft2_grow}" if a.ft2_grow else a.cls_arch
        rounds.append(FtRound(f"{prefix}-ft2", f"{prefix}-ft", arch, a.ft2_steps, a.ft2_lr,
                              a.ft2_scenes, a.seed + 11))
    if a.ft3_steps:
        last = rounds[-1]
        rounds.append(FtRound(f"{prefix}-ft3", last.sub, last.arch, a.ft3_steps, a.ft3_lr,
                              a.ft3_scenes, a.seed + 11))
    if a.ft4_steps and a.ref_steps:
        last = rounds[-1]
        rounds.append(FtRound(f"{prefix}-ft4", last.sub, last.arch, a.ft4_steps, a.ft4_lr,
                              a.ft4_scenes, a.seed + 13, refined=True))
    return rounds


def _args(argv):
    p = argparse.ArgumentParser(prog="python -m training", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["all", "cache", "train-loc", "train-cls", "train-ref",
                                       "finetune-cls", "export", "tune", "evaluate", "lodo",
                                       "ceiling"])
    p.add_argument("--art-dir", default=str(DEFAULT_ART_DIR),
                   help="card art sets (default ../shared/card-art from the repo root)")
    p.add_argument("--run-dir", default=str(REPO_ROOT / "runs" / "main"),
                   help="caches, checkpoints, logs (git-ignored)")
    p.add_argument("--models-dir", default=str(REPO_ROOT / "models"),
                   help="where the ONNX files and evaluation figures go")
    p.add_argument("--name", default="hanafuda", help="model file prefix")
    p.add_argument("--scenes", type=int, default=4000, help="training scenes to cache")
    p.add_argument("--val-scenes", type=int, default=400)
    p.add_argument("--test-scenes", type=int, default=600)
    p.add_argument("--lodo-test-scenes", type=int, default=300)
    p.add_argument("--tune-scenes", type=int, default=400,
                   help="validation scenes for choosing the detection thresholds")
    p.add_argument("--loc-steps", type=int, default=7800)
    p.add_argument("--loc-cycles", default="2400,5400",
                   help="step boundaries of the localiser's cosine cycles (warm restarts)")
    p.add_argument("--loc-batch", type=int, default=16)
    p.add_argument("--loc2-size", default="480x360",
                   help="input (WIDTHxHEIGHT) of the localiser's second stage, which starts "
                        "from the first stage's weights (320x240) and sees small cards larger")
    p.add_argument("--loc2-steps", type=int, default=5000,
                   help="second-stage localiser steps (0: ship the 320x240 localiser)")
    p.add_argument("--loc2-scenes", type=int, default=6000,
                   help="training scenes cached at the second stage's size")
    p.add_argument("--loc2-lr", type=float, default=1.5e-3)
    p.add_argument("--loc3-size", default="640x480",
                   help="input (WIDTHxHEIGHT) of the third stage: the frame's own size, so "
                        "small cards are not shrunk at all")
    p.add_argument("--loc3-crop", default="480x360",
                   help="the third stage trains on random windows of this size cut from its "
                        "scenes: the full-size scale at the second stage's cost per step")
    p.add_argument("--loc3-steps", type=int, default=4000,
                   help="third-stage localiser steps (0: ship the second stage)")
    p.add_argument("--loc3-scenes", type=int, default=6000,
                   help="training scenes cached at the third stage's size")
    p.add_argument("--loc3-lr", type=float, default=1e-3)
    p.add_argument("--cls-steps", type=int, default=4000)
    p.add_argument("--cls-batch", type=int, default=64)
    p.add_argument("--lodo-cls-steps", type=int, default=3000,
                   help="classifier steps of the leave-one-deck-out run")
    p.add_argument("--cls-arch", default="lite0-b8f",
                   help="small | tiny | lite0 | lite0-b<N> (EfficientNet-Lite0, first N blocks)")
    p.add_argument("--cls-lr", type=float, default=1.5e-3)
    p.add_argument("--ft-scenes", type=int, default=4000,
                   help="fresh training scenes whose localiser boxes the classifier is "
                        "fine-tuned on")
    p.add_argument("--ft-steps", type=int, default=4000,
                   help="classifier fine-tuning steps on localiser crops (0: no "
                        "fine-tuning, neither round)")
    p.add_argument("--ft-lr", type=float, default=6e-4)
    p.add_argument("--ft2-steps", type=int, default=3000,
                   help="a second fine-tuning round, from the first's weights (0: skip)")
    p.add_argument("--ft2-scenes", type=int, default=8000,
                   help="training scenes whose localiser crops the second round uses (the "
                        "first round's plus fresh ones)")
    p.add_argument("--ft2-lr", type=float, default=5e-4)
    p.add_argument("--ft2-grow", type=int, default=3,
                   help="the second round grows the classifier by the next N ImageNet "
                        "blocks, a side branch that starts out adding nothing (0: keep it "
                        "as it is; only lite0-bN classifiers grow)")
    p.add_argument("--ft3-steps", type=int, default=3000,
                   help="a third round, from the last one's weights (0: none)")
    p.add_argument("--ft3-scenes", type=int, default=12000,
                   help="training scenes whose localiser crops the third round uses")
    p.add_argument("--ft3-lr", type=float, default=3e-4)
    p.add_argument("--ref-steps", type=int, default=12000,
                   help="box refiner steps (0: ship the localiser's boxes as they are)")
    p.add_argument("--ref-scenes", type=int, default=8000,
                   help="fresh training scenes whose localiser boxes the refiner learns from")
    p.add_argument("--ref-lr", type=float, default=2e-3)
    p.add_argument("--ref-passes", type=int, default=2,
                   help="times the refiner corrects each box at detection and for the "
                        "fourth round's crops (one pass: the same validation F1, ~4 ms a "
                        "frame less, but leave-one-deck-out F1 0.835 against 0.852)")
    p.add_argument("--ft4-steps", type=int, default=2000,
                   help="a last round on crops cut where the box refiner puts the boxes "
                        "(0: none; needs the refiner)")
    p.add_argument("--ft4-scenes", type=int, default=12000,
                   help="training scenes whose refined crops the fourth round uses")
    p.add_argument("--ft4-lr", type=float, default=3e-4)
    p.add_argument("--tta-below", type=float, default=0.45,
                   help="with the 180-degree test-time augmentation on, a crop is "
                        "classified turned as well only when its likeliest card has at most "
                        "this probability (1: every crop); kept in the model's metadata")
    p.add_argument("--no-tta", action="store_true",
                   help="tuning never turns that augmentation on (by default it is kept "
                        "when it raises validation F1)")
    p.add_argument("--no-int8", action="store_true",
                   help="ship the classifier in float32, not quantised to int8")
    p.add_argument("--calib-scenes", type=int, default=200,
                   help="training scenes whose localiser crops calibrate the int8 "
                        "classifier")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--workers", type=int, default=2, help="scene generation processes")
    p.add_argument("--no-lodo", action="store_true", help="skip the leave-one-deck-out run")
    return p.parse_args(argv)


class Log:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.f = open(path, "a", buffering=1)

    def __call__(self, msg: str):
        line = f"{time.strftime('%H:%M:%S')} {msg}"
        print(line, file=sys.stderr, flush=True)
        self.f.write(line + "\n")


def main(argv=None) -> int:
    a = _args(argv)
    import torch

    torch.set_num_threads(a.threads)
    from training.data import LOC_H, LOC_W, generate_cache, load_cache

    run = Path(a.run_dir)
    try:
        stages = _loc_stages(a)
        _ft_rounds(a)
        if not 0 < a.tta_below <= 1:
            raise ValueError(f"--tta-below must be a probability in (0, 1]: {a.tta_below}")
        if a.ref_steps and a.ref_passes < 1:
            raise ValueError(f"--ref-passes must be at least 1: {a.ref_passes}")
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    models = Path(a.models_dir)
    log = Log(run / "log.txt")
    log(f"command: python -m training {' '.join(argv if argv is not None else sys.argv[1:])}")
    cache = run / "cache"
    loc_onnx = models / f"{a.name}-localiser.onnx"  # the exported (all-decks) localiser

    def data():
        train = generate_cache(cache, a.art_dir, a.scenes, "train", a.workers)
        val = generate_cache(cache, a.art_dir, a.val_scenes, "val", a.workers)
        return load_cache(train), load_cache(val)

    def exported_localiser():
        """(checkpoint, input width x height) of the localiser that is exported."""
        if stages:
            return run / stages[-1].name / "localiser.pt", stages[-1].size
        return run / "loc" / "localiser.pt", (LOC_W, LOC_H)

    def train_loc(d, v):
        from training.train import train_localiser
        # The localiser never sees the held-out deck, so the shipped localiser is also
        # the leave-one-deck-out localiser.
        path = train_localiser(d, v, run / "loc", steps=a.loc_steps, batch=a.loc_batch,
                               seed=a.seed, exclude_sets=(LODO_SET,), threads=a.threads,
                               eval_every=max(min(400, a.loc_steps), 1), log=log,
                               cycles=tuple(int(x) for x in a.loc_cycles.split(",") if x))
        for k, st in enumerate(stages):  # each later stage starts from the one before
            d2 = load_cache(generate_cache(cache, a.art_dir, st.scenes, "train", a.workers,
                                           st.size))
            v2 = load_cache(generate_cache(cache, a.art_dir, a.val_scenes, "val", a.workers,
                                           st.size))
            path = train_localiser(d2, v2, run / st.name, steps=st.steps, batch=a.loc_batch,
                                   lr=st.lr, seed=a.seed + 2 + k, exclude_sets=(LODO_SET,),
                                   threads=a.threads, eval_every=max(min(400, st.steps), 1),
                                   log=log, init=path, crop=st.crop)
            del d2, v2
        return path

    def train_cls(d, v, sub="cls", exclude=(), steps=None):
        from training.train import train_classifier
        return train_classifier(d, v, run / sub, arch=a.cls_arch, steps=steps or a.cls_steps,
                                batch=a.cls_batch, lr=a.cls_lr, seed=a.seed,
                                exclude_sets=exclude, threads=a.threads,
                                eval_every=max(min(500, steps or a.cls_steps), 1), log=log)

    def claim(out: Path, digest: str):
        """Make ``out`` a run directory for the localiser whose weights (or, with the
        refiner, detector) hash to ``digest``: one made for another is started again."""
        stamp = out / "localiser-digest.txt"
        if out.exists() and (not stamp.is_file() or stamp.read_text() != digest):
            log(f"{out} was trained for another localiser: starting it again")
            shutil.rmtree(out)
        out.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)

    def finetune(d, rnd: FtRound, vcrops: dict, digest: str, exclude=()):
        """Fine-tune ``rnd.base``'s classifier on crops cut where the exported localiser
        (whose weights hash to ``digest``) puts its boxes (half of each batch), so it
        learns the localiser's errors; ``vcrops``: its validation crops."""
        from training.data import generate_localiser_crops, load_crops
        from training.train import train_classifier
        claim(run / rnd.sub, digest)
        extra = load_crops(generate_localiser_crops(cache, a.art_dir, loc_onnx, rnd.scenes,
                                                    "train", a.workers, rnd.refined))
        return train_classifier(d, vcrops, run / rnd.sub, arch=rnd.arch, steps=rnd.steps,
                                batch=a.cls_batch, lr=rnd.lr, seed=rnd.seed,
                                exclude_sets=exclude, threads=a.threads,
                                eval_every=max(min(500, rnd.steps), 1), log=log,
                                extra_crops=extra, init=run / rnd.base / "classifier.pt")

    def finetune_all(d, prefix="cls", exclude=()) -> str:
        """Runs every fine-tuning round; the run sub-directory of the last classifier. A
        round already finished for this localiser is skipped before any crops load (a
        resumed run would otherwise read gigabytes of them for nothing)."""
        from training.data import (detector_digest, generate_localiser_crops, load_crops,
                                   weights_digest)
        from training.train import finished
        rounds = _ft_rounds(a, prefix)
        if not rounds:
            return prefix
        vcrops = {}
        for rnd in rounds:
            digest = detector_digest(loc_onnx) if rnd.refined else weights_digest(loc_onnx)
            stamp = run / rnd.sub / "localiser-digest.txt"
            if stamp.is_file() and stamp.read_text() == digest and \
                    finished(run / rnd.sub, rnd.steps):
                log(f"{rnd.sub}: finished already ({rnd.steps} steps)")
                continue
            if rnd.refined not in vcrops:
                vcrops[rnd.refined] = load_crops(generate_localiser_crops(
                    cache, a.art_dir, loc_onnx, a.val_scenes, "val", a.workers, rnd.refined))
            finetune(d, rnd, vcrops[rnd.refined], digest, exclude)
        return rounds[-1].sub

    def train_ref():
        """The box refiner, on the boxes the exported localiser finds (with no refiner);
        it never sees the held-out deck, so the leave-one-deck-out model shares it."""
        from training.refine import generate_refiner_crops, load_refiner_crops, train_refiner
        from training.data import weights_digest
        claim(run / "ref", weights_digest(loc_onnx))
        if (run / "ref" / "refiner.pt").is_file():
            log("ref: finished already")
            return run / "ref" / "refiner.pt"
        ex = (LODO_SET,)
        d = load_refiner_crops(generate_refiner_crops(cache, a.art_dir, loc_onnx,
                                                      a.ref_scenes, "train", a.workers), ex)
        v = load_refiner_crops(generate_refiner_crops(cache, a.art_dir, loc_onnx,
                                                      a.val_scenes, "val", a.workers), ex)
        return train_refiner(d, v, run / "ref", steps=a.ref_steps, lr=a.ref_lr,
                             seed=a.seed + 5, log=log)

    def export(cls_dir="cls", out=models, name=a.name, exclude=()):
        from training.export import export_models, export_refiner, quantize_classifier
        loc_ckpt, size = exported_localiser()
        paths = export_models(loc_ckpt, run / cls_dir / "classifier.pt", out, name,
                              loc_size=size, extra_cfg={"int8": not a.no_int8})
        if a.ref_steps and (run / "ref" / "refiner.pt").is_file():
            export_refiner(run / "ref" / "refiner.pt", paths[0], a.ref_passes)
        if not a.no_int8:
            quantize_classifier(paths[1], calibration_crops(paths[0], exclude))
        log(f"exported {paths[0]} ({paths[0].stat().st_size / 2**20:.2f} MiB) and "
            f"{paths[1]} ({paths[1].stat().st_size / 2**20:.2f} MiB)")
        return paths

    def calibration_crops(loc_path: Path, exclude=()):
        """512 training crops: those ``loc_path`` cuts from the first ``--calib-scenes``
        scenes of the fine-tuning range (cached for fine-tuning already) and the jittered
        crops of the first cached chunk of training scenes (so an untrained localiser
        that finds nothing still leaves crops to calibrate on)."""
        from training.data import CHUNK, generate_localiser_crops, load_crops
        from training.scenes import ART_SETS
        cut = load_crops(generate_localiser_crops(cache, a.art_dir, loc_path, a.calib_scenes,
                                                  "train", a.workers))
        with np.load(generate_cache(cache, a.art_dir, min(a.scenes, CHUNK), "train",
                                    a.workers)[0]) as first:
            crops = np.concatenate([cut["crops"], first["crops"]])
            sets = np.concatenate([cut["crop_set"], first["crop_set"]])
        ok = np.ones(len(crops), bool)
        for s in exclude:
            ok &= sets != ART_SETS.index(s)
        idx = np.nonzero(ok)[0]
        rng = np.random.default_rng(a.seed)
        return crops[rng.choice(idx, min(512, len(idx)), replace=False)]

    def tune(loc_path, sets=None):
        from scorer.vision import Detector
        from training.evaluate import tune_thresholds
        from training.export import set_config
        # thresholds, whether to check each box's axis and whether to turn the unsure
        # crops 180 degrees (each adds classifier work), chosen together by F1 on
        # validation scenes
        runs = {}
        for axis_check in (False, True):
            for tta in (False,) if a.no_tta else (False, True):
                det = Detector(loc_path, threads=a.threads, axis_check=axis_check, tta=tta,
                               tta_below=a.tta_below)
                runs[axis_check, tta] = tune_thresholds(det, a.art_dir, a.tune_scenes,
                                                        sets=sets)
        (axis_check, tta), (best, _) = max(runs.items(), key=lambda kv: kv[1][0]["f1"])
        best = {**best, "axis_check": axis_check, "tta": tta}
        (models / "eval").mkdir(parents=True, exist_ok=True)
        (models / "eval" / f"tune-val-{loc_path.stem}.json").write_text(
            json.dumps({"best": best, "tta_below": a.tta_below,
                        "grids": {f"axis_check={ac} tta={t}": {"best": r[0], "grid": r[1]}
                                  for (ac, t), r in runs.items()}}, indent=2) + "\n")
        cfg = set_config(loc_path, {"loc_threshold": best["loc_threshold"],
                                    "cls_threshold": best["cls_threshold"],
                                    "axis_check": axis_check, "tta": tta,
                                    "tta_below": a.tta_below})
        log(f"tuned on validation scenes: {json.dumps(best)}; config {json.dumps(cfg)}")

    def evaluate(loc_path, tag, split, n, sets=None):
        from scorer.vision import Detector
        from training.evaluate import evaluate as ev
        det = Detector(loc_path, threads=a.threads)
        res = ev(det, a.art_dir, split, n, sets=sets, out_dir=models / "eval", tag=tag)
        log(f"evaluation {tag}: " + json.dumps(res))
        return res

    def ceiling(loc_path):
        """Validation scenes classified from their true boxes, beside the detector."""
        from scorer.vision import Detector
        from training.evaluate import true_box_ceiling
        res = true_box_ceiling(Detector(loc_path, threads=a.threads), a.art_dir, "val",
                               a.val_scenes)
        (models / "eval").mkdir(parents=True, exist_ok=True)
        (models / "eval" / "ceiling-val.json").write_text(json.dumps(res, indent=2) + "\n")
        log("true boxes: " + json.dumps(res))
        return res

    def lodo(d, v):
        ex = (LODO_SET,)
        train_cls(d, v, "cls-lodo", exclude=ex, steps=a.lodo_cls_steps or a.cls_steps)
        cls_dir = finetune_all(d, "cls-lodo", exclude=ex)
        loc_path, _ = export(cls_dir, run / "lodo-model", f"{a.name}-lodo", exclude=ex)
        from training.scenes import ART_SETS
        tune(loc_path, sets=[s for s in ART_SETS if s not in ex])  # never sees the held-out deck
        res = evaluate(loc_path, "lodo-hwatu", "lodo_test", a.lodo_test_scenes, sets=ex)
        if loc_onnx.is_file():  # the all-decks model on the very same held-out scenes
            evaluate(loc_onnx, "all-decks-on-hwatu", "lodo_test", a.lodo_test_scenes, sets=ex)
        return res

    def run_command() -> int:
        cmd = a.command
        if cmd == "cache":
            data()
            return 0
        if cmd == "ceiling":
            ceiling(loc_onnx)
            return 0
        if cmd in ("export", "evaluate", "tune", "train-ref"):
            if cmd == "train-ref":
                train_ref()
            if cmd in ("export", "train-ref"):  # the last fine-tuned classifier there is
                done = [r.sub for r in _ft_rounds(a) if (run / r.sub / "classifier.pt").is_file()]
                export(done[-1] if done else "cls")
            elif cmd == "tune":
                tune(loc_onnx)
            else:
                evaluate(loc_onnx, "test", "test", a.test_scenes)
            return 0
        d, v = data()
        if cmd == "train-loc":
            train_loc(d, v)
        elif cmd == "train-cls":
            train_cls(d, v)
        elif cmd == "finetune-cls":
            export(finetune_all(d))
        elif cmd == "lodo":
            lodo(d, v)
        elif cmd == "all":
            train_loc(d, v)
            train_cls(d, v)
            loc_path, _ = export()
            if a.ref_steps:
                train_ref()
                loc_path, _ = export()
            if a.ft_steps:
                loc_path, _ = export(finetune_all(d))
            tune(loc_path)
            evaluate(loc_path, "test", "test", a.test_scenes)
            if not a.no_lodo:
                lodo(d, v)
        return 0

    from scorer.errors import InputError
    try:
        return run_command()
    except InputError as e:  # a missing or unreadable model file, say
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
