"""What recogniser v4 trains on beside the renders: real photographs split once, real
tables and negatives, decoy faces, staggered stacks, and a heatmap peak where a
stacked card is seen."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from training.data.targets import STRIDE, band_mask, loc_targets


def _decode(hm, reg):
    """Centres decoded as the detector does: (cell + offset + 0.5) * stride at each peak."""
    ys, xs = np.nonzero(hm >= 0.999)
    return sorted(((x + reg[4, y, x] + 0.5) * STRIDE, (y + reg[5, y, x] + 0.5) * STRIDE)
                  for y, x in zip(ys, xs))


def test_a_peak_at_the_exposed_point_still_decodes_to_the_cards_true_centre():
    # two stacked cards whose centres are 3 px apart: at their centres the peaks share
    # a cell; at their exposed points they are 40 px apart
    rows = np.array([[0, 200, 150, 60, 96, 0.0, 0.6, 178, 150, 10],
                     [0, 203, 150, 60, 96, 0.0, 1.0, 218, 150, 30]], np.float32)
    hm, ign, reg, regm = loc_targets(rows, 1, 240, 320)
    assert len(_decode(hm[0], reg[0])) == 2
    for (cx, cy), (tx, ty) in zip(_decode(hm[0], reg[0]), [(200, 150), (203, 150)]):
        assert abs(cx - tx) < 0.01 and abs(cy - ty) < 0.01
    peaks = sorted(np.argwhere(hm[0] >= 0.999)[:, 1].tolist())
    assert peaks == [int(round(178 / STRIDE - 0.5)), int(round(218 / STRIDE - 0.5))]
    # without the exposed points (the older rows) the peaks are the centres: one is lost
    hm7, _, reg7, _ = loc_targets(rows[:, :7], 1, 240, 320)
    assert len(_decode(hm7[0], reg7[0])) == 1


def test_the_half_hidden_band_is_marked_about_its_peaks_only():
    rows = np.array([[0, 100, 100, 40, 64, 0.0, 0.65, 90, 100, 8],
                     [0, 250, 100, 40, 64, 0.0, 0.95, 250, 100, 20],
                     [0, 150, 200, 40, 64, 0.0, 0.3, 150, 200, 5]], np.float32)
    band = band_mask(rows, 1, 240, 320)[0]
    assert band.sum() == 9 and band[int(round(100 / 4 - 0.5)), int(round(90 / 4 - 0.5))] == 1
    from training.stages.loss import loc_loss
    hm, ign, reg, regm = (torch.from_numpy(a) for a in loc_targets(rows, 1, 240, 320))
    out = torch.zeros(1, 7, 60, 80)
    plain = loc_loss(out, hm, ign, reg, regm)[0]
    weighted = loc_loss(out, hm, ign, reg, regm, weights=1 + 2 * torch.from_numpy(band)[None])[0]
    assert weighted > plain


def test_seen_point_is_the_centre_of_a_whole_card_and_inside_the_shown_part_of_a_covered_one():
    from training.data.scenes import seen_point
    quad = np.array([[20, 10], [60, 10], [60, 74], [20, 74]], np.float32)
    mask = np.zeros((100, 100), bool)
    mask[10:74, 20:60] = True
    x, y, d = seen_point(mask, quad)
    assert abs(x - 40) <= 1 and abs(y - 42) <= 1 and d >= 18
    mask[10:74, 20:45] = False  # the left 25 of 40 px are under another card
    x, y, d = seen_point(mask, quad)
    assert 45 <= x < 60 and mask[int(y), int(x)] and d < 10


@pytest.fixture(scope="module")
def lib():
    from training.data.scenes import get_library
    return get_library()


@pytest.mark.art
def test_a_staggered_stack_shows_each_lower_card_in_the_band_real_piles_lose(lib):
    from training.data.realistic import SceneVariation, realistic_scene
    var = SceneVariation(layout_weights=(("staggered", 1.0),))
    vis = []
    for seed in range(300_000, 300_006):
        _, cards, _ = realistic_scene(lib, seed, "pile", variation=var)
        vis += [c.visible for c in cards[:-1] if c.visible > 0]
    vis = np.array(vis)
    assert len(vis) > 20 and np.mean((vis >= 0.35) & (vis < 0.85)) > 0.7


def _neighbour_turns(positions) -> np.ndarray:
    """Each card's angle against its nearest card's (degrees, modulo a half turn)."""
    xy = np.array([p[:2] for p in positions])
    ang = np.array([p[3] for p in positions])
    d = np.linalg.norm(xy[:, None] - xy[None], axis=2) + np.eye(len(xy)) * 1e9
    diff = np.abs(ang - ang[d.argmin(1)]) % 180
    return np.minimum(diff, 180 - diff)


def test_a_heap_turns_each_card_its_own_way_where_a_staggered_stack_keeps_them_aligned():
    from training.data.realistic import pile_positions
    turns = {}
    for layout in ("heap", "staggered"):
        rng = np.random.default_rng(0)
        turns[layout] = np.median(np.concatenate([
            _neighbour_turns(pile_positions(rng, 12, 1280, 720, 150, weights={layout: 1.0}))
            for _ in range(20)]))
    assert turns["heap"] > 10 > 5 > turns["staggered"]


@pytest.mark.art
def test_a_heap_hides_part_of_most_cards_and_leaves_many_in_the_required_range(lib):
    from training.data.realistic import SceneVariation, realistic_scene
    var = SceneVariation(layout_weights=(("heap", 1.0),))
    vis = np.array([c.visible for seed in range(300_000, 300_006)
                    for c in realistic_scene(lib, seed, "pile", variation=var)[1]])
    assert len(vis) > 20 and np.mean(vis < 0.8) > 0.5 and np.mean(vis >= 0.5) > 0.3


@pytest.mark.art
def test_the_test_scenes_do_not_change_with_training_variation_off(lib):
    from training.data.realistic import KINDS, SceneVariation, realistic_scene
    for k, kind in enumerate(KINDS):
        a, ca, _ = realistic_scene(lib, 1_060_000 + k, kind)
        b, cb, _ = realistic_scene(lib, 1_060_000 + k, kind, variation=SceneVariation())
        assert np.array_equal(a, b) and [c.code for c in ca] == [c.code for c in cb]
        assert not any(c.decoy for c in ca)


def test_the_close_up_share_moves_only_close_ups_and_keeps_the_other_kinds_proportions():
    from training.data.realistic import KIND_WEIGHTS, KINDS, kind_weights
    assert kind_weights(0.0) == KIND_WEIGHTS
    w = dict(zip(KINDS, kind_weights(0.4)))
    assert w["closeup"] == pytest.approx(0.4) and sum(w.values()) == pytest.approx(1.0)
    old = dict(zip(KINDS, KIND_WEIGHTS))
    assert w["pile"] / w["clutter"] == pytest.approx(old["pile"] / old["clutter"])


@pytest.mark.art
def test_training_draws_close_ups_at_the_recipes_share(lib):
    from training.data.realistic import SceneVariation, realistic_scene
    kinds = [realistic_scene(lib, seed, variation=SceneVariation(closeups=1.0))[2].kind
             for seed in range(300_100, 300_104)]
    assert kinds == ["closeup"] * 4


@pytest.mark.art
@pytest.mark.photos
def test_decoy_cards_and_real_tables_teach_the_localiser_only(lib):
    from training.data.real_photos import DEFAULT_PHOTOS_DIR
    from training.data.realistic import SceneVariation
    from training.data.stream import StreamConfig, scene_sample
    var = SceneVariation(photos_dir=str(DEFAULT_PHOTOS_DIR), photo_tables=1.0, decoy_faces=1.0)
    cfg = StreamConfig(art_dir="", realistic_share=1.0, variation=var)
    s = scene_sample(lib, 200_123, cfg)
    assert (s["hm"] >= 0.999).sum() >= 1  # decoys are cards to the localiser
    # and never refiner or classifier samples: every crop is "not a card"
    assert len(s["ref_y"]) == 0 and set(s["cls_y"].tolist()) <= {48}
    neg = scene_sample(lib, 200_124, StreamConfig(art_dir=cfg.art_dir, variation=var,
                                                   negatives=1.0))
    assert (neg["hm"] > 0).sum() == 0 and neg["img"].shape == (480, 640, 3)


@pytest.mark.photos
def test_the_real_photos_split_once_by_sitting_into_disjoint_parts():
    from training.data.real_photos import DEFAULT_PHOTOS_DIR, group_of, split_photos
    a, b = split_photos(DEFAULT_PHOTOS_DIR), split_photos(DEFAULT_PHOTOS_DIR)
    assert a == b
    train, test = set(a["train"]), set(a["test"])
    assert not train & test and len(train) + len(test) >= 500
    assert 0.2 <= len(test) / (len(train) + len(test)) <= 0.3
    groups = {group_of(p.name) for p in train | test}
    assert groups == {group_of(p.name) for p in test}  # every sitting is tested
    for g in groups:  # and its test photos come after its training photos
        names_tr = sorted(p.name for p in train if group_of(p.name) == g)
        names_te = sorted(p.name for p in test if group_of(p.name) == g)
        assert not names_tr or max(names_tr) < min(names_te)


@pytest.mark.photos
def test_tuning_counts_every_card_picked_in_a_training_photo_as_a_false_one():
    from training.data.real_photos import DEFAULT_PHOTOS_DIR, split_photos
    from training.measure.slices import photo_candidates, score_selection

    from scorer.vision.settings import DetectionSettings

    class OneCardEverywhere:
        def __init__(self, settings):
            self.settings = settings

        def with_settings(self, settings):
            return OneCardEverywhere(settings)

        def candidates(self, img):
            assert (self.settings.loc_threshold, self.settings.large_loc) == (0.15, 0.15)
            return img.shape

    det = OneCardEverywhere(DetectionSettings(loc_threshold=0.3, large_threshold=0.1))
    scenes = photo_candidates(det, DEFAULT_PHOTOS_DIR, loc_threshold=0.15)
    assert len(scenes) == len(split_photos(DEFAULT_PHOTOS_DIR)["train"])  # never the test part
    assert (det.settings.loc_threshold, det.settings.large_loc) == (0.3, 0.1)  # unchanged
    res = score_selection(scenes, lambda cand: [5])
    assert res["equiv"]["fp"] == len(scenes) and res["equiv"]["tp"] == 0
    assert score_selection(scenes, lambda cand: [])["images_all_correct"] == 1.0


def test_missing_photos_say_where_they_come_from(tmp_path):
    from training.data.real_photos import PhotosUnavailable, split_photos
    with pytest.raises(PhotosUnavailable, match="real-photos"):
        split_photos(tmp_path)


def test_lite_loc_reads_the_stride_32_level_and_its_snapshot_round_trips(tmp_path):
    from training.stages.lite_loc import load_lite_loc, save_weights
    from training.nets.networks import LiteLoc
    torch.manual_seed(0)
    net = LiteLoc(pretrained=False).eval()
    with torch.no_grad():
        net.head[-1].weight.normal_(0, 0.1)
        x = torch.rand(1, 3, 352, 480) * 255
        before = net(x)
        assert before.shape == (1, 7, 88, 120)
        net.l32.weight.add_(1.0)
        after = net(x)
    assert not torch.allclose(before, after)  # the stride-32 features reach the maps
    save_weights(tmp_path / "step-000010.pt", net)
    again = load_lite_loc(tmp_path / "step-000010.pt")
    with torch.no_grad():
        err = (again(x) - after).abs().max().item()
    assert err < 0.05 * max(after.abs().max().item(), 1.0)  # fp16 weights, same network


@pytest.mark.art
@pytest.mark.photos
def test_the_int8_localiser_is_calibrated_on_its_training_stream_with_its_head_in_float(
        tmp_path, monkeypatch):
    import onnx

    import training.stages.lite_loc as lite_loc
    from training.data.real_photos import DEFAULT_PHOTOS_DIR
    from training.ship.export import export_lite_loc
    from training.recipe import LiteLocConfig
    from training import DEFAULT_ART_DIR
    from training.nets.networks import LiteLoc
    stream = lite_loc.stream_config(str(DEFAULT_ART_DIR), LiteLocConfig(
        photo_tables=1.0, negatives=0.0), photos_dir=DEFAULT_PHOTOS_DIR)
    frames = lite_loc.calibration_frames(stream, n=2)
    assert frames.shape == (2, 480, 640, 3)
    seen = []
    real = lite_loc.calibration_frames
    monkeypatch.setattr(lite_loc, "calibration_frames",
                        lambda s: seen.append(s) or real(s, n=2))
    torch.manual_seed(0)
    lite_loc.save_weights(tmp_path / "step-000001.pt", LiteLoc(pretrained=False).eval())
    base = Path(__file__).resolve().parents[1] / "models" / "hanafuda-localiser.onnx"
    path = export_lite_loc(tmp_path / "step-000001.pt", base, tmp_path / "out",
                           calibrate=stream)
    assert seen == [stream]  # the stream it trains on, real tables included
    nodes = onnx.load(str(path)).graph.node
    quantised = {n.name for n in nodes if n.op_type == "QuantizeLinear"}
    assert any(n.startswith("/blocks") or n.startswith("/frozen") for n in quantised)
    convs = [n for n in nodes if n.op_type == "Conv" and n.name.startswith("/head")]
    assert convs and not any(n.startswith("/head") for n in quantised)


def test_the_curve_measures_each_snapshot_once_beside_the_shipped_reference(tmp_path, monkeypatch):
    import json

    import training.pipeline.curve as curve
    measured = []

    def fake_measure(loc, art_dir, photos_dir, per_kind, threads=1, scene=None):
        measured.append(Path(loc).parent.name)
        return {"shift_f1": 0.5, "shift_scenes": per_kind * 4}

    shipped = {"loc_threshold": 0.25, "cls_threshold": 0.4}
    read_with = []
    monkeypatch.setattr(curve, "measure", fake_measure)
    monkeypatch.setattr(curve, "export_lite_loc", lambda snap, base, out: Path(out) / "x.onnx")
    monkeypatch.setattr(curve, "onnx_config", lambda path: dict(shipped))
    monkeypatch.setattr(curve, "set_config", lambda loc, cfg: read_with.append(cfg))
    snaps = tmp_path / "snapshots"
    snaps.mkdir()
    for step in (2000, 1000):
        (snaps / f"step-{step:06d}.pt").write_bytes(b"")
    out = tmp_path / "curve.json"
    res = curve.update_curve(snaps, tmp_path / "shipped.onnx", out, "", "", per_kind=5)
    assert [p["step"] for p in res["points"]] == [1000, 2000]
    assert res["reference"]["model"] == "shipped.onnx" and len(measured) == 3
    (snaps / "step-003000.pt").write_bytes(b"")
    shipped["loc_threshold"] = 0.3  # another model has shipped since
    res = curve.update_curve(snaps, tmp_path / "shipped.onnx", out, "", "", per_kind=5)
    assert [p["step"] for p in res["points"]] == [1000, 2000, 3000] and len(measured) == 4
    # every point is read with the reference's thresholds
    assert [c["loc_threshold"] for c in read_with] == [0.25, 0.25, 0.25]
    assert json.loads(out.read_text())["points"][-1]["step"] == 3000


def _run(tmp_path, name: str, recipe=None):
    from training.pipeline.context import Run
    from training.recipe import DEFAULT_RECIPE, load_recipe
    recipe = recipe or DEFAULT_RECIPE
    return Run(load_recipe(recipe), Path(recipe), tmp_path / name, tmp_path / "models", "", "")


def test_the_shipped_recipe_rebuilds_from_the_state_kept_in_the_tree(tmp_path):
    from training.nets.checkpoint import checkpoint_step
    from training.pipeline import campaign
    from training.recipe import RecipeError
    run = _run(tmp_path, "rebuild", campaign.SHIPPED_RECIPE)
    campaign.resume_campaign(run)  # no history read: a shallow clone rebuilds as well
    # the state the shipped localiser was exported from, as it is (its lineage's step)
    from scorer.vision import default_model_path
    from training.ship.lineage import read
    shipped = read(default_model_path())
    assert shipped["average_from"] == 0
    assert checkpoint_step(run.run_dir / "lite_loc" / "lite_loc.pt") == shipped["step"]
    assert (run.run_dir / "lite_loc" / "lite_loc.pt").read_bytes() == \
        campaign.SHIPPED_START.read_bytes()
    empty = _run(tmp_path, "empty", campaign.SHIPPED_RECIPE)  # a git show that failed
    (empty.run_dir / "lite_loc").mkdir(parents=True)
    (empty.run_dir / "lite_loc" / "lite_loc.pt").write_bytes(b"")
    with pytest.raises(RecipeError, match="is empty .*remove it and run again"):
        campaign.resume_campaign(empty)


def test_the_campaign_state_is_kept_to_commit_and_a_fresh_run_resumes_from_it(tmp_path, monkeypatch):
    import time

    from training.nets.checkpoint import checkpoint_step, save
    from training.pipeline import campaign
    from training.recipe import RecipeError
    state = tmp_path / "repo" / "training" / "campaign" / "lite-loc.pt"
    monkeypatch.setattr(campaign, "CAMPAIGN_STATE", state)
    monkeypatch.setattr(campaign, "REPO_ROOT", tmp_path / "repo")
    monkeypatch.setattr(campaign, "last_kept", lambda path=None: None)  # never committed
    net = torch.nn.Linear(2, 2)
    run = _run(tmp_path, "run")
    save(run.run_dir / "lite_loc" / "lite_loc.pt", {"loc": net},
         torch.optim.AdamW(net.parameters()), 1234, 60.0, [], {}, with_rng=True)
    campaign.keep(run)
    assert checkpoint_step(state) == 1234
    fresh = _run(tmp_path, "fresh-run")  # a fresh clone's run directory
    campaign.resume_campaign(fresh)
    assert checkpoint_step(fresh.run_dir / "lite_loc" / "lite_loc.pt") == 1234
    other = _run(tmp_path, "other-run", Path(__file__).parent / "fixtures" / "tiny-recipe.toml")
    campaign.resume_campaign(other)  # the state belongs to the repository's recipe alone
    assert not (other.run_dir / "lite_loc" / "lite_loc.pt").exists()
    with pytest.raises(RecipeError, match="nothing to keep"):
        campaign.keep(_run(tmp_path, "none"))
    # committed ten minutes ago: kept again only when forced
    monkeypatch.setattr(campaign, "last_kept", lambda path=None: time.time() - 600)
    with pytest.raises(RecipeError, match="less than an hour ago"):
        campaign.keep(run)
    assert campaign.keep(run, force=True) == state


def test_keep_refuses_a_state_that_would_take_a_fresh_clones_pack_past_the_budget(tmp_path, monkeypatch):
    import subprocess

    from training.nets.checkpoint import checkpoint_step, save
    from training.pipeline import campaign
    from training.recipe import RecipeError
    repo = tmp_path / "repo"
    state = repo / "training" / "campaign" / "lite-loc.pt"
    state.parent.mkdir(parents=True)
    state.write_bytes(b"the state kept before")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    blob = np.random.default_rng(0).integers(0, 256, 300_000, dtype=np.uint8).tobytes()
    (repo / "history.bin").write_bytes(blob)        # incompressible: ~300 kB of pack
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "history"], check=True)
    assert 300_000 <= campaign.pack_size(repo) < 400_000
    assert campaign.pack_size(tmp_path / "not-a-repo") is None
    monkeypatch.setattr(campaign, "CAMPAIGN_STATE", state)
    monkeypatch.setattr(campaign, "REPO_ROOT", repo)
    monkeypatch.setattr(campaign, "last_kept", lambda path=None: None)
    net = torch.nn.Linear(64, 64)
    run = _run(tmp_path, "run")
    save(run.run_dir / "lite_loc" / "lite_loc.pt", {"loc": net},
         torch.optim.AdamW(net.parameters()), 77, 60.0, [], {}, with_rng=True)
    # the pack and the new state together over the budget: refused, in one line that says
    # what to do, and the kept state left as it was (forcing changes nothing)
    monkeypatch.setattr(campaign, "PACK_BUDGET", 300_000)
    for force in (False, True):
        with pytest.raises(RecipeError) as err:
            campaign.keep(run, force=force)
        msg = str(err.value)
        assert "\n" not in msg and "history budget" in msg
        assert "outside the repository" in msg and "squash" in msg
        assert state.read_bytes() == b"the state kept before"
        assert not state.with_name(state.name + ".new").exists()
    # within the budget: kept
    monkeypatch.setattr(campaign, "PACK_BUDGET", 10 * 2**20)
    assert campaign.keep(run) == state
    assert checkpoint_step(state) == 77
