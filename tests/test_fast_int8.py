"""int8 weights whose 16-bit pair sums cannot saturate (``training.ship.fast_int8``): which
weights onnxruntime's u8s8 kernels pair, the bound, the rounding that keeps a layer's
output, and a QDQ file rewritten so."""

from __future__ import annotations

import numpy as np
import pytest

from training.ship.fast_int8 import (PAIR_BOUND, fit_layer, gptq_round, pairs_over,
                                     saturation_pairs)


def vpmaddubsw_products(a: np.ndarray, q: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(M, O) products of unsigned activations ``a`` (M, K) and int8 weights ``q`` (O, K)
    as an x86 CPU without VNNI computes them: each pair's two products added in a
    saturating int16, the rest exact."""
    a, q = a.astype(np.int64), q.astype(np.int64)
    paired = np.zeros(q.shape[1], bool)
    paired[pairs.reshape(-1)] = True
    out = a[:, ~paired] @ q[:, ~paired].T
    for i, j in pairs:
        out += np.clip(np.outer(a[:, i], q[:, i]) + np.outer(a[:, j], q[:, j]), -32768, 32767)
    return out


def worst_activations(q: np.ndarray) -> np.ndarray:
    """For each output channel, the activations (0..255) that push its pairs hardest: 255
    where the weight is positive, then where it is negative."""
    return np.concatenate([np.where(q > 0, 255, 0), np.where(q < 0, 255, 0)]).astype(np.uint8)


def test_the_pairs_are_neighbouring_channels_and_neighbours_of_the_flattened_kernel():
    assert saturation_pairs((4, 1, 1)).tolist() == [[0, 1], [2, 3]]
    assert saturation_pairs((5,)).tolist() == [[0, 1], [2, 3]]
    assert saturation_pairs((16, 3, 3), depthwise=True).shape == (0, 2)
    # 3 input channels, a 2x1 kernel: ONNX index = channel * 2 + position
    pairs = {tuple(p) for p in saturation_pairs((3, 2, 1)).tolist()}
    # channels 0 and 1 at each position (the symmetric kernel pads channel 2 with a zero)
    assert {(0, 2), (1, 3)} <= pairs
    # the GEMM path's (position, channel) order: c0p0 c1p0 | c2p0 c0p1 | c1p1 c2p1
    assert {(0, 2), (1, 4), (3, 5)} <= pairs
    assert len(pairs) == 4


def test_the_bound_counts_same_signed_pairs_past_128_only():
    pairs = np.array([[0, 1], [2, 3]])
    q = np.array([[127, 2, -64, -64], [100, -127, 64, 64], [0, 127, 65, 64]])
    assert pairs_over(q[:1], pairs) == 1           # 127 + 2
    assert pairs_over(q[1:2], pairs) == 0          # opposite signs; 64 + 64 = 128 fits
    assert pairs_over(q[2:], pairs) == 1           # 65 + 64
    assert pairs_over(q, np.zeros((0, 2), int)) == 0


def test_weights_within_the_bound_multiply_exactly_as_the_16_bit_pairs_add_them():
    rng = np.random.default_rng(0)
    pairs = saturation_pairs((8, 1, 1))
    q = rng.integers(-127, 128, (32, 8)).astype(np.int8)
    assert pairs_over(q, pairs) > 0
    a = worst_activations(q)
    assert (vpmaddubsw_products(a, q, pairs) != a.astype(np.int64) @ q.T.astype(np.int64)).any()
    w = q.astype(np.float64)
    fitted, r = fit_layer(w, np.ones(32), np.eye(8), pairs)
    assert pairs_over(fitted, pairs) == 0
    a = worst_activations(fitted)
    exact = a.astype(np.int64) @ fitted.T.astype(np.int64)
    assert (vpmaddubsw_products(a, fitted, pairs) == exact).all()


def _layer(seed: int = 1, o: int = 64, k: int = 48):
    """Heavy-tailed float weights, correlated non-negative inputs (as after a ReLU), the
    8-bit per-channel grid."""
    rng = np.random.default_rng(seed)
    x = np.maximum(rng.normal(size=(4000, k)) @ rng.normal(size=(k, k)) * 0.3 + 0.5, 0)
    w = rng.standard_t(4, size=(o, k))
    return w, np.abs(w).max(1) / 127, x.T @ x / len(x)


def _output_error(w, q, scale, h) -> float:
    d = w - q.astype(np.float64) * scale[:, None]
    return float(np.einsum("ok,kl,ol->", d, h, d) / np.einsum("ok,kl,ol->", w, h, w))


def test_the_fitted_weights_keep_the_layers_output_better_than_seven_bit_weights():
    w, scale, h = _layer()
    pairs = saturation_pairs((w.shape[1], 1, 1))
    rtn8 = np.clip(np.round(w / scale[:, None]), -127, 127)
    assert pairs_over(rtn8, pairs) > 0
    rtn7 = np.clip(np.round(w / (2 * scale[:, None])), -64, 64)
    q, r = fit_layer(w, scale, h, pairs)
    assert pairs_over(q, pairs) == 0
    assert np.all((r >= 1) & (r <= 2))
    fitted = _output_error(w, q, scale * r, h)
    assert fitted < _output_error(w, rtn7, 2 * scale, h) / 2
    # and within reach of plain 8-bit rounding, which saturates
    assert fitted < 2 * _output_error(w, rtn8, scale, h)


def test_gptq_rounding_alone_beats_plain_rounding_on_the_output_and_keeps_the_bound():
    w, scale, h = _layer(2)
    pairs = saturation_pairs((w.shape[1],))
    unbounded = gptq_round(w, scale, h, pairs, bound=10**6)
    rtn8 = np.clip(np.round(w / scale[:, None]), -127, 127)
    assert _output_error(w, unbounded, scale, h) < _output_error(w, rtn8, scale, h)
    bounded = gptq_round(w, 1.6 * scale, h, pairs)
    assert pairs_over(bounded, pairs) == 0
    assert np.abs(bounded).max() <= 127 and PAIR_BOUND == 128


def test_a_qdq_file_refit_keeps_its_grid_bias_and_output_and_its_pairs_fit(tmp_path):
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime.quantization")
    from onnx import helper, numpy_helper

    from tests.sessions import product_session
    from training.ship.export import CalibrationBatches, quantize_int8
    from training.ship.fast_int8 import float_weights, refit, weighted_layers

    rng = np.random.default_rng(3)
    w = rng.standard_t(3, size=(16, 8, 1, 1)).astype(np.float32)
    b = rng.normal(size=16).astype(np.float32)
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [None, 8, 6, 6])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [None, 16, 6, 6])
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv")],
                              "g", [x], [y], [numpy_helper.from_array(w, "w"),
                                              numpy_helper.from_array(b, "b")])
    path = tmp_path / "float.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    data = rng.uniform(0, 4, (8, 8, 6, 6)).astype(np.float32)
    int8 = tmp_path / "int8.onnx"
    int8.write_bytes(path.read_bytes())
    quantize_int8(int8, CalibrationBatches("x", data, 2))
    fitted = tmp_path / "fitted.onnx"
    report = refit(int8, float_weights(path), [{"x": data[i:i + 2]} for i in range(0, 8, 2)],
                   fitted)
    assert report["conv"][0] > 0 and report["conv"][1] == 0

    model = onnx.load(str(fitted))
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    layer = weighted_layers(model)[0]
    q = init[layer.weight].reshape(16, -1)
    assert pairs_over(q, saturation_pairs((8, 1, 1))) == 0
    # the bias stays on the grid the fused integer layer assumes: input x weight scale
    assert np.array_equal(init[layer.bias_scale],
                          (init[layer.input_scale] * init[layer.scale]).astype(np.float32))
    want = (data.transpose(0, 2, 3, 1) @ w.reshape(16, 8).T + b).transpose(0, 3, 1, 2)

    def error(p) -> float:
        got = product_session(p).run(None, {"x": data})[0]
        return float(np.abs(got - want).mean() / np.abs(want).mean())
    assert error(fitted) < max(2 * error(int8), 0.02)

    # bias correction gives back the mean output the new weights lose on the feeds
    corrected = tmp_path / "corrected.onnx"
    refit(int8, float_weights(path), [{"x": data[i:i + 2]} for i in range(0, 8, 2)],
          corrected, bias_correction=True)

    def mean_shift(p) -> float:
        got = product_session(p).run(None, {"x": data})[0]
        return float(np.abs((got - want).mean(axis=(0, 2, 3))).mean())
    assert mean_shift(corrected) < mean_shift(fitted)


def test_the_exporters_quantisation_fits_the_pairs_when_asked(tmp_path):
    """A network exported to join a model declaring ``int8_pairs_fit`` is quantised so
    (``training.ship.export.weight_grid``), its weights 8-bit still."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime.quantization")
    from onnx import helper, numpy_helper

    from training.ship.export import CalibrationBatches, quantize_int8, weight_grid
    from training.ship.fast_int8 import weighted_layers

    rng = np.random.default_rng(4)
    w = rng.standard_t(3, size=(16, 8, 3, 3)).astype(np.float32)
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [None, 8, 8, 8])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [None, 16, 6, 6])
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
                              "g", [x], [y], [numpy_helper.from_array(w, "w")])
    data = rng.uniform(0, 4, (4, 8, 8, 8)).astype(np.float32)
    counts = {}
    for fit in (False, True):
        path = tmp_path / f"fit{fit}.onnx"
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                  str(path))
        grid = weight_grid({"int8_pairs_fit": fit})
        assert grid == {"reduce_range": False, "fit_pairs": fit}
        quantize_int8(path, CalibrationBatches("x", data, 2), **grid)
        model = onnx.load(str(path))
        init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        layer = weighted_layers(model)[0]
        q = init[layer.weight]
        counts[fit] = pairs_over(q.reshape(16, -1), saturation_pairs(q.shape[1:]))
        assert np.abs(q).max() > 64
    assert counts[False] > 0 and counts[True] == 0
