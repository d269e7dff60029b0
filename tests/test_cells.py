"""Matching a crop with a deck cell by cell (``scorer.vision.cells``) and the classifier's
``cells`` output it reads (``training.ship.cells``)."""

from __future__ import annotations

import numpy as np
import pytest

from gate import SCENE_JPEG
from scorer.vision import Detector, decode_image
from scorer.vision.cells import CellPrototypes
from scorer.vision.profile import DeckProfile
from scorer.vision.settings import DeckRule

RNG = np.random.default_rng(5)


def _cards(n: int = 6) -> np.ndarray:
    """``n`` made-up cards' cell maps: (n, 16, 7, 4), each cell its own random vector."""
    return RNG.random((n, 16, 7, 4)).astype(np.float32)


def test_a_card_half_covered_by_another_still_matches_itself_best():
    cards = _cards()
    protos = CellPrototypes(cards, np.arange(6))
    crop = cards[2].copy()
    crop[:, :3] = cards[5][:, 4:]           # its top 3 rows: the bottom of card 5, slid over
    sim = protos.similarity(crop[None])[0]
    assert int(np.argmax(sim)) == 2
    assert sim[2] > 0.99                    # the half that shows is card 2's, cell for cell
    assert sim[5] < 0.9                     # card 5's cells are not where card 5 has them
    assert np.isinf(sim[6:]).all()          # not enrolled


def test_a_card_is_its_best_prototype_and_the_grouping_keeps_the_cards_apart():
    cards = _cards(4)
    ids = np.array([3, 1, 3, 0])            # card 3 twice, in any order
    protos = CellPrototypes(cards, ids)
    sim = protos.similarity(cards)
    assert sim[0, 3] == pytest.approx(1.0, abs=1e-5) and sim[2, 3] == pytest.approx(1.0, abs=1e-5)
    assert sim[1, 1] == pytest.approx(1.0, abs=1e-5) and sim[3, 0] == pytest.approx(1.0, abs=1e-5)
    assert sorted(np.nonzero(np.isfinite(sim[0]))[0].tolist()) == [0, 1, 3]


def test_cells_of_another_shape_are_refused():
    protos = CellPrototypes(_cards(2), np.arange(2))
    with pytest.raises(ValueError, match="shape"):
        protos.similarity(RNG.random((1, 16, 4, 7)).astype(np.float32))
    with pytest.raises(ValueError):
        CellPrototypes(_cards(2), np.arange(3))
    assert protos.similarity(np.zeros((0, 16, 7, 4), np.float32)).shape == (0, 48)


def test_adding_the_cells_output_changes_no_other_output(tmp_path):
    import onnx
    from onnx import TensorProto, helper

    from scorer.vision.stages import session
    from training.ship.cells import add_cells_output
    x = helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, 8, 4])
    w = helper.make_tensor("w", TensorProto.FLOAT, [5, 3, 1, 1], RNG.random(15).tolist())
    nodes = [helper.make_node("Conv", ["crops", "w"], ["map"]),
             helper.make_node("ReduceMean", ["map"], ["embedding"], axes=[2, 3], keepdims=0)]
    graph = helper.make_graph(nodes, "g", [x], [helper.make_tensor_value_info(
        "embedding", TensorProto.FLOAT, ["n", 5])], [w])
    path = tmp_path / "cls.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    data = RNG.random((2, 3, 8, 4)).astype(np.float32)
    before = session(path, 1, False).run(None, {"crops": data})
    assert add_cells_output(path) and not add_cells_output(path)
    after = session(path, 1, False).run(None, {"crops": data})
    assert np.array_equal(before[0], after[0]) and after[1].shape == (2, 5, 8, 4)
    np.testing.assert_allclose(after[1].mean((2, 3)), after[0], rtol=1e-5)


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector(threads=1)


def test_the_shipped_deck_decides_with_cells_and_a_half_hidden_card_reaches_its_card(detector):
    """The frame's four cards enrolled from their crops: each card's crop with its top
    half replaced by another card's bottom half is still matched to its own card above
    the deck's accept (the pooled embedding cannot tell the card from its cover)."""
    img = decode_image(SCENE_JPEG.read_bytes())
    seen = detector.detect(img, crops=True)
    profile = DeckProfile.from_crops("table", seen.codes, seen.crops, detector)
    assert detector.has_cells and profile.decides and profile.own is not None
    h = detector.crop_h // 2
    covered = seen.crops.copy()
    for i in range(len(covered)):
        covered[i, :h] = seen.crops[(i + 1) % len(covered), -h:]
    probs = detector.classify(covered)
    same, sim = profile.read(probs, detector.embed(covered), detector.cells(covered))
    assert same is probs                    # a deck that decides leaves them as they are
    ids = [int(c) for c in seen.class_id]
    assert [int(k) for k in sim.argmax(1)] == ids
    assert (sim[np.arange(len(ids)), ids] >= DeckRule().accept).all()


def test_every_exported_classifier_has_cells_quantised_or_not(tmp_path):
    """The exporter adds the cells output itself (the kept classifier's weights, exported
    and then quantised as a training round does): its mean over the cells, normalised, is
    the embedding."""
    from pathlib import Path

    from scorer.vision.stages import as_input, session
    from training.ship.export import export_classifier, quantize_classifier
    kept = Path(__file__).resolve().parent.parent / "training" / "campaign" / "classifier.pt"
    path = export_classifier(kept, tmp_path / "cls.onnx")
    crops = RNG.integers(0, 255, (8, 112, 72, 3), dtype=np.uint8)
    for step in ("float", "int8"):
        if step == "int8":
            quantize_classifier(path, crops)
        emb, cells = session(path, 1, False).run(["embedding", "cells"],
                                                 {"crops": as_input(crops[:3])})
        pooled = cells.mean((2, 3))
        pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
        np.testing.assert_allclose(pooled, emb, atol=0.01)
