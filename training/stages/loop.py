"""One training engine: a schedule and a loop.

A trainer supplies its networks, an optimiser, an iterable of batches and a function
that turns a batch into named losses; the engine sets the learning rate, steps the
optimiser, logs progress (tqdm and a JSON history), and checkpoints atomically so an
interrupted run resumes where it stopped, with the same random state.

Checkpoints are in the one format of ``training.nets.checkpoint``; the stages hand
these files to each other; ONNX is written once, when a model is exported.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping

import numpy as np
import torch
from tqdm import tqdm

from training.nets import checkpoint


@dataclass(frozen=True)
class Schedule:
    """Linear warm-up, then a cosine down to ``floor`` x the base rate, over ``steps``
    steps, or else over ``minutes`` of training time (counting resumed runs).

    ``restarts`` (steps only): warm restarts at these steps; each later cycle runs its
    own warm-up (half as long) and cosine, from half the previous cycle's peak, or from
    ``peaks[k - 1]`` x the base rate for cycle k where ``peaks`` names it (halving alone
    leaves a long campaign's later pieces a rate too small to learn anything new)."""

    steps: int = 0
    minutes: float = 0.0
    warmup: int = 100
    floor: float = 0.05
    restarts: tuple[int, ...] = ()
    peaks: tuple[float, ...] = ()

    def __post_init__(self):
        if (self.steps > 0) == (self.minutes > 0):
            raise ValueError("a schedule runs for steps or for minutes: give exactly one")
        if self.restarts and not self.steps:
            raise ValueError("warm restarts need a schedule by steps")
        if len(self.peaks) > len(self.restarts) or any(not 0 < p <= 1 for p in self.peaks):
            raise ValueError("peaks: at most one per warm restart, each in (0, 1]")

    def cycle(self, step: int) -> int:
        """Which cycle ``step`` is in (0 without restarts)."""
        return sum(1 for b in self._bounds()[1:-1] if step >= b)

    def peak(self, k: int) -> float:
        """Cycle ``k``'s peak, as a multiple of the base rate."""
        return 1.0 if k == 0 else (self.peaks[k - 1] if k <= len(self.peaks)
                                   else 0.5 * self.peak(k - 1))

    def _bounds(self) -> list[int]:
        return [0] + [b for b in self.restarts if 0 < b < self.steps] + [self.steps]

    def progress(self, step: int, elapsed_s: float) -> float:
        """How far along the schedule, 0..1."""
        if self.steps:
            return min(step / self.steps, 1.0)
        return min(elapsed_s / (self.minutes * 60), 1.0)

    def factor(self, step: int, elapsed_s: float) -> float:
        """The learning rate's multiplier at this point."""
        if self.restarts:
            k = self.cycle(step)
            c0, c1 = self._bounds()[k], self._bounds()[k + 1]
            warm = min(1.0, (step - c0 + 1) / max(self.warmup // (2 if k else 1), 1))
            frac = min((step - c0) / max(c1 - c0, 1), 1.0)
            peak = self.peak(k)
        else:
            warm = min(1.0, (step + 1) / max(self.warmup, 1))
            frac, peak = self.progress(step, elapsed_s), 1.0
        cos = 0.5 * (1 + math.cos(math.pi * frac))
        return peak * warm * (self.floor + (1 - self.floor) * cos)


def last_record(ck: Path | dict, key: str, default=0):
    """``key`` of the last history record in the checkpoint ``ck`` (a file, or one
    already loaded; ``default`` when there is no such file or record): where a resumed
    stream goes on."""
    if not isinstance(ck, dict) and not Path(ck).is_file():
        return default
    hist = checkpoint.load(ck)["history"]
    return hist[-1].get(key, default) if hist else default


def load_nets(path: Path, nets: Mapping[str, torch.nn.Module]) -> dict:
    """Load the networks' weights from a checkpoint; returns the checkpoint."""
    ck = checkpoint.load(path)
    for k, m in nets.items():
        m.load_state_dict(checkpoint.weights(ck, k))
    return ck


def replayed(fresh: Iterable, times: int, keep: int = 16,
             gen: torch.Generator | None = None) -> Iterator:
    """Each batch of ``fresh`` once, then ``times`` - 1 batches drawn from the last
    ``keep`` (a batch that cost a render, or a frozen network's pass, serves several
    steps)."""
    recent: deque = deque(maxlen=keep)
    for b in fresh:
        recent.append(b)
        yield b
        for _ in range(times - 1):
            yield recent[int(torch.randint(len(recent), (1,), generator=gen))]


@dataclass
class RunState:
    """Where a run stands: steps taken, seconds trained, the history records."""

    step: int = 0
    elapsed: float = 0.0
    history: list | None = None


def train_loop(nets: Mapping[str, torch.nn.Module], opt: torch.optim.Optimizer,
               batches: Iterable, step_losses: Callable[[object], dict],
               schedule: Schedule, ckpt: Path, config: dict, log=print,
               every_s: float = 60.0, desc: str = "train",
               on_checkpoint: Callable[[RunState], None] | None = None,
               record: Callable[[], dict] | None = None, every_steps: int = 0,
               stop_after_s: float = 0.0) -> RunState:
    """Train until the schedule ends, resuming from ``ckpt`` when it exists.

    ``step_losses(batch)`` returns ``{name: scalar tensor}``; their sum is minimised.
    Each parameter group's rate is its ``base_lr`` times ``schedule.factor``. A batch
    may be used for several steps: ``batches`` decides what it yields. The trainer puts
    its networks in training mode (some keep parts frozen). ``record()`` adds the
    trainer's own figures to each history record (e.g. how many scenes it has read, so
    a resumed stream goes on with unseen ones); ``on_checkpoint`` runs after each save.
    A checkpoint is saved every ``every_s`` seconds, every ``every_steps`` steps (when
    set) and at the end. ``stop_after_s`` > 0 (with ``every_steps``): stop at the first
    such step's checkpoint past that many seconds of this call; running again goes on."""
    ckpt = Path(ckpt)
    st = RunState(history=[])
    if ckpt.is_file():
        ck = load_nets(ckpt, nets)
        if ck.get("opt") is not None:
            opt.load_state_dict(ck["opt"])
        if ck.get("rng") is not None:
            checkpoint.set_rng_state(ck["rng"])
        st = RunState(ck["step"], ck["elapsed"], ck["history"])
        log(f"resumed {ckpt.name} at step {st.step}, {st.elapsed / 60:.1f} min")
    if schedule.progress(st.step, st.elapsed) >= 1.0:
        log(f"{desc}: finished already")
        return st
    for g in opt.param_groups:
        g.setdefault("base_lr", g["lr"])
    t0 = time.time() - st.elapsed
    started = last = time.time()
    sums: dict = defaultdict(float)
    n = 0
    total = schedule.steps or None
    bar = tqdm(total=total, initial=st.step if total else 0, desc=desc, unit="step",
               mininterval=10, disable=None)
    for batch in batches:
        elapsed = time.time() - t0
        f = schedule.factor(st.step, elapsed)
        for g in opt.param_groups:
            g["lr"] = g["base_lr"] * f
        losses = step_losses(batch)
        loss = sum(losses.values())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        for m in nets.values():
            torch.nn.utils.clip_grad_norm_([p for p in m.parameters() if p.requires_grad], 10.0)
        opt.step()
        st.step += 1
        bar.update(1)
        for k, v in losses.items():
            sums[k] += float(v.detach())
        n += 1
        st.elapsed = time.time() - t0
        done = schedule.progress(st.step, st.elapsed) >= 1.0
        if done or time.time() - last >= every_s or \
                (every_steps and st.step % every_steps == 0):
            rec = {"step": st.step, "minutes": round(st.elapsed / 60, 2), "lr_factor": round(f, 4),
                   **{k: round(v / max(n, 1), 4) for k, v in sums.items()},
                   **(record() if record is not None else {})}
            st.history.append(rec)
            bar.set_postfix({k: v for k, v in rec.items() if k not in ("step", "minutes")})
            log(json.dumps(rec))
            sums.clear()
            n = 0
            checkpoint.save(ckpt, nets, opt, st.step, st.elapsed, st.history, config,
                            with_rng=True)
            if on_checkpoint is not None:
                on_checkpoint(st)
            last = time.time()
            if stop_after_s and every_steps and st.step % every_steps == 0 and \
                    last - started > stop_after_s:
                log(f"{desc}: stopped at step {st.step} after {stop_after_s / 60:.1f} min")
                break
        if done:
            break
    bar.close()
    return st


def seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
