"""``python -m training cls-real``: a classifier round on the networks' own boxes with
real photographs as "not a card", exported beside their localiser and refiner as a
candidate in the run's ``cls-real-model/`` and tuned (``ship --candidate`` judges it)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from training import REPO_ROOT
from training.pipeline import judge
from training.pipeline.context import Run

if TYPE_CHECKING:
    from training.data.boxes import BoxCrops

# the shipped classifier's weights, recovered from its ONNX file (training.nets.recover)
CLASSIFIER_STATE = REPO_ROOT / "training" / "campaign" / "classifier.pt"


def cached_boxes(folder: Path, name: str, settings: dict, read: Callable[[], "BoxCrops"]
                 ) -> "BoxCrops":
    """A part's boxes (``read()``), read once for these ``settings``: a resumed or later
    round in the same run folder finds them in ``folder``, in a file named by the part
    and a digest of the settings, so other settings never get them."""
    from training.data.boxes import BoxCrops
    key = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
    path = Path(folder) / f"{name}-{key}.npz"
    if path.exists():
        return BoxCrops.load(path)
    part = read()
    path.parent.mkdir(parents=True, exist_ok=True)
    part.save(path)
    return part


def own_box_parts(run: Run, loc_path: Path, fit_part: list) -> list["BoxCrops"]:
    """The labelled boxes the networks of ``loc_path`` propose on the round's realistic
    train scenes, the real photos' ``fit_part`` and (when the recipe asks) Western
    cards' scenes: each part read once per run folder and networks (``cached_boxes``)."""
    from scorer.vision import Detector
    from training.data.boxes import photo_crops, scene_crops, western_crops
    from training.data.realistic import SceneVariation, layout_weights
    from training.stages.real_round import ROUND_SEED_OFFSET
    cfg, r = run.recipe.real_round, run.recipe
    det = Detector(loc_path, threads=run.threads)
    sets = run.trained_sets()
    variation = SceneVariation(layout_weights=layout_weights(cfg.staggered, cfg.heaps)) \
        if cfg.staggered or cfg.heaps else None
    made_by = hashlib.sha256(b"".join(f.read_bytes()
                                      for f in judge.model_files(loc_path))).hexdigest()

    def boxes(name: str, settings: dict, read):
        return cached_boxes(run.run_dir / "boxes", name,
                            {**settings, "networks": made_by, "seed": r.seed}, read)
    parts = [boxes("realistic", {"per_kind": cfg.scenes_per_kind, "staggered": cfg.staggered,
                                 "heaps": cfg.heaps, "groups": cfg.groups},
                   lambda: scene_crops(det, run.art_dir, cfg.scenes_per_kind, sets,
                                       offset=ROUND_SEED_OFFSET, variation=variation,
                                       groups=cfg.groups)),
             boxes("photos", {"views": cfg.photo_views, "held_back": cfg.photo_val_share},
                   lambda: photo_crops(det, fit_part, cfg.photo_views, r.seed))]
    if cfg.western_per_kind:
        parts.append(boxes("western", {"per_kind": cfg.western_per_kind, "groups": cfg.groups},
                           lambda: western_crops(det, run.art_dir, cfg.western_per_kind, sets,
                                                 photos=fit_part, groups=cfg.groups)))
    return parts


def classifier_round(run: Run, start: str | Path | None = None,
                     boxes_also: Sequence[str | Path] = ()) -> Path:
    """Read the boxes, train the round from ``start`` (a classifier checkpoint; default
    the shipped classifier's weights), export it int8 beside the networks, tune it.
    ``boxes_also`` names other models folders whose networks' boxes (another refiner's,
    say) on the same scenes and photos join the round's."""

    from training.data.boxes import join
    from training.data.real_photos import split_by_sitting, split_photos
    from training.data.western import WESTERN_KINDS
    from training.ship.export import (export_classifier, onnx_config, quantize_classifier,
                                      weight_grid)
    from training.stages.real_round import train_round
    cfg, r = run.recipe.real_round, run.recipe
    start = Path(start) if start else CLASSIFIER_STATE
    if not start.is_file():  # before the boxes are read: minutes
        raise FileNotFoundError(f"no classifier checkpoint at {start}")
    from training.nets.recover import classifier_start
    start = classifier_start(start, run.run_dir / "cls-real" / "start-recovered.pt")
    networks = run.networks()
    readers = [networks] + [Path(d) / networks.name for d in boxes_also]
    for loc in readers[1:]:
        if not loc.is_file():
            raise FileNotFoundError(f"no localiser {loc.name} in {loc.parent}")
    fit_part, _ = split_by_sitting(split_photos(run.photos_dir)["train"], cfg.photo_val_share)
    data = join([part for loc in readers for part in own_box_parts(run, loc, fit_part)])
    run.log(f"classifier round on {int((data.labels < 48).sum())} card boxes and "
            f"{int((data.labels == 48).sum())} others "
            f"({int((data.sources == 'photo').sum())} on real photos, "
            f"{int(np.isin(data.sources, WESTERN_KINDS).sum())} on Western cards' scenes); "
            f"{int(data.band.sum())} card boxes on partly hidden cards"
            + (f", read by {len(readers)} sets of networks" if len(readers) > 1 else ""))
    run.log(f"the round starts from {start}")
    ck = train_round(data, start, run.run_dir / "cls-real", cfg, r.seed, run.log)
    loc = judge.candidate_copy(run, networks, run.model("cls-real-model"))
    cls_path = loc.parent / onnx_config(loc)["classifier"]
    export_classifier(ck, cls_path)
    rng = np.random.default_rng(r.seed)
    quantize_classifier(cls_path, data.crops[rng.choice(len(data.labels),
                                                        min(512, len(data.labels)),
                                                        replace=False)],
                        **weight_grid(onnx_config(loc)))  # as the model declares
    run.record_lineage(cls_path)  # the localiser beside it keeps its own
    run.log(f"exported {cls_path}")
    judge.tune(run, loc)
    return loc


def refiner_round(run: Run) -> Path:
    """Read the shipped networks' own boxes, train the box refiner from the shipped
    refiner's weights (``[refiner_round]``), export it beside the shipped localiser and
    classifier as a candidate in the run's ``ref-real-model/``, tune it. A classifier
    round on its boxes is ``cls-real --models-dir`` that folder."""
    from training.nets.recover import refiner_from_onnx
    from training.ship.export import export_refiner, onnx_config
    from training.stages.refiner_round import own_box_data, train_refiner_round
    cfg, r = run.recipe.refiner_round, run.recipe
    networks = run.networks()
    base_cfg = onnx_config(networks)
    if not base_cfg.get("refiner"):
        raise FileNotFoundError(f"{networks} names no box refiner to start from")
    start = refiner_from_onnx(networks.parent / base_cfg["refiner"]).state_dict()
    data = own_box_data(run.run_dir / "boxes", run.art_dir, networks, cfg.scenes_per_kind,
                        run.trained_sets(), run.workers)
    run.log(f"refiner round on {len(data['delta'])} boxes (before the refiner and after "
            f"its first pass) of {cfg.scenes_per_kind} scenes a kind")
    weights = train_refiner_round(data, start, run.run_dir / "ref-real", cfg, r.seed, run.log)
    loc = judge.candidate_copy(run, networks, run.model("ref-real-model"), made_here=False)
    ref_path = export_refiner({"nets": {"ref": weights}}, loc,
                              int(base_cfg.get("refine_passes", 2)))
    run.record_lineage(ref_path)
    run.log(f"exported {ref_path}")
    judge.tune(run, loc)
    return loc
