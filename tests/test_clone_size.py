"""A fresh clone stays light by rule: the pack a clone of every branch and tag downloads
stays under ``BUDGET``, whatever the binary (a model, a kept training state, a photo). A
binary enters the repository only when it ships (models/MODEL_CARD.md, *Size*); a
candidate's files stay in the git-ignored run directory. Measured as a clone measures it:
``git clone --no-local`` into a temporary folder, then the size of its pack."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gate import in_ci

ROOT = Path(__file__).resolve().parent.parent
BUDGET_MIB = 135.0
MIB = 1024 * 1024


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout


def _need_history() -> None:
    """Skip (fail under CI) where there is no git or no whole history to measure."""
    why = None
    if shutil.which("git") is None:
        why = "no git"
    else:
        try:
            if _git("rev-parse", "--is-shallow-repository").strip() == "true":
                why = "a shallow clone (its pack is not a fresh clone's)"
        except subprocess.CalledProcessError:
            why = "not a git repository"
    if why:
        if in_ci():
            pytest.fail(f"the clone's size cannot be measured: {why}")
        pytest.skip(f"the clone's size cannot be measured: {why}")


def pack_size(clone: Path) -> int:
    """Bytes of a (bare) clone's packs and loose objects: what a fresh clone downloads."""
    stats = dict(line.split(": ", 1) for line in
                 _git("count-objects", "-v", cwd=clone).splitlines() if ": " in line)
    return (int(stats["size-pack"]) + int(stats["size"])) * 1024  # KiB both


def largest_blobs(n: int = 8) -> list[str]:
    """The ``n`` largest files in the history (compressed size, path): what to look at
    when the budget is crossed."""
    listing = _git("rev-list", "--objects", "--branches", "--tags", "--remotes")
    out = subprocess.run(["git", "cat-file", "--batch-check=%(objecttype) %(objectsize:disk) %(rest)"],
                         cwd=ROOT, input=listing, capture_output=True, text=True, check=True).stdout
    blobs = sorted(((int(size), path) for kind, size, path in
                    (line.split(" ", 2) for line in out.splitlines() if line.count(" ") >= 2)
                    if kind == "blob"), reverse=True)[:n]
    return [f"{size / MIB:.1f} MiB {path}" for size, path in blobs]


def test_a_fresh_clone_packs_under_the_budget(tmp_path):
    _need_history()
    clone = tmp_path / "clone.git"
    subprocess.run(["git", "clone", "-q", "--no-local", "--bare", str(ROOT), str(clone)],
                   check=True, capture_output=True)
    size = pack_size(clone)
    assert size > 10 * MIB  # the shipped networks at least: a real measurement
    assert size <= BUDGET_MIB * MIB, (
        f"a fresh clone packs to {size / MIB:.1f} MiB, over the {BUDGET_MIB:.0f} MiB budget: "
        f"a binary enters the repository only when it ships. Largest: "
        + "; ".join(largest_blobs()))


def test_the_largest_files_are_listed_for_a_crossed_budget():
    _need_history()
    listed = largest_blobs(3)
    assert len(listed) == 3 and all(" MiB " in line for line in listed)
    assert any(line.endswith(".onnx") or line.endswith(".pt") for line in listed)
