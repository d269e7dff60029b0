"""A tiny end-to-end training run: art -> cached scenes -> localiser -> classifier ->
ONNX export -> evaluation, plus the leave-one-deck-out path. Minutes, not hours."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest

from scorer.vision.geometry import quad_to_rect
from sessions import product_session
from pathlib import Path

from training.__main__ import main
from training.recipe import load_recipe
from training.data.cache import BACKGROUND, label_boxes
from training.stages.localiser import random_crop_scenes
from training.data.targets import loc_targets
from training.data.scenes import SEED_RANGES, get_library, random_scene


@pytest.mark.art
def test_art_holds_four_sets_of_48_cards():
    lib = get_library()
    assert len(lib.sets) == 4 and all(len(v) == 48 for v in lib.faces.values())


@pytest.mark.art
def test_scenes_deterministic_and_seed_ranges_disjoint():
    lib = get_library()
    a, ca, _ = random_scene(lib, 123)
    b, cb, _ = random_scene(lib, 123)
    assert np.array_equal(a, b) and [c.code for c in ca] == [c.code for c in cb]
    ranges = sorted(SEED_RANGES.values())
    assert all(r1[1] <= r2[0] for r1, r2 in zip(ranges, ranges[1:]))


TINY = Path(__file__).parent / "fixtures" / "tiny-recipe.toml"


@pytest.mark.slow
@pytest.mark.art
@pytest.mark.photos
def test_tiny_recipe_end_to_end(tmp_path, capsys):
    run, models = tmp_path / "run", tmp_path / "models"
    args = ["all", "--recipe", str(TINY), "--run-dir", str(run), "--models-dir", str(models),
            "--name", "tiny", "--workers", "1", "--threads", "2", "--device", "cpu"]
    assert main(args) == 0
    loc, cls = models / "tiny-localiser.onnx", models / "tiny-classifier.onnx"
    assert loc.is_file() and cls.is_file() and (models / "tiny-refiner.onnx").is_file()
    for sub in ("cls-ft", "cls-ft4", "ref", "realistic"):
        assert (run / sub).is_dir()
    cfg = json.loads({p.key: p.value for p in onnx.load(str(loc)).metadata_props}["hanafuda"])
    assert cfg["refiner"] == "tiny-refiner.onnx" and cfg["refine_passes"] == 2
    assert cfg["loc_threshold"] in (0.1, 0.3) and cfg["cls_threshold"] in (0.3, 0.5)  # tuned
    assert (run / "lodo-model" / "tiny-lodo-localiser.onnx").is_file()
    shape = product_session(loc).get_inputs()[0].shape
    assert shape == [1, 3, 480, 640]
    ops = {n.op_type for n in onnx.load(str(cls)).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= ops  # the classifier ships in int8
    res = json.loads((models / "eval" / "eval-realistic-test.json").read_text())
    assert "realistic_framing" in res and set(res["kinds"]) == {
        "pile", "physical", "closeup", "clutter", "upside_down"}
    assert set(res["box_quality"]) >= {"required", "partly_hidden"}
    assert (run / "eval" / "eval-test.json").is_file()  # figures go to the run directory
    assert (run / "eval" / "eval-realistic-lodo-hwatu.json").is_file()
    # the lite localiser's candidate went through the ship rule and shipped (nothing had
    # shipped: no model to time it beside), with the lineage its export recorded
    decision = json.loads((models / "eval" / "ship-decision.json").read_text())
    assert decision["shipped"] and decision["reference_ms"] is None
    from training.ship.lineage import read
    lineage = read(loc)
    assert lineage["recipe"].endswith("tiny-recipe.toml") and lineage["step"] == 2
    assert lineage["seed_ranges"]["test"] == [2_000_000, 2_100_000] and lineage["commit"]
    assert cfg["localiser_arch"] == "lite0-b8-fpn32"
    # tuned again beside the shipped model: read at its own thresholds, it guards each kind
    candidate = run / "lite-loc-model" / "tiny-localiser.onnx"
    assert main(["tune", "--model", str(candidate)] + args[1:-2]) == 0
    tuned = json.loads((run / "eval" / "tune-val-lite-loc-model.json").read_text())
    assert set(tuned["reference"]) == set(res["kinds"]) and tuned["guard"] == 0.01
    assert tuned["eligible"] >= 0 and set(tuned["grid"][0]["kinds"]) == set(res["kinds"])
    # a candidate that fails the ship rule leaves models/ untouched
    before = {p.name: p.read_bytes() for p in models.glob("*.onnx")}
    for name, f1 in (("eval-realistic-test.json", 1.0), ("eval-shift-test-shipped.json", 1.0)):
        figs = json.loads((models / "eval" / name).read_text())
        figs["realistic_framing"]["equiv"]["f1"] = f1
        for k in figs["kinds"].values():
            k["equiv"]["f1"] = f1
        (models / "eval" / name).write_text(json.dumps(figs))
    (models / "eval" / "photos-test-shipped.json").write_text('{"false_cards_per_photo": 0}')
    records = {p.name: p.read_bytes() for p in (models / "eval").iterdir()}
    assert main(["ship"] + args[1:-2]) == 0  # (ship takes no --device)
    decision = json.loads((run / "eval" / "ship-decision.json").read_text())
    assert not decision["shipped"] and decision["failed"][0].startswith("shift F1 1.000")
    assert decision["ms"] > 0 and decision["reference_ms"] > 0  # timed beside the shipped one
    assert decision["speed_ratio"] > 0 and 0 < decision["mib"] < 20
    assert {p.name: p.read_bytes() for p in models.glob("*.onnx")} == before
    assert {p.name: p.read_bytes() for p in (models / "eval").iterdir()} == records
    # the lite localiser exported is the mean of the weights kept from average_from on
    assert "averaged 2 weights (step-000001.pt, step-000002.pt)" in capsys.readouterr().err
    assert (run / "lite_loc" / "averaged.pt").is_file()
    # resumable: a second run finds the checkpoints and the cache
    assert main(args + ["--no-lodo"]) == 0
    err = capsys.readouterr().err
    for sub in ("cls-ft", "cls-ft4", "ref"):  # skipped before any crops load
        assert f"{sub}: finished already" in err
    assert "localiser crops" not in err
    from scorer.vision import Detector
    det = Detector(loc, threads=1)
    assert det.refiner is not None
    img, _, _ = random_scene(get_library(), 5)
    det.detect(img)  # runs; an untrained model finds whatever it finds
    emb = det.embed(np.zeros((3, 112, 72, 3), np.uint8) + np.arange(3)[:, None, None, None])
    assert emb is not None and emb.shape[0] == 3
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=0.05)  # L2-normalised


@pytest.mark.art
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


@pytest.mark.parametrize("text, message", [
    ("[[localiser]]\nname='a'\nsize=[640, 48]\nsteps=1\nscenes=1\nlr=1e-3\n"
     "crop=[800, 600]", "larger than its size"),
    ("[[localiser]]\nname='a'\nsize=[64, 50]\nsteps=1\nscenes=1\nlr=1e-3",
     "multiples of 4"),
    ("[[localiser]]\nname='a'\nsize=[64, 48]\nsteps=1\nscenes=1\nlr=1e-3\nspeed=2",
     "unknown setting(s) speed"),
    ("[[localiser]]\nname='a'\nsize=[64, 48]\nsteps=-1\nscenes=1\nlr=1e-3",
     "must not be negative"),
    ("seed = 0", "at least one [[localiser]]"),
    ("[[localiser]]\nname='a'\nsize=[64, 48]\nsteps=1\nscenes=1\nlr=1e-3\n"
     "[classifier]\narch='tiny'\n[[classifier_round]]\nname='b'\nsteps=1\nscenes=1\n"
     "lr=1e-3\ngrow=3", "needs a truncated EfficientNet-Lite0"),
    ("[[localiser]]\nname='a'\nsize=[64, 48]\nsteps=1\nscenes=1\nlr=1e-3\n"
     "[export]\ntta_below=1.5", "tta_below must be in (0, 1]"),
    ("[[localiser", "not valid TOML"),
])
def test_bad_recipes_are_one_line_errors(tmp_path, capsys, text, message):
    path = tmp_path / "r.toml"
    path.write_text(text)
    assert main(["tune", "--recipe", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_the_shipped_recipe_loads_and_each_command_takes_only_its_options(capsys):
    r = load_recipe()
    assert [s.name for s in r.localiser] == ["loc", "loc2", "loc3"]
    assert r.localiser[-1].size == (640, 480)
    assert [c.name for c in r.classifier_rounds][-1] == "cls-ft4"
    assert r.classifier_rounds[-1].refined
    with pytest.raises(SystemExit):
        main(["tune", "--device", "cpu"])  # only all and realistic train
    assert "unrecognized arguments" in capsys.readouterr().err


class _StubDetector:
    """Finds nothing on its own; names the crops of the true boxes from ``answers``."""
    from scorer.vision.settings import DetectionSettings
    settings = DetectionSettings(loc_threshold=0.2, cls_threshold=0.25)

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


@pytest.mark.art
def test_true_box_ceiling_separates_the_boxes_from_the_classifier():
    from training.measure.evaluate import REQUIRED_VIS, true_box_ceiling
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


def test_a_round_from_a_missing_checkpoint_is_a_one_line_error_before_any_box(tmp_path,
                                                                               capsys):
    code = main(["cls-real", "--start", str(tmp_path / "none.pt"), "--run-dir",
                 str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1] == f"error: no classifier checkpoint at {tmp_path / 'none.pt'}"
    assert not (tmp_path / "boxes").exists()


def test_a_round_with_other_boxes_from_a_folder_without_networks_is_a_one_line_error(
        tmp_path, capsys):
    empty = tmp_path / "other"
    empty.mkdir()
    code = main(["cls-real", "--boxes-also", str(empty), "--run-dir", str(tmp_path / "run")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1] == f"error: no localiser hanafuda-localiser.onnx in {empty}"
    assert not (tmp_path / "run" / "boxes").exists()


@pytest.mark.art
@pytest.mark.photos
@pytest.mark.parametrize("named", [False, True])
def test_tuning_the_shipped_model_tunes_a_copy_and_leaves_models_alone(tmp_path, named):
    """The shipped model, or a model named by ``--model`` in a folder that is not the
    run's ``--models-dir`` (another checkout's ``models/``), is tuned as a copy."""
    import shutil
    shipped = Path(__file__).resolve().parent.parent / "models"
    models, run = tmp_path / "models", tmp_path / "run"
    models.mkdir()
    for f in shipped.glob("*.onnx"):
        shutil.copyfile(f, models / f.name)
    before = {p.name: p.read_bytes() for p in models.iterdir()}
    where = (["--model", str(models / "hanafuda-localiser.onnx"), "--models-dir",
              str(tmp_path / "elsewhere")] if named else ["--models-dir", str(models)])
    assert main(["tune", "--recipe", str(TINY), *where, "--run-dir", str(run),
                 "--workers", "1"]) == 0
    assert {p.name: p.read_bytes() for p in models.iterdir()} == before
    tuned = run / "tuned-model" / "hanafuda-localiser.onnx"
    cfg = json.loads({p.key: p.value for p in onnx.load(str(tuned)).metadata_props}["hanafuda"])
    # the record takes the copy's folder's name: the candidate's tag when it is shipped
    record = json.loads((run / "eval" / "tune-val-tuned-model.json").read_text())
    assert cfg["loc_threshold"] == record["best"]["loc_threshold"]
    from training.ship.lineage import read
    made = read(models / "hanafuda-classifier.onnx")  # tuning makes no classifier
    assert read(tuned.parent / "hanafuda-classifier.onnx") == made
