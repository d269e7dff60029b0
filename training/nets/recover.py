"""Torch weights recovered from an exported (int8, QDQ) classifier, and from the float
box refiner.

A classifier training round starts from torch weights; the shipped one's are kept
(``training/campaign/classifier.pt``), but an older classifier may be left only as its
ONNX file (piece 13's was, and v6's first round started from it), so ``cls-real --start``
also takes such a file and this reads its weights back (``classifier_start``): each
Conv/Gemm node is named after its torch module (``/blocks.0/_depthwise_conv/Conv``),
its weights are dequantized (``(q - zero_point) * scale`` per output channel), and as
the export folded each batch norm into the convolution before it, that batch norm
becomes an identity plus the folded bias (weight 1, mean 0, variance ``1 - eps``). A
batch norm the export kept (the head's, after the side branch's sum) is copied as is.
The recovered network matches the ONNX one up to the int8 rounding of activations.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

from training.nets.networks import RefNet, build_classifier

# the batch norm after each convolution, as EfficientNet-Lite's blocks name them
_BN = {"_expand_conv": "_bn0", "_depthwise_conv": "_bn1", "_project_conv": "_bn2"}


def _weights(graph) -> dict[str, np.ndarray]:
    """The graph's constant tensors by name, DequantizeLinear outputs in float."""
    from onnx import numpy_helper

    const = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    out = {k: v.astype(np.float32) for k, v in const.items()}
    for n in graph.node:
        if n.op_type != "DequantizeLinear" or n.input[0] not in const:
            continue
        q = const[n.input[0]].astype(np.float64)
        scale = const[n.input[1]].astype(np.float64)
        zp = (const[n.input[2]].astype(np.float64) if len(n.input) > 2 and n.input[2]
              else np.zeros_like(scale))
        if scale.size > 1:  # per channel, along ``axis``
            axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
            shape = [1] * q.ndim
            shape[axis] = -1
            scale, zp = scale.reshape(shape), zp.reshape(shape)
        out[n.output[0]] = ((q - zp) * scale).astype(np.float32)
    return out


def classifier_from_onnx(path: Path) -> tuple[torch.nn.Module, str]:
    """The classifier exported (and quantized) by ``training.ship.export`` at ``path`` as
    a torch ``Lite0Cls`` in eval mode, and its arch (the file's ``classifier_arch``)."""
    import onnx

    model = onnx.load(str(path))
    meta = {p.key: p.value for p in model.metadata_props}
    arch = json.loads(meta.get("hanafuda", "{}")).get("classifier_arch")
    if not arch:
        raise ValueError(f"{path}: no classifier_arch in its metadata")
    net = build_classifier(arch)
    mods = dict(net.named_modules())
    w = _weights(model.graph)
    loaded: set[str] = set()

    def put(name: str, **tensors: np.ndarray | float) -> None:
        for k, v in tensors.items():
            t = getattr(mods[name], k)
            src = torch.as_tensor(v, dtype=t.dtype)
            if src.ndim and src.shape != t.shape:
                raise ValueError(f"{name}.{k}: {tuple(src.shape)} in the file, "
                                 f"{tuple(t.shape)} in {arch}")
            t.copy_(src.expand_as(t))
            loaded.add(f"{name}.{k}")

    with torch.no_grad():
        for n in model.graph.node:
            if n.op_type not in ("Conv", "Gemm", "BatchNormalization"):
                continue
            parts = n.name.strip("/").split("/")[:-1]  # ["stem", "stem.0"], ["blocks.0", "_expand_conv"]
            name = parts[-1] if parts[0] == "stem" else ".".join(parts)
            ins = [w[i] if i else None for i in n.input[1:]]
            if n.op_type == "BatchNormalization":
                put(name, weight=ins[0], bias=ins[1], running_mean=ins[2], running_var=ins[3])
                continue
            put(name, weight=ins[0])
            bias = ins[1] if len(ins) > 1 else None
            if bias is None:
                continue
            if n.op_type == "Gemm":
                put(name, bias=bias)
                continue
            parent, _, leaf = name.rpartition(".")
            bn = "stem.1" if name == "stem.0" else f"{parent}.{_BN[leaf]}"
            put(bn, weight=1.0, bias=bias, running_mean=0.0, running_var=1.0 - mods[bn].eps)
    missing = [k for k, v in net.state_dict().items()
               if v.is_floating_point() and not k.startswith("norm.") and k not in loaded]
    if missing:
        raise ValueError(f"{path}: no weights for {', '.join(missing)}")
    return net.eval(), arch


def classifier_start(path: Path, out: Path) -> Path:
    """The checkpoint a classifier round starts from: ``path`` itself, or, for an exported
    classifier's ONNX file (any shipped one, from the git history say), its recovered
    weights saved at ``out`` in the one checkpoint format (``training.nets.checkpoint``)."""
    from training.nets import checkpoint

    if Path(path).suffix != ".onnx":
        return Path(path)
    net, arch = classifier_from_onnx(Path(path))
    return checkpoint.save(out, {"cls": net}, config={"arch": arch, "recovered_from": str(path)})


def refiner_from_onnx(path: Path) -> torch.nn.Module:
    """The box refiner exported by ``training.ship.export.export_refiner`` at ``path`` as
    a torch ``RefNet`` in eval mode (its outputs in training's scaled units). The export
    named its convolutions only by number, so they are taken in the graph's order, which
    is the network's; each folded batch norm becomes an identity plus the folded bias."""
    import onnx

    model = onnx.load(str(path))
    w = _weights(model.graph)
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    net = RefNet()
    mods = list(net.modules())
    pairs = [(m, next(b for b in mods[i + 1:] if isinstance(b, torch.nn.BatchNorm2d)))
             for i, m in enumerate(mods) if isinstance(m, torch.nn.Conv2d)]
    if len(pairs) != len(convs):
        raise ValueError(f"{path}: {len(convs)} convolutions, a refiner has {len(pairs)}")
    state = net.state_dict()
    with torch.no_grad():
        for (conv, bn), node in zip(pairs, convs):
            weight, bias = w[node.input[1]], w[node.input[2]]
            if tuple(conv.weight.shape) != weight.shape:
                raise ValueError(f"{path}: a convolution of {weight.shape}, the refiner's is "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(weight))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(bias))
            assert bn.running_mean is not None and bn.running_var is not None
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        for name in ("norm.mean", "norm.std", "head.1.weight", "head.1.bias", "head.3.weight",
                     "head.3.bias"):
            if f"net.{name}" not in w:
                raise ValueError(f"{path}: no {name} for the refiner")
            state[name].copy_(torch.from_numpy(w[f"net.{name}"]).reshape(state[name].shape))
    return net.eval()
