"""Card recognition: the shipped model on rendered scenes, the Detections record and
image decoding. The tests marked ``art`` render scenes from the card art
(../shared/card-art; see tests/gate.py)."""

from __future__ import annotations

import struct

import cv2
import numpy as np
import pytest

from gate import SCENE_JPEG
from scorer.errors import InputError
from scorer.vision import Detections, Detector, decode_image, default_model_path
from scorer.vision.decision import select_cards
from scorer.vision.geometry import quad_to_rect
from scorer.vision.stages import as_input
from training.data.scenes import render_scene


@pytest.fixture(scope="module")
def detector():
    assert default_model_path().is_file(), f"shipped model missing: {default_model_path()}"
    return Detector(threads=2)


EASY_CODES = ["01-1", "03-1", "08-1", "11-1", "12-2", "09-1"]


@pytest.mark.art
@pytest.mark.parametrize("art_set", ["louie-mantia", "hwatu-commons"])
def test_easy_scene_detected_exactly(detector, art_set):
    img, cards = render_scene(EASY_CODES, seed=11, art_set=art_set)
    assert [c.code for c in cards] == EASY_CODES
    det = detector.detect(img)
    assert sorted(det.codes) == sorted(EASY_CODES)
    # every box lies on its card
    for c in cards:
        x0, y0, x1, y1 = c.box
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        hits = [b for b, code in zip(det.boxes, det.codes) if code == c.code]
        assert hits and hits[0][0] <= cx <= hits[0][2] and hits[0][1] <= cy <= hits[0][3]


@pytest.mark.art
def test_upside_down_scene(detector):
    img, _ = render_scene(["02-1", "06-2", "10-1"], seed=5)
    det = detector.detect(cv2.rotate(img, cv2.ROTATE_180))
    assert sorted(det.codes) == ["02-1", "06-2", "10-1"]


def test_empty_table_has_no_cards(detector):
    img = np.full((480, 640, 3), (60, 110, 40), np.uint8)
    det = detector.detect(img)
    assert len(det) == 0


def test_detections_record(detector):
    d = detector.detect(decode_image(SCENE_JPEG.read_bytes()))
    assert isinstance(d, Detections)
    assert d.boxes.shape == (len(d), 4) and d.confidence.shape == (len(d),)
    assert d.class_id.shape == (len(d),)
    assert set(d.timings) >= {"localise", "classify", "infer", "total"}   # decode: Report.ms
    cards = d.to_cards()
    assert [c["code"] for c in cards] == d.codes
    for c in cards:
        assert set(c) >= {"code", "name", "confidence", "box"}
        assert len(c["box"]) == 4 and 0 <= c["confidence"] <= 1


def test_a_threshold_given_to_one_call_adds_weaker_boxes_and_only_to_that_call():
    det = Detector(threads=1)
    det = det.with_settings(det.settings.but(loc_threshold=0.99, large_threshold=0.99))
    img = decode_image(SCENE_JPEG.read_bytes())   # (0.99: above every card of the scene)
    _, before = det.localiser.find(img)
    _, low = det.localiser.find(img, threshold=0.3)
    _, after = det.localiser.find(img)
    assert len(before) == len(after) == 0 and det.settings.loc_threshold == 0.99
    assert len(low) > 0 and low.min() >= 0.3
    # the boxes a lower threshold adds never displace the stronger ones
    _, usual = Detector(threads=1).localiser.find(img)
    assert set(usual.tolist()) <= set(det.localiser.find(img, threshold=0.05)[1].tolist())


@pytest.mark.art
def test_render_scene_is_deterministic():
    a, ca = render_scene(["05-1"], seed=3)
    b, cb = render_scene(["05-1"], seed=3)
    assert np.array_equal(a, b) and ca[0].box == cb[0].box
    hard, cards = render_scene(["05-1", "05-2", "05-3"], seed=3, easy=False)
    assert hard.shape == (480, 640, 3) and len(cards) == 3


@pytest.mark.parametrize("data", [b"", b"hello, not an image", b"\x89PNG\r\n\x1a\n" + b"\0" * 40])
def test_decode_rejects_bad_data(data):
    with pytest.raises(InputError):
        decode_image(data)


def test_decode_rejects_truncated_jpeg():
    img = np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    data = cv2.imencode(".jpg", img)[1].tobytes()
    with pytest.raises(InputError):
        decode_image(data[: len(data) // 2])


def test_decode_rejects_huge_dimensions():
    # a PNG header claiming 10000 x 10000 pixels: refused before decoding
    data = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(
        ">II", 10000, 10000) + b"\x08\x02\x00\x00\x00" + b"\0" * 100
    with pytest.raises(InputError, match="too large"):
        decode_image(data)


def _with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    # minimal APP1 Exif segment, big-endian TIFF, one IFD entry (0x0112 Orientation)
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1) + \
        struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0)
    body = b"Exif\x00\x00" + tiff
    app1 = b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body
    return jpeg[:2] + app1 + jpeg[2:]


def test_decode_applies_exif_orientation():
    img = np.zeros((40, 80, 3), np.uint8)
    img[:, :40] = 255
    jpeg = cv2.imencode(".jpg", img)[1].tobytes()
    assert decode_image(jpeg).shape == (40, 80, 3)
    assert decode_image(_with_exif_orientation(jpeg, 6)).shape == (80, 40, 3)


@pytest.mark.art
def test_tta_turns_only_the_crops_the_classifier_is_unsure_of():
    img, cards = render_scene(["01-1", "04-3", "09-2", "12-1"], seed=8, card_height=50)
    rects = np.array([quad_to_rect(c.quad) for c in cards], np.float32)
    plain = Detector(threads=1, tta=False)
    _, crops = plain.cut(img, rects)
    once = plain.classify(crops)
    turned = plain.classifier.probs(as_input(crops)[:, :, ::-1, ::-1])
    cut = float(np.median(once.max(1)))
    selective = Detector(threads=1, tta=True, tta_below=cut).classify(crops)
    unsure = once.max(1) <= cut
    assert unsure.any() and not unsure.all()
    np.testing.assert_allclose(selective[~unsure], once[~unsure], atol=1e-6)
    np.testing.assert_allclose(selective[unsure], 0.5 * (once + turned)[unsure], atol=1e-5)
    every = Detector(threads=1, tta=True, tta_below=1.0).classify(crops)
    np.testing.assert_allclose(every, 0.5 * (once + turned), atol=1e-5)


def test_tta_on_demand_turns_some_crops_with_the_shipped_metadata():
    on_demand = Detector(threads=1, tta=True)  # what `hanafuda detect --tta` builds
    assert 0 < on_demand.settings.tta_below <= 1


def _probs(*rows: tuple[int, float]) -> np.ndarray:
    """One row per box: its likeliest class and that class's probability; the rest is
    spread over the other classes."""
    p = np.zeros((len(rows), 49), np.float32)
    for i, (c, v) in enumerate(rows):
        p[i] = (1 - v) / 48
        p[i, c] = v
    return p


def test_select_cards_applies_both_thresholds_and_drops_not_a_card():
    probs = _probs((0, 0.9), (5, 0.9), (7, 0.2), (48, 0.95), (9, 0.6))
    loc = np.array([0.5, 0.1, 0.9, 0.9, 0.3], np.float32)
    mask = select_cards(loc, probs, loc_threshold=0.2, cls_threshold=0.3)
    assert mask.dtype == bool and np.nonzero(mask)[0].tolist() == [0, 4]
    assert probs.argmax(1)[mask].tolist() == [0, 9]


def test_select_cards_gives_a_card_claimed_twice_to_the_likelier_box_only():
    probs = _probs((12, 0.55), (3, 0.9), (12, 0.8), (12, 0.4))
    mask = select_cards(np.ones(4, np.float32), probs, 0.2, 0.3)
    assert np.nonzero(mask)[0].tolist() == [1, 2]
    assert probs.argmax(1)[mask].tolist() == [3, 12]


def test_select_cards_on_no_boxes():
    mask = select_cards(np.zeros(0, np.float32), np.zeros((0, 49), np.float32), 0.2, 0.3)
    assert mask.shape == (0,) and mask.dtype == bool


@pytest.mark.art
def test_detect_picks_its_cards_from_the_candidates_with_select_cards(detector):
    img, _ = render_scene(["01-1", "02-1", "03-1", "04-2", "05-3", "06-1", "07-4", "08-2"],
                          seed=5, card_height=70)
    cand = detector.candidates(img)
    cards = cand[select_cards(cand.loc_score, cand.probs, detector.settings.loc_threshold,
                              detector.settings.cls_threshold)]
    det = detector.detect(img)
    assert len(det) > 0
    assert sorted(det.class_id.tolist()) == sorted(cards.class_id.tolist())
    assert sorted(det.loc_score.tolist()) == sorted(cards.loc_score.tolist())
    # ``cards`` is detect's pick from those candidates, in the same (deck) order
    kept = detector.cards(cand)
    assert kept.class_id.tolist() == det.class_id.tolist()
    np.testing.assert_allclose(kept.quads, det.quads)


def test_cards_orders_the_picked_boxes_by_month_and_drops_the_rest():
    from scorer.vision.geometry import rect_to_quad
    det = Detector(threads=1)
    quads = np.stack([rect_to_quad(100 + 80 * i, 100, 50, 80, 0.0) for i in range(3)])
    # month 12's first card, a box read as "not a card", month 1's second card
    found = Detections.from_quads(quads, np.full(3, 0.9, np.float32),
                                  _probs((44, 0.9), (48, 0.9), (1, 0.9)), (640, 480))
    kept = det.cards(found)
    assert kept.class_id.tolist() == [1, 44]
    np.testing.assert_allclose(kept.quads, quads[[2, 0]])


def test_select_cards_keeps_one_box_per_physical_card_when_asked():
    from scorer.vision.geometry import rect_to_quad
    quads = np.stack([rect_to_quad(100, 100, 60, 96, 0.0), rect_to_quad(104, 102, 60, 96, 0.05),
                      rect_to_quad(300, 100, 60, 96, 0.0)])
    probs = np.zeros((3, 49), np.float32)
    probs[0, 5], probs[1, 9], probs[2, 20] = 0.9, 0.6, 0.8  # box 1 re-reads box 0's card
    loc = np.ones(3, np.float32)
    assert probs.argmax(1)[select_cards(loc, probs, 0.2, 0.3)].tolist() == [5, 9, 20]
    mask = select_cards(loc, probs, 0.2, 0.3, quads, overlap_iou=0.5)
    assert np.nonzero(mask)[0].tolist() == [0, 2] and probs.argmax(1)[mask].tolist() == [5, 20]


def _a_card_and_a_close_up() -> Detections:
    """Two boxes in a 640x480 frame, each read with p 0.6: one card-sized, one close-up."""
    from scorer.vision.geometry import rect_to_quad
    quads = np.array([rect_to_quad(100, 100, 50, 80, 0.0), rect_to_quad(400, 240, 250, 400, 0.0)])
    return Detections.from_quads(quads, np.array([0.9, 0.9], np.float32),
                                 _probs((3, 0.6), (20, 0.6)), (640, 480))


def test_a_close_up_box_needs_its_own_classifier_threshold_and_no_other_box_does():
    det = Detector(threads=1)
    found = _a_card_and_a_close_up()
    rules = det.settings.but(large_box=0.4, cls_threshold=0.4, large_cls_threshold=0.4)
    assert det.with_settings(rules).pick(found).tolist() == [True, True]
    rules = rules.but(large_cls_threshold=0.8)
    assert det.with_settings(rules).pick(found).tolist() == [True, False]
    assert rules.cls_thresholds(found.heights(), 480).tolist() == pytest.approx([0.4, 0.8])


def test_the_tuning_grid_reads_a_close_up_box_as_the_detector_does():
    from scorer.vision.settings import DetectionSettings
    from training.measure.slices import pick
    found = _a_card_and_a_close_up()
    # Detector.pick's answers above: the close-up dropped at 0.8, kept at the card's 0.4
    rules = DetectionSettings(loc_threshold=0.3, cls_threshold=0.4, large_box=0.4)
    assert pick(found, rules.but(large_cls_threshold=0.8)).tolist() == [3]
    assert pick(found, rules).tolist() == [3, 20]


def test_a_model_without_a_close_up_classifier_threshold_reads_close_ups_like_other_boxes(
        tmp_path):
    import json
    import shutil

    import onnx
    src = default_model_path()
    for f in src.parent.glob("*.onnx"):
        shutil.copyfile(f, tmp_path / f.name)
    m = onnx.load(str(tmp_path / src.name))
    for prop in m.metadata_props:
        if prop.key == "hanafuda":
            cfg = json.loads(prop.value)
            cfg.pop("large_cls_threshold", None)
            prop.value = json.dumps(cfg)
    onnx.save(m, str(tmp_path / src.name))
    det = Detector(tmp_path / src.name, threads=1)
    assert det.settings.large_cls == det.settings.cls_threshold


def test_every_network_computes_int8_exactly_on_cpus_without_vnni(detector):
    """The shipped networks are int8: a CPU without VNNI saturates the fast products of
    8-bit weights and reads other scores than the ones measured (CI once lost 3 of 48
    cards), so such a model takes the precise ones there; a CPU with VNNI computes the
    fast products exactly, and so does every CPU for a model declaring weights that cannot
    saturate them."""
    from scorer.vision.cpu import cpu_flags, precise_int8_needed
    from scorer.vision.stages import PRECISE_INT8

    want = "1" if precise_int8_needed(cpu_flags(), detector.settings.fast_int8_exact) else "0"
    nets = [detector.localiser, detector.classifier] + ([detector.refiner] if detector.refiner else [])
    for net in nets:
        assert net.session.get_session_options().get_session_config_entry(PRECISE_INT8) == want


def test_a_model_of_weights_that_cannot_saturate_keeps_the_fast_products_without_vnni(
        tmp_path, monkeypatch):
    """On an AVX2 CPU without VNNI a model declaring 7-bit int8 weights, or 8-bit ones whose
    pairs fit, keeps the fast products (every network's session); the same files declaring
    plain 8-bit weights take the precise ones there, and the fast ones on a CPU with VNNI."""
    import json
    import shutil

    import onnx

    import scorer.vision.detector as detector_module
    from scorer.vision.stages import PRECISE_INT8

    src = default_model_path()
    for f in src.parent.glob("*.onnx"):
        shutil.copyfile(f, tmp_path / f.name)

    def declaring(bits: int, pairs_fit: bool = False) -> Detector:
        m = onnx.load(str(src))
        for prop in m.metadata_props:
            if prop.key == "hanafuda":
                prop.value = json.dumps({**json.loads(prop.value), "int8_weight_bits": bits,
                                         "int8_pairs_fit": pairs_fit})
        onnx.save(m, str(tmp_path / src.name))
        return Detector(tmp_path / src.name, threads=1)

    def products(det: Detector) -> set[str]:
        return {net.session.get_session_options().get_session_config_entry(PRECISE_INT8)
                for net in (det.localiser, det.classifier, det.refiner) if net is not None}

    monkeypatch.setattr(detector_module, "cpu_flags", lambda: frozenset({"avx2", "fma"}))
    seven = declaring(7)
    assert seven.precise_int8 is False and products(seven) == {"0"}
    eight = declaring(8)
    assert eight.precise_int8 is True and products(eight) == {"1"}
    fitted = declaring(8, pairs_fit=True)
    assert fitted.precise_int8 is False and products(fitted) == {"0"}
    monkeypatch.setattr(detector_module, "cpu_flags", lambda: frozenset({"avx2", "avx_vnni"}))
    assert declaring(8).precise_int8 is False


def test_the_fast_int8_products_read_a_frame_as_the_precise_ones_where_they_are_chosen():
    """Where this CPU keeps the fast products (VNNI, or on any CPU the model's weights that
    cannot saturate them), they give every candidate's box, score and probabilities exactly as the precise
    ones do (the figures were measured that way)."""
    from scorer.vision.cpu import cpu_flags, precise_int8_needed

    exact = Detector(default_model_path(), threads=1).settings.fast_int8_exact
    if precise_int8_needed(cpu_flags(), exact):
        pytest.skip("this CPU's fast int8 products are not exact for this model's weights: "
                    "the precise ones are used")
    img = cv2.imread(str(SCENE_JPEG))
    fast = Detector(default_model_path(), threads=1).candidates(img)
    slow = Detector(default_model_path(), threads=1, precise_int8=True).candidates(img)
    assert len(fast) >= 4
    for a, b in ((fast.quads, slow.quads), (fast.loc_score, slow.loc_score),
                 (fast.probs, slow.probs)):
        assert np.array_equal(a, b)
