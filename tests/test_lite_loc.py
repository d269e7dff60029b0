"""The localiser on ImageNet features and the domain-shift slice it is judged on."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from training.nets.networks import LiteLoc
from training.recipe import RecipeError, load_recipe, parse_recipe
from training.data.scenes import SEED_RANGES


def test_lite_loc_keeps_the_detector_contract_and_its_frozen_imagenet_layers():
    torch.manual_seed(0)
    net = LiteLoc(pretrained=True)
    out = net(torch.rand(1, 3, 480, 640) * 255)
    assert out.shape == (1, 7, 120, 160)  # the 7 maps at stride 4 the detector reads
    frozen = [p.clone() for p in list(net.stem.parameters()) + list(net.frozen.parameters())]
    stats = net.frozen[0]._bn1.running_mean.clone()
    trained = [p for p in net.parameters() if p.requires_grad]
    assert trained and len(trained) < len(list(net.parameters()))
    opt = torch.optim.SGD(trained, lr=0.1)
    net.train()
    net(torch.rand(2, 3, 96, 128) * 255).square().mean().backward()
    opt.step()
    after = list(net.stem.parameters()) + list(net.frozen.parameters())
    assert all(torch.equal(a, b) for a, b in zip(frozen, after, strict=True))
    assert torch.equal(net.frozen[0]._bn1.running_mean, stats)  # batch norms stay ImageNet's
    # the head starts at the prior: no confident false peaks before training
    assert torch.sigmoid(out[0, 0]).max() < 0.2


def test_averaged_weights_are_the_mean_with_the_trained_batch_norms_measured_again(tmp_path):
    from training.stages.lite_loc import averaged_weights, load_lite_loc, save_weights
    torch.manual_seed(0)
    paths = []
    for k in range(2):
        net = LiteLoc(pretrained=False)
        with torch.no_grad():
            net.head[-1].bias.fill_(float(k))
            net.blocks[0]._bn1.running_mean.fill_(5.0 + k)
        paths.append(tmp_path / f"step-{k}.pt")
        save_weights(paths[-1], net)
    frozen_stats = load_lite_loc(paths[0]).frozen[0]._bn1.running_mean.clone()
    frames = np.random.default_rng(0).integers(0, 255, (4, 96, 128, 3), dtype=np.uint8)
    out = load_lite_loc(averaged_weights(paths, frames, tmp_path / "mean.pt", batch=2))
    a, b = (load_lite_loc(p) for p in paths)
    assert torch.allclose(out.head[-1].bias, torch.full_like(out.head[-1].bias, 0.5), atol=1e-3)
    w = out.blocks[1]._project_conv.weight
    assert torch.allclose(w, (a.blocks[1]._project_conv.weight + b.blocks[1]._project_conv.weight)
                          / 2, atol=1e-3)
    # the trained blocks' statistics come from the frames, not from either network
    mean = out.blocks[0]._bn1.running_mean
    assert not torch.allclose(mean, torch.full_like(mean, 5.5), atol=0.1)
    assert torch.equal(out.frozen[0]._bn1.running_mean, frozen_stats)  # ImageNet's, kept


def test_the_weights_averaged_are_the_snapshots_from_the_step_and_the_last_checkpoint(tmp_path):
    from training.stages.loop import save_checkpoint
    from training.stages.lite_loc import snapshot_path, snapshot_step, weights_to_average
    (tmp_path / "snapshots").mkdir()
    for step in (1000, 2000, 3000):
        snapshot_path(tmp_path, step).write_bytes(b"")
    assert snapshot_step(snapshot_path(tmp_path, 1234)) == 1234
    net = torch.nn.Linear(1, 1)
    ck = tmp_path / "lite_loc.pt"
    save_checkpoint(ck, {"loc": net}, None, 3500, 1.0, [], {})
    assert [p.name for p in weights_to_average(tmp_path, ck, 2000)] == \
        ["step-002000.pt", "step-003000.pt", "lite_loc.pt"]
    save_checkpoint(ck, {"loc": net}, None, 3000, 1.0, [], {})  # the last snapshot holds it
    assert [p.name for p in weights_to_average(tmp_path, ck, 2000)] == \
        ["step-002000.pt", "step-003000.pt"]
    assert weights_to_average(tmp_path, ck, 4000) == []


def test_the_recipe_describes_the_lite_localiser_and_the_shift_slice():
    r = load_recipe()
    assert r.lite_localiser.window == (640, 480) and r.shift.per_kind > 0  # whole frames
    with pytest.raises(RecipeError, match="window"):
        parse_recipe({"localiser": [{"name": "a", "size": [320, 240], "steps": 1, "scenes": 1,
                                     "lr": 1e-3}],
                      "lite_localiser": {"window": [470, 352]}})
    with pytest.raises(RecipeError, match="staggered \\+ heaps"):
        parse_recipe({"localiser": [{"name": "a", "size": [320, 240], "steps": 1, "scenes": 1,
                                     "lr": 1e-3}],
                      "lite_localiser": {"staggered": 0.6, "heaps": 0.4}})


def test_the_stream_adds_staggered_stacks_and_heaps_beside_the_tests_pile_layouts():
    from training.stages.lite_loc import stream_config
    from training.data.realistic import LAYOUT_WEIGHTS
    from training.recipe import LiteLocConfig
    w = dict(stream_config("", LiteLocConfig(staggered=0.3, heaps=0.2)).variation.layout_weights)
    assert w["staggered"] == 0.3 and w["heap"] == 0.2 and sum(w.values()) == pytest.approx(1)
    assert w["fan"] / w["stack"] == pytest.approx(LAYOUT_WEIGHTS["fan"] / LAYOUT_WEIGHTS["stack"])
    plain = dict(stream_config("", LiteLocConfig()).variation.layout_weights)
    assert plain == LAYOUT_WEIGHTS  # neither: the test's layouts alone


@pytest.fixture(scope="module")
def lib():  # the card art: tests using it are marked ``art``
    from training.data.scenes import get_library
    return get_library()


@pytest.mark.art
def test_shift_scenes_use_the_held_out_art_real_photos_and_their_own_seeds(lib):
    from training.data.realistic import realistic_seed
    from training.data.shift import HELD_OUT_SET, SHIFT_KINDS, shift_scene, table_photos
    assert len(table_photos()) >= 8
    lo, hi = SEED_RANGES["shift_test"]
    assert all(not (lo < b and a < hi) for k, (a, b) in SEED_RANGES.items() if k != "shift_test")
    for kind in SHIFT_KINDS:
        seed = realistic_seed(lo, kind, 0)
        img, cards, info = shift_scene(lib, seed, kind)
        again, cards2, _ = shift_scene(lib, seed, kind)
        assert np.array_equal(img, again) and [c.code for c in cards] == [c.code for c in cards2]
        assert info.physical and info.kind == kind
        assert {c.art_set for c in cards} <= {HELD_OUT_SET}
    img, cards, _ = shift_scene(lib, realistic_seed(lo, "pile", 1), "pile")
    assert len(cards) >= 3 and img.dtype == np.uint8


def test_shift_slice_is_never_in_a_training_stream():
    from training.data.stream import SceneStream, StreamConfig
    with pytest.raises(ValueError, match="train range"):
        SceneStream(StreamConfig(art_dir=".", first_seed=SEED_RANGES["shift_test"][0]))


def _figures(f1: float, kinds: dict[str, float]) -> dict:
    eq = lambda v: {"equiv": {"f1": v}, "images_all_correct": 0.5,  # noqa: E731
                    "false_cards_per_image": 0.1}
    return {"realistic_framing": eq(f1), "kinds": {k: eq(v) for k, v in kinds.items()},
            "recall": {"required": {"recall_equiv": f1}}}


def test_the_ship_rule_names_each_figure_that_fails_and_by_how_much():
    from training.measure.compare import Figures, may_ship, rows
    old = Figures(_figures(0.90, {"pile": 0.9, "closeup": 0.9}), _figures(0.77, {"pile": 0.8}),
                  {"false_cards_per_photo": 0.36})
    new = Figures(_figures(0.93, {"pile": 0.95, "closeup": 0.895}),
                  _figures(0.80, {"pile": 0.85}), {"false_cards_per_photo": 0.17}, 30.0, 12.0)
    assert may_ship(old, new) == (True, [])  # a slice may lose up to 0.01
    worse = Figures(_figures(0.95, {"pile": 0.97, "closeup": 0.88}), _figures(0.76, {"pile": 0.85}),
                    {"false_cards_per_photo": 0.2}, 41.0, 24.0)
    ok, failed = may_ship(old, worse)
    assert not ok and len(failed) == 5
    assert failed[0].startswith("shift F1 0.770 -> 0.760")
    assert "realistic closeup F1 0.900 -> 0.880 (loses 0.020" in failed[1]
    assert "0.200 (must be 0.180 or fewer)" in failed[2]
    assert "41.0 ms" in failed[3] and "24.0 MiB" in failed[4]
    assert ("realistic pile: F1", 0.9, 0.95) in rows(old.realistic, new.realistic, "realistic")


def test_later_models_halve_the_baselines_false_cards_and_are_no_worse_than_the_shipped():
    from training.measure.compare import Baseline, Figures, may_ship
    shipped = Figures(_figures(0.90, {"pile": 0.9}), _figures(0.80, {"pile": 0.8}),
                      {"false_cards_per_photo": 0.17})
    eighth = Baseline(shipped.realistic, {"false_cards_per_photo": 0.36})

    def later(photos):
        return Figures(shipped.realistic, _figures(0.81, {"pile": 0.8}),
                       {"false_cards_per_photo": photos})
    assert may_ship(shipped, later(0.16), baseline=eighth) == (True, [])
    ok, failed = may_ship(shipped, later(0.175), baseline=eighth)
    assert not ok and failed == ["real-photo false cards a photo 0.170 -> 0.175 (must be "
                                 "0.170 or fewer)"]
    # without a baseline the shipped model's own figure must be halved
    assert not may_ship(shipped, later(0.16))[0]


def test_each_realistic_kind_is_held_to_the_baseline_and_the_whole_test_to_the_shipped_too():
    from training.measure.compare import Baseline, Figures, may_ship
    eighth = Baseline(_figures(0.921, {"pile": 0.93, "upside": 0.943}))
    shipped = Figures(_figures(0.930, {"pile": 0.93, "upside": 0.951}), _figures(0.84, {"pile": 0.8}))

    def later(whole, upside):
        return Figures(_figures(whole, {"pile": 0.935, "upside": upside}),
                       _figures(0.86, {"pile": 0.85}))
    # upside down 0.0104 below the shipped model but within 0.01 of the baseline: it ships
    assert may_ship(shipped, later(0.931, 0.9406), baseline=eighth) == (True, [])
    # held to the shipped model alone (no baseline), the same kind fails
    ok, failed = may_ship(shipped, later(0.931, 0.9406))
    assert not ok and failed == ["realistic upside F1 0.951 -> 0.941 (loses 0.0104, more "
                                 "than 0.01)"]
    # more than 0.01 below the baseline: refused, and said against which model
    ok, failed = may_ship(shipped, later(0.931, 0.932), baseline=eighth)
    assert failed == ["realistic upside F1 0.943 -> 0.932 (loses 0.0110 against the "
                      "baseline model, more than 0.01)"]
    # the whole test still ratchets against the shipped model
    ok, failed = may_ship(shipped, later(0.918, 0.95), baseline=eighth)
    assert failed == ["realistic F1 0.930 -> 0.918 (loses 0.0120 against the shipped "
                      "model, more than 0.01)"]


def test_the_speed_limit_reads_the_candidate_as_on_the_reference_machine():
    from training.measure.compare import Figures, ShipLimits, may_ship
    old = Figures(_figures(0.90, {"pile": 0.9}), _figures(0.77, {"pile": 0.8}))
    limits = ShipLimits(reference_ms=24.0)
    # 42 ms on a machine where the shipped model took 32 (24 on the reference): 31.5 ms
    slow_machine = Figures(old.realistic, _figures(0.80, {"pile": 0.85}), ms=42.0,
                           shipped_ms=32.0)
    assert slow_machine.scaled_ms(24.0) == pytest.approx(31.5)
    assert may_ship(old, slow_machine, limits) == (True, [])
    # the same 42 ms where the shipped model took its reference 24: over the limit
    ok, failed = may_ship(old, Figures(old.realistic, slow_machine.shift, ms=42.0,
                                       shipped_ms=24.0), limits)
    assert not ok and failed == ["median 42.0 ms a frame (42.0 ms beside the shipped "
                                 "model's 24.0) (limit 35 ms)"]
    # timed alone, the figure is read as it is
    assert not may_ship(old, Figures(old.realistic, slow_machine.shift, ms=42.0), limits)[0]


def test_the_ship_record_reads_the_reference_and_hands_a_shipped_models_figures_over(tmp_path):
    import json

    from training.measure.compare import Baseline, Figures
    from training.ship.handover import ShipRecord
    record = ShipRecord(tmp_path / "eval")
    assert record.baseline(Figures({}, {})) is None  # no baseline before the first ship
    assert record.limits().reference_ms == 24.3  # nothing shipped by this rule yet
    old = Figures(_figures(0.90, {"pile": 0.9}), _figures(0.77, {"pile": 0.8}),
                  {"false_cards_per_photo": 0.36})
    new = Figures(_figures(0.91, {"pile": 0.91}), _figures(0.80, {"pile": 0.85}),
                  {"false_cards_per_photo": 0.17}, ms=40.0, mib=3.0, shipped_ms=32.0)
    first = record.decide(None, new, "cand/x-localiser.onnx")  # nothing shipped: it ships
    assert first["shipped"] and first["scaled_ms"] == pytest.approx(40.0 * 24.3 / 32.0)
    decision = record.decide(old, new, "cand/x-localiser.onnx")
    assert decision["shipped"] and json.loads(
        (tmp_path / "eval" / "ship-decision.json").read_text()) == decision
    (tmp_path / "eval" / "photos-test-lite-loc.json").write_text('{"false_cards_per_photo": 0.17}')
    record.hand_over(old, decision)
    assert json.loads(record.baseline_photos.read_text()) == old.photos  # the first ship keeps it
    assert json.loads(record.baseline_realistic.read_text()) == old.realistic
    assert record.baseline(new) == Baseline(old.realistic, old.photos)
    assert json.loads((tmp_path / "eval" / "photos-test-shipped.json").read_text()) == \
        {"false_cards_per_photo": 0.17}
    assert json.loads(record.speed.read_text())["reference_ms"] == round(40.0 * 24.3 / 32.0, 2)
    assert record.limits().reference_ms == round(40.0 * 24.3 / 32.0, 2)
    # a later ship keeps the first baseline; a worse candidate is refused by it
    record.hand_over(Figures(old.realistic, old.shift, {"false_cards_per_photo": 0.17}), decision)
    assert json.loads(record.baseline_photos.read_text()) == old.photos
    worse = Figures(new.realistic, _figures(0.81, {"pile": 0.85}),
                    {"false_cards_per_photo": 0.19}, ms=30.0, shipped_ms=30.0)
    refused = record.decide(Figures(new.realistic, new.shift, new.photos), worse, "c")
    assert not refused["shipped"] and "0.170 or fewer" in refused["failed"][0]
