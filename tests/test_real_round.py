"""The classifier round reads the localiser's own boxes (cards by overlap, a real photo's
boxes as "not a card") and trains, resumably, from the shipped classifier's weights."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from scorer.vision import Detector
from training.nets import checkpoint
from training.pipeline.rounds import CLASSIFIER_STATE
from training.recipe import RealRoundConfig
from training.data.boxes import NOT_A_CARD, join, photo_crops, scene_crops
from training.stages.real_round import ROUND_SEED_OFFSET, blend_weights, train_round

WESTERN = Path(__file__).parent / "fixtures" / "western-jack.jpg"


@pytest.mark.art
def test_a_round_reads_the_boxes_and_trains_from_the_shipped_classifier(tmp_path):
    det = Detector(threads=1)
    scenes = scene_crops(det, None, per_kind=1, offset=ROUND_SEED_OFFSET)
    photos = photo_crops(det, [WESTERN])
    assert len(scenes.labels) and scenes.crops.shape[1:] == (112, 72, 3)
    assert (scenes.labels < NOT_A_CARD).any() and set(scenes.sources) <= {
        "pile", "physical", "closeup", "clutter", "upside_down"}
    assert len(photos.labels) >= 1 and (photos.labels == NOT_A_CARD).all()
    logs: list[str] = []
    out = train_round(join([scenes, photos]), CLASSIFIER_STATE, tmp_path,
                      RealRoundConfig(steps=2, batch=4), log=logs.append)
    trained, start = (checkpoint.load(p) for p in (out, CLASSIFIER_STATE))
    assert trained["step"] == 2 and trained["config"]["arch"] == start["config"]["arch"]
    w = "fc.weight"
    assert not torch.allclose(checkpoint.weights(trained, "cls")[w],
                              checkpoint.weights(start, "cls")[w])
    train_round(join([scenes, photos]), CLASSIFIER_STATE, tmp_path,
                RealRoundConfig(steps=2, batch=4), log=logs.append)
    assert any("finished already" in line for line in logs)  # resumed, not retrained
    back = train_round(join([scenes, photos]), CLASSIFIER_STATE, tmp_path,
                       RealRoundConfig(steps=2, batch=4, keep_start=1.0), log=logs.append)
    assert torch.allclose(checkpoint.weights(back, "cls")[w], checkpoint.weights(start, "cls")[w])


def test_blended_weights_lie_between_the_round_and_its_start():
    trained = {"w": torch.tensor([0.0, 4.0]), "seen": torch.tensor(7)}
    start = {"w": torch.tensor([2.0, 0.0]), "seen": torch.tensor(3)}
    assert torch.equal(blend_weights(trained, start, 0.0)["w"], trained["w"])
    assert torch.equal(blend_weights(trained, start, 1.0)["w"], start["w"])
    quarter = blend_weights(trained, start, 0.25)
    assert torch.allclose(quarter["w"], torch.tensor([0.5, 3.0]))
    assert quarter["seen"].item() == 7  # a counter is the trained network's
    with pytest.raises(ValueError, match="0..1"):
        blend_weights(trained, start, 1.5)
    with pytest.raises(ValueError, match="names"):
        blend_weights(trained, {"w": start["w"]}, 0.5)
