"""Start training from a shipped ONNX file: its weights loaded back into the torch
network it was exported from.

The exporter folds each batch norm into the convolution before it, and the int8
classifier stores its weights quantised (DequantizeLinear). Both are undone here: each
convolution (and linear layer) of the torch network, in the order the forward pass
runs them, takes the weight and bias of the ONNX graph's convolution (Gemm) in graph
order; a batch norm after a bias-free convolution becomes the identity with the folded
bias. Such a network must then train with its batch norms frozen (``freeze_bn``): in
eval mode it computes exactly what the ONNX file does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn as nn


def _initializers(graph) -> dict[str, np.ndarray]:
    from onnx import numpy_helper

    vals = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    for n in graph.node:  # constants folded into Constant nodes
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    vals[n.output[0]] = numpy_helper.to_array(a.t)
    # dequantised weights: y = (x - zero_point) * scale, per tensor or per channel
    for n in graph.node:
        if n.op_type != "DequantizeLinear" or n.input[0] not in vals:
            continue
        x = vals[n.input[0]].astype(np.float32)
        scale = vals[n.input[1]].astype(np.float32)
        zp = vals[n.input[2]].astype(np.float32) if len(n.input) > 2 and n.input[2] else 0.0
        axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
        if np.ndim(scale) == 1 and x.ndim > 1:
            shape = [1] * x.ndim
            shape[axis] = -1
            scale = scale.reshape(shape)
            zp = np.reshape(zp, shape) if np.ndim(zp) == 1 else zp
        vals[n.output[0]] = (x - zp) * scale
    return vals


def _layers_in_forward_order(model: nn.Module, example: torch.Tensor) -> list[nn.Module]:
    order: list[nn.Module] = []
    hooks = [m.register_forward_hook(lambda mod, i, o: order.append(mod))
             for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    was = model.training
    model.eval()
    with torch.no_grad():
        model(example)
    model.train(was)
    for h in hooks:
        h.remove()
    return order


def _module_path(node_name: str) -> str:
    """The torch module path of an exported node: '/s4/s4.0/dw/dw.0/Conv' -> 's4.0.dw.0'
    (a wrapper's leading '/net' dropped)."""
    parts = node_name.strip("/").split("/")[:-1]
    if parts and parts[0] == "net":
        parts = parts[1:]
    path: list[str] = []
    for p in parts:
        if path and p.startswith(path[-1] + "."):
            path[-1] = p
        else:
            path.append(p)
    return ".".join(path)


def _matched_layers(model: nn.Module, nodes, example: torch.Tensor) -> list[nn.Module]:
    """The torch layer of each ONNX node: by the node's scope name where every name
    resolves, else by forward order."""
    named = dict(model.named_modules())
    by_name = [named.get(_module_path(n.name)) for n in nodes]
    if all(isinstance(m, (nn.Conv2d, nn.Linear)) for m in by_name):
        return by_name
    return _layers_in_forward_order(model, example)


def _bn_after(model: nn.Module) -> dict[nn.Module, nn.BatchNorm2d]:
    """The batch norm that directly follows each convolution in a Sequential."""
    out = {}
    for m in model.modules():
        kids = list(m.children())
        for a, b in zip(kids, kids[1:]):
            if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                out[a] = b
    # EfficientNet blocks keep conv and bn as separate attributes (_conv_x, _bn_x)
    for m in model.modules():
        names = dict(m.named_children())
        for conv_name, bn_name in (("_expand_conv", "_bn0"), ("_depthwise_conv", "_bn1"),
                                   ("_project_conv", "_bn2"), ("_conv_stem", "_bn0"),
                                   ("_conv_head", "_bn1")):
            if conv_name in names and bn_name in names:
                out[names[conv_name]] = names[bn_name]
    return out


def load_from_onnx(model: nn.Module, onnx_path: str | Path, example: torch.Tensor) -> None:
    """Load ``onnx_path``'s weights into ``model`` (the architecture it was exported
    from). Raises ValueError when the two do not match layer for layer."""
    import onnx

    graph = onnx.load(str(onnx_path)).graph
    vals = _initializers(graph)
    onnx_layers = [n for n in graph.node if n.op_type in ("Conv", "Gemm")]
    layers = _matched_layers(model, onnx_layers, example)
    if len(layers) != len(onnx_layers):
        raise ValueError(f"{onnx_path}: {len(onnx_layers)} conv/linear layers, the network "
                         f"has {len(layers)}")
    bns = _bn_after(model)
    unfolded = []  # batch norms the exporter could not fold (after an Add)
    for mod, node in zip(layers, onnx_layers):
        w = vals[node.input[1]]
        if node.op_type == "Gemm" and not any(a.name == "transB" and a.i for a in node.attribute):
            w = w.T
        b = vals[node.input[2]] if len(node.input) > 2 else np.zeros(w.shape[0], np.float32)
        if tuple(w.shape) != tuple(mod.weight.shape):
            raise ValueError(f"{onnx_path}: layer {node.name} has shape {w.shape}, the network "
                             f"{tuple(mod.weight.shape)}")
        with torch.no_grad():
            mod.weight.copy_(torch.from_numpy(np.array(w, np.float32)))
            if mod.bias is not None:
                mod.bias.copy_(torch.from_numpy(np.array(b, np.float32)))
            elif mod in bns and len(node.input) <= 2:
                unfolded.append(bns[mod])
            elif mod in bns:
                bn = bns[mod]
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.from_numpy(np.array(b, np.float32)))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
            elif np.abs(b).max() > 0:
                raise ValueError(f"{onnx_path}: {node.name} has a bias the network cannot hold")
    onnx_bns = [n for n in graph.node if n.op_type == "BatchNormalization"]
    if len(onnx_bns) != len(unfolded):
        raise ValueError(f"{onnx_path}: {len(onnx_bns)} batch norms left in the graph, the "
                         f"network has {len(unfolded)} unfolded ones")
    for bn, node in zip(unfolded, onnx_bns):
        with torch.no_grad():
            for t, k in zip((bn.weight, bn.bias, bn.running_mean, bn.running_var), range(1, 5)):
                t.copy_(torch.from_numpy(np.array(vals[node.input[k]], np.float32)))


def freeze_bn(model: nn.Module) -> nn.Module:
    """Batch norms in eval mode (their statistics fixed); call after ``model.train()``."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
    return model
