"""A tiny end-to-end training run: art -> cached scenes -> localiser -> classifier ->
ONNX export -> evaluation, plus the leave-one-deck-out path. Minutes, not hours."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest

from training import DEFAULT_ART_DIR
from scorer.vision.geometry import quad_to_rect
from training.__main__ import _args, _ft_rounds, main
from training.data import BACKGROUND, label_boxes
from training.train import loc_targets, random_crop_scenes
from training.scenes import SEED_RANGES, get_library, random_scene


def test_art_is_present():
    # the art is required: fail loudly, never skip
    assert DEFAULT_ART_DIR.is_dir(), f"card art missing at {DEFAULT_ART_DIR}"
    lib = get_library()
    assert len(lib.sets) == 4 and all(len(v) == 48 for v in lib.faces.values())


def test_scenes_deterministic_and_seed_ranges_disjoint():
    lib = get_library()
    a, ca, _ = random_scene(lib, 123)
    b, cb, _ = random_scene(lib, 123)
    assert np.array_equal(a, b) and [c.code for c in ca] == [c.code for c in cb]
    ranges = sorted(SEED_RANGES.values())
    assert all(r1[1] <= r2[0] for r1, r2 in zip(ranges, ranges[1:]))


def test_tiny_pipeline_end_to_end(tmp_path, capsys):
    run, models = tmp_path / "run", tmp_path / "models"
    args = ["all", "--run-dir", str(run), "--models-dir", str(models), "--name", "tiny",
            "--scenes", "12", "--val-scenes", "4", "--test-scenes", "2",
            "--lodo-test-scenes", "2", "--tune-scenes", "2", "--loc-steps", "3", "--loc-batch", "4",
            "--cls-steps", "3", "--lodo-cls-steps", "3", "--cls-batch", "8", "--cls-arch", "tiny",
            "--ft-scenes", "4", "--ft-steps", "2", "--loc2-steps", "2", "--loc2-scenes", "4",
            "--loc3-steps", "2", "--loc3-scenes", "4",
            "--ft2-steps", "2", "--ft2-scenes", "6", "--ft2-grow", "0", "--ft3-steps", "2",
            "--ft3-scenes", "8", "--calib-scenes", "2", "--ref-steps", "2",
            "--ref-scenes", "4", "--ft4-steps", "2", "--ft4-scenes", "4",
            "--workers", "1", "--threads", "2"]
    assert main(args) == 0
    loc, cls = models / "tiny-localiser.onnx", models / "tiny-classifier.onnx"
    assert loc.is_file() and cls.is_file()
    assert (run / "cls-ft" / "classifier.pt").is_file()  # fine-tuned on localiser crops
    cfg = json.loads({p.key: p.value for p in onnx.load(str(loc)).metadata_props}["hanafuda"])
    assert cfg["refiner"] == "tiny-refiner.onnx" and cfg["refine_passes"] == 2
    assert (models / "tiny-refiner.onnx").is_file()
    assert (run / "lodo-model" / "tiny-lodo-refiner.onnx").is_file()
    for sub in ("cls-ft2", "cls-lodo-ft2", "cls-ft3", "cls-lodo-ft3", "cls-ft4", "cls-lodo-ft4"):
        assert (run / sub / "classifier.pt").is_file()
    import onnxruntime as ort
    shape = ort.InferenceSession(str(loc), providers=["CPUExecutionProvider"]).get_inputs()[0].shape
    assert shape == [1, 3, 480, 640]  # the last (third) stage's size is the one exported
    ops = {n.op_type for n in onnx.load(str(cls)).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= ops  # the classifier ships in int8
    res = json.loads((models / "eval" / "eval-test.json").read_text())
    assert res["scenes"] == 2 and "equiv" in res and "slices_recall" in res
    assert (models / "eval" / "confusion-test.png").is_file()
    assert (models / "eval" / "eval-lodo-hwatu.json").is_file()
    # resumable: a second run finds the checkpoints and the cache and finishes quickly
    capsys.readouterr()
    assert main(args[:1] + args[1:] + ["--no-lodo"]) == 0
    err = capsys.readouterr().err
    for sub in ("cls-ft", "cls-ft2", "cls-ft3", "cls-ft4"):  # skipped before crops load
        assert f"{sub}: finished already" in err
    assert "ref: finished already" in err
    assert "localiser crops" not in err
    from scorer.vision import Detector
    det = Detector(loc, threads=1)
    assert det.ref is not None
    img, _, _ = random_scene(get_library(), 5)
    det.detect(img)  # runs; an untrained model finds whatever it finds


def test_localiser_boxes_are_labelled_by_the_card_they_cover():
    _, cards, _ = random_scene(get_library(), 321)
    card = max(cards, key=lambda c: c.visible)
    cx, cy, w, h, th = quad_to_rect(card.quad)
    on_card = (cx + 0.05 * h, cy, w, h, th)
    far_away = (-5 * h, -5 * h, w, h, th)  # outside the frame: covers nothing
    sliver = (cx + 0.8 * w, cy, w, h, th)  # a fifth of the card: ambiguous
    labels = label_boxes(np.array([on_card, far_away, sliver], np.float32), [card])
    assert labels == [card.class_id, BACKGROUND, None]


def test_random_crop_moves_cards_with_the_window():
    rng = np.random.default_rng(0)
    imgs = rng.integers(0, 255, (3, 48, 64, 3), dtype=np.uint8)
    cards = np.array([[0, 30, 20, 8, 12, 0.1, 1.0], [2, 50, 40, 8, 12, 0.0, 0.9]], np.float32)
    out, moved = random_crop_scenes(imgs, cards, (32, 24), rng)
    assert out.shape == (3, 24, 32, 3)
    for row, new in zip(cards, moved):
        dx, dy = row[1] - new[1], row[2] - new[2]
        assert dx == int(dx) and dy == int(dy) and np.array_equal(new[3:], row[3:])
        i = int(row[0])
        assert np.array_equal(out[i], imgs[i, int(dy):int(dy) + 24, int(dx):int(dx) + 32])
    same, unmoved = random_crop_scenes(imgs, cards, (64, 48), rng)
    assert same is imgs and np.array_equal(unmoved, cards)


def test_a_card_whose_centre_leaves_the_window_gets_no_positive():
    inside = np.array([[0, 18, 14, 8, 12, 0.0, 1.0]], np.float32)
    outside = np.array([[0, -10, 14, 8, 12, 0.0, 1.0]], np.float32)
    assert loc_targets(inside, 1, 24, 32)[0].max() == 1.0
    assert loc_targets(outside, 1, 24, 32)[0].max() < 1.0


def test_bad_localiser_stage_options_are_one_line_errors(capsys):
    assert main(["export", "--loc3-size", "640x48x"]) == 2
    assert "--loc3-size must be WIDTHxHEIGHT" in capsys.readouterr().err
    assert main(["export", "--loc3-crop", "800x600"]) == 2
    assert "larger than --loc3-size" in capsys.readouterr().err
    assert main(["export", "--loc2-steps", "0"]) == 2
    assert "--loc3-steps needs --loc2-steps" in capsys.readouterr().err


def test_bad_fine_tuning_round_options_are_one_line_errors(capsys):
    assert main(["export", "--ft2-grow", "-1"]) == 2
    assert "--ft2-grow -1: only a truncated EfficientNet-Lite0" in capsys.readouterr().err
    assert main(["export", "--cls-arch", "tiny"]) == 2  # the default grows by 3 blocks
    assert "use --ft2-grow 0 with tiny" in capsys.readouterr().err
    for below in ("0", "1.5"):
        assert main(["export", "--tta-below", below]) == 2
        assert "--tta-below must be a probability in (0, 1]" in capsys.readouterr().err


def test_fine_tuning_rounds_follow_the_options():
    rounds = _ft_rounds(_args(["all"]))
    assert [(r.sub, r.base, r.arch, r.scenes) for r in rounds] == [
        ("cls-ft", "cls", "lite0-b8f", 4000), ("cls-ft2", "cls-ft", "lite0-b8f-x3", 8000),
        ("cls-ft3", "cls-ft2", "lite0-b8f-x3", 12000),
        ("cls-ft4", "cls-ft3", "lite0-b8f-x3", 12000)]
    assert [r.refined for r in rounds] == [False, False, False, True]  # the last: refined boxes
    lodo = _ft_rounds(_args(["all", "--ft2-grow", "0", "--ft3-steps", "0", "--ft4-steps", "0"]),
                      "cls-lodo")
    assert [(r.sub, r.base, r.arch) for r in lodo] == [
        ("cls-lodo-ft", "cls-lodo", "lite0-b8f"), ("cls-lodo-ft2", "cls-lodo-ft", "lite0-b8f")]
    no_refiner = _ft_rounds(_args(["all", "--ref-steps", "0"]))
    assert [r.sub for r in no_refiner] == ["cls-ft", "cls-ft2", "cls-ft3"]
    assert _ft_rounds(_args(["all", "--ft-steps", "0"])) == []  # no second without a first
    two = _ft_rounds(_args(["all", "--cls-arch", "tiny", "--ft2-steps", "0", "--ft4-steps", "0"]))
    assert [(r.sub, r.base) for r in two] == [("cls-ft", "cls"), ("cls-ft3", "cls-ft")]


class _StubDetector:
    """Finds nothing on its own; names the crops of the true boxes from ``answers``."""
    loc_threshold, cls_threshold = 0.2, 0.25

    def __init__(self, answers):
        self.answers = answers

    def detect(self, img):
        from scorer.vision.detector import Detections
        return Detections()

    def cut(self, img, rects):
        return None, np.zeros((len(rects), 4, 4, 3), np.uint8)

    def classify(self, crops):
        p = np.zeros((len(crops), 49), np.float32)
        p[np.arange(len(crops)), self.answers] = 1.0
        return p


def test_true_box_ceiling_separates_the_boxes_from_the_classifier():
    from training.evaluate import REQUIRED_VIS, true_box_ceiling
    _, cards, _ = random_scene(get_library(), SEED_RANGES["val"][0])
    seen = [c for c in cards if c.visible > 0]
    required = sum(c.visible >= REQUIRED_VIS for c in seen)
    assert required > 0
    oracle = true_box_ceiling(_StubDetector([c.class_id for c in seen]), n_scenes=1)
    assert oracle["true_boxes_equiv"]["recall"] == 1.0
    assert oracle["true_boxes_equiv"]["precision"] == 1.0
    assert oracle["detector_equiv"]["recall"] == 0.0  # the stub's own detection finds nothing
    bins = oracle["true_box_accuracy_by_height"]
    assert sum(b["cards"] for b in bins) == required
    assert all(b["acc_equiv"] == 1.0 for b in bins if b["cards"])
    blind = true_box_ceiling(_StubDetector([BACKGROUND] * len(seen)), n_scenes=1)
    assert blind["true_boxes_equiv"]["recall"] == 0.0
    assert all(b["acc_equiv"] == 0.0 for b in blind["true_box_accuracy_by_height"] if b["cards"])


@pytest.mark.parametrize("command", ["ceiling", "evaluate", "tune"])
def test_a_missing_model_is_a_one_line_error(tmp_path, capsys, command):
    code = main([command, "--models-dir", str(tmp_path / "none"), "--run-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("error: model file not found") and "Traceback" not in "".join(err)
