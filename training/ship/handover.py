"""The ship rule's record in ``models/eval``: what a decision reads and what a ship leaves.

- ``speed.json``: the shipped model's median a frame as on the reference machine, which
  scales the next candidate's timing (``training.measure.compare.Figures.scaled_ms``);
- ``photos-test-baseline.json``, ``eval-realistic-test-baseline.json``: the real-photo and
  realistic figures of the model the rule was set against (the eighth), kept at the first
  ship: its false cards must be halved, and each realistic kind held within 0.01 of it;
- ``ship-decision.json``: the last decision, each failed figure, the timing;
- on a ship, the candidate's evaluation files become the shipped model's.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from training.measure.compare import Baseline, Figures, ShipLimits, may_ship

# the candidate's evaluation files and the names they take once it ships
SHIPPED_NAMES = (("eval-realistic-test-lite-loc.json", "eval-realistic-test.json"),
                 ("eval-shift-test-lite-loc.json", "eval-shift-test-shipped.json"),
                 ("photos-test-lite-loc.json", "photos-test-shipped.json"))


@dataclass(frozen=True)
class ShipRecord:
    """The ship rule's files in ``eval_dir``."""
    eval_dir: Path

    @property
    def speed(self) -> Path:
        return self.eval_dir / "speed.json"

    @property
    def baseline_photos(self) -> Path:
        return self.eval_dir / "photos-test-baseline.json"

    @property
    def baseline_realistic(self) -> Path:
        return self.eval_dir / "eval-realistic-test-baseline.json"

    def baseline(self, old: Figures) -> Baseline | None:
        """The baseline's figures (None before the first ship; a record from before the
        realistic baseline was kept reads the shipped model's realistic figures)."""
        if not self.baseline_photos.is_file():
            return None
        realistic = json.loads(self.baseline_realistic.read_text()) \
            if self.baseline_realistic.is_file() else old.realistic
        return Baseline(realistic, json.loads(self.baseline_photos.read_text()))

    def limits(self) -> ShipLimits:
        """The limits, with the shipped model's reference median once one has shipped."""
        if not self.speed.is_file():
            return ShipLimits()
        return ShipLimits(reference_ms=json.loads(self.speed.read_text())["reference_ms"])

    def decide(self, old: Figures | None, new: Figures, candidate: str) -> dict:
        """The ship rule for ``new`` against ``old`` (None: nothing shipped yet, so it
        ships), written to ``ship-decision.json``."""
        limits = self.limits()
        ok, failed = True, []
        if old is not None:
            ok, failed = may_ship(old, new, limits, self.baseline(old))
        decision = {"shipped": ok, "failed": failed, "ms": new.ms, "shipped_ms": new.shipped_ms,
                    "reference_ms": limits.reference_ms,
                    "scaled_ms": new.scaled_ms(limits.reference_ms), "mib": new.mib,
                    "candidate": candidate}
        self.eval_dir.mkdir(parents=True, exist_ok=True)
        (self.eval_dir / "ship-decision.json").write_text(json.dumps(decision, indent=2) + "\n")
        return decision

    def hand_over(self, old: Figures | None, decision: dict) -> None:
        """After a ship: the first shipped model's photo and realistic figures become the
        baseline, the candidate's evaluation files the shipped ones, its scaled median the
        next reference."""
        if old is not None and old.photos is not None and not self.baseline_photos.is_file():
            self.baseline_photos.write_text(json.dumps(old.photos, indent=2) + "\n")
            self.baseline_realistic.write_text(json.dumps(old.realistic, indent=2) + "\n")
        for name, shipped in SHIPPED_NAMES:
            if (self.eval_dir / name).is_file():
                shutil.copyfile(self.eval_dir / name, self.eval_dir / shipped)
        ref = decision["scaled_ms"] or decision["reference_ms"]
        self.speed.write_text(json.dumps({"reference_ms": round(ref, 2),
                                          "model": Path(decision["candidate"]).name},
                                         indent=2) + "\n")
