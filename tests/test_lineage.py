"""The shipped model says what made it: its localiser's metadata names the recipe (whose
file is kept, byte for byte), the step, the data's seed ranges and the commit."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import onnxruntime as ort

ROOT = Path(__file__).resolve().parent.parent


def _metadata(path: Path) -> dict:
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.get_modelmeta().custom_metadata_map


def test_the_shipped_localiser_records_its_lineage_and_its_recipe_is_kept():
    meta = _metadata(ROOT / "models" / "hanafuda-localiser.onnx")
    lineage = json.loads(meta["lineage"])
    recipe = ROOT / lineage["recipe"]
    assert recipe.is_file()
    assert hashlib.sha256(recipe.read_bytes()).hexdigest() == lineage["recipe_sha256"]
    assert lineage["step"] > 0 and lineage["average_from"] <= lineage["step"]
    assert f"steps = {lineage['step']}" in recipe.read_text()
    ranges = lineage["seed_ranges"]
    assert {"train", "val", "test"} <= set(ranges)
    spans = sorted(tuple(v) for v in ranges.values())
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))  # the splits never overlap
    assert lineage["commit"]


def test_the_shipped_classifier_records_the_round_that_made_it_and_its_recipe_is_kept():
    meta = _metadata(ROOT / "models" / "hanafuda-classifier.onnx")
    lineage = json.loads(meta["lineage"])
    recipe = ROOT / lineage["recipe"]
    assert recipe.is_file() and recipe.name != "recipe.toml"  # kept apart, not edited on
    assert hashlib.sha256(recipe.read_bytes()).hexdigest() == lineage["recipe_sha256"]
    assert "[real_round]" in recipe.read_text() and lineage["commit"]
