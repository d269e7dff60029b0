"""A model's lineage, recorded in its localiser's ONNX metadata (key ``lineage``) when the
model is exported (a classifier made beside a localiser that keeps its own lineage: in
the classifier's): the recipe it was made by (its path and SHA-256), the training step
it reached, the seed ranges of its data, and the commit of the tree that exported it.
Shipping copies the files as they are: the lineage is the export's, never the ship
run's."""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from training import REPO_ROOT

KEY = "lineage"


@dataclass(frozen=True)
class Lineage:
    recipe: str  # the recipe file, relative to the repository
    recipe_sha256: str
    step: int | None  # the lite localiser's last step (None: not from the campaign)
    average_from: int | None  # the first step of the weights averaged into it
    seed_ranges: dict[str, list[int]]  # each split's scene seeds (training.data.scenes)
    commit: str  # the repository's commit, "+dirty" when files had changed


def git_commit() -> str:
    """The checked-out commit, marked "+dirty" when tracked files have changed; "unknown"
    outside a git checkout."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO_ROOT,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=REPO_ROOT, capture_output=True, text=True,
                               check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def lineage(recipe_path: Path, step: int | None, average_from: int | None = None) -> Lineage:
    from training.data.scenes import SEED_RANGES
    path = Path(recipe_path).resolve()
    try:
        name = str(path.relative_to(REPO_ROOT))
    except ValueError:
        name = str(path)
    return Lineage(name, hashlib.sha256(path.read_bytes()).hexdigest(), step, average_from,
                   {k: list(v) for k, v in SEED_RANGES.items()}, git_commit())


def record(path: Path, recipe_path: Path, step: int | None = None,
           average_from: int | None = None) -> Lineage:
    """Record in the exported ONNX file ``path`` (a localiser, or a classifier made
    beside a localiser that keeps its own) its lineage: ``recipe_path``, the step, and
    the commit of the tree exporting it (now)."""
    rec = lineage(recipe_path, step, average_from)
    stamp([Path(path)], rec)
    return rec


def stamp(files: list[Path], record: Lineage) -> None:
    """Write ``record`` into each ONNX file's metadata (replacing an earlier one)."""
    import onnx

    for path in files:
        m = onnx.load(str(path))
        kept = [p for p in m.metadata_props if p.key != KEY]
        del m.metadata_props[:]
        for p in kept:
            m.metadata_props.add().CopyFrom(p)
        p = m.metadata_props.add()
        p.key, p.value = KEY, json.dumps(asdict(record))
        onnx.save(m, str(path))


def read(path: Path) -> dict | None:
    """The lineage recorded in an ONNX file, None when it has none."""
    import onnx

    for p in onnx.load(str(path)).metadata_props:
        if p.key == KEY:
            return json.loads(p.value)
    return None
