"""int8 weights that onnxruntime's fast products multiply exactly on every x86 CPU.

Without VNNI, onnxruntime's u8s8 kernels (AVX2, AVX-512 without VNNI, SSE4.1) add each
*pair* of unsigned-activation x signed-weight products into a saturating int16
(``vpmaddubsw``) before widening to 32 bits. The pairs are fixed by how the weights are
packed: two neighbouring input channels at one kernel position (channels padded to a
multiple of 4, ``MlasConvSymKernelAvx2``), or two neighbouring entries of the flattened
(kernel position, input channel) axis when the convolution goes through a GEMM
(``QLinearConv::ReorderFilter``, ``QgemmU8S8KernelAvx2``); for a Gemm, neighbours along K.
Activations reach 255, so a pair stays within int16 (255 x 128 = 32640 <= 32767) when:

    the two weights have opposite signs (or one is 0), or |w_a| + |w_b| <= 128.

Depthwise convolutions widen both operands to 32 bits first (``vpmovzxbd``/``vpmovsxbd``,
then ``vpmaddwd``): exact at any int8 weight, so they are left as they are.

7-bit weights (|w| <= 64, onnxruntime's ``reduce_range``) meet the bound everywhere but
lose a bit on every weight. Here the 8-bit grid (and the scales, hence the int32 biases)
stay, and only the pairs past the bound are brought within it. Rounding is done the GPTQ
way (Frantar et al. 2022, "GPTQ: Accurate Post-Training Quantization for Generative
Pre-trained Transformers"): weight by weight, each one's rounding error is spread over the
weights not yet rounded, weighted by the layer's input statistics, so that the layer's
*output* on calibration inputs moves as little as it can. ``refit`` rewrites a QDQ file's
int8 weights so; ``pairs_over`` checks a weight tensor.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

PAIR_BOUND = 128          # 255 x 128 = 32640, the largest pair that fits an int16
QMAX = 127                # symmetric int8 weights: -127..127


def saturation_pairs(shape: tuple[int, ...], depthwise: bool = False) -> np.ndarray:
    """(P, 2) flat indices, in one output channel's weights as ONNX stores them
    ((I, kh, kw) for a Conv, K for a Gemm/MatMul row), of every pair of weights any of
    onnxruntime's u8s8 kernels adds in 16 bits; empty for a depthwise convolution."""
    if depthwise:
        return np.zeros((0, 2), np.int64)
    if len(shape) == 1:              # a Gemm row: neighbours along K
        k = shape[0]
        a = np.arange(0, k - 1, 2)
        return np.stack([a, a + 1], 1)
    ic, *kernel = shape
    positions = int(np.prod(kernel)) if kernel else 1
    native = np.arange(ic * positions).reshape(ic, positions)   # index of (ic, pos)
    pairs = set()
    # the symmetric convolution kernel: channels 2j, 2j+1 at each kernel position
    for p in range(positions):
        for c in range(0, ic - 1, 2):
            pairs.add((int(native[c, p]), int(native[c + 1, p])))
    # the GEMM path: neighbours along the flattened (position, channel) axis
    order = native.T.reshape(-1)
    for j in range(0, len(order) - 1, 2):
        a, b = sorted((int(order[j]), int(order[j + 1])))
        pairs.add((a, b))
    return np.array(sorted(pairs), np.int64).reshape(-1, 2)


def pairs_over(q: np.ndarray, pairs: np.ndarray, bound: int = PAIR_BOUND) -> int:
    """How many (output channel, pair) of the int8 weights ``q`` (O, K) go past the
    16-bit bound: same signs and |w_a| + |w_b| > ``bound``."""
    if not len(pairs):
        return 0
    a, b = q[:, pairs[:, 0]].astype(np.int64), q[:, pairs[:, 1]].astype(np.int64)
    return int(((a * b > 0) & (np.abs(a) + np.abs(b) > bound)).sum())


def _partners(k: int, pairs: np.ndarray) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(k)]
    for a, b in pairs:
        out[a].append(int(b))
        out[b].append(int(a))
    return out


def gptq_round(w: np.ndarray, scale: np.ndarray, hessian: np.ndarray, pairs: np.ndarray,
               damp: float = 0.01, bound: int = PAIR_BOUND) -> np.ndarray:
    """int8 weights (O, K) for the float weights ``w`` (O, K) on the per-channel grid
    ``scale`` (O,), every pair of ``pairs`` within ``bound``, rounded GPTQ's way with the
    layer's input second moments ``hessian`` (K, K): columns in decreasing input energy,
    each column's rounding error carried onto the columns not yet rounded. A column
    whose partner is still to come gives up part of an excess pair in proportion to how
    cheaply each can move."""
    w = np.asarray(w, np.float64) / scale[:, None]          # in grid steps
    o, k = w.shape
    h = np.array(hessian, np.float64)
    dead = np.diag(h) <= 0
    h[dead, dead] = 1.0
    w[:, dead] = 0.0
    h[np.diag_indices(k)] += damp * float(np.mean(np.diag(h)))
    order = np.argsort(-np.diag(h), kind="stable")
    h = h[np.ix_(order, order)]
    w = w[:, order]
    rank = np.empty(k, np.int64)
    rank[order] = np.arange(k)
    partners = [[int(rank[p]) for p in ps] for ps in _partners(k, pairs)]
    partners = [partners[i] for i in order]
    # the upper Cholesky factor of the inverse Hessian (GPTQ's)
    hinv = np.linalg.cholesky(np.linalg.inv(h)).T
    q = np.zeros((o, k), np.float64)
    for i in range(k):
        col = w[:, i]
        qi = np.clip(np.round(col), -QMAX, QMAX)
        for j in partners[i]:
            if j < i:        # partner already rounded: stay within the bound beside it
                qj = q[:, j]
                qi = np.where(qj > 0, np.minimum(qi, bound - qj), qi)
                qi = np.where(qj < 0, np.maximum(qi, -bound - qj), qi)
            else:            # partner to come: share the excess by how cheaply each moves
                wj = np.clip(np.round(w[:, j]), -QMAX, QMAX)
                excess = np.abs(qi) + np.abs(wj) - bound
                over = (qi * wj > 0) & (excess > 0)
                if over.any():
                    ci, cj = hinv[i, i] ** 2, hinv[j, j] ** 2
                    give = np.ceil(excess * ci / (ci + cj))
                    qi = np.where(over, np.sign(qi) * np.maximum(np.abs(qi) - give, 0), qi)
        q[:, i] = qi
        err = (col - qi) / hinv[i, i]
        w[:, i + 1:] -= np.outer(err, hinv[i, i + 1:])
    return q[:, rank].astype(np.int8)


def fit_layer(w: np.ndarray, scale: np.ndarray, hessian: np.ndarray, pairs: np.ndarray,
              widths: int = 11) -> tuple[np.ndarray, np.ndarray]:
    """int8 weights (O, K) and per-channel scale factors r (O,) >= 1 for the float
    weights ``w`` (O, K) on the grid ``scale`` x r, every pair within the bound: each
    channel takes, of ``widths`` grids from its own (r = 1) to twice as coarse (r = 2,
    where no pair can pass the bound), the one whose GPTQ rounding moves the layer's output
    least (w - q s r)' H (w - q s r). A channel whose largest weights sit apart keeps its
    grid; one whose two largest share a pair takes a coarser one, or rounds them apart."""
    best_err = best_q = best_r = None
    for r in np.linspace(1.0, 2.0, widths):
        q = gptq_round(w, scale * r, hessian, pairs)
        d = w - q.astype(np.float64) * (scale * r)[:, None]
        err = np.einsum("ok,kl,ol->o", d, hessian, d)
        if best_err is None:
            best_err, best_q, best_r = err, q.copy(), np.full(len(w), r)
        else:
            better = err < best_err
            best_err = np.where(better, err, best_err)
            best_q[better] = q[better]
            best_r[better] = r
    return best_q, best_r


@dataclass
class WeightedLayer:
    """One Conv or Gemm of a QDQ graph whose weights are int8: where its weights, scales
    and input live, and what it does to its input (to gather that input's statistics)."""
    node: str
    weight: str        # the int8 initializer
    scale: str         # its per-channel scale initializer
    input: str         # the float tensor the layer reads
    input_scale: str   # that tensor's quantisation scale
    bias: str | None   # the int32 bias initializer, if any
    bias_scale: str | None
    op: str            # "Conv" or "Gemm"
    kernel: tuple[int, ...] = ()
    strides: tuple[int, ...] = (1, 1)
    pads: tuple[int, ...] = (0, 0, 0, 0)
    dilations: tuple[int, ...] = (1, 1)
    depthwise: bool = False


def weighted_layers(model) -> list[WeightedLayer]:
    """The Conv/Gemm nodes of the QDQ ``model`` fed an int8 weight through a
    DequantizeLinear, with the float tensor each reads (its input's DequantizeLinear
    output)."""
    from onnx import helper
    init = {t.name: t for t in model.graph.initializer}
    dequant = {n.output[0]: n for n in model.graph.node if n.op_type == "DequantizeLinear"}
    found = []
    for n in model.graph.node:
        if n.op_type not in ("Conv", "Gemm") or n.input[1] not in dequant:
            continue
        d = dequant[n.input[1]]
        if d.input[0] not in init:
            continue
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        if n.op_type == "Gemm" and not attrs.get("transB", 0):
            continue
        shape = tuple(init[d.input[0]].dims)
        group = int(attrs.get("group", 1))
        bias = dequant.get(n.input[2]) if len(n.input) > 2 else None
        found.append(WeightedLayer(
            node=n.name, weight=d.input[0], scale=d.input[1], input=n.input[0],
            input_scale=dequant[n.input[0]].input[1] if n.input[0] in dequant else "",
            bias=bias.input[0] if bias is not None else None,
            bias_scale=bias.input[1] if bias is not None else None, op=n.op_type,
            kernel=shape[2:], strides=tuple(attrs.get("strides", (1, 1))),
            pads=tuple(attrs.get("pads", (0, 0, 0, 0))),
            dilations=tuple(attrs.get("dilations", (1, 1))),
            depthwise=n.op_type == "Conv" and group > 1 and shape[1] == 1))
    return found


def layer_rows(x: np.ndarray, layer: WeightedLayer) -> np.ndarray:
    """The rows (M, K) a layer multiplies by its weights' rows, from its input ``x``
    ((N, C, H, W) for a Conv, (N, K) for a Gemm), K in the weights' ONNX order."""
    if layer.op == "Gemm":
        return x.reshape(len(x), -1)
    kh, kw = layer.kernel
    sh, sw = layer.strides
    dh, dw = layer.dilations
    t, left, b, r = layer.pads
    x = np.pad(x, ((0, 0), (0, 0), (t, b), (left, r)))
    n, c, hh, ww = x.shape
    oh = (hh - dh * (kh - 1) - 1) // sh + 1
    ow = (ww - dw * (kw - 1) - 1) // sw + 1
    cols = np.empty((n, c, kh, kw, oh, ow), x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = x[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh,
                                 j * dw: j * dw + sw * (ow - 1) + 1: sw]
    return cols.transpose(0, 4, 5, 1, 2, 3).reshape(n * oh * ow, c * kh * kw)


def input_moments(model, layers: list[WeightedLayer], feeds: Iterable[Mapping[str, np.ndarray]]
                  ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each (not depthwise) layer's input second moments (K, K) and mean (K,), over the
    rows it multiplies, on the calibration ``feeds``, from running the QDQ ``model`` as written
    (its quantised activations: what the int8 layer really reads)."""
    import tempfile

    import onnx

    from scorer.vision.stages import session

    m = onnx.ModelProto()
    m.CopyFrom(model)
    del m.graph.output[:]
    wanted = sorted({layer.input for layer in layers})
    for name in wanted:
        m.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "inputs.onnx"
        onnx.save(m, str(path))
        sess = session(path, 1, precise=True)   # exact on every CPU
    sums: dict[str, np.ndarray] = {}
    firsts: dict[str, np.ndarray] = {}
    counts: dict[str, int] = {}
    for feed in feeds:
        got = dict(zip(wanted, sess.run(wanted, dict(feed))))
        for layer in layers:
            rows = layer_rows(got[layer.input].astype(np.float32), layer).astype(np.float64)
            sums[layer.node] = sums.get(layer.node, 0) + rows.T @ rows
            firsts[layer.node] = firsts.get(layer.node, 0) + rows.sum(0)
            counts[layer.node] = counts.get(layer.node, 0) + len(rows)
    return {k: (v / counts[k], firsts[k] / counts[k]) for k, v in sums.items()}


def refit(qdq_path: Path, float_weights: Mapping[str, np.ndarray],
          feeds: Iterable[Mapping[str, np.ndarray]], out_path: Path | None = None,
          widths: int = 11, bias_correction: bool = False) -> dict[str, tuple[int, int]]:
    """Rewrite the int8 weights of the QDQ file ``qdq_path`` (to ``out_path``, default in
    place) so that no pair onnxruntime's fast products add in 16 bits can saturate:
    each layer's float weights ``float_weights`` (by node name, as ONNX stores them) are
    rounded GPTQ's way (``fit_layer``) with its inputs on ``feeds``, a channel's scale
    made coarser where that serves better, its int32 bias re-expressed on the new scale
    (input scale x weight scale, as the quantiser writes it) and, with
    ``bias_correction``, moved by the mean output change on ``feeds`` (a layer without a
    bias keeps none). ``widths``: ``fit_layer``'s grids. Activation ranges are kept;
    depthwise layers are left as they are. Returns, by node, the pairs past the bound
    before and after."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(qdq_path))
    layers = [layer for layer in weighted_layers(model) if not layer.depthwise]
    moments = input_moments(model, layers, feeds)
    init = {t.name: t for t in model.graph.initializer}
    report = {}
    for layer in layers:
        q_old = numpy_helper.to_array(init[layer.weight])
        scale = numpy_helper.to_array(init[layer.scale]).astype(np.float64).reshape(-1)
        o = q_old.shape[0]
        pairs = saturation_pairs(q_old.shape[1:])
        w = np.asarray(float_weights[layer.node], np.float64).reshape(o, -1)
        hessian, mean = moments[layer.node]
        q, r = fit_layer(w, np.broadcast_to(scale, (o,)), hessian, pairs, widths)
        report[layer.node] = (pairs_over(q_old.reshape(o, -1), pairs), pairs_over(q, pairs))
        new_scale = (scale * r).astype(np.float32)
        init[layer.weight].CopyFrom(numpy_helper.from_array(q.reshape(q_old.shape),
                                                            layer.weight))
        init[layer.scale].CopyFrom(numpy_helper.from_array(new_scale, layer.scale))
        if layer.bias is not None:
            old_b = numpy_helper.to_array(init[layer.bias]).astype(np.float64) * \
                numpy_helper.to_array(init[layer.bias_scale]).astype(np.float64)
            if bias_correction:   # the mean output the new weights lose, given back
                old_b = old_b + (w - q.astype(np.float64) * (scale * r)[:, None]) @ mean
            x_scale = numpy_helper.to_array(init[layer.input_scale]).astype(np.float32)
            b_scale = (x_scale * new_scale).astype(np.float32)
            b_q = np.round(old_b / b_scale.astype(np.float64)).astype(np.int32)
            init[layer.bias].CopyFrom(numpy_helper.from_array(b_q, layer.bias))
            init[layer.bias_scale].CopyFrom(numpy_helper.from_array(b_scale, layer.bias_scale))
    onnx.save(model, str(out_path or qdq_path))
    return report


def weights_of(model) -> dict[str, np.ndarray]:
    """The float weights of each Conv/Gemm of the float ONNX ``model`` by node name."""
    from onnx import numpy_helper

    init = {t.name: t for t in model.graph.initializer}
    return {n.name: numpy_helper.to_array(init[n.input[1]]) for n in model.graph.node
            if n.op_type in ("Conv", "Gemm") and len(n.input) > 1 and n.input[1] in init}


def float_weights(float_path: Path) -> dict[str, np.ndarray]:
    """The float weights of each Conv/Gemm of the float ONNX file ``float_path`` by node
    name, as the quantiser sees them (after onnxruntime's pre-processing, which folds
    what it folds)."""
    import tempfile

    import onnx
    from onnxruntime.quantization import quant_pre_process

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(float_path), str(pre))
        return weights_of(onnx.load(str(pre)))


def dequantized_weights(model) -> dict[str, np.ndarray]:
    """The weights of each int8 layer of the QDQ ``model`` as it computes them (int8 x
    scale), by node name: the target when its weights are refit to keep what it does
    (its tuned thresholds read its own scores)."""
    from onnx import numpy_helper

    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    out = {}
    for layer in weighted_layers(model):
        q = init[layer.weight].astype(np.float64)
        scale = init[layer.scale].astype(np.float64).reshape((-1,) + (1,) * (q.ndim - 1))
        out[layer.node] = q * scale
    return out
