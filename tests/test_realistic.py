"""Realistic scenes, the realistic test's slices, the streamed training samples and the
fine-tuning path from the shipped ONNX files."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from training.data.realistic import KINDS, realistic_scene, realistic_seed
from training.data.scenes import SEED_RANGES, get_library


@pytest.fixture(scope="module")
def lib():
    return get_library()


@pytest.mark.art
def test_realistic_scenes_are_deterministic(lib):
    a, ca, ia = realistic_scene(lib, 77, "pile")
    b, cb, ib = realistic_scene(lib, 77, "pile")
    assert np.array_equal(a, b) and [c.code for c in ca] == [c.code for c in cb]
    assert ia.kind == ib.kind == "pile"


@pytest.mark.art
def test_unknown_kind_is_refused(lib):
    with pytest.raises(ValueError, match="unknown scene kind"):
        realistic_scene(lib, 1, "bogus")


@pytest.mark.art
def test_a_pile_holds_each_card_once_and_its_top_card_is_fully_visible(lib):
    for seed in range(6):
        _, cards, _ = realistic_scene(lib, seed, "pile")
        codes = [c.code for c in cards]
        assert len(codes) == len(set(codes)) >= 3
        assert cards[-1].visible > 0.9 or cards[-1].box[0] < 0 or cards[-1].box[1] < 0


@pytest.mark.art
def test_closeups_fill_half_the_frame_or_more(lib):
    for seed in range(8):
        img, cards, _ = realistic_scene(lib, seed, "closeup")
        assert 1 <= len(cards) <= 2
        assert max(c.height for c in cards) >= 0.45 * min(img.shape[:2])


@pytest.mark.art
def test_physical_cards_have_a_dark_border(lib):
    img, cards, info = realistic_scene(lib, 3, "physical")
    assert info.physical
    from scorer.vision.geometry import quad_to_rect, rect_to_quad, rectify
    top = cards[-1]
    cx, cy, w, h, th = quad_to_rect(top.quad)
    crop = rectify(img, rect_to_quad(cx, cy, w, h, th)).astype(np.float32)
    edge = np.concatenate([crop[8:-8, 1:3].reshape(-1, 3), crop[8:-8, -3:-1].reshape(-1, 3)])
    inner = crop[30:80, 20:50].reshape(-1, 3)
    assert edge.mean() < inner.mean()


def test_realistic_seeds_stay_inside_their_split():
    for split in ("val", "test"):
        lo, hi = SEED_RANGES[split]
        for kind in KINDS:
            assert lo <= realistic_seed(lo, kind, 0) < realistic_seed(lo, kind, 3999) < hi


def test_slices_count_a_perfect_and_an_empty_reader():
    from training.measure.counting import Tally
    t = Tally()
    t.add([4, 9], [4, 9], [])
    t.add([], [1], [])
    t.add([30], [], [])  # a false card on an empty table
    r = t.report()
    assert r["equiv"]["tp"] == 2 and r["equiv"]["fn"] == 1 and r["equiv"]["fp"] == 1
    assert r["images_all_correct"] == pytest.approx(1 / 3, abs=1e-3)
    assert r["false_cards_per_image"] == pytest.approx(1 / 3, abs=1e-3)


def test_a_lost_card_is_told_apart_by_where_its_box_went():
    from types import SimpleNamespace

    from scorer.vision.geometry import rect_to_quad
    from training.measure.slices import why_lost
    card = SimpleNamespace(quad=rect_to_quad(100, 100, 60, 96, 0.0))
    aligned = rect_to_quad(102, 101, 60, 96, 0.0)[None]
    skewed = rect_to_quad(100, 140, 60, 96, 0.0)[None]  # IoU about 0.4
    far = rect_to_quad(300, 300, 60, 96, 0.0)[None]
    none = np.zeros((0, 4, 2), np.float32)
    assert why_lost(aligned, aligned, card) == "aligned_box_misread_or_dropped"
    assert why_lost(skewed, skewed, card) == "skewed_box"
    assert why_lost(far, np.concatenate([far, aligned]), card) == "box_dropped_by_its_read"
    assert why_lost(none, skewed, card) == "box_dropped_by_its_read"
    assert why_lost(none, far, card) == "no_box"
    assert why_lost(none, none, card) == "no_box"


@pytest.mark.art
def test_stream_samples_match_the_localiser_input(lib):
    from training.data.stream import StreamConfig, collate, scene_sample
    cfg = StreamConfig(art_dir=str(lib.art_dir))
    b = collate([scene_sample(lib, 200_000 + k, cfg) for k in range(3)])
    assert tuple(b["img"].shape) == (3, 480, 640, 3)
    assert tuple(b["hm"].shape) == (3, 120, 160) and float(b["hm"].max()) == 1.0
    assert b["cls_x"].shape[1:] == (112, 72, 3) and len(b["cls_x"]) == len(b["cls_y"])
    assert int(b["cls_y"].max()) <= 48 and len(b["ref_x"]) == len(b["ref_y"])


@pytest.mark.art
def test_stream_refuses_seeds_outside_the_train_range(lib):
    from training.data.stream import SceneStream, StreamConfig
    with pytest.raises(ValueError, match="train range"):
        SceneStream(StreamConfig(art_dir=str(lib.art_dir), first_seed=SEED_RANGES["val"][0]))


def test_the_fine_tuning_starts_from_the_stages_torch_checkpoints(tmp_path):
    from training.stages.realistic import FinetuneConfig, NetSources, Nets
    from training.nets.networks import LocNet, RefNet, build_classifier
    torch.manual_seed(1)
    loc, ref, cls = LocNet(1), RefNet(), build_classifier("tiny")
    torch.save({"model": loc.state_dict()}, tmp_path / "localiser.pt")
    torch.save(ref.state_dict(), tmp_path / "refiner.pt")
    torch.save({"model": cls.state_dict(), "arch": "tiny"}, tmp_path / "classifier.pt")
    src = NetSources(tmp_path / "localiser.pt", tmp_path / "classifier.pt", tmp_path / "refiner.pt")
    assert src.missing() == []
    nets = Nets(src, FinetuneConfig(), "cpu")
    assert nets.arch == "tiny"
    for mine, theirs in ((nets.loc, loc), (nets.ref, ref), (nets.cls, cls)):
        for (k, a), b in zip(mine.state_dict().items(), theirs.state_dict().values()):
            assert torch.equal(a, b), k
    assert NetSources(tmp_path / "x.pt", src.cls, src.ref).missing() == [tmp_path / "x.pt"]


@pytest.mark.art
def test_the_rules_recalls_are_recorded_card_by_card():
    from scorer.vision import Detector
    from training.measure.slices import PAIRED_SLICES, evaluate_realistic
    res = evaluate_realistic(Detector(threads=1), None, "val", 3, kinds=("pile",))
    assert res["card_hits"]["top_card_of_stack"]  # piles have top cards
    for part in PAIRED_SLICES:
        hits, recall = res["card_hits"][part], res["recall"][part]
        assert len(hits) == recall["cards"]
        if hits:
            assert sum(hits.values()) / len(hits) == pytest.approx(recall["recall_equiv"],
                                                                   abs=1e-3)
            assert all(c.startswith("pile:") for c in hits)
