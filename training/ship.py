"""Export fine-tuned networks (``training.finetune``'s ``finetuned.pt``) as the ONNX
files ``scorer.vision.Detector`` loads: localiser, box refiner and int8 classifier,
with the detection settings of the files they started from (re-tune them after)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import torch

from training.export import export_models, export_refiner, quantize_classifier, set_config


def onnx_config(loc_path: Path) -> dict:
    """The ``hanafuda`` JSON metadata of an exported localiser."""
    import onnx

    for p in onnx.load(str(loc_path)).metadata_props:
        if p.key == "hanafuda":
            return json.loads(p.value)
    return {}


def calibration_crops(art_dir, n_scenes: int = 64, first_seed: int = 900_000) -> np.ndarray:
    """Classifier crops of ``n_scenes`` training scenes, for int8 calibration."""
    from training.scenes import get_library
    from training.stream import StreamConfig, scene_sample

    lib = get_library(art_dir)
    cfg = StreamConfig(art_dir=str(art_dir), first_seed=first_seed)
    crops = [scene_sample(lib, first_seed + k, cfg)["cls_x"] for k in range(n_scenes)]
    return np.concatenate(crops)[:512]


def export_finetuned(ft_path: Path, base_loc: Path, out_dir: Path, name: str, art_dir,
                     classifier: str = "cls", int8: bool = True) -> Path:
    """Write ``{name}-localiser/-refiner/-classifier.onnx`` into ``out_dir`` from the
    fine-tuned networks (``classifier``: "cls", or "lodo" for the leave-one-deck-out
    one); the localiser's path."""
    ck = torch.load(ft_path, map_location="cpu", weights_only=False)
    nets = ck["nets"]
    if classifier not in nets:
        raise ValueError(f"{ft_path} holds no {classifier!r} classifier")
    base_cfg = onnx_config(Path(base_loc))
    keep = {k: v for k, v in base_cfg.items()
            if k not in ("classifier", "refiner", "classifier_arch", "axis_check")}
    with tempfile.TemporaryDirectory() as tmp:
        loc_ck, cls_ck, ref_ck = (Path(tmp) / f for f in ("loc.pt", "cls.pt", "ref.pt"))
        torch.save({"model": nets["loc"]}, loc_ck)
        arch = ck.get("config", {}).get("cls_arch") or base_cfg.get("classifier_arch",
                                                                    "lite0-b8f-x3")
        torch.save({"model": nets[classifier], "arch": arch}, cls_ck)
        torch.save(nets["ref"], ref_ck)
        loc_path, cls_path = export_models(loc_ck, cls_ck, out_dir, name, loc_size=(640, 480),
                                           extra_cfg={**keep, "int8": int8})
        export_refiner(ref_ck, loc_path, int(base_cfg.get("refine_passes", 2)))
    if int8:
        quantize_classifier(cls_path, calibration_crops(art_dir))
    set_config(loc_path, {"int8": int8})
    return loc_path
