"""The eighth model (recogniser v3's last), read from the repository's history into a run
directory, for ``bench/bench_detect.py --compare eighth`` to time a model beside it. The
ship rule no longer reads it (it times a candidate beside the shipped model itself), so
shipping needs no history; without it (a shallow clone, no git) this says so in one
line."""

from __future__ import annotations

import subprocess
from pathlib import Path

from training import REPO_ROOT

REFERENCE_COMMIT = "64e4a64"  # "Eighth model: the three networks fine-tuned together"
FILES = ("hanafuda-localiser.onnx", "hanafuda-classifier.onnx", "hanafuda-refiner.onnx")


class ReferenceUnavailable(FileNotFoundError):
    """The repository's history (a shallow clone, or no git) lacks the reference model."""


def reference_model(out_dir: Path, commit: str = REFERENCE_COMMIT) -> Path:
    """The reference model's localiser in ``out_dir`` (with its classifier and refiner),
    taken from ``commit`` once."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        dst = out_dir / name
        if dst.is_file():
            continue
        try:
            data = subprocess.run(["git", "show", f"{commit}:models/{name}"], cwd=REPO_ROOT,
                                  capture_output=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            raise ReferenceUnavailable(
                f"the eighth model ({name} at commit {commit}) is not in this "
                f"repository's history (a shallow clone?): run git fetch --unshallow, "
                f"or compare with a localiser file") from e
        tmp = dst.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(dst)
    return out_dir / FILES[0]
