"""Export fine-tuned networks (``training.stages.realistic``'s ``finetuned.pt``) as the ONNX
files ``scorer.vision.Detector`` loads: localiser, box refiner and int8 classifier,
with the detection settings of a localiser file (re-tune them after); and the
leave-one-deck-out classifier (``training.stages.lodo``) beside a model's localiser and
refiner."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from training.nets import checkpoint
from training.ship.export import (export_classifier, export_models, export_refiner,
                                  onnx_config, quantize_classifier, set_config, weight_grid)


def calibration_crops(art_dir, n_scenes: int = 64, first_seed: int = 900_000) -> np.ndarray:
    """Classifier crops of ``n_scenes`` training scenes, for int8 calibration."""
    from training.data.scenes import get_library
    from training.data.stream import StreamConfig, scene_sample

    lib = get_library(art_dir)
    cfg = StreamConfig(art_dir=str(art_dir), first_seed=first_seed)
    crops = [scene_sample(lib, first_seed + k, cfg)["cls_x"] for k in range(n_scenes)]
    return np.concatenate(crops)[:512]


def export_finetuned(ft: Path | dict, base_loc: Path, out_dir: Path, name: str, art_dir,
                     int8: bool = True) -> Path:
    """Write ``{name}-localiser/-refiner/-classifier.onnx`` into ``out_dir`` from the
    fine-tuned networks (``training.stages.realistic``'s ``finetuned.pt``, as a file or loaded),
    with the detection settings of ``base_loc``; the localiser's path."""
    ck = checkpoint.load(ft)
    nets = ck["nets"]
    base_cfg = onnx_config(Path(base_loc))
    keep = {k: v for k, v in base_cfg.items()
            if k not in ("classifier", "refiner", "classifier_arch", "axis_check")}
    arch = ck.get("config", {}).get("cls_arch") or base_cfg.get("classifier_arch",
                                                                "lite0-b8f-x3")
    loc_path, cls_path = export_models({"nets": {"loc": nets["loc"]}},
                                       {"nets": {"cls": nets["cls"]}, "config": {"arch": arch}},
                                       out_dir, name, loc_size=(640, 480),
                                       extra_cfg={**keep, "int8": int8})
    export_refiner({"nets": {"ref": nets["ref"]}}, loc_path, int(base_cfg.get("refine_passes", 2)))
    if int8:  # the int8 weights the base model's settings declare (kept)
        quantize_classifier(cls_path, calibration_crops(art_dir), **weight_grid(base_cfg))
    set_config(loc_path, {"int8": int8})
    return loc_path


def export_lodo(cls_ckpt: Path, base_loc: Path, out_dir: Path, art_dir: str,
                name: str = "hanafuda-lodo", int8: bool = True) -> Path:
    """The leave-one-deck-out classifier beside ``base_loc``'s localiser and refiner
    (their ONNX files copied as they are: neither saw the held-out deck), as
    ``{name}-localiser/-refiner/-classifier.onnx`` in ``out_dir``."""
    base_loc, out_dir = Path(base_loc), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cfg = onnx_config(base_loc)
    loc = out_dir / f"{name}-localiser.onnx"
    cls = out_dir / f"{name}-classifier.onnx"
    shutil.copyfile(base_loc, loc)
    updates = {"classifier": cls.name, "int8": int8}
    if cfg.get("refiner"):
        ref = out_dir / f"{name}-refiner.onnx"
        shutil.copyfile(base_loc.parent / cfg["refiner"], ref)
        updates["refiner"] = ref.name
    ck = checkpoint.load(cls_ckpt)
    export_classifier(ck, cls)
    if int8:  # the int8 weights the base model's settings declare (kept)
        quantize_classifier(cls, calibration_crops(art_dir), **weight_grid(cfg))
    set_config(loc, {**updates, "classifier_arch": ck["config"]["arch"]})
    return loc
