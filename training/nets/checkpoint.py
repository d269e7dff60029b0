"""The one checkpoint format, for every stage and every file a stage saves.

A checkpoint is a dictionary saved with ``torch.save``::

    {"nets": {name: state_dict}, "opt": optimiser state or None, "step": int,
     "elapsed": seconds, "rng": random states or None, "history": [records],
     "config": {settings, e.g. "arch"}}

A resumable training state has every field; a network's final weights (``localiser.pt``,
``classifier.pt``, ``refiner.pt``, a snapshot) have no optimiser or random states. The
networks' names: "loc", "cls", "ref". ``load`` also reads the files earlier versions wrote
(``{"model": state, "arch": ...}`` and bare state dicts), so older run directories and
the committed campaign state stay readable.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Mapping

import numpy as np
import torch


def rng_state() -> dict:
    return {"torch": torch.get_rng_state(), "numpy": np.random.get_state(),
            "python": random.getstate()}


def set_rng_state(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])
    random.setstate(state["python"])


def save(path: Path, nets: Mapping[str, torch.nn.Module | dict], opt=None, step: int = 0,
         elapsed: float = 0.0, history: list | None = None, config: dict | None = None,
         with_rng: bool = False, half: bool = False) -> Path:
    """Write a checkpoint atomically (a temporary file, then a rename). ``nets`` maps
    names to networks or state dicts; ``half`` stores their floating-point weights in
    float16 (snapshots)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    states = {}
    for k, m in nets.items():
        sd = m.state_dict() if isinstance(m, torch.nn.Module) else m
        states[k] = {n: (t.detach().cpu().half() if half and t.is_floating_point()
                         else t.detach().cpu()) for n, t in sd.items()}
    state = {"nets": states, "opt": opt.state_dict() if opt is not None else None,
             "step": step, "elapsed": elapsed, "rng": rng_state() if with_rng else None,
             "history": list(history or []), "config": dict(config or {})}
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(state, tmp)
    tmp.replace(path)
    return path


def load(ck: Path | dict) -> dict:
    """A checkpoint (a file, or a dictionary already loaded) in the format above."""
    if not isinstance(ck, dict):
        ck = torch.load(Path(ck), map_location="cpu", weights_only=False)
    if "nets" in ck:
        return ck
    if "model" in ck:  # {"model": state, "arch": ..., "hist": ...}
        return {"nets": {"model": ck["model"]}, "opt": None, "step": ck.get("step", 0),
                "elapsed": 0.0, "rng": None, "history": ck.get("hist", []),
                "config": {"arch": ck["arch"]} if "arch" in ck else {}}
    return {"nets": {"model": ck}, "opt": None, "step": 0, "elapsed": 0.0, "rng": None,
            "history": [], "config": {}}


def weights(ck: Path | dict, name: str) -> dict:
    """The network ``name``'s weights (a file's only network whatever its name), in
    float32."""
    nets = load(ck)["nets"]
    state = nets.get(name) or (next(iter(nets.values())) if len(nets) == 1 else None)
    if state is None:
        raise KeyError(f"no network {name!r} in the checkpoint (it has {', '.join(nets)})")
    return {k: v.float() if v.is_floating_point() else v for k, v in state.items()}


def checkpoint_step(path: Path) -> int:
    """The step a checkpoint at ``path`` reached (0 when there is none)."""
    path = Path(path)
    return int(load(path)["step"]) if path.is_file() else 0


def compact(src: Path, dst: Path) -> Path:
    """A copy of the checkpoint ``src`` at ``dst`` in half precision, to commit: the
    weights in float16, the optimiser's moments in bfloat16 (float16 would flush Adam's
    small second moments to zero; bfloat16 keeps float32's range). Resuming loses nothing
    that matters: ``load_state_dict`` casts both back to the parameters' float32."""
    ck = load(src)
    ck["nets"] = {k: {n: t.half() if t.is_floating_point() else t for n, t in sd.items()}
                  for k, sd in ck["nets"].items()}
    if ck.get("opt") is not None:
        for state in ck["opt"]["state"].values():
            for k, v in state.items():
                if k != "step" and torch.is_tensor(v) and v.is_floating_point():
                    state[k] = v.to(torch.bfloat16)
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_suffix(dst.suffix + ".tmp")
    torch.save(ck, tmp)
    tmp.replace(dst)
    return dst
