"""The ship decision's record and the one copier into ``models/``.

A decision is written to the run's ``eval/ship-decision.json`` whether or not the
candidate ships. Only when it ships does ``hand_over`` write ``models/``: the ONNX files
(as exported, their lineage in them), and the candidate's records under the shipped names
in ``models/eval`` (the realistic test, the shift slice, the real photos, its tuning,
the decision), which the next decision reads as the shipped model's figures.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

from training.measure.compare import Figures, ShipLimits, may_ship

# a candidate's record (in the run's eval/, by its tag) -> the shipped model's name
SHIPPED_NAMES = (("eval-realistic-test-{tag}.json", "eval-realistic-test.json"),
                 ("eval-shift-test-{tag}.json", "eval-shift-test-shipped.json"),
                 ("photos-test-{tag}.json", "photos-test-shipped.json"),
                 ("tune-val-{tag}.json", "tune-val-hanafuda-localiser.json"),
                 ("ship-decision.json", "ship-decision.json"))


@dataclass(frozen=True)
class ShipDecision:
    """Whether the candidate ships, each failed figure, and its speed and size."""
    shipped: bool
    failed: list[str]
    ms: float | None
    reference_ms: float | None
    speed_ratio: float | None
    mib: float | None
    candidate: str  # the candidate's run sub-directory, e.g. "lite-loc-model"

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=2) + "\n")


def decide(old: Figures | None, new: Figures, candidate: str,
           limits: ShipLimits | None = None) -> ShipDecision:
    """The ship rule for ``new`` against ``old`` (None: nothing shipped yet, so it
    ships)."""
    ok, failed = may_ship(old, new, limits or ShipLimits()) if old is not None else (True, [])
    ratio = new.speed_ratio()
    return ShipDecision(ok, failed, new.ms, new.reference_ms,
                        None if ratio is None else round(ratio, 3), new.mib, candidate)


def hand_over(files: list[Path], eval_dir: Path, tag: str, models_dir: Path) -> list[Path]:
    """Copy the candidate's model ``files`` into ``models_dir`` and its records (from
    ``eval_dir``, named by ``tag``) into ``models_dir/eval``; the paths written."""
    records = models_dir / "eval"
    records.mkdir(parents=True, exist_ok=True)
    written = []
    for src in files:
        shutil.copyfile(src, models_dir / src.name)
        written.append(models_dir / src.name)
    for name, shipped in SHIPPED_NAMES:
        src = eval_dir / name.format(tag=tag)
        if src.is_file():
            shutil.copyfile(src, records / shipped)
            written.append(records / shipped)
    return written
