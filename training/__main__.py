"""``python -m training COMMAND``: from the card art to the shipped models, driven by one
recipe file (``training/recipe.toml``; ``training/recipe.py`` describes its tables).

    python -m training all        # every stage below, in order, then the evaluation
    python -m training cache      # cached random scenes for the first stages
    python -m training train-loc  # the localiser stages
    python -m training train-cls  # the classifier on jittered true-box crops
    python -m training train-ref  # the box refiner on the exported localiser's boxes
    python -m training rounds     # the classifier rounds on the exported boxes' crops
    python -m training realistic  # all networks together on realistic scenes (GPU if any)
    python -m training lodo       # a leave-one-deck-out classifier beside them
    python -m training lite-loc   # the localiser on ImageNet features, as a candidate
    python -m training shift      # the domain-shift slice (never trained or tuned on)
    python -m training photos     # false cards a photo on the real photographs' test part
    python -m training curve      # the lite localiser's snapshots on the shift slice
    python -m training keep       # the campaign's resumable state, to commit
    python -m training ship       # the ship rule: the candidate replaces models/ only if it passes
    python -m training tune       # detection thresholds on realistic validation scenes
    python -m training evaluate   # realistic test slices, leave-one-deck-out, old test
    python -m training ceiling    # reads on true outlines vs the detector's boxes (val)

Every stage is resumable: cached chunks are kept and training resumes from its
checkpoint in ``--run-dir`` (default runs/main, git-ignored). Seeds are fixed
(training.data.scenes.SEED_RANGES: train, val, test and lodo_test are disjoint).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from training import DEFAULT_ART_DIR, REPO_ROOT
from training.data.real_photos import DEFAULT_PHOTOS_DIR
from training.recipe import DEFAULT_RECIPE, Recipe, RecipeError, load_recipe

# the campaign's resumable state (weights, optimiser, step, random states), committed
CAMPAIGN_STATE = REPO_ROOT / "training" / "campaign" / "lite-loc.pt"

COMMANDS = {
    "all": "every stage in order, then tune and evaluate",
    "cache": "render and cache the random scenes of the first stages",
    "train-loc": "train the localiser stages",
    "train-cls": "train the classifier on jittered true-box crops",
    "train-ref": "train the box refiner on the exported localiser's boxes, then export",
    "rounds": "the classifier rounds on crops the exported localiser cuts, then export",
    "realistic": "all three networks together on streamed realistic scenes, then export",
    "lodo": "a leave-one-deck-out classifier beside the shipped localiser, then export",
    "lite-loc": "the localiser on ImageNet features (streamed scenes), exported as a "
                "candidate beside the shipped classifier and refiner, then tuned",
    "shift": "the domain-shift slice: held-out art, real photographs as tables, another "
             "camera and light",
    "photos": "false cards a photo on the real photographs' test part (no hanafuda in them)",
    "keep": "copy the lite localiser's checkpoint into the repository (training/campaign/) "
            "so a later piece of the campaign resumes from it on any machine",
    "ship": "the ship rule: the candidate against the shipped model on the realistic test, "
            "the shift slice, the real photos, speed and size; it replaces models/ only if "
            "it passes",
    "curve": "the lite localiser's snapshots on part of the shift slice and the real-photo "
             "test part (the campaign's curve)",
    "tune": "choose the detection thresholds on realistic validation scenes",
    "evaluate": "the realistic test's slices, leave-one-deck-out and the old test",
    "ceiling": "validation reads on true outlines beside the detector's (what boxes cost)",
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--recipe", default=str(DEFAULT_RECIPE),
                        help="the recipe file (default training/recipe.toml)")
    common.add_argument("--art-dir", default=str(DEFAULT_ART_DIR),
                        help="card art sets (default ../shared/card-art from the repo root)")
    common.add_argument("--photos-dir", default=str(DEFAULT_PHOTOS_DIR),
                        help="real photographs of playing cards, no hanafuda (default "
                             "../shared/real-photos/playing-cards from the repo root)")
    common.add_argument("--run-dir", default=str(REPO_ROOT / "runs" / "main"),
                        help="caches, checkpoints, logs (git-ignored)")
    common.add_argument("--models-dir", default=str(REPO_ROOT / "models"),
                        help="where the shipped ONNX files and evaluation figures go")
    common.add_argument("--name", default="hanafuda", help="model file prefix")
    common.add_argument("--threads", type=int, default=2, help="torch / onnxruntime threads")
    common.add_argument("--workers", type=int, default=2,
                        help="scene rendering processes")
    for name, text in COMMANDS.items():
        sp = sub.add_parser(name, parents=[common], help=text, description=text)
        if name in ("all", "realistic"):
            sp.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                            help="where the realistic stage trains (auto: a GPU if any)")
        if name in ("all", "evaluate"):
            sp.add_argument("--no-lodo", action="store_true",
                            help="skip the leave-one-deck-out evaluation")
        if name == "lite-loc":
            sp.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                            help="where it trains (auto: a GPU if any)")
        if name == "curve":
            sp.add_argument("--per-kind", type=int, default=25,
                            help="shift scenes of each kind for each point (default 25)")
        if name in ("shift", "evaluate", "tune", "photos"):
            sp.add_argument("--model", default=None,
                            help="the localiser ONNX file to measure (default: the shipped one)")
            sp.add_argument("--tag", default=None,
                            help="a label for the figures' file names (default: the model's "
                                 "folder name)")
    return p


class Log:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.f = open(path, "a", buffering=1)

    def __call__(self, msg: str):
        line = f"{time.strftime('%H:%M:%S')} {msg}"
        print(line, file=sys.stderr, flush=True)
        self.f.write(line + "\n")


class Pipeline:
    """The recipe's stages over one run directory."""

    def __init__(self, a: argparse.Namespace, recipe: Recipe):
        self.a, self.r = a, recipe
        self.run = Path(a.run_dir)
        self.models = Path(a.models_dir)
        self.cache = self.run / "cache"
        self.log = Log(self.run / "log.txt")
        # the chain's own export (before the realistic stage) and the shipped files
        self.base = self.run / "base-model" / f"{a.name}-localiser.onnx"
        self.shipped = self.models / f"{a.name}-localiser.onnx"
        # the realistic stage's export: the classifier and refiner the candidate ships with
        self.chain = self.run / "realistic-model" / f"{a.name}-localiser.onnx"
        self.lodo = self.run / "lodo-model" / f"{a.name}-lodo-localiser.onnx"
        self.candidate = self.run / "lite-loc-model" / f"{a.name}-localiser.onnx"
        self._base_data = None  # the first stage's cache, loaded once for every stage

    # ------------------------------------------------------------ data
    def data(self, size=None, n=None):
        """(train, val) cached scenes at ``size`` (the first stage's by default: that one
        is loaded once and kept, since the classifier, its rounds and each export use it)."""
        from training.data.cache import LOC_H, LOC_W, generate_cache, load_cache
        size = tuple(size or (LOC_W, LOC_H))
        n = n or self.r.train_scenes
        base = size == (LOC_W, LOC_H) and n == self.r.train_scenes
        if base and self._base_data is not None:
            return self._base_data
        train = generate_cache(self.cache, self.a.art_dir, n, "train", self.a.workers, size)
        val = generate_cache(self.cache, self.a.art_dir, self.r.val_scenes, "val",
                             self.a.workers, size)
        loaded = load_cache(train), load_cache(val)
        if base:
            self._base_data = loaded
        return loaded

    # ------------------------------------------------------------ localiser
    def train_loc(self) -> Path:
        """Each stage from the last one's weights. The localiser never sees the held-out
        deck, so it serves the leave-one-deck-out model too."""
        from training.stages.localiser import train_localiser
        path = None
        for k, st in enumerate(self.r.localiser):
            d, v = self.data(st.size, st.scenes)
            path = train_localiser(d, v, self.run / st.name, steps=st.steps, batch=st.batch,
                                   lr=st.lr, seed=self.r.seed + (2 + k if k else 0),
                                   exclude_sets=(self.r.lodo_set,), threads=self.a.threads,
                                   eval_every=max(min(400, st.steps), 1), log=self.log,
                                   cycles=st.cycles, init=path, crop=st.crop)
            del d, v
        return path

    # ------------------------------------------------------------ classifier
    def train_cls(self) -> Path:
        from training.stages.classifier import train_classifier
        c = self.r.classifier
        d, v = self.data()
        return train_classifier(d, v, self.run / "cls", arch=c.arch, steps=c.steps,
                                batch=c.batch, lr=c.lr, seed=self.r.seed,
                                threads=self.a.threads, eval_every=max(min(500, c.steps), 1),
                                log=self.log)

    def _claim(self, out: Path, digest: str) -> None:
        """Make ``out`` a run directory for the localiser whose weights (or detector)
        hash to ``digest``: one made for another is started again."""
        stamp = out / "localiser-digest.txt"
        if out.exists() and (not stamp.is_file() or stamp.read_text() != digest):
            self.log(f"{out} was trained for another localiser: starting it again")
            shutil.rmtree(out)
        out.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)

    def rounds(self) -> str:
        """Every classifier round, each from the last one's weights, on crops cut where
        the exported localiser (and, for refined rounds, its refiner) puts its boxes; the
        run sub-directory of the last classifier. A finished round is skipped before any
        crops load."""
        from training.data.cache import (detector_digest, generate_localiser_crops, load_crops,
                                   weights_digest)
        from training.stages.classifier import finished, train_classifier
        base, arch = "cls", self.r.classifier.arch
        d = None
        vcrops: dict = {}
        for k, rnd in enumerate(self.r.classifier_rounds):
            if rnd.grow:
                arch = f"{arch}-x{rnd.grow}"
            digest = detector_digest(self.base) if rnd.refined else weights_digest(self.base)
            out = self.run / rnd.name
            stamp = out / "localiser-digest.txt"
            if stamp.is_file() and stamp.read_text() == digest and finished(out, rnd.steps):
                self.log(f"{rnd.name}: finished already")
                base = rnd.name
                continue
            if d is None:
                d, _ = self.data()
            if rnd.refined not in vcrops:
                vcrops[rnd.refined] = load_crops(generate_localiser_crops(
                    self.cache, self.a.art_dir, self.base, self.r.val_scenes, "val",
                    self.a.workers, rnd.refined))
            self._claim(out, digest)
            extra = load_crops(generate_localiser_crops(self.cache, self.a.art_dir, self.base,
                                                        rnd.scenes, "train", self.a.workers,
                                                        rnd.refined))
            train_classifier(d, vcrops[rnd.refined], out, arch=arch, steps=rnd.steps,
                             batch=self.r.classifier.batch, lr=rnd.lr,
                             seed=self.r.seed + 1 + 10 * k, threads=self.a.threads,
                             eval_every=max(min(500, rnd.steps), 1), log=self.log,
                             extra_crops=extra, init=self.run / base / "classifier.pt")
            base = rnd.name
        return base

    # ------------------------------------------------------------ refiner
    def train_ref(self) -> Path:
        """On the boxes the exported localiser finds (with no refiner); never on the
        held-out deck."""
        from training.data.cache import weights_digest
        from training.stages.refiner import generate_refiner_crops, load_refiner_crops, train_refiner
        ref = self.r.refiner
        out = self.run / "ref"
        self._claim(out, weights_digest(self.base))
        if (out / "refiner.pt").is_file():
            self.log("ref: finished already")
            return out / "refiner.pt"
        ex = (self.r.lodo_set,)
        d = load_refiner_crops(generate_refiner_crops(self.cache, self.a.art_dir, self.base,
                                                      ref.scenes, "train", self.a.workers), ex)
        v = load_refiner_crops(generate_refiner_crops(self.cache, self.a.art_dir, self.base,
                                                      self.r.val_scenes, "val",
                                                      self.a.workers), ex)
        return train_refiner(d, v, out, steps=ref.steps, lr=ref.lr, seed=self.r.seed + 5,
                             log=self.log)

    # ------------------------------------------------------------ export
    def export_base(self, cls_dir: str = "cls") -> Path:
        """The chain's networks as ONNX files in the run directory (``self.base``)."""
        from training.ship.export import export_models, export_refiner, quantize_classifier
        st = self.r.localiser[-1]
        loc_ckpt = self.run / st.name / "localiser.pt"
        loc, cls = export_models(loc_ckpt, self.run / cls_dir / "classifier.pt",
                                 self.base.parent, self.a.name, loc_size=st.size,
                                 extra_cfg={"int8": self.r.export.int8, "tta": True,
                                            "tta_below": self.r.export.tta_below,
                                            "loc_threshold": 0.15})
        if (self.run / "ref" / "refiner.pt").is_file():
            export_refiner(self.run / "ref" / "refiner.pt", loc, self.r.refiner.passes)
        if self.r.export.int8:
            quantize_classifier(cls, self._calibration_crops(loc))
        self.log(f"exported {loc} and {cls}")
        return loc

    def _calibration_crops(self, loc_path: Path) -> np.ndarray:
        from training.data.cache import generate_localiser_crops, load_crops
        cut = load_crops(generate_localiser_crops(self.cache, self.a.art_dir, loc_path,
                                                  self.r.export.calib_scenes, "train",
                                                  self.a.workers))
        d, _ = self.data()
        crops = np.concatenate([cut["crops"], d["crops"][:2000]])
        rng = np.random.default_rng(self.r.seed)
        return crops[rng.choice(len(crops), min(512, len(crops)), replace=False)]

    # ------------------------------------------------------------ realistic
    def realistic(self, device: str = "auto") -> Path:
        """All three networks from the chain's export, together on realistic scenes;
        exported into the run directory (``realistic-model/``): the classifier and
        refiner that the lite localiser and the leave-one-deck-out model join."""
        import torch

        from training.stages.realistic import FinetuneConfig, NetSources, finetune
        sources = NetSources(self.run / self.r.localiser[-1].name / "localiser.pt",
                             self.run / self._last_classifier() / "classifier.pt",
                             self.run / "ref" / "refiner.pt")
        missing = sources.missing() + ([] if self.base.is_file() else [self.base])
        if missing:
            raise RecipeError(f"missing {', '.join(map(str, missing))}: run the earlier "
                              f"stages (python -m training all)")
        if device == "cpu" or (device == "auto" and not torch.cuda.is_available()):
            self.log("realistic stage on the CPU: expect it to run about 100x slower than "
                     "on a GPU for the same number of scenes")
        rc = self.r.realistic
        crop = rc.loc_crop or (0, 0)
        cfg = FinetuneConfig(steps=rc.steps, minutes=rc.minutes, batch=rc.batch,
                             replay=rc.replay, loc_crop_w=crop[0], loc_crop_h=crop[1], loc_lr=rc.loc_lr,
                             ref_lr=rc.ref_lr, cls_lr=rc.cls_lr, lodo_set=self.r.lodo_set,
                             seed=self.r.seed, workers=self.a.workers)
        finetune(sources, self.run / "realistic", self.a.art_dir, cfg, log=self.log,
                 device=device)
        return self.export_realistic()

    def export_realistic(self) -> Path:
        from training.ship.onnx_files import export_finetuned
        ft = self.run / "realistic" / "finetuned.pt"
        loc = export_finetuned(ft, self.base, self.chain.parent, self.a.name, self.a.art_dir)
        self.log(f"exported {loc}")
        return loc

    def train_lodo(self) -> Path:
        """The leave-one-deck-out classifier beside the shipped localiser and refiner
        (which never saw the held-out deck)."""
        from training.stages.lodo import export_lodo, train_lodo
        if not self._networks().is_file():
            raise RecipeError(f"no shipped model at {self.shipped}: run the earlier stages")
        ck = train_lodo(self.a.art_dir, self.run / "lodo", self.r.lodo, self.r.lodo_set,
                        seed=self.r.seed, workers=self.a.workers,
                        threads=self.a.threads, log=self.log)
        loc = export_lodo(ck, self._networks(), self.lodo.parent, self.a.art_dir,
                          name=f"{self.a.name}-lodo")
        self.log(f"exported {loc}")
        return loc

    # ------------------------------------------------------------ lite localiser
    def lite_loc(self, device: str = "auto") -> Path:
        """The localiser on ImageNet features, trained on streamed scenes (never the
        held-out deck), exported beside the shipped classifier and refiner, then tuned."""
        from training.stages.lite_loc import export_lite_loc, stream_config, train_lite_loc
        if not self._networks().is_file():
            raise RecipeError(f"no shipped model at {self.shipped} (its classifier and "
                              f"refiner go with the new localiser)")
        self._resume_campaign()
        ck = train_lite_loc(self.a.art_dir, self.run / "lite_loc", self.r.lite_localiser,
                            exclude_sets=(self.r.lodo_set,), log=self.log, device=device,
                            workers=self.a.workers, seed=self.r.seed,
                            photos_dir=self.a.photos_dir)
        cfg = self.r.lite_localiser
        stream = stream_config(self.a.art_dir, cfg, (self.r.lodo_set,), self.a.photos_dir)
        if cfg.average_from:
            ck = self._averaged(ck, cfg.average_from, stream)
        calibrate = stream if cfg.int8 else None
        loc = export_lite_loc(ck, self._networks(), self.candidate.parent, self.a.name,
                              calibrate=calibrate)
        self.log(f"exported {loc}")
        self.tune(loc, tag="lite-loc")
        return loc

    def _averaged(self, ck: Path, first_step: int, stream) -> Path:
        """The mean of the lite localiser's weights from ``first_step`` on."""
        from training.stages.lite_loc import averaged_weights, calibration_frames, weights_to_average
        paths = weights_to_average(self.run / "lite_loc", ck, first_step)
        if not paths:
            raise RecipeError(f"average_from = {first_step}: no weights kept from that step "
                              f"on in {self.run / 'lite_loc'}")
        frames = calibration_frames(stream, self.r.lite_localiser.average_frames,
                                    first_seed=920_000)
        out = averaged_weights(paths, frames,
                               self.run / "lite_loc" / "averaged.pt")
        self.log(f"averaged {len(paths)} weights ({', '.join(p.name for p in paths)})")
        cfg = self.r.lite_localiser
        if cfg.snapshot_every and len(paths) < len(range(first_step, cfg.steps + 1,
                                                         cfg.snapshot_every)):
            self.log("warning: some snapshots from that step on are not in this run "
                     "directory (a fresh machine keeps only the committed state): the mean "
                     "is of fewer weights than the recipe meant")
        return out

    def _networks(self) -> Path:
        """The localiser whose classifier and refiner a new localiser joins: the
        realistic stage's export when this run made one, else the shipped model."""
        return self.chain if self.chain.is_file() else self.shipped

    def _resume_campaign(self) -> None:
        """A run directory without the lite localiser's checkpoint starts from the
        committed campaign state (``keep``), when there is one: a fresh clone goes on.
        The state belongs to the shipped recipe: another recipe starts from ImageNet."""
        from training.stages.loop import checkpoint_step
        ck = self.run / "lite_loc" / "lite_loc.pt"
        ours = Path(self.a.recipe).resolve() == DEFAULT_RECIPE.resolve()
        if ours and not ck.is_file() and CAMPAIGN_STATE.is_file():
            ck.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(CAMPAIGN_STATE, ck)
            self.log(f"resuming the campaign from {CAMPAIGN_STATE.relative_to(REPO_ROOT)} "
                     f"at step {checkpoint_step(ck)}")

    def figures(self, loc_path: Path, tag: str, timed: bool = False):
        """A model's figures for the ship rule: the realistic test and the shift slice,
        the real photos' test part (and, when ``timed``, speed and size). The shipped
        model's come from its evaluation files where they exist."""
        from training.measure.compare import Figures
        out = self.models / "eval"
        names = ("eval-realistic-test.json", "eval-shift-test-shipped.json",
                 "photos-test-shipped.json")
        if tag == "shipped" and all((out / n).is_file() for n in names):
            r, sh, ph = (json.loads((out / n).read_text()) for n in names)
            return Figures(r, sh, ph)
        res = self.evaluate(False, loc_path, tag)
        ms = mib = shipped_ms = None
        if timed:
            beside = self.shipped if self.shipped.is_file() else None
            ms, shipped_ms = frame_ms(loc_path, self.a.threads, beside)
            mib = model_mib(loc_path)
        return Figures(res["realistic"], res["shift"], res["photos"], ms, mib, shipped_ms)

    def ship(self) -> bool:
        """The candidate (the lite localiser with the classifier and refiner beside it)
        replaces the shipped files only if it passes the ship rule; the decision and
        each failed figure go to the log and ``eval/ship-decision.json``
        (``training.ship.handover``)."""
        from training.ship.handover import ShipRecord
        if not self.candidate.is_file():
            raise RecipeError(f"no candidate at {self.candidate}: run python -m training "
                              f"lite-loc first")
        record = ShipRecord(self.models / "eval")
        new = self.figures(self.candidate, "lite-loc", timed=True)
        old = self.figures(self.shipped, "shipped") if self.shipped.is_file() else None
        decision = record.decide(old, new, str(self.candidate))
        if not decision["shipped"]:
            self.log("not shipped: " + "; ".join(decision["failed"]))
            return False
        for src in model_files(self.candidate):
            shutil.copyfile(src, self.models / src.name)
        record.hand_over(old, decision)
        self.log(f"shipped {self.candidate} into {self.models}")
        return True

    def keep(self) -> Path:
        """The lite localiser's checkpoint copied to ``CAMPAIGN_STATE`` (to commit), its
        optimiser's moments in bfloat16 (``training.stages.loop.compact_checkpoint``)."""
        from training.stages.loop import checkpoint_step, compact_checkpoint
        ck = self.run / "lite_loc" / "lite_loc.pt"
        if not ck.is_file():
            raise RecipeError(f"no lite localiser checkpoint at {ck}: nothing to keep")
        compact_checkpoint(ck, CAMPAIGN_STATE)
        self.log(f"kept step {checkpoint_step(ck)} in {CAMPAIGN_STATE} "
                 f"({CAMPAIGN_STATE.stat().st_size / 2**20:.1f} MiB): commit it")
        return CAMPAIGN_STATE

    def shift(self, loc_path: Path, tag: str) -> dict:
        """The domain-shift slice's figures for the localiser ``loc_path``."""
        from scorer.vision import Detector
        from training.data.shift import SHIFT_KINDS, shift_scene
        from training.measure.slices import evaluate_realistic
        res = evaluate_realistic(Detector(loc_path, threads=self.a.threads), self.a.art_dir,
                                 "shift_test", self.r.shift.per_kind, kinds=SHIFT_KINDS,
                                 out_dir=self.models / "eval", tag=f"shift-test-{tag}",
                                 scene=shift_scene)
        self.log(f"shift slice {tag}: {json.dumps(res['realistic_framing'])}")
        return res

    def photos(self, loc_path: Path, tag: str) -> dict:
        """False cards a photo on the real photographs' test part for ``loc_path``."""
        from scorer.vision import Detector
        from training.measure.photos import false_cards
        res = false_cards(Detector(loc_path, threads=self.a.threads), self.a.photos_dir,
                          out=self.models / "eval" / f"photos-test-{tag}.json")
        self.log(f"real photos {tag}: {res['false_cards_per_photo']} false cards a photo "
                 f"({res['photos']} photos)")
        return res

    def curve(self) -> dict:
        """The lite localiser's snapshots, each measured once (the campaign's curve)."""
        from training.measure.curve import update_curve
        return update_curve(self.run / "lite_loc" / "snapshots", self.shipped,
                            self.models / "eval" / "lite-loc-curve.json", self.a.art_dir,
                            self.a.photos_dir, self.a.per_kind, self.a.threads, self.log)

    def _model_arg(self) -> tuple[Path, str]:
        """The ``--model`` file (default: the shipped one) and its label."""
        path = Path(self.a.model) if getattr(self.a, "model", None) else self.shipped
        return path, getattr(self.a, "tag", None) or ("shipped" if path == self.shipped
                                                      else path.parent.name)

    # ------------------------------------------------------------ tune / evaluate
    def tune(self, loc_path: Path, sets=None, tag: str | None = None) -> dict:
        """Thresholds with the best realistic-framing F1 on validation scenes; with the
        guard, among those that keep every kind near the shipped model's
        (``training.stages.tuning``)."""
        from scorer.vision import Detector
        from training.ship.export import set_config
        from training.stages.tuning import choose, record_text, reference_figures, score_grid
        t = self.r.tune
        scenes = self._tuning_scenes(Detector(loc_path, threads=self.a.threads), sets)
        reference = None
        if t.guard and self.shipped.is_file() and Path(loc_path) != self.shipped:
            ref = Detector(self.shipped, threads=self.a.threads)
            reference = reference_figures(ref, self._tuning_scenes(ref, sets))
        grid = score_grid(scenes, t)
        choice = choose(grid, reference, t.guard, t.fallback_guard)
        best = choice.best
        out = self.models / "eval"
        out.mkdir(parents=True, exist_ok=True)
        (out / f"tune-val-{tag or loc_path.stem}.json").write_text(record_text(
            {"best": best, "guard": t.guard, "fallback_guard": t.fallback_guard,
             "reference": reference, "eligible": choice.eligible,
             "widened": choice.widened, "fallback": choice.fallback, "grid": grid}))
        large, large_cls = best["large_threshold"], best["large_cls_threshold"]
        cfg = set_config(loc_path, {"loc_threshold": best["loc_threshold"],
                                    "cls_threshold": best["cls_threshold"],
                                    "overlap_iou": best["overlap_iou"],
                                    "large_threshold": best["loc_threshold"] if large is None
                                    else large, "large_box": t.large_box,
                                    "large_cls_threshold": best["cls_threshold"]
                                    if large_cls is None else large_cls})
        if choice.widened:
            self.log(f"no threshold setting keeps every kind within {t.guard} of the "
                     f"shipped model's on validation: chose among those within "
                     f"{t.fallback_guard}")
        if choice.fallback:
            self.log(f"no threshold setting keeps every kind within "
                     f"{max(t.guard, t.fallback_guard)} of the shipped model's on "
                     f"validation: took the best pooled F1")
        self.log(f"tuned on realistic validation scenes: {json.dumps(best)}; "
                 f"config {json.dumps(cfg)}")
        return best

    def _tuning_scenes(self, det, sets=None) -> list:
        """The validation scenes' candidates (and the train photos', when tuning counts
        them) under ``det``, drawn at the grid's lowest localiser threshold."""
        from training.measure.slices import photo_candidates, realistic_candidates
        t = self.r.tune
        scenes = realistic_candidates(det, self.a.art_dir, "val", t.per_kind, sets=sets,
                                      loc_threshold=min(t.loc_grid))
        if t.photos:
            scenes += photo_candidates(det, self.a.photos_dir, min(t.loc_grid))
        return scenes

    def evaluate(self, lodo: bool = True, loc_path: Path | None = None,
                 tag: str = "shipped") -> dict:
        """The realistic test and the domain-shift slice (with ``lodo``, the held-out deck
        and the old random test too) for ``loc_path`` (default: the shipped model)."""
        from scorer.vision import Detector
        from training.measure.evaluate import evaluate
        from training.measure.slices import evaluate_realistic
        e = self.r.evaluate
        out = self.models / "eval"
        loc_path = loc_path or self.shipped
        det = Detector(loc_path, threads=self.a.threads)
        suffix = "" if tag == "shipped" else f"-{tag}"
        res = {"realistic": evaluate_realistic(det, self.a.art_dir, "test",
                                               e.realistic_per_kind, out_dir=out,
                                               tag=f"realistic-test{suffix}"),
               "shift": self.shift(loc_path, tag), "photos": self.photos(loc_path, tag)}
        if tag != "shipped":  # a candidate: the shipped model's other figures stand
            return res
        held = [self.r.lodo_set]
        if lodo and self.lodo.is_file():
            res["lodo"] = evaluate_realistic(Detector(self.lodo, threads=self.a.threads),
                                             self.a.art_dir, "lodo_test", e.lodo_per_kind,
                                             sets=held, out_dir=out, tag="realistic-lodo-hwatu")
        if lodo:  # the shipped model on the very same held-out deck's scenes
            res["all_decks_on_held_out"] = evaluate_realistic(
                det, self.a.art_dir, "lodo_test", e.lodo_per_kind, sets=held, out_dir=out,
                tag="realistic-all-decks-on-hwatu")
        res["old_test"] = evaluate(det, self.a.art_dir, "test", e.old_test_scenes,
                                   out_dir=out, tag="test")
        for k, v in res.items():
            self.log(f"evaluation {k}: {json.dumps(v)[:2000]}")
        return res

    def ceiling(self) -> dict:
        from scorer.vision import Detector
        from training.measure.evaluate import true_box_ceiling
        res = true_box_ceiling(Detector(self.shipped, threads=self.a.threads),
                               self.a.art_dir, "val", self.r.val_scenes)
        (self.models / "eval").mkdir(parents=True, exist_ok=True)
        (self.models / "eval" / "ceiling-val.json").write_text(json.dumps(res, indent=2) + "\n")
        self.log("true boxes: " + json.dumps(res))
        return res

    # ------------------------------------------------------------ commands
    def stages(self) -> dict:
        """Each command's work, in recipe order; ``all`` runs the training stages
        (``ALL``) in this order, then the evaluation."""
        a = self.a
        return {
            "cache": self.data,
            "train-loc": self.train_loc,
            "train-cls": self.train_cls,
            "base": self.export_base,
            "train-ref": lambda: (self.train_ref(), self.export_base(self._last_classifier())),
            "rounds": lambda: self.export_base(self.rounds()),
            "realistic": lambda: self.tune(self.realistic(a.device)) if a.command == "all"
            else self.realistic(a.device),
            "lodo": lambda: self.tune(self.train_lodo(), sets=self._not_held_out()),
            "lite-loc": lambda: self.lite_loc(a.device),
            "shift": lambda: self.shift(*self._model_arg()),
            "photos": lambda: self.photos(*self._model_arg()),
            "curve": self.curve,
            "keep": self.keep,
            "ship": self.ship,
            "tune": self._tune_command,
            "evaluate": lambda: self.evaluate(not a.no_lodo, *self._model_arg()),
            "ceiling": self.ceiling,
        }

    ALL = ("train-loc", "train-cls", "base", "train-ref", "rounds", "realistic", "lodo",
           "lite-loc", "ship", "evaluate")

    def command(self, cmd: str) -> None:
        stages = self.stages()
        for name in (self.ALL if cmd == "all" else (cmd,)):
            stages[name]()

    def _tune_command(self) -> None:
        path, tag = self._model_arg()
        self.tune(path, tag=None if path == self.shipped else tag)

    def _not_held_out(self) -> list[str]:
        from training.data.scenes import ART_SETS
        return [s for s in ART_SETS if s != self.r.lodo_set]

    def _last_classifier(self) -> str:
        done = [r.name for r in self.r.classifier_rounds
                if (self.run / r.name / "classifier.pt").is_file()]
        return done[-1] if done else "cls"


def model_files(loc_path: Path) -> list[Path]:
    """The localiser file and the classifier and refiner its metadata names."""
    from training.ship.onnx_files import onnx_config
    cfg = onnx_config(loc_path)
    return [loc_path] + [loc_path.parent / cfg[k] for k in ("classifier", "refiner")
                         if cfg.get(k)]


def model_mib(loc_path: Path) -> float:
    return sum(p.stat().st_size for p in model_files(loc_path)) / 2**20


def frame_ms(loc_path: Path, threads: int, beside: Path | None = None,
             frames: int = 40) -> tuple[float, float | None]:
    """The median milliseconds to decode and detect a 640x480 benchmark frame
    (``training.measure.timing``, as ``bench_detect`` times it) with ``loc_path``, and with
    ``beside`` (the shipped model) timed alternating on the same frames, when given."""
    from training.measure.timing import WARM_UP, alternating_ms, table_frames
    from scorer.vision import Detector
    paths = [loc_path] + ([beside] if beside is not None else [])
    times = alternating_ms([Detector(p, threads=threads) for p in paths],
                           table_frames(frames + WARM_UP))
    medians = [float(np.median(t)) for t in times]
    return medians[0], (medians[1] if beside is not None else None)


def main(argv=None) -> int:
    a = _parser().parse_args(argv)
    try:
        recipe = load_recipe(a.recipe)
    except RecipeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import torch
    torch.set_num_threads(a.threads)
    from scorer.errors import InputError
    from training.data.real_photos import PhotosUnavailable
    from training.data.shift import ShiftUnavailable
    pipe = Pipeline(a, recipe)
    pipe.log(f"command: python -m training {' '.join(argv if argv is not None else sys.argv[1:])}")
    try:
        pipe.command(a.command)
    except (InputError, RecipeError, FileNotFoundError, ShiftUnavailable,
            PhotosUnavailable) as e:
        # a missing model, art or sample photographs
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
