"""``python -m training face-gate``: a face gate fitted on the boxes the networks really
propose, its threshold chosen on validation; the result is a candidate in the run's
``gated-model/`` (``ship --candidate`` judges it)."""

from __future__ import annotations

import json
from pathlib import Path

from training.pipeline import judge
from training.pipeline.context import Run


def face_gate(run: Run) -> Path:
    """Fit the gate on the networks ``run.networks()`` (the shipped ones unless this run
    made its own), choose its threshold, and write both into a copy of them."""
    from scorer.vision import Detector
    from scorer.vision.gate import FaceGate
    from training.data.real_photos import split_photos
    from training.measure.slices import candidates_of_photos, realistic_candidates
    from training.ship.export import set_config
    from training.data.boxes import join, photo_crops, scene_crops
    from training.data.real_photos import split_by_sitting
    from training.stages.face_gate import GATE_SEED_OFFSET, choose_threshold, examples, fit
    cfg = run.recipe.face_gate
    loc = judge.candidate_copy(run, run.networks(), run.model("gated-model"))
    set_config(loc, {"face_gate": None})
    det = Detector(loc, threads=run.threads)
    fit_part, choose_part = split_by_sitting(split_photos(run.photos_dir)["train"],
                                             cfg.photo_val_share)
    sets = run.trained_sets()  # as the localiser: never the held-out deck
    ex = examples(det, join([photo_crops(det, fit_part),
                             scene_crops(det, run.art_dir, cfg.scenes_per_kind, sets,
                                         offset=GATE_SEED_OFFSET)]))
    weights, bias = fit(ex, cfg.photo_weight, cfg.c)
    run.log(f"face gate fitted on {int(ex.label.sum())} faces and {int((ex.label == 0).sum())} "
            f"other boxes ({sum(s == 'photo' for s in ex.source)} on real photos)")
    set_config(loc, {"face_gate": FaceGate(weights, bias, 0.0).to_config()})
    det = Detector(loc, threads=run.threads)
    scenes = realistic_candidates(det, run.art_dir, "val", cfg.val_per_kind,
                                  loc_threshold=min(det.settings.loc_threshold,
                                                                    det.settings.large_loc))
    chosen, table = choose_threshold(scenes, candidates_of_photos(det, choose_part), det,
                                        cfg.grid, cfg.guard)
    run.eval_dir.mkdir(parents=True, exist_ok=True)
    (run.eval_dir / "face-gate-val.json").write_text(json.dumps(
        {"threshold": None if chosen is None else chosen[0],
         "large_threshold": None if chosen is None else chosen[1],
         "faces": int(ex.label.sum()),
         "others": int((ex.label == 0).sum()), "fit_photos": len(fit_part),
         "choose_photos": len(choose_part), "grid": table}, indent=2) + "\n")
    if chosen is None:
        set_config(loc, {"face_gate": None})
        run.log(f"face gate: no threshold keeps every kind within {cfg.guard}: left out")
    else:
        set_config(loc, {"face_gate": FaceGate(weights, bias, *chosen).to_config()})
        row = next(g for g in table if (g["threshold"], g["large_threshold"]) == chosen)
        run.log(f"face gate at {chosen[0]} (close-ups {chosen[1]}): "
                f"{row['photo_false_cards']} false cards on "
                f"{row['photos']} held-back train photos (without it "
                f"{table[0]['photo_false_cards']}); candidate {loc}")
    return loc
