"""The training engine: its schedule, its checkpoint format and resuming a run."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from training.nets.checkpoint import load as load_checkpoint
from training.stages.loop import Schedule, train_loop


def test_schedule_warms_up_then_follows_a_cosine_to_its_floor():
    s = Schedule(steps=1000, warmup=100, floor=0.05)
    assert s.factor(0, 0) == pytest.approx(0.01 * (0.05 + 0.95 * 1.0), rel=1e-3)
    assert s.factor(99, 0) == pytest.approx(0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * 0.099)))
    assert s.factor(500, 0) == pytest.approx(0.05 + 0.95 * 0.5, abs=1e-6)
    assert s.factor(1000, 0) == pytest.approx(0.05)
    assert s.factor(5000, 0) == pytest.approx(0.05)  # never below the floor


def test_schedule_by_minutes_counts_elapsed_time():
    s = Schedule(minutes=10, warmup=1, floor=0.0)
    assert s.progress(10**6, 300) == pytest.approx(0.5)
    assert s.factor(10**6, 600) == pytest.approx(0.0)


@pytest.mark.parametrize("kw", [{}, {"steps": 10, "minutes": 1.0}])
def test_schedule_needs_exactly_one_length(kw):
    with pytest.raises(ValueError):
        Schedule(**kw)


def _run(ckpt, steps: int, stop_after: int | None = None, **loop_kw):
    """A tiny regression trained by the engine; ``stop_after`` interrupts the run;
    ``loop_kw`` go to ``train_loop``."""
    torch.manual_seed(0)
    net = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    w = torch.tensor([[1.0, -2.0, 0.5]])

    def batches():
        for _ in itertools.count():
            x = torch.randn(16, 3)  # drawn from the global RNG: resumed with the checkpoint
            yield x, x @ w.T

    def losses(b):
        x, y = b
        return {"mse": torch.nn.functional.mse_loss(net(x), y)}

    data = batches()
    if stop_after is not None:
        data = itertools.islice(data, stop_after)
    st = train_loop({"net": net}, opt, data, losses, Schedule(steps=steps, warmup=2), ckpt,
                    {"what": "test"}, log=lambda m: None, every_s=0.0, **loop_kw)
    return net, st


def test_a_run_out_of_time_stops_at_a_step_checkpoint_and_goes_on_from_there(tmp_path):
    whole, _ = _run(tmp_path / "a.pt", 12)
    # past its time at once: it stops at the first multiple of every_steps, saved there
    _, st = _run(tmp_path / "b.pt", 12, every_steps=5, stop_after_s=1e-9)
    assert st.step == 5 and load_checkpoint(tmp_path / "b.pt")["step"] == 5
    _, st = _run(tmp_path / "b.pt", 12, every_steps=5, stop_after_s=1e-9)
    assert st.step == 10  # resumed, then stopped at the next multiple
    resumed, st = _run(tmp_path / "b.pt", 12, every_steps=5, stop_after_s=1e9)
    assert st.step == 12  # time to spare: to the end
    assert torch.equal(whole.weight, resumed.weight) and torch.equal(whole.bias, resumed.bias)


def test_an_interrupted_run_resumes_to_the_same_weights(tmp_path):
    whole, st = _run(tmp_path / "a.pt", 12)
    assert st.step == 12 and len(st.history) == 12
    _run(tmp_path / "b.pt", 12, stop_after=5)  # interrupted after 5 steps
    assert load_checkpoint(tmp_path / "b.pt")["step"] == 5
    resumed, st2 = _run(tmp_path / "b.pt", 12)
    assert st2.step == 12
    assert torch.equal(whole.weight, resumed.weight) and torch.equal(whole.bias, resumed.bias)
    assert whole.weight[0, 1] < -1.0  # it learned something


def test_checkpoint_holds_everything_a_resume_needs(tmp_path):
    _run(tmp_path / "c.pt", 3)
    ck = load_checkpoint(tmp_path / "c.pt")
    assert set(ck) == {"nets", "opt", "step", "elapsed", "rng", "history", "config"}
    assert set(ck["rng"]) == {"torch", "numpy", "python"} and ck["config"] == {"what": "test"}
    assert not list(tmp_path.glob("*.tmp"))  # written atomically, nothing left behind


def test_a_finished_run_does_not_train_again(tmp_path):
    _run(tmp_path / "d.pt", 4)
    before = load_checkpoint(tmp_path / "d.pt")["nets"]["net"]["weight"].clone()
    net, st = _run(tmp_path / "d.pt", 4)
    assert st.step == 4 and torch.equal(net.weight, before)


def test_warm_restarts_start_each_cycle_from_half_the_last_peak():
    s = Schedule(steps=300, warmup=10, floor=0.0, restarts=(100, 200))
    assert [s.cycle(t) for t in (0, 99, 100, 199, 200, 299)] == [0, 0, 1, 1, 2, 2]
    assert s.factor(9, 0) == pytest.approx(1.0, abs=0.03)  # warm: the peak, barely decayed
    assert s.factor(99, 0) < 0.01  # the end of a cycle
    assert s.factor(104, 0) == pytest.approx(0.5, abs=0.01)  # warmed up again, half peak
    assert s.factor(204, 0) == pytest.approx(0.25, abs=0.01)
    with pytest.raises(ValueError):
        Schedule(minutes=5, restarts=(10,))


def test_a_restart_with_its_own_peak_starts_there_and_later_ones_halve_it():
    s = Schedule(steps=400, warmup=10, floor=0.0, restarts=(100, 200, 300), peaks=(0.5, 0.4))
    assert s.factor(104, 0) == pytest.approx(0.5, abs=0.01)
    assert s.factor(204, 0) == pytest.approx(0.4, abs=0.01)  # its own, not half of 0.5
    assert s.factor(304, 0) == pytest.approx(0.2, abs=0.01)  # halving again after it
    for peaks in ((0.5, 0.5, 0.5, 0.5), (0.0,), (1.5,)):
        with pytest.raises(ValueError):
            Schedule(steps=400, restarts=(100, 200, 300), peaks=peaks)


def test_a_compacted_checkpoint_halves_the_weights_and_resumes_with_float_moments(tmp_path):
    from training.nets.checkpoint import compact as compact_checkpoint, save as save_checkpoint
    torch.manual_seed(0)
    net = torch.nn.Linear(64, 64)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    net(torch.randn(8, 64)).square().mean().backward()
    opt.step()
    save_checkpoint(tmp_path / "full.pt", {"net": net}, opt, 1, 1.0, [], {})
    compact_checkpoint(tmp_path / "full.pt", tmp_path / "kept.pt")
    assert (tmp_path / "kept.pt").stat().st_size < 0.8 * (tmp_path / "full.pt").stat().st_size
    ck = load_checkpoint(tmp_path / "kept.pt")
    kept = ck["nets"]["net"]["weight"]
    assert kept.dtype == torch.float16
    assert torch.allclose(kept.float(), net.weight.detach(), rtol=1e-3, atol=1e-4)
    again = torch.nn.Linear(64, 64)
    opt2 = torch.optim.AdamW(again.parameters(), lr=1e-3)
    opt2.load_state_dict(ck["opt"])
    for p, q in zip(opt.state.values(), opt2.state.values(), strict=True):
        assert q["exp_avg"].dtype == torch.float32
        assert torch.allclose(q["exp_avg_sq"], p["exp_avg_sq"], rtol=1e-2, atol=1e-12)


def test_every_file_an_earlier_version_wrote_loads_in_the_one_format(tmp_path):
    from training.nets.checkpoint import load, weights
    net = torch.nn.Linear(3, 2)
    torch.save({"model": net.state_dict(), "arch": "lite0-b8f", "hist": [{"step": 1}]},
               tmp_path / "classifier.pt")
    torch.save(net.state_dict(), tmp_path / "refiner.pt")
    ck = load(tmp_path / "classifier.pt")
    assert ck["config"] == {"arch": "lite0-b8f"} and ck["history"] == [{"step": 1}]
    for name in ("classifier.pt", "refiner.pt"):
        assert torch.equal(weights(tmp_path / name, "cls")["weight"], net.weight.detach())


def test_the_committed_campaign_state_resumes_the_lite_localiser():
    from training.nets.checkpoint import checkpoint_step, load, weights
    from training.nets.networks import LiteLoc
    from training.pipeline.campaign import CAMPAIGN_STATE
    ck = load(CAMPAIGN_STATE)
    assert checkpoint_step(CAMPAIGN_STATE) > 0 and ck["opt"] is not None
    LiteLoc(pretrained=False).load_state_dict(weights(ck, "loc"))  # raises on a mismatch
