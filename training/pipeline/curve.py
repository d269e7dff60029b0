"""The campaign's curve: each kept snapshot of the lite localiser (every
``snapshot_every`` steps) exported beside the shipped classifier and refiner, with the
shipped thresholds, and measured on a fixed part of the domain-shift slice and on the
real-photo test part. Measured once per snapshot; the records are kept in a JSON file.

The curve is a report, never a choice: the candidate is the run's last step, so neither
the shift slice nor the photos' test part is tuned on.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from training.data.shift import SHIFT_KINDS, shift_scene
from training.measure.photos import false_cards
from training.measure.slices import evaluate_realistic
from training.ship.export import export_lite_loc, onnx_config, set_config
from training.stages.lite_loc import snapshot_step


def measure(loc_path: Path, art_dir, photos_dir, per_kind: int, threads: int = 1,
            scene=shift_scene) -> dict:
    """One point of the curve for the localiser file ``loc_path``."""
    from scorer.vision import Detector
    det = Detector(loc_path, threads=threads)
    sh = evaluate_realistic(det, art_dir, "shift_test", per_kind, kinds=SHIFT_KINDS,
                            scene=scene)
    neg = false_cards(det, photos_dir)
    fr = sh["realistic_framing"]["equiv"]
    rec = sh["recall"]
    return {"shift_f1": fr["f1"], "shift_precision": fr["precision"],
            "shift_recall": fr["recall"],
            "shift_recall_50_80": rec["half_hidden_50_80"]["recall_equiv"],
            "shift_recall_top_card": rec["top_card_of_stack"]["recall_equiv"],
            "photo_false_cards": neg["false_cards_per_photo"],
            "shift_scenes": per_kind * len(SHIFT_KINDS)}


def update_curve(snapshots: Path, base_loc: Path, out: Path, art_dir, photos_dir,
                 per_kind: int = 25, threads: int = 1, log=print) -> dict:
    """Measure every snapshot in ``snapshots`` not yet in the curve file ``out``, and
    the shipped model ``base_loc`` once, on the same scenes (``reference``); returns the
    curve: ``{"reference": {...}, "points": [{"step": ...}, ...]}``."""
    n_scenes = per_kind * len(SHIFT_KINDS)
    data = json.loads(out.read_text()) if out.is_file() else {}
    curve = data.get("points", [])
    done = {r["step"] for r in curve if r.get("shift_scenes") == n_scenes}
    cache: dict = {}

    def cached(lib, seed, kind, sets):  # each scene rendered once for all the snapshots
        if seed not in cache:
            cache[seed] = shift_scene(lib, seed, kind, sets)
        return cache[seed]

    def save() -> None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"reference": data.get("reference"), "points": curve},
                                  indent=2) + "\n")

    if (data.get("reference") or {}).get("shift_scenes") != n_scenes:
        data["reference"] = {"model": Path(base_loc).name,
                             "thresholds": _thresholds(onnx_config(base_loc)),
                             **measure(base_loc, art_dir, photos_dir, per_kind, threads,
                                       scene=cached)}
        save()
        log(f"curve reference: {json.dumps(data['reference'])}")
    # every point is read with the reference's thresholds, whatever has shipped since
    fixed = _thresholds(data["reference"].get("thresholds", onnx_config(base_loc)))

    for snap in sorted(Path(snapshots).glob("step-*.pt"), key=snapshot_step):
        step = snapshot_step(snap)
        if step in done:
            continue
        tmp = out.parent / f".curve-{step}"
        try:
            loc = export_lite_loc(snap, base_loc, tmp)
            set_config(loc, fixed)
            rec = {"step": step, **measure(loc, art_dir, photos_dir, per_kind, threads,
                                           scene=cached)}
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        curve = sorted([r for r in curve if r["step"] != step] + [rec], key=lambda r: r["step"])
        save()
        log(f"curve: {json.dumps(rec)}")
    return {"reference": data.get("reference"), "points": curve}


def _thresholds(cfg: dict) -> dict:
    """The detection thresholds of a localiser's ONNX config (a close-up box's classifier
    threshold, where the config has none, is the others')."""
    out = {k: cfg[k] for k in ("loc_threshold", "cls_threshold", "overlap_iou",
                               "large_threshold", "large_box", "large_cls_threshold")
           if k in cfg}
    if "cls_threshold" in out:
        out.setdefault("large_cls_threshold", out["cls_threshold"])
    return out
