"""One run of the recipe: its settings, its directories and its log."""

from __future__ import annotations

import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from training.recipe import Recipe


class Log:
    """Lines to stderr and, appended, to the run's ``log.txt``."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path

    def __call__(self, msg: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {msg}"
        print(line, file=sys.stderr, flush=True)
        with open(self.path, "a") as f:
            f.write(line + "\n")


@dataclass
class Run:
    """The recipe over one run directory. Everything a stage writes goes under
    ``run_dir`` (git-ignored); only ``python -m training ship`` writes ``models_dir``."""
    recipe: Recipe
    recipe_path: Path
    run_dir: Path
    models_dir: Path
    art_dir: str
    photos_dir: str
    name: str = "hanafuda"
    threads: int = 2
    workers: int = 2
    loaded: dict = field(default_factory=dict)  # caches loaded once for the whole run

    def __post_init__(self):
        self.log = Log(self.run_dir / "log.txt")

    @property
    def cache(self) -> Path:
        return self.run_dir / "cache"

    @property
    def eval_dir(self) -> Path:
        """Every figure a stage measures (the shipped model's records are copied into
        ``models/eval`` by ``ship`` alone)."""
        return self.run_dir / "eval"

    @property
    def shipped(self) -> Path:
        return self.models_dir / f"{self.name}-localiser.onnx"

    def model(self, folder: str) -> Path:
        """The localiser of a model the run exports into its ``folder``."""
        return self.run_dir / folder / f"{self.name}-localiser.onnx"

    @property
    def base(self) -> Path:
        """The chain's own export, before the realistic stage."""
        return self.model("base-model")

    @property
    def chain(self) -> Path:
        """The realistic stage's export: the classifier and refiner a new localiser joins."""
        return self.model("realistic-model")

    @property
    def lodo(self) -> Path:
        return self.run_dir / "lodo-model" / f"{self.name}-lodo-localiser.onnx"

    @property
    def candidate(self) -> Path:
        """The lite localiser's export beside the classifier and refiner: what ``ship``
        judges by default."""
        return self.model("lite-loc-model")

    def trained_sets(self) -> list[str]:
        """The art sets the localiser and refiner (and so every round on their boxes)
        train on: all but the held-out deck (``lodo_set``)."""
        from training.data.scenes import ART_SETS
        return [s for s in ART_SETS if s != self.recipe.lodo_set]

    def networks(self) -> Path:
        """The localiser whose classifier and refiner a new localiser joins: the
        realistic stage's export when this run made one, else the shipped model."""
        return self.chain if self.chain.is_file() else self.shipped

    def last_classifier(self) -> str:
        """The run sub-directory of the last classifier round that finished."""
        done = [r.name for r in self.recipe.classifier_rounds
                if (self.run_dir / r.name / "classifier.pt").is_file()]
        return done[-1] if done else "cls"

    def record_lineage(self, path: Path, step: int | None = None,
                       average_from: int | None = None) -> None:
        """Record in an ONNX file this run exported (a model's localiser, or the
        classifier of a candidate beside a localiser it did not make) what made it: this
        run's recipe, the step, the exporting tree's commit (``training.ship.lineage``)."""
        from training.ship.lineage import record
        record(path, self.recipe_path, step, average_from)

    def claim(self, out: Path, digest: str) -> None:
        """Make ``out`` a run directory for the localiser whose weights (or detector)
        hash to ``digest``: one made for another is started again."""
        stamp = out / "localiser-digest.txt"
        if out.exists() and (not stamp.is_file() or stamp.read_text() != digest):
            self.log(f"{out} was trained for another localiser: starting it again")
            shutil.rmtree(out)
        out.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
