"""Judging a model: the realistic test, the domain-shift slice, the real photos, the
campaign's curve, the thresholds tuned on validation scenes, and the ship rule's
figures. Every figure goes to the run's ``eval/``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from scorer.errors import InputError
from training.measure.compare import Figures, box_share, has_card_hits
from training.pipeline.context import Run

# the shipped model's records in models/eval, read instead of measured again
SHIPPED_RECORDS = ("eval-realistic-test.json", "eval-shift-test-shipped.json",
                   "photos-test-shipped.json")
PHOTO_FRAMINGS = 4  # other framings of each test photo (``framings``)


def shift(run: Run, loc_path: Path, tag: str) -> dict:
    """The domain-shift slice's figures for the localiser ``loc_path``."""
    from scorer.vision import Detector
    from training.data.shift import SHIFT_KINDS, shift_scene
    from training.measure.slices import evaluate_realistic
    res = evaluate_realistic(Detector(loc_path, threads=run.threads), run.art_dir,
                             "shift_test", run.recipe.shift.per_kind, kinds=SHIFT_KINDS,
                             out_dir=run.eval_dir, tag=f"shift-test-{tag}", scene=shift_scene)
    run.log(f"shift slice {tag}: {json.dumps(res['realistic_framing'])}")
    return res


def photos(run: Run, loc_path: Path, tag: str) -> dict:
    """False cards a photo on the real photographs' test part for ``loc_path``."""
    from scorer.vision import Detector
    from training.measure.photos import false_cards
    res = false_cards(Detector(loc_path, threads=run.threads), run.photos_dir,
                      out=run.eval_dir / f"photos-test-{tag}.json")
    run.log(f"real photos {tag}: {res['false_cards_per_photo']} false cards a photo "
            f"({res['photos']} photos)")
    return res


def framings(run: Run, loc_path: Path, tag: str) -> dict:
    """False cards a framing on the real photographs' test part, each photo read in
    PHOTO_FRAMINGS other framings a camera could give it (closer, 4:3, turned), for
    ``loc_path``: a figure beside the rule's, nearer a webcam's frames of playing cards."""
    from scorer.vision import Detector
    from training.measure.photos import false_cards
    res = false_cards(Detector(loc_path, threads=run.threads), run.photos_dir,
                      out=run.eval_dir / f"framings-test-{tag}.json", framings=PHOTO_FRAMINGS)
    run.log(f"real photos in other framings {tag}: {res['false_cards_per_photo']} false "
            f"cards a framing ({res['photos']} photos, {PHOTO_FRAMINGS} framings each)")
    return res


def western(run: Run, loc_path: Path, tag: str) -> dict:
    """False cards a scene on Western playing cards' test scenes for ``loc_path``."""
    from scorer.vision import Detector
    from training.measure.western import western_false_cards
    res = western_false_cards(Detector(loc_path, threads=run.threads), run.art_dir,
                              run.recipe.evaluate.western_per_kind,
                              out=run.eval_dir / f"western-test-{tag}.json")
    run.log(f"western cards {tag}: {res['false_cards_per_scene']} false cards a scene "
            f"({json.dumps(res['kinds'])})")
    return res


def curve(run: Run, per_kind: int) -> dict:
    """The lite localiser's snapshots, each measured once (the campaign's curve)."""
    from training.pipeline.curve import update_curve
    return update_curve(run.run_dir / "lite_loc" / "snapshots", run.shipped,
                        run.eval_dir / "lite-loc-curve.json", run.art_dir, run.photos_dir,
                        per_kind, run.threads, run.log)


def candidate_copy(run: Run, loc_path: Path, dst: Path, made_here: bool = True) -> Path:
    """``loc_path``'s model files copied beside ``dst`` (a candidate to tune, gate or
    give a new classifier): the localiser keeps the lineage of the campaign that made
    it; with ``made_here`` (a new classifier is made in this run) the classifier file
    records this run's, else (a model only tuned here) it keeps its own."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    files = model_files(loc_path)
    for src in files:
        shutil.copyfile(src, dst.parent / src.name)
    if made_here and len(files) > 1:
        run.record_lineage(dst.parent / files[1].name)
    return dst.parent / loc_path.name


def fitted_map(run: Run, loc_path: Path, scenes: list) -> dict | None:
    """The reported confidence's map (``scorer.vision.confidence``) for ``loc_path`` as
    its metadata now picks the cards, fitted on the stand-in's ``scenes``; None (no map)
    when they hold no card."""
    from scorer.vision import Detector
    from training.measure.calibration import expected_calibration_error, fit_confidence_map
    from training.stages.tuning import reported_cards
    conf, right = reported_cards(Detector(loc_path, threads=run.threads), scenes)
    if not conf:
        run.log("no card picked on the stand-in: the reported confidence stays the "
                "classifier's")
        return None
    fitted = fit_confidence_map(conf, right)
    if fitted is None:
        run.log(f"the {len(conf)} cards picked on the stand-in give no rising curve: the "
                f"reported confidence stays the classifier's")
        return None
    before = expected_calibration_error(conf, right)["ece"]
    after = expected_calibration_error(fitted(np.asarray(conf)), right)["ece"]
    run.log(f"reported confidence fitted on {len(conf)} cards of the stand-in "
            f"(ECE there {before} -> {after}): {json.dumps(fitted.to_config())}")
    return fitted.to_config()


def tune(run: Run, loc_path: Path, sets=None, tag: str | None = None) -> dict:
    """Thresholds with the best realistic-framing F1 on validation scenes written into
    ``loc_path``'s metadata; with the guard, among those that keep every kind near the
    shipped model's (``training.stages.tuning``). The shipped model itself is never
    rewritten: a model outside the run directory (the shipped one, or one in another
    checkout's ``models/``) is copied to ``tuned-model/`` and the copy is tuned."""
    from scorer.vision import Detector
    from training.ship.export import set_config
    from training.stages.tuning import (choose, choose_or_off, record_text,
                                        reference_figures, score_beside, score_checks,
                                        score_grid)
    if not Path(loc_path).is_file():
        raise InputError(f"model file not found: {loc_path}")
    if not Path(loc_path).resolve().is_relative_to(run.run_dir.resolve()):
        loc_path = candidate_copy(run, loc_path, run.model("tuned-model"), made_here=False)
        run.log(f"tuning a copy of a model outside the run directory: {loc_path}")
    t = run.recipe.tune
    zoom = {"pad": t.zoom_out} if t.zoom_out else None
    set_config(loc_path, {"zoom_out": zoom})  # the candidates are read as detect reads them
    scenes = tuning_scenes(run, Detector(loc_path, threads=run.threads), sets)
    # the shipped model's figures at each stage: its thresholds alone (what the grid's
    # points are), then with its card checks, then with its beside rule too
    plain = with_checks = reference = None
    if t.guard and run.shipped.is_file():
        ref = Detector(run.shipped, threads=run.threads)
        ref_scenes = tuning_scenes(run, ref, sets)
        plain, with_checks, reference = (
            reference_figures(ref, ref_scenes, checks=c, beside=b)
            for c, b in ((False, False), (True, False), (True, True)))
    grid = score_grid(scenes, t)
    choice = choose(grid, plain, t.guard, t.fallback_guard)
    best = choice.best
    checks = score_checks(scenes, best, t)
    picked = choose_or_off(checks, with_checks, t)  # a check stays off unless it helps
    besides = score_beside(scenes, best, picked["card_checks"], t)
    beside = choose_or_off(besides, reference, t)  # so does the beside rule
    run.eval_dir.mkdir(parents=True, exist_ok=True)
    (run.eval_dir / f"tune-val-{tag or loc_path.parent.name}.json").write_text(record_text(
        {"best": best, "guard": t.guard, "fallback_guard": t.fallback_guard,
         "reference": reference, "eligible": choice.eligible, "widened": choice.widened,
         "fallback": choice.fallback, "card_checks": picked["card_checks"],
         "beside": beside["beside"], "checks": checks, "besides": besides, "grid": grid}))
    large, large_cls = best["large_threshold"], best["large_cls_threshold"]
    cfg = set_config(loc_path, {
        "loc_threshold": best["loc_threshold"], "cls_threshold": best["cls_threshold"],
        "overlap_iou": best["overlap_iou"], "large_box": t.large_box,
        "large_threshold": best["loc_threshold"] if large is None else large,
        "large_cls_threshold": best["cls_threshold"] if large_cls is None else large_cls,
        "card_checks": picked["card_checks"], "beside": beside["beside"]})
    # always written: a copy keeps no map fitted for another model's picks
    cfg = set_config(loc_path, {"confidence_map": fitted_map(run, loc_path, scenes)
                                if t.confidence_map else None})
    if choice.widened:
        run.log(f"no threshold setting keeps every kind within {t.guard} of the shipped "
                f"model's on validation: chose among those within {t.fallback_guard}")
    if choice.fallback:
        run.log(f"no threshold setting keeps every kind within "
                f"{max(t.guard, t.fallback_guard)} of the shipped model's on validation: "
                f"took the setting whose worst kind falls least below the shipped model's")
    run.log(f"tuned {loc_path} on realistic validation scenes: {json.dumps(best)}; "
            f"config {json.dumps(cfg)}")
    return best


def tuning_scenes(run: Run, det, sets=None) -> list:
    """The validation scenes' candidates (and the shift slice's validation scenes' and
    the photos', when tuning counts them) under ``det``, drawn at the grid's lowest
    localiser threshold."""
    from training.data.shift import SHIFT_KINDS, shift_scene
    from training.measure.slices import photo_candidates, realistic_candidates
    from training.stages.tuning import SHIFT_PREFIX
    t = run.recipe.tune
    lowest = min(t.loc_grid)
    scenes = realistic_candidates(det, run.art_dir, "val", t.per_kind, sets=sets,
                                  loc_threshold=lowest)
    if t.shift_per_kind:
        scenes += realistic_candidates(det, run.art_dir, "shift_val", t.shift_per_kind,
                                       kinds=SHIFT_KINDS, loc_threshold=lowest,
                                       scene=shift_scene, prefix=SHIFT_PREFIX,
                                       recalls=True)
    if t.photos:
        scenes += photo_candidates(det, run.photos_dir, lowest, part=t.photo_part,
                                   val_share=run.recipe.real_round.photo_val_share)
    return scenes


def evaluate(run: Run, loc_path: Path, tag: str, lodo: bool = True) -> dict:
    """The realistic test, the domain-shift slice and the real photos for ``loc_path``;
    for the shipped model (``tag`` "shipped") with ``lodo``, the held-out deck and the
    old random test too."""
    from scorer.vision import Detector
    from training.measure.evaluate import evaluate as old_test
    from training.measure.slices import evaluate_realistic
    e, out = run.recipe.evaluate, run.eval_dir
    det = Detector(loc_path, threads=run.threads)
    suffix = "" if tag == "shipped" else f"-{tag}"
    res = {"realistic": evaluate_realistic(det, run.art_dir, "test", e.realistic_per_kind,
                                           out_dir=out, tag=f"realistic-test{suffix}"),
           "shift": shift(run, loc_path, tag), "photos": photos(run, loc_path, tag),
           "western": western(run, loc_path, tag)}
    if tag != "shipped":  # a candidate: the shipped model's other figures stand
        return res
    held = [run.recipe.lodo_set]
    if lodo and run.lodo.is_file():
        res["lodo"] = evaluate_realistic(Detector(run.lodo, threads=run.threads), run.art_dir,
                                         "lodo_test", e.lodo_per_kind, sets=held, out_dir=out,
                                         tag="realistic-lodo-hwatu")
    if lodo:  # the shipped model on the very same held-out deck's scenes
        res["all_decks_on_held_out"] = evaluate_realistic(
            det, run.art_dir, "lodo_test", e.lodo_per_kind, sets=held, out_dir=out,
            tag="realistic-all-decks-on-hwatu")
    res["old_test"] = old_test(det, run.art_dir, "test", e.old_test_scenes, out_dir=out,
                               tag="test")
    for k, v in res.items():
        run.log(f"evaluation {k}: {json.dumps(v)[:2000]}")
    return res


def ceiling(run: Run) -> dict:
    """Validation reads on true outlines beside the detector's boxes (what boxes cost)."""
    from scorer.vision import Detector
    from training.measure.evaluate import true_box_ceiling
    res = true_box_ceiling(Detector(run.shipped, threads=run.threads), run.art_dir, "val",
                           run.recipe.val_scenes)
    run.eval_dir.mkdir(parents=True, exist_ok=True)
    (run.eval_dir / "ceiling-val.json").write_text(json.dumps(res, indent=2) + "\n")
    run.log("true boxes: " + json.dumps(res))
    return res


def figures(run: Run, loc_path: Path, tag: str, reference: Path | None = None) -> Figures:
    """A model's figures for the ship rule: the realistic test, the shift slice, the
    real photos' test part and its size; with ``reference`` (the model the speed limit is
    set against: the shipped one, none before a first ship), its median frame time and
    the reference's, timed alternating in one run. The shipped model's come from its
    records in ``models/eval``, or from this run's measure of it once they predate a
    figure the rule reads."""
    if tag == "shipped":
        kept = shipped_figures(run)
        if kept is not None:
            return kept
    res = evaluate(run, loc_path, tag, lodo=False)
    ms = ref_ms = None
    if reference is not None:
        ms, ref_ms = frame_ms(loc_path, run.threads, reference)
    mib = model_mib(loc_path)
    return Figures(res["realistic"], res["shift"], res["photos"], ms, mib, ref_ms)


def shipped_figures(run: Run) -> Figures | None:
    """The shipped model's figures as recorded: its records in ``models/eval``, else the
    run's own measure of it (``evaluate`` writes the same names) made since it shipped;
    None when neither holds the box measure and the shift recalls card by card."""
    since = run.shipped.stat().st_mtime if run.shipped.is_file() else 0.0
    for folder in (run.models_dir / "eval", run.eval_dir):
        paths = [folder / n for n in SHIPPED_RECORDS]
        if not all(p.is_file() for p in paths):
            continue
        if folder == run.eval_dir and min(p.stat().st_mtime for p in paths) < since:
            continue
        r, sh, ph = (json.loads(p.read_text()) for p in paths)
        if box_share(r) is not None and has_card_hits(sh):
            return Figures(r, sh, ph)
    return None


def model_files(loc_path: Path) -> list[Path]:
    """The localiser file and the classifier and refiner its metadata names."""
    from training.ship.export import onnx_config
    cfg = onnx_config(loc_path)
    return [loc_path] + [loc_path.parent / cfg[k] for k in ("classifier", "refiner")
                         if cfg.get(k)]


def model_mib(loc_path: Path) -> float:
    return sum(p.stat().st_size for p in model_files(loc_path)) / 2**20


def frame_ms(loc_path: Path, threads: int, beside: Path,
             frames: int = 40) -> tuple[float, float]:
    """The median milliseconds to decode and detect a 640x480 benchmark frame
    (``training.measure.timing``, as ``bench.bench_detect`` times it) with ``loc_path``
    and with ``beside``, timed alternating on the same frames in one run."""
    from scorer.vision import Detector
    from training.measure.timing import WARM_UP, alternating_ms, table_frames
    times = alternating_ms([Detector(p, threads=threads) for p in (loc_path, beside)],
                           table_frames(frames + WARM_UP))
    a, b = (float(np.median(t)) for t in times)
    return a, b
