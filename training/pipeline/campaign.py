"""The later stages, on streamed scenes: all three networks together on realistic
scenes, the leave-one-deck-out classifier, and the lite localiser's campaign with its
committed, resumable state."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
import zlib
from pathlib import Path

from training import REPO_ROOT
from training.pipeline import judge
from training.pipeline.context import Run
from training.recipe import DEFAULT_RECIPE, RecipeError

# the campaign's resumable state (weights, optimiser, step, random states), committed
CAMPAIGN_STATE = REPO_ROOT / "training" / "campaign" / "lite-loc.pt"
# the recipe the shipped localiser was made by, and the state it is exported from: the
# campaign state at step 52000 (the end of piece 17), the same bytes kept in the tree so
# that a clone without that history (--depth) rebuilds it too
SHIPPED_RECIPE = REPO_ROOT / "training" / "shipped.toml"
SHIPPED_START = REPO_ROOT / "training" / "campaign" / "shipped-start.pt"
KEEP_EVERY_S = 3600  # the state is committed at most once an hour
# the history budget: a fresh clone's pack may grow to this with a kept state, no further
# (issue 51: 108.9 MiB, 70% of it versions of the state, when the budget was set)
PACK_BUDGET = 120 * 2**20


def realistic(run: Run, device: str = "auto") -> Path:
    """All three networks from the chain's export, together on realistic scenes;
    exported into ``realistic-model/``: the classifier and refiner that the lite
    localiser and the leave-one-deck-out model join."""
    import torch

    from training.stages.realistic import FinetuneConfig, NetSources, finetune
    r = run.recipe
    sources = NetSources(run.run_dir / r.localiser[-1].name / "localiser.pt",
                         run.run_dir / run.last_classifier() / "classifier.pt",
                         run.run_dir / "ref" / "refiner.pt")
    missing = sources.missing() + ([] if run.base.is_file() else [run.base])
    if missing:
        raise RecipeError(f"missing {', '.join(map(str, missing))}: run the earlier "
                          f"stages (python -m training all)")
    if device == "cpu" or (device == "auto" and not torch.cuda.is_available()):
        run.log("realistic stage on the CPU: expect it to run about 100x slower than on a "
                "GPU for the same number of scenes")
    rc = r.realistic
    crop = rc.loc_crop or (0, 0)
    cfg = FinetuneConfig(steps=rc.steps, minutes=rc.minutes, batch=rc.batch, replay=rc.replay,
                         loc_crop_w=crop[0], loc_crop_h=crop[1], loc_lr=rc.loc_lr,
                         ref_lr=rc.ref_lr, cls_lr=rc.cls_lr, lodo_set=r.lodo_set, seed=r.seed,
                         workers=run.workers)
    finetune(sources, run.run_dir / "realistic", run.art_dir, cfg, log=run.log, device=device)
    return export_realistic(run)


def export_realistic(run: Run) -> Path:
    from training.ship.finetuned import export_finetuned
    loc = export_finetuned(run.run_dir / "realistic" / "finetuned.pt", run.base,
                           run.chain.parent, run.name, run.art_dir)
    run.record_lineage(loc)
    run.log(f"exported {loc}")
    return loc


def train_lodo(run: Run) -> Path:
    """The leave-one-deck-out classifier beside the shipped localiser and refiner (which
    never saw the held-out deck)."""
    from training.ship.finetuned import export_lodo
    from training.stages.lodo import train_lodo as train
    if not run.networks().is_file():
        raise RecipeError(f"no shipped model at {run.shipped}: run the earlier stages")
    r = run.recipe
    ck = train(run.art_dir, run.run_dir / "lodo", r.lodo, r.lodo_set, seed=r.seed,
               workers=run.workers, threads=run.threads, log=run.log)
    loc = export_lodo(ck, run.networks(), run.lodo.parent, run.art_dir,
                      name=f"{run.name}-lodo")
    run.record_lineage(loc)
    run.log(f"exported {loc}")
    return loc


def lite_loc(run: Run, device: str = "auto", train_only: bool = False,
             stop_after_min: float = 0.0) -> Path:
    """The localiser on ImageNet features, trained on streamed scenes (never the held-out
    deck), exported beside the shipped classifier and refiner (``run.candidate``), then
    tuned. ``train_only`` (a lent machine that trains and brings the checkpoint back) or a
    piece stopped by ``stop_after_min`` before its last step: the checkpoint, not exported."""
    from training.nets.checkpoint import checkpoint_step
    from training.ship.export import export_lite_loc
    from training.stages.lite_loc import stream_config, train_lite_loc
    if not run.networks().is_file() and not train_only:
        raise RecipeError(f"no shipped model at {run.shipped} (its classifier and refiner "
                          f"go with the new localiser)")
    resume_campaign(run)
    r, cfg = run.recipe, run.recipe.lite_localiser
    ck = train_lite_loc(run.art_dir, run.run_dir / "lite_loc", cfg, exclude_sets=(r.lodo_set,),
                        log=run.log, device=device, workers=run.workers, seed=r.seed,
                        photos_dir=run.photos_dir, stop_after_s=stop_after_min * 60)
    reached = checkpoint_step(ck)
    if train_only or reached < cfg.steps:
        run.log(f"trained to step {reached} of {cfg.steps} in {ck}: not exported"
                + ("" if train_only else " (run the same command again to go on)"))
        return ck
    stream = stream_config(run.art_dir, cfg, (r.lodo_set,), run.photos_dir)
    if cfg.average_from:
        ck = averaged(run, ck, cfg.average_from, stream)
    loc = export_lite_loc(ck, run.networks(), run.candidate.parent, run.name,
                          calibrate=stream if cfg.int8 else None)
    run.record_lineage(loc, reached, cfg.average_from)
    run.log(f"exported {loc}")
    judge.tune(run, loc)
    return loc


def requantize(run: Run) -> Path:
    """The shipped model with 7-bit int8 weights (``reduce_range``: onnxruntime's fast int8
    products then cannot saturate on an x86 CPU without VNNI), as a candidate in the run's
    ``q7-model/``, nothing trained: the localiser as ``lite-loc`` exports it under
    ``training/shipped.toml`` (``SHIPPED_START``, calibrated on the same frames of its
    stream), the classifier from its torch weights (``training/campaign/classifier.pt``)
    with the shipped file's activation ranges (its calibration: the round's boxes), the
    float refiner copied; every setting and each file's lineage kept, the settings
    declaring ``int8_weight_bits`` 7. Measure it beside the shipped model, then ship."""
    from training.pipeline.rounds import CLASSIFIER_STATE
    from training.ship import lineage
    from training.ship.export import (export_lite_loc, onnx_config, requantize_classifier,
                                      set_config)
    from training.stages.lite_loc import stream_config
    if Path(run.recipe_path).resolve() != SHIPPED_RECIPE.resolve():
        raise RecipeError(f"requantize exports the shipped localiser: --recipe "
                          f"{SHIPPED_RECIPE.relative_to(REPO_ROOT)}")
    r, cfg = run.recipe, run.recipe.lite_localiser
    stream = stream_config(run.art_dir, cfg, (r.lodo_set,), run.photos_dir)
    loc = export_lite_loc(SHIPPED_START, run.shipped, run.model("q7-model").parent, run.name,
                          calibrate=stream, reduce_range=True)
    requantize_classifier(CLASSIFIER_STATE, loc.parent / onnx_config(loc)["classifier"])
    set_config(loc, {"int8_weight_bits": 7})
    kept = lineage.read(run.shipped)
    if kept is not None:
        lineage.stamp([loc], lineage.Lineage(**kept))
    run.log(f"exported {loc} with 7-bit int8 weights")
    return loc


def fit_pairs(run: Run) -> Path:
    """The shipped model with int8 weights that onnxruntime's fast products multiply
    exactly on every x86 CPU (``training.ship.fast_int8``), as a candidate in the run's
    ``pairs-model/``, nothing trained: each int8 layer of the localiser and the classifier
    is rounded anew towards its own shipped weights (int8 x scale: the tuned thresholds
    read the shipped networks' scores, not their float weights'), on the localiser's
    calibration frames (``lite-loc``'s export: 64 of its stream) and 512 classifier crops
    of training scenes; scales move only where a channel's pairs need it, activation
    ranges and the float refiner stay, the settings declare ``int8_pairs_fit``. Measure it
    beside the shipped model (``ship``)."""
    import onnx

    from scorer.vision.stages import as_input
    from training.ship.export import onnx_config, set_config
    from training.ship.fast_int8 import dequantized_weights, refit
    from training.ship.finetuned import calibration_crops
    from training.stages.lite_loc import calibration_frames, stream_config
    if Path(run.recipe_path).resolve() != SHIPPED_RECIPE.resolve():
        raise RecipeError(f"fit-pairs calibrates on the shipped localiser's stream: --recipe "
                          f"{SHIPPED_RECIPE.relative_to(REPO_ROOT)}")
    loc = judge.candidate_copy(run, run.shipped, run.model("pairs-model"), made_here=False)
    cfg = onnx_config(loc)
    r = run.recipe
    frames = as_input(calibration_frames(stream_config(run.art_dir, r.lite_localiser,
                                                       (r.lodo_set,), run.photos_dir)))
    crops = as_input(calibration_crops(run.art_dir))
    for path, feeds in ((loc, [{"image": frames[i:i + 1]} for i in range(len(frames))]),
                        (loc.parent / cfg["classifier"],
                         [{"crops": crops[i:i + 16]} for i in range(0, len(crops), 16)])):
        report = refit(path, dequantized_weights(onnx.load(str(path))), feeds)
        before, after = (sum(v[k] for v in report.values()) for k in (0, 1))
        run.log(f"{path.name}: {len(report)} int8 layers refit, pairs past the 16-bit "
                f"bound {before} -> {after}")
        if after:
            raise RuntimeError(f"{path.name}: {after} pairs still past the bound")
    set_config(loc, {"int8_pairs_fit": True})
    run.log(f"exported {loc} with int8 weights whose pairs fit (refit, nothing trained)")
    return loc


def averaged(run: Run, ck: Path, first_step: int, stream) -> Path:
    """The mean of the lite localiser's weights from ``first_step`` on."""
    from training.stages.lite_loc import averaged_weights, calibration_frames, weights_to_average
    cfg = run.recipe.lite_localiser
    paths = weights_to_average(run.run_dir / "lite_loc", ck, first_step)
    if not paths:
        raise RecipeError(f"average_from = {first_step}: no weights kept from that step on "
                          f"in {run.run_dir / 'lite_loc'}")
    frames = (calibration_frames(stream, cfg.average_frames, first_seed=920_000)
              if cfg.average_frames else None)
    out = averaged_weights(paths, frames, run.run_dir / "lite_loc" / "averaged.pt")
    run.log(f"averaged {len(paths)} weights ({', '.join(p.name for p in paths)})")
    if cfg.snapshot_every and len(paths) < len(range(first_step, cfg.steps + 1,
                                                     cfg.snapshot_every)):
        run.log("warning: some snapshots from that step on are not in this run directory "
                "(a fresh machine keeps only the committed state): the mean is of fewer "
                "weights than the recipe meant")
    return out


def resume_campaign(run: Run) -> None:
    """A run directory without the lite localiser's checkpoint starts from the committed
    campaign state (``keep``), when there is one: a fresh clone goes on. The state
    belongs to the repository's recipe; the shipped model's recipe (``SHIPPED_RECIPE``)
    starts from the state its training went on from (``SHIPPED_START``: the rebuild);
    another recipe starts from ImageNet."""
    from training.nets.checkpoint import checkpoint_step
    ck = run.run_dir / "lite_loc" / "lite_loc.pt"
    if ck.is_file() and ck.stat().st_size == 0:
        raise RecipeError(f"{ck} is empty (a git show that found no such commit, as in a "
                          f"shallow clone?): remove it and run again")
    recipe = Path(run.recipe_path).resolve()
    start = {DEFAULT_RECIPE.resolve(): CAMPAIGN_STATE,
             SHIPPED_RECIPE.resolve(): SHIPPED_START}.get(recipe)
    if start is not None and not ck.is_file() and start.is_file():
        ck.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(start, ck)
        run.log(f"resuming the campaign from {start.relative_to(REPO_ROOT)} at "
                f"step {checkpoint_step(ck)}")


def last_kept(path: Path = CAMPAIGN_STATE) -> float | None:
    """When ``path`` was last committed (Unix time), None if never or outside git."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct", "--", str(path)],
                             cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return float(out) if out.strip() else None


def pack_size(repo: Path | None = None) -> int | None:
    """The bytes a fresh clone of ``repo`` (default ``REPO_ROOT``) packs its history into:
    ``git clone --no-local --bare`` into a temporary folder, then ``git count-objects``'s
    size-pack; None outside git or when git fails."""
    repo = REPO_ROOT if repo is None else repo
    with tempfile.TemporaryDirectory(prefix="pack-size-") as tmp:
        try:
            subprocess.run(["git", "clone", "-q", "--no-local", "--bare", str(repo),
                            str(Path(tmp) / "clone")], capture_output=True, check=True)
            out = subprocess.run(["git", "count-objects", "-v"], cwd=Path(tmp) / "clone",
                                 capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            return None
    kib = {k: v.strip() for k, _, v in (line.partition(":") for line in out.splitlines())}
    return (int(kib.get("size-pack", 0)) + int(kib.get("size", 0))) * 1024


def packed_size(path: Path) -> int:
    """About the bytes ``path`` adds to the pack when committed: its zlib-compressed size
    (a new state shares nothing a delta could reuse with the last one)."""
    return len(zlib.compress(path.read_bytes(), 6))


def check_budget(state: Path, budget: int | None = None) -> None:
    """RecipeError (one line, saying what to do) when committing ``state`` would take a
    fresh clone's pack past ``budget`` (default ``PACK_BUDGET``); nothing to check
    outside git."""
    budget = PACK_BUDGET if budget is None else budget
    now = pack_size()
    if now is None:
        return
    after = now + packed_size(state)
    if after > budget:
        raise RecipeError(
            f"committing this campaign state would take a fresh clone's pack from "
            f"{now / 2**20:.1f} to {after / 2**20:.1f} MiB, past the {budget / 2**20:.0f} MiB "
            f"history budget: keep the state outside the repository (copy "
            f"{state.name} from the run directory's lite_loc/ to your own storage) or squash "
            f"the history of {CAMPAIGN_STATE.relative_to(REPO_ROOT)} first")


def keep(run: Run, force: bool = False) -> Path:
    """The lite localiser's checkpoint copied to ``CAMPAIGN_STATE`` (to commit), in half
    precision (``training.nets.checkpoint.compact``). Refused within an hour of the last
    commit of the state (the repository's history grows by each commit), unless
    ``force``; refused always when committing it would take a fresh clone's pack past
    ``PACK_BUDGET`` (``check_budget``; the state is then left as it was)."""
    from training.nets.checkpoint import checkpoint_step, compact
    ck = run.run_dir / "lite_loc" / "lite_loc.pt"
    if not ck.is_file():
        raise RecipeError(f"no lite localiser checkpoint at {ck}: nothing to keep")
    last = last_kept()
    if not force and last is not None and time.time() - last < KEEP_EVERY_S:
        minutes = (KEEP_EVERY_S - (time.time() - last)) / 60
        raise RecipeError(f"the campaign state was committed less than an hour ago: keep it "
                          f"again in {minutes:.0f} minutes (--force to keep it now)")
    staged = compact(ck, CAMPAIGN_STATE.with_name(CAMPAIGN_STATE.name + ".new"))
    try:
        check_budget(staged)
        staged.replace(CAMPAIGN_STATE)
    finally:
        staged.unlink(missing_ok=True)
    run.log(f"kept step {checkpoint_step(ck)} in {CAMPAIGN_STATE} "
            f"({CAMPAIGN_STATE.stat().st_size / 2**20:.1f} MiB): commit it")
    return CAMPAIGN_STATE
