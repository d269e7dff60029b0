"""Torch weights recovered from the shipped int8 classifier read crops as it does."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import torch

from gate import SCENE_JPEG
from sessions import product_session
from scorer.vision import Detector, default_model_path
from scorer.vision.stages import as_input
from training.nets.recover import classifier_from_onnx
from training.ship.export import ProbsAndEmbedding

CLASSIFIER = default_model_path().with_name("hanafuda-classifier.onnx")


@pytest.fixture(scope="module")
def crops() -> np.ndarray:
    """The fixture photo's card crops, upright and turned 180° (the detector reads both)."""
    c = Detector(threads=1).detect(cv2.imread(str(SCENE_JPEG)), crops=True).crops
    assert c is not None and len(c) >= 4
    return as_input(np.concatenate([c, c[:, ::-1, ::-1]]))


def test_recovered_classifier_matches_the_shipped_one(crops):
    net, arch = classifier_from_onnx(CLASSIFIER)
    assert arch.startswith("lite0-")
    sess = product_session(CLASSIFIER)
    want, want_emb = sess.run(["probs", "embedding"], {"crops": crops})
    with torch.no_grad():
        got, got_emb = (t.numpy() for t in ProbsAndEmbedding(net)(torch.from_numpy(crops)))
    assert (got.argmax(1) == want.argmax(1)).mean() >= 0.98
    assert np.abs(got - want).max() < 0.1
    assert (got_emb * want_emb).sum(1).min() > 0.99  # cosine of the embeddings


def test_the_committed_classifier_weights_read_as_the_shipped_classifier(crops):
    from pathlib import Path

    from training.nets import checkpoint
    from training.nets.networks import build_classifier
    kept = Path(__file__).resolve().parent.parent / "training" / "campaign" / "classifier.pt"
    ck = checkpoint.load(kept)
    net = build_classifier(ck["config"]["arch"])
    net.load_state_dict(checkpoint.weights(ck, "cls"))
    sess = product_session(CLASSIFIER)
    want = sess.run(["probs"], {"crops": crops})[0]
    with torch.no_grad():
        got = ProbsAndEmbedding(net.eval())(torch.from_numpy(crops))[0].numpy()
    assert (got.argmax(1) == want.argmax(1)).mean() >= 0.98


def test_a_classifier_round_may_start_from_an_exported_classifier_file(crops, tmp_path):
    """``cls-real --start`` takes a classifier's ONNX file: its recovered weights are saved
    in the one checkpoint format, which the round loads as it loads a kept state."""
    from training.nets import checkpoint
    from training.nets.networks import build_classifier
    from training.nets.recover import classifier_start
    kept = tmp_path / "kept.pt"
    assert classifier_start(kept, tmp_path / "unused.pt") == kept  # a checkpoint as it is
    assert not (tmp_path / "unused.pt").exists()
    ck = checkpoint.load(classifier_start(CLASSIFIER, tmp_path / "start.pt"))
    net = build_classifier(ck["config"]["arch"])
    net.load_state_dict(checkpoint.weights(ck, "cls"))
    want = product_session(CLASSIFIER).run(["probs"], {"crops": crops})[0]
    with torch.no_grad():
        got = ProbsAndEmbedding(net.eval())(torch.from_numpy(crops))[0].numpy()
    assert (got.argmax(1) == want.argmax(1)).mean() >= 0.98
