"""ONNX export: the localiser + classifier pair, the refiner, the lite localiser, int8
quantisation, and the detection settings in a localiser's metadata."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch
import torch.nn as nn

from scorer.vision.geometry import CROP_H, CROP_W, REF_H, REF_W
from scorer.vision.stages import as_input
from training.data.cache import LOC_H, LOC_W
from training.nets import checkpoint
from training.nets.networks import DELTA_SCALE, RefNet, build_classifier, build_localiser
from training.ship.cells import add_cells_output

if TYPE_CHECKING:
    from training.data.stream import StreamConfig


class ProbsAndEmbedding(nn.Module):
    """The classifier's two outputs: card probabilities, and the L2-normalised embedding
    they are computed from (for comparing a crop with a deck's own cards)."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        f = self.net.embed(x)
        return torch.softmax(self.net.fc(f), dim=1), nn.functional.normalize(f, dim=1)


def _describe(path: Path, cfg: dict, desc: str) -> None:
    """The model's metadata: the detector's settings, a description, the classes."""
    import onnx

    m = onnx.load(str(path))
    del m.metadata_props[:]
    for k, v in (("hanafuda", json.dumps(cfg)), ("description", desc),
                 ("classes", json.dumps([f"{(i // 4) + 1:02d}-{i % 4 + 1}"
                                         for i in range(48)] + ["background"]))):
        p = m.metadata_props.add()
        p.key, p.value = k, v
    onnx.save(m, str(path))


def export_classifier(cls_ckpt: Path | dict, path: Path) -> Path:
    """The classifier's checkpoint (``training.nets.checkpoint``: its network "cls", its
    config's "arch") as the ONNX file ``path``."""
    ck = checkpoint.load(cls_ckpt)
    arch = ck["config"]["arch"]
    cls = build_classifier(arch)
    cls.load_state_dict(checkpoint.weights(ck, "cls"))
    cls.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(ProbsAndEmbedding(cls), torch.rand(2, 3, CROP_H, CROP_W) * 255, str(path),
                          input_names=["crops"], output_names=["probs", "embedding"],
                          opset_version=17, dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"},
                                                          "embedding": {0: "n"}},
                          dynamo=False)
    # the classifier file names its architecture only: the detection settings live in
    # the localiser's file (``scorer.vision.settings``), which alone is read
    _describe(path, {"classifier_arch": arch}, "hanafuda 48-card + background crop classifier")
    # the head's map before pooling, for decks that decide (quantisation keeps it)
    add_cells_output(path)
    return path


def export_models(loc_ckpt: Path | dict, cls_ckpt: Path | dict, out_dir: Path,
                  name: str = "hanafuda", extra_cfg: dict | None = None,
                  loc_size: tuple[int, int] = (LOC_W, LOC_H)) -> tuple[Path, Path]:
    """The localiser's and the classifier's checkpoints (``training.nets.checkpoint``),
    as files or loaded, as ONNX files; ``loc_size``: the localiser's input
    (width, height), fixed in the ONNX graph."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    loc_path = out_dir / f"{name}-localiser.onnx"
    cls_path = out_dir / f"{name}-classifier.onnx"
    loc = build_localiser()
    loc.load_state_dict(checkpoint.weights(loc_ckpt, "loc"))
    loc.eval()
    ck = checkpoint.load(cls_ckpt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(loc, torch.rand(1, 3, loc_size[1], loc_size[0]) * 255, str(loc_path),
                          input_names=["image"], output_names=["maps"], opset_version=17,
                          dynamo=False)
    cfg = {"classifier": cls_path.name, "stride": 4, "loc_threshold": 0.3,
           "cls_threshold": 0.3, "nms_iou": 0.5, "tta": False, "crop_w": CROP_W,
           "crop_h": CROP_H, "classifier_arch": ck["config"]["arch"],
           "input": "RGB float 0..255 NCHW, normalised inside the graph"}
    cfg = settings_record({**cfg, **(extra_cfg or {})})
    export_classifier(ck, cls_path)
    _describe(loc_path, cfg, "hanafuda card localiser (CenterNet-style, stride 4)")
    return loc_path, cls_path


class _Scaled(nn.Module):
    """The refiner with its outputs in ``box_delta``'s units (training scales them)."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.register_buffer("scale", torch.tensor(DELTA_SCALE).view(1, 5))

    def forward(self, x):
        return self.net(x) * self.scale


def export_refiner(ckpt: Path | dict, loc_path: Path, passes: int = 1) -> Path:
    """Export the box refiner (its checkpoint, as a file or loaded) beside the localiser
    ``loc_path`` and name it in the localiser's metadata, with how many times it is
    applied."""
    import onnx

    loc_path = Path(loc_path)
    path = loc_path.with_name(loc_path.name.replace("localiser", "refiner"))
    net = RefNet()
    net.load_state_dict(checkpoint.weights(ckpt, "ref"))
    net.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Scaled(net), torch.rand(2, 3, REF_H, REF_W) * 255, str(path),
                          input_names=["crops"], output_names=["delta"], opset_version=17,
                          dynamic_axes={"crops": {0: "n"}, "delta": {0: "n"}}, dynamo=False)
    m = onnx.load(str(path))
    p = m.metadata_props.add()
    p.key, p.value = "description", ("hanafuda box refiner: a box with context -> "
                                     "(u, v, log w, log h, angle) correction")
    onnx.save(m, str(path))
    set_config(loc_path, {"refiner": path.name, "refine_passes": int(passes)})
    return path


class CalibrationBatches:
    """onnxruntime calibration reader: ``x`` (N,3,H,W) float fed as ``name``, ``n`` at a
    time."""

    def __init__(self, name: str, x: np.ndarray, n: int = 16):
        self.batches = [{name: x[i:i + n]} for i in range(0, len(x), n)]
        self._next = iter(self.batches)

    def get_next(self):
        return next(self._next, None)


def activation_ranges(path: Path) -> dict[str, list[dict]]:
    """The activation scales and zero points of the int8 (QDQ) ONNX file ``path``, by tensor
    name, as onnxruntime's ``TensorQuantOverrides``: quantising a network again with them
    keeps that file's calibration whatever the calibration data."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    init = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    outputs = {o.name for o in graph.output}
    tail = "_QuantizeLinear_Input"  # a graph output's float tensor, renamed by the quantiser

    def float_name(name: str) -> str:
        return name[:-len(tail)] if name.endswith(tail) and name[:-len(tail)] in outputs \
            else name
    return {float_name(n.input[0]): [{"scale": init[n.input[1]], "zero_point": init[n.input[2]]}]
            for n in graph.node if n.op_type == "QuantizeLinear" and n.input[1] in init}


def quantize_int8(path: Path, reader: CalibrationBatches, keep_float: tuple[str, ...] = (),
              reduce_range: bool = False, activations_from: Path | None = None,
              fit_pairs: bool = False) -> Path:
    """Rewrite the ONNX file with int8 weights and activations (QDQ, per-channel
    weights), calibrated on ``reader``; nodes whose names start with one of
    ``keep_float`` stay in float. The metadata is carried over. ``reduce_range``: 7-bit
    weights (|w| <= 64), so that onnxruntime's fast u8s8 products cannot saturate on x86
    CPUs without VNNI (``scorer.vision.cpu``); ``activations_from``: an int8 file of the
    same network whose activation scales and zero points are kept (``activation_ranges``:
    its calibration, only the weights quantised anew); ``fit_pairs``: 8-bit weights whose
    16-bit pair sums cannot saturate those fast products either, rounded to keep each
    layer's output on the calibration data (``training.ship.fast_int8.refit``)."""
    import onnx
    import logging
    import tempfile

    from onnxruntime.quantization import (QuantFormat, QuantType, quant_pre_process,
                                          quantize_static)

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser warns about each 1-D weight
    try:
        with tempfile.TemporaryDirectory() as tmp:
            pre = Path(tmp) / "pre.onnx"
            quant_pre_process(str(path), str(pre))
            exclude = [n.name for n in onnx.load(str(pre)).graph.node
                       if keep_float and n.name.startswith(keep_float)]
            extra = {"TensorQuantOverrides": activation_ranges(activations_from)} \
                if activations_from is not None else {}
            quantize_static(str(pre), str(path), reader, quant_format=QuantFormat.QDQ,
                            per_channel=True, activation_type=QuantType.QUInt8,
                            weight_type=QuantType.QInt8, nodes_to_exclude=exclude,
                            reduce_range=reduce_range, extra_options=extra)
            if fit_pairs:
                from training.ship.fast_int8 import refit, weights_of
                refit(path, weights_of(onnx.load(str(pre))), reader.batches)
    finally:
        root.setLevel(level)
    return path


def quantize_classifier(cls_path: Path, calib: np.ndarray, reduce_range: bool = False,
                        activations_from: Path | None = None, fit_pairs: bool = False) -> Path:
    """Rewrite the exported classifier with int8 weights and activations, calibrated on
    ``calib``, (N,H,W,3) uint8 BGR crops from *training* scenes. On the fourth
    classifier it about halved the network's time (20 crops, 1 thread: 11.4 vs 21.2 ms)
    and left validation F1 where it was (0.8540 vs 0.8544). ``reduce_range``,
    ``activations_from``, ``fit_pairs``: ``quantize_int8``'s (7-bit weights; another file's
    calibration; 8-bit weights whose pairs fit)."""
    batches = CalibrationBatches("crops", np.ascontiguousarray(as_input(calib)))
    return quantize_int8(Path(cls_path), batches, reduce_range=reduce_range,
                         activations_from=activations_from, fit_pairs=fit_pairs)


def quantize_localiser(loc_path: Path, frames: np.ndarray,
                       keep_float: tuple[str, ...] = (), reduce_range: bool = False,
                       fit_pairs: bool = False) -> Path:
    """Rewrite the exported localiser in int8, calibrated on ``frames``, (N,480,640,3)
    uint8 BGR letterboxed *training* frames; ``keep_float``: node-name prefixes left in
    float (e.g. the head, whose heatmap the thresholds read); ``reduce_range``: 7-bit
    weights, ``fit_pairs``: 8-bit ones whose pairs fit (``quantize_int8``)."""
    batches = CalibrationBatches("image", np.ascontiguousarray(as_input(frames)), 1)
    return quantize_int8(Path(loc_path), batches, keep_float, reduce_range,
                         fit_pairs=fit_pairs)


def seven_bit(cfg: dict) -> bool:
    """Whether a model's settings (``onnx_config``) declare its int8 weights 7-bit
    (``int8_weight_bits``, ``scorer.vision.settings``): a network exported to join it is
    quantised so too, so that the declaration stays true of every file."""
    return int(cfg.get("int8_weight_bits") or 8) == 7


def pairs_fit(cfg: dict) -> bool:
    """Whether a model's settings declare 8-bit int8 weights whose pairs fit onnxruntime's
    fast products (``int8_pairs_fit``, ``training.ship.fast_int8``): a network exported to
    join it is quantised so too, so that the declaration stays true of every file."""
    return bool(cfg.get("int8_pairs_fit"))


def weight_grid(cfg: dict) -> dict[str, bool]:
    """The int8 weights a network joining a model of settings ``cfg`` must have, as
    ``quantize_int8``'s options: 7-bit (``seven_bit``) or 8-bit with pairs that fit
    (``pairs_fit``), as the model declares."""
    return {"reduce_range": seven_bit(cfg), "fit_pairs": pairs_fit(cfg)}


# the pyramid and the head stay in float when the localiser is quantised: the backbone is
# most of the time, the heatmap's values are what the thresholds read
FLOAT_NODES = ("/head", "/m4", "/m8", "/m16", "/m32", "/l4", "/l8", "/l16", "/l32", "/down32")


def export_lite_loc(ckpt: Path, base_loc: Path, out_dir: Path, name: str = "hanafuda",
                    calibrate: StreamConfig | None = None,
                    reduce_range: bool | None = None) -> Path:
    """``{name}-localiser.onnx`` in ``out_dir`` from the checkpoint or snapshot, with the
    base localiser's detection settings, and the base's classifier and refiner copied
    beside it (re-tune the thresholds after). ``calibrate``: quantise its backbone to
    int8, calibrated on frames of this stream
    (``training.stages.lite_loc.stream_config``); ``reduce_range``: with 7-bit weights
    (default: as the base model's are, ``seven_bit``). The settings declare the weights
    7-bit only when both the base's classifier and this localiser are; where the base
    declares 8-bit weights whose pairs fit (``pairs_fit``), this localiser's are fitted so
    too."""
    import onnx

    from training.stages.lite_loc import calibration_frames, load_lite_loc

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    base_loc = Path(base_loc)
    cfg = onnx_config(base_loc)
    net = load_lite_loc(ckpt)
    path = out_dir / f"{name}-localiser.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, torch.rand(1, 3, 480, 640) * 255, str(path),
                          input_names=["image"], output_names=["maps"], opset_version=17,
                          dynamo=False)
    for key in ("classifier", "refiner"):
        src = base_loc.parent / cfg[key]
        dst = out_dir / cfg[key].replace(base_loc.stem.replace("-localiser", ""), name)
        if src.resolve() != dst.resolve():
            shutil.copyfile(src, dst)
        cfg[key] = dst.name
    cfg["localiser_arch"] = "lite0-b8-fpn32"
    cfg["localiser_int8"] = calibrate is not None
    if reduce_range is None:
        reduce_range = seven_bit(cfg)
    cfg["int8_weight_bits"] = 7 if seven_bit(cfg) and (reduce_range or calibrate is None) \
        else 8
    fit_pairs = pairs_fit(cfg)   # the base's classifier has them: this localiser gets them
    m = onnx.load(str(path))
    entry = m.metadata_props.add()
    entry.key, entry.value = "hanafuda", json.dumps(settings_record(cfg))
    onnx.save(m, str(path))
    if calibrate is not None:
        quantize_localiser(path, calibration_frames(calibrate), keep_float=FLOAT_NODES,
                           reduce_range=reduce_range, fit_pairs=fit_pairs and not reduce_range)
    return path


def requantize_classifier(cls_ckpt: Path | dict, int8_path: Path, reduce_range: bool = True
                          ) -> Path:
    """The int8 classifier file ``int8_path`` made again from its torch weights
    ``cls_ckpt`` (``training/campaign/classifier.pt`` for the shipped one), in place:
    its activations keep the file's own scales and zero points (its calibration, whose
    crops were the round's boxes), its weights are quantised anew, 7-bit with
    ``reduce_range``; its metadata (settings, lineage) is kept."""
    import onnx
    import tempfile

    int8_path = Path(int8_path)
    old = onnx.load(str(int8_path))
    with tempfile.TemporaryDirectory() as tmp:
        kept = Path(tmp) / "int8.onnx"
        shutil.copyfile(int8_path, kept)
        export_classifier(cls_ckpt, int8_path)
        # the calibration reader still runs: a few neutral crops, whose ranges the kept
        # ones override
        calib = np.full((4, CROP_H, CROP_W, 3), 128, np.uint8)
        quantize_classifier(int8_path, calib, reduce_range, activations_from=kept)
    m = onnx.load(str(int8_path))
    del m.metadata_props[:]
    m.metadata_props.extend(old.metadata_props)
    onnx.save(m, str(int8_path))
    return int8_path


def onnx_config(loc_path: Path) -> dict:
    """The ``hanafuda`` JSON metadata of an exported localiser."""
    import onnx

    for p in onnx.load(str(loc_path)).metadata_props:
        if p.key == "hanafuda":
            return json.loads(p.value)
    return {}


def settings_record(cfg: dict) -> dict:
    """``cfg`` as the detector reads it: every key of ``scorer.vision.settings.
    DetectionSettings`` (an unknown one is refused), written whole."""
    from scorer.vision.settings import DetectionSettings
    return DetectionSettings.from_metadata(cfg).to_metadata()


def set_config(loc_path: Path, updates: dict) -> dict:
    """Update the detection settings (``scorer.vision.settings``, the ``hanafuda`` JSON
    metadata) of an exported localiser; the whole record is written."""
    import onnx

    m = onnx.load(str(loc_path))
    cfg = {}
    for p in m.metadata_props:
        if p.key == "hanafuda":
            cfg = settings_record({**json.loads(p.value), **updates})
            p.value = json.dumps(cfg)
    onnx.save(m, str(loc_path))
    return cfg
