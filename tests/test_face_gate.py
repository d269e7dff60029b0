"""The face gate refuses boxes whose embedding says "no hanafuda face", and only those."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np

from scorer.vision import Detector
from scorer.vision.settings import DetectionSettings
from scorer.vision.decision import select_cards
from scorer.vision.gate import FaceGate

ROOT = Path(__file__).resolve().parent.parent
SCENE = ROOT / "tests" / "fixtures" / "scene-4-cards.jpg"


def test_a_gate_reads_from_its_config_and_round_trips():
    assert DetectionSettings.from_metadata({}).face_gate is None
    assert DetectionSettings.from_metadata({"face_gate": None}).face_gate is None
    gate = FaceGate(np.array([2.0, -1.0], np.float32), 0.5, 0.3)
    again = DetectionSettings.from_metadata({"face_gate": gate.to_config()}).face_gate
    emb = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], np.float32)
    assert np.allclose(again.face_prob(emb), gate.face_prob(emb))
    assert list(gate.face_prob(emb) >= gate.threshold) == [True, True, False]


def test_select_cards_drops_the_boxes_the_gate_refuses_and_keeps_the_rest():
    probs = np.zeros((3, 49), np.float32)
    probs[[0, 1, 2], [0, 5, 9]] = 0.9  # three sure reads of three cards
    loc = np.full(3, 0.9, np.float32)
    assert select_cards(loc, probs, 0.3, 0.5).tolist() == [True, True, True]
    faces = np.array([True, False, True])
    assert select_cards(loc, probs, 0.3, 0.5, faces=faces).tolist() == [True, False, True]


def _gated_copy(tmp_path: Path, bias: float) -> Path:
    from training.ship.export import set_config
    for f in (ROOT / "models").glob("*.onnx"):
        shutil.copyfile(f, tmp_path / f.name)
    loc = tmp_path / "hanafuda-localiser.onnx"
    set_config(loc, {"face_gate": FaceGate(np.zeros(256, np.float32), bias, 0.5).to_config()})
    return loc


def test_the_detector_applies_the_gate_in_its_models_metadata(tmp_path):
    img = cv2.imread(str(SCENE), cv2.IMREAD_COLOR)
    plain = Detector(threads=1).detect(img).codes
    assert len(plain) >= 3
    (tmp_path / "open").mkdir()
    (tmp_path / "shut").mkdir()
    assert Detector(_gated_copy(tmp_path / "open", 10.0), threads=1).detect(img).codes == plain
    shut = Detector(_gated_copy(tmp_path / "shut", -10.0), threads=1)
    found = shut.candidates(img)
    assert found.face is not None and (found.face < 0.5).all()
    assert shut.detect(img).codes == []


def test_the_photos_train_part_is_split_by_sitting_for_fitting_and_choosing():
    from training.data.real_photos import split_by_sitting
    photos = [Path(f"IMG_{n}_x.jpg") for n in range(7700, 7708)] + \
        [Path(f"WIN_20240101_{k}.jpg") for k in range(4)]
    fit_part, choose_part = split_by_sitting(photos, 0.25)
    assert set(fit_part).isdisjoint(choose_part) and len(fit_part) + len(choose_part) == 12
    assert {p.name[:4] for p in choose_part} == {"IMG_", "WIN_"}  # every sitting gives some


def test_the_threshold_is_the_fewest_photo_false_cards_that_keeps_every_kind(tmp_path):
    from types import SimpleNamespace

    from scorer.vision.detections import Detections
    from training.stages.face_gate import choose_threshold

    def cand(faces, classes):
        probs = np.zeros((len(classes), 49), np.float32)
        probs[np.arange(len(classes)), classes] = 0.9
        quads = np.array([[[x, 0], [x + 10, 0], [x + 10, 16], [x, 16]]
                          for x in range(0, 40 * len(classes), 40)], np.float32)
        return Detections.from_quads(quads, np.full(len(classes), 0.9), probs, (640, 480),
                                     face=np.array(faces, np.float32))
    from scorer.vision.settings import DetectionSettings
    det = SimpleNamespace(settings=DetectionSettings(
        loc_threshold=0.3, cls_threshold=0.5, large_threshold=0.3, large_cls_threshold=0.5,
        large_box=0.4))
    scenes = [("pile", cand([0.9, 0.35], [0, 4]), [0, 4], [])]  # a true card the gate doubts
    photos = [("photo", cand([0.25, 0.45], [8, 12]), [], [])]  # two phantoms
    best, table = choose_threshold(scenes, photos, det, (0.3, 0.4, 0.5), guard=0.005)
    one_threshold = [r for r in table if r["threshold"] == r["large_threshold"]]
    assert [row["photo_false_cards"] for row in one_threshold] == [2, 1, 1, 0]
    assert best == (0.3, 0.3)  # 0.4 would lose the doubted card: over the guard


def test_close_up_boxes_may_have_a_threshold_of_their_own():
    gate = FaceGate(np.zeros(2, np.float32), 0.0, 0.3, 0.6)
    face = np.array([0.5, 0.5], np.float32)
    assert gate.lets_through(face, np.array([False, True])).tolist() == [True, False]
    assert DetectionSettings.from_metadata({"face_gate": gate.to_config()}).face_gate.large_threshold \
        == 0.6
