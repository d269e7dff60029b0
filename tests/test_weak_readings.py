"""Weak readings (issue 48): the live camera's frames also carry the boxes below the
still-photo thresholds that the networks still read as a card (``Detector.detect(weak=
True)``, ``POST /api/detect?weak=1``), marked ``sure`` False; a still's answer is as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from gate import SCENE_JPEG
from scorer.vision import Detections, Detector, decode_image, default_model_path
from scorer.vision.decision import WEAK_IOU, weak_readings
from scorer.vision.detector import WEAK_MAX
from scorer.vision.settings import WEAK_LOC_THRESHOLD
from scorer.vision.gate import FaceGate
from scorer.vision.geometry import quad_iou, rect_to_quad
from web_helpers import CSRF, FakeDetector, jpeg, make_app


@pytest.fixture(scope="module")
def detector():
    return Detector(threads=1)


def _probs(*rows: tuple[int, float]) -> np.ndarray:
    out = np.zeros((len(rows), 49), np.float32)
    for i, (cls, p) in enumerate(rows):
        out[i] = (1 - p) / 48                         # the rest spread over the others
        out[i, cls] = p
    return out


def test_the_record_is_sure_unless_told_and_keeps_the_mark_through_every_step() -> None:
    quads = np.stack([rect_to_quad(100 + 80 * i, 100, 50, 80, 0.0) for i in range(3)])
    found = Detections.from_quads(quads, np.full(3, 0.9, np.float32),
                                  _probs((1, 0.9), (5, 0.9), (9, 0.9)), (640, 480))
    assert found.sure is not None and found.sure.tolist() == [True, True, True]
    found.sure = np.array([True, False, True])
    assert found[[1, 2]].sure.tolist() == [False, True]
    assert found[np.array([False, True, False])].sure.tolist() == [False]
    assert found.scaled(2.0).sure.tolist() == [True, False, True]
    joined = Detections.join([found[[0]], found[[1]], found[:0]])
    assert joined.sure.tolist() == [True, False] and joined.probs is not None
    # the JSON marks the weak one only: a still's cards are as they always were
    cards = found.to_cards()
    assert [c.get("sure") for c in cards] == [None, False, None]
    assert "sure" not in found[[0, 2]].to_cards()[0]
    with pytest.raises(ValueError):
        Detections(sure=np.ones(2, bool))                 # a mark for boxes it has not


def test_weak_readings_are_cards_below_the_thresholds_off_every_card_once(
        detector, monkeypatch) -> None:
    at = [(100, 100), (300, 100), (500, 100), (700, 100), (108, 300), (900, 100), (516, 104)]
    quads = np.stack([rect_to_quad(x, y, 60, 96, 0.0) for x, y in at])
    picked = Detections.from_quads(np.stack([rect_to_quad(100, 300, 60, 96, 0.0)]),
                                   np.ones(1, np.float32), _probs((3, 0.9)), (1280, 720))
    found = Detections.from_quads(quads, np.full(len(at), 0.5, np.float32), _probs(
        (20, 0.25),      # a card, weakly: kept
        (48, 0.9),       # "not a card"
        (7, 0.15),       # under weak_cls_threshold (0.2)
        (3, 0.6),        # the card picked already
        (9, 0.5),        # on the picked card's box
        (20, 0.22),      # the same card as the first, less sure: one box a card
        (11, 0.4),       # on the third box's place, which is no reading: kept
    ), (1280, 720))
    assert quad_iou(quads[4], picked.quads[0]) > WEAK_IOU
    assert quad_iou(quads[6], quads[2]) > WEAK_IOU
    rules = detector.settings
    assert weak_readings(found, picked, rules).tolist() == [
        True, False, False, False, False, False, True]
    found.loc_score[0] = WEAK_LOC_THRESHOLD / 2      # the localiser barely saw it
    assert weak_readings(found, picked, rules).tolist()[0] is False
    # through the face gate when the model has one
    found.face = np.full(len(found), 0.1, np.float32)
    gated = rules.but(face_gate=FaceGate(np.zeros(4, np.float32), 0.0, 0.5))
    assert not weak_readings(found, picked, gated).any()
    found.face[:] = 0.9
    assert weak_readings(found, picked, gated).tolist()[6] is True


def test_detect_with_weak_readings_keeps_the_cards_and_adds_what_the_thresholds_refuse(
        detector) -> None:
    img = decode_image(SCENE_JPEG.read_bytes())
    plain = detector.detect(img, crops=True)
    assert len(plain) >= 3
    assert plain.to_cards(crops=True) == detector.cards(detector.candidates(img, crops=True)
                                                        ).to_cards(crops=True)
    live = detector.detect(img, crops=True, weak=True)
    cards = live.to_cards(crops=True)
    assert cards[:len(plain)] == plain.to_cards(crops=True)       # the same cards, first
    assert all(c["sure"] is False for c in cards[len(plain):])
    # the still thresholds refuse every card: what the networks read shows up weakly
    strict = detector.with_settings(detector.settings.but(cls_threshold=1.01,
                                                          large_cls_threshold=1.01))
    assert len(strict.detect(img)) == 0
    faint = strict.detect(img, crops=True, weak=True)
    assert faint.sure is not None and not faint.sure.any()
    assert set(plain.codes) <= set(faint.codes)
    assert faint.crops is not None and len(faint.crops) == len(faint)


def test_a_frame_of_many_faint_peaks_reads_at_most_weak_max_of_them(detector, monkeypatch) -> None:
    """The weak pass's cost is bounded: of many faint peaks, the best-scored WEAK_MAX are
    refined and read."""
    img = decode_image(SCENE_JPEG.read_bytes())
    h, w = img.shape[:2]
    n = WEAK_MAX * 3
    rects = np.array([[w * (k % 9 + 0.5) / 9, h * (k // 9 + 0.5) / 4, 20, 32, 0.0]
                      for k in range(n)], np.float32)
    scores = np.linspace(0.11, 0.3, n).astype(np.float32)
    monkeypatch.setattr(detector.localiser, "decode", lambda *a, **k: (rects, scores))
    empty = Detections(image_size=(w, h))
    from scorer.vision.boxes import FoundBoxes
    none = FoundBoxes(rects[:0], rects[:0], scores[:0], rects[:0], scores[:0])
    extra = detector._weak_boxes(img, None, none, empty, WEAK_LOC_THRESHOLD)
    assert len(extra) == WEAK_MAX
    assert sorted(extra.loc_score.tolist()) == sorted(scores[-WEAK_MAX:].tolist())


def test_a_setting_the_detector_does_not_know_is_refused_in_one_line(tmp_path: Path) -> None:
    """The weak thresholds are constants: a model that carries them as settings (as no
    training ever wrote) is refused, by training and by the detector, with one line."""
    from scorer.errors import InputError
    from training.ship.export import set_config
    for f in default_model_path().parent.glob("*.onnx"):
        shutil.copyfile(f, tmp_path / f.name)
    loc = tmp_path / default_model_path().name
    with pytest.raises(InputError, match="unknown key.*weak_loc_threshold"):
        set_config(loc, {"weak_loc_threshold": 0.15})
    import onnx
    m = onnx.load(str(loc))
    for p in m.metadata_props:
        if p.key == "hanafuda":
            p.value = p.value[:-1] + ', "weak_loc_threshold": 0.15}'
    onnx.save(m, str(loc))
    with pytest.raises(InputError) as err:
        Detector(loc, threads=1)
    assert "weak_loc_threshold" in str(err.value) and "\n" not in str(err.value)


def test_the_api_gives_weak_readings_to_the_camera_only(tmp_path: Path) -> None:
    fake = FakeDetector(["08-1"], weak_codes=["09-1"])
    client = make_app(tmp_path, DETECTOR=fake).test_client()
    headers = {**CSRF, "Content-Type": "image/jpeg"}
    still = client.post("/api/detect", data=jpeg(64, 48), headers=headers)
    assert still.status_code == 200, still.json
    assert [c["code"] for c in still.json["cards"]] == ["08-1"]
    assert "sure" not in still.json["cards"][0] and fake.weak_calls == 0
    live = client.post("/api/detect?weak=1&crops=1", data=jpeg(64, 48), headers=headers)
    assert live.status_code == 200, live.json
    assert [(c["code"], c.get("sure")) for c in live.json["cards"]] == [("08-1", None),
                                                                       ("09-1", False)]
    assert fake.weak_calls == 1
