"""The first stages, on cached random scenes: the localiser stages, the classifier, the
box refiner and the classifier rounds, each exported into ``base-model/``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from training.pipeline.context import Run


def data(run: Run, size=None, n=None) -> tuple[dict, dict]:
    """(train, val) cached scenes at ``size`` (the first stage's by default: that one is
    loaded once and kept, since the classifier, its rounds and each export use it)."""
    from training.data.cache import LOC_H, LOC_W, generate_cache, load_cache
    size = tuple(size or (LOC_W, LOC_H))
    n = n or run.recipe.train_scenes
    base = size == (LOC_W, LOC_H) and n == run.recipe.train_scenes
    if base and "base" in run.loaded:
        return run.loaded["base"]
    train = generate_cache(run.cache, run.art_dir, n, "train", run.workers, size)
    val = generate_cache(run.cache, run.art_dir, run.recipe.val_scenes, "val", run.workers, size)
    loaded = load_cache(train), load_cache(val)
    if base:
        run.loaded["base"] = loaded
    return loaded


def train_loc(run: Run) -> Path:
    """Each localiser stage from the last one's weights. The localiser never sees the
    held-out deck, so it serves the leave-one-deck-out model too."""
    from training.stages.localiser import train_localiser
    r, path = run.recipe, None
    for k, st in enumerate(r.localiser):
        d, v = data(run, st.size, st.scenes)
        path = train_localiser(d, v, run.run_dir / st.name, steps=st.steps, batch=st.batch,
                               lr=st.lr, seed=r.seed + (2 + k if k else 0),
                               exclude_sets=(r.lodo_set,), threads=run.threads,
                               eval_every=max(min(400, st.steps), 1), log=run.log,
                               cycles=st.cycles, init=path, crop=st.crop)
        del d, v
    return path


def train_cls(run: Run) -> Path:
    """The classifier on jittered true-box crops."""
    from training.stages.classifier import train_classifier
    c = run.recipe.classifier
    d, v = data(run)
    return train_classifier(d, v, run.run_dir / "cls", arch=c.arch, steps=c.steps,
                            batch=c.batch, lr=c.lr, seed=run.recipe.seed, threads=run.threads,
                            eval_every=max(min(500, c.steps), 1), log=run.log)


def rounds(run: Run) -> str:
    """Every classifier round, each from the last one's weights, on crops cut where the
    exported localiser (and, for refined rounds, its refiner) puts its boxes; the run
    sub-directory of the last classifier. A finished round is skipped before any crops
    load."""
    from training.data.cache import (detector_digest, generate_localiser_crops, load_crops,
                                     weights_digest)
    from training.stages.classifier import finished, train_classifier
    r = run.recipe
    base, arch = "cls", r.classifier.arch
    d = None
    vcrops: dict = {}
    for k, rnd in enumerate(r.classifier_rounds):
        if rnd.grow:
            arch = f"{arch}-x{rnd.grow}"
        digest = detector_digest(run.base) if rnd.refined else weights_digest(run.base)
        out = run.run_dir / rnd.name
        stamp = out / "localiser-digest.txt"
        if stamp.is_file() and stamp.read_text() == digest and finished(out, rnd.steps):
            run.log(f"{rnd.name}: finished already")
            base = rnd.name
            continue
        if d is None:
            d, _ = data(run)
        if rnd.refined not in vcrops:
            vcrops[rnd.refined] = load_crops(generate_localiser_crops(
                run.cache, run.art_dir, run.base, r.val_scenes, "val", run.workers, rnd.refined))
        run.claim(out, digest)
        extra = load_crops(generate_localiser_crops(run.cache, run.art_dir, run.base,
                                                    rnd.scenes, "train", run.workers,
                                                    rnd.refined))
        train_classifier(d, vcrops[rnd.refined], out, arch=arch, steps=rnd.steps,
                         batch=r.classifier.batch, lr=rnd.lr, seed=r.seed + 1 + 10 * k,
                         threads=run.threads, eval_every=max(min(500, rnd.steps), 1),
                         log=run.log, extra_crops=extra,
                         init=run.run_dir / base / "classifier.pt")
        base = rnd.name
    return base


def train_ref(run: Run) -> Path:
    """The box refiner on the boxes the exported localiser finds (with no refiner);
    never on the held-out deck."""
    from training.data.cache import weights_digest
    from training.stages.refiner import generate_refiner_crops, load_refiner_crops, train_refiner
    ref, r = run.recipe.refiner, run.recipe
    out = run.run_dir / "ref"
    run.claim(out, weights_digest(run.base))
    if (out / "refiner.pt").is_file():
        run.log("ref: finished already")
        return out / "refiner.pt"
    ex = (r.lodo_set,)
    d = load_refiner_crops(generate_refiner_crops(run.cache, run.art_dir, run.base,
                                                  ref.scenes, "train", run.workers), ex)
    v = load_refiner_crops(generate_refiner_crops(run.cache, run.art_dir, run.base,
                                                  r.val_scenes, "val", run.workers), ex)
    return train_refiner(d, v, out, steps=ref.steps, lr=ref.lr, seed=r.seed + 5, log=run.log)


def export_base(run: Run, cls_dir: str = "cls") -> Path:
    """The chain's networks as ONNX files in the run directory (``run.base``)."""
    from training.ship.export import export_models, export_refiner, quantize_classifier
    r = run.recipe
    st = r.localiser[-1]
    loc, cls = export_models(run.run_dir / st.name / "localiser.pt",
                             run.run_dir / cls_dir / "classifier.pt", run.base.parent, run.name,
                             loc_size=st.size,
                             extra_cfg={"int8": r.export.int8, "tta": True,
                                        "tta_below": r.export.tta_below, "loc_threshold": 0.15})
    if (run.run_dir / "ref" / "refiner.pt").is_file():
        export_refiner(run.run_dir / "ref" / "refiner.pt", loc, r.refiner.passes)
    if r.export.int8:
        quantize_classifier(cls, calibration_crops(run, loc))
    run.record_lineage(loc)
    run.log(f"exported {loc} and {cls}")
    return loc


def calibration_crops(run: Run, loc_path: Path) -> np.ndarray:
    """512 crops for the int8 classifier's calibration: cut where ``loc_path`` puts its
    boxes, and true-box crops."""
    from training.data.cache import generate_localiser_crops, load_crops
    cut = load_crops(generate_localiser_crops(run.cache, run.art_dir, loc_path,
                                              run.recipe.export.calib_scenes, "train",
                                              run.workers))
    d, _ = data(run)
    crops = np.concatenate([cut["crops"], d["crops"][:2000]])
    rng = np.random.default_rng(run.recipe.seed)
    return crops[rng.choice(len(crops), min(512, len(crops)), replace=False)]
