"""The shipped model says what made it: its localiser's metadata names the recipe (whose
file is kept: byte for byte, or with only its opening comment mended since the commit the
record names), the step, the data's seed ranges and the commit."""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import asdict
from pathlib import Path

from sessions import product_session

ROOT = Path(__file__).resolve().parent.parent


def _opening(text: str) -> tuple[str, str]:
    """A recipe's opening comment and the rest (its settings and their notes)."""
    lines = text.splitlines(keepends=True)
    n = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    return "".join(lines[:n]), "".join(lines[n:])


def _assert_kept(recipe: Path, lineage: dict) -> None:
    """The recipe a shipped network records is kept: its bytes hash to the record, or the
    bytes at the record's commit do and the file differs from them only in its opening
    comment (mended since: what the recipe is and the command that runs it)."""
    data = recipe.read_bytes()
    if hashlib.sha256(data).hexdigest() == lineage["recipe_sha256"]:
        return
    rel = recipe.relative_to(ROOT).as_posix()
    then = subprocess.run(["git", "show", f"{lineage['commit']}:{rel}"], cwd=ROOT,
                          capture_output=True)
    assert then.returncode == 0, f"{rel} differs from its record and its commit's copy " \
                                 f"cannot be read (a clone with its history is needed)"
    assert hashlib.sha256(then.stdout).hexdigest() == lineage["recipe_sha256"]
    assert _opening(data.decode())[1] == _opening(then.stdout.decode())[1], \
        f"{rel}: only its opening comment may change; its settings are what made the model"


def test_a_kept_recipe_may_mend_its_opening_only():
    text = "# old\n# opening\nseed = 0  # note\n# a table's note\n[a]\nb = 1\n"
    assert _opening(text) == ("# old\n# opening\n", "seed = 0  # note\n# a table's note\n[a]\nb = 1\n")
    assert _opening("# new opening\n" + _opening(text)[1])[1] == _opening(text)[1]


def test_the_kept_recipes_open_with_the_command_that_runs_them():
    for name, command in (("shipped.toml", "lite-loc"), ("shipped-round.toml", "cls-real")):
        opening = _opening((ROOT / "training" / name).read_text())[0]
        assert f"python -m training {command} --recipe training/{name}" in opening
        assert "training all" not in opening


def test_the_training_help_names_the_shipped_localisers_step():
    from training.__main__ import parser
    meta = _metadata(ROOT / "models" / "hanafuda-localiser.onnx")
    step = json.loads(meta["lineage"])["step"]
    assert f"step {step}" in " ".join(parser().description.split())


def _metadata(path: Path) -> dict:
    sess = product_session(path)
    return sess.get_modelmeta().custom_metadata_map


def test_the_shipped_localiser_records_its_lineage_and_its_recipe_is_kept():
    meta = _metadata(ROOT / "models" / "hanafuda-localiser.onnx")
    lineage = json.loads(meta["lineage"])
    recipe = ROOT / lineage["recipe"]
    assert recipe.is_file()
    _assert_kept(recipe, lineage)
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
    _assert_kept(recipe, lineage)
    assert "[real_round]" in recipe.read_text() and lineage["commit"]


def _run(tmp_path):
    from training.pipeline.context import Run
    from training.recipe import DEFAULT_RECIPE, load_recipe
    return Run(load_recipe(), DEFAULT_RECIPE, tmp_path / "run", tmp_path / "models", "", "")


def test_a_candidate_records_its_lineage_when_it_is_made(tmp_path):
    from training.pipeline import judge
    from training.ship import lineage
    run = _run(tmp_path)
    shipped = ROOT / "models" / "hanafuda-localiser.onnx"
    cand = judge.candidate_copy(run, shipped, run.model("cls-real-model"))
    assert lineage.read(cand) == lineage.read(shipped)  # the campaign that made it
    rec = lineage.read(cand.parent / "hanafuda-classifier.onnx")  # made here
    assert rec["recipe"] == "training/recipe.toml" and rec["step"] is None
    assert rec["recipe_sha256"] == hashlib.sha256(
        (ROOT / "training" / "recipe.toml").read_bytes()).hexdigest()
    assert rec["commit"] == lineage.git_commit()  # the tree that made it


def test_ship_hands_over_the_lineage_recorded_at_export_and_refuses_a_model_without(
        tmp_path, monkeypatch):
    import onnx
    import pytest

    from training.pipeline import judge, shipping
    from training.recipe import DEFAULT_RECIPE, RecipeError
    from training.ship import handover, lineage
    run = _run(tmp_path)
    cand = judge.candidate_copy(run, ROOT / "models" / "hanafuda-localiser.onnx",
                                run.candidate)
    exported = lineage.record(cand, DEFAULT_RECIPE, step=1234, average_from=1000)
    monkeypatch.setattr(judge, "figures", lambda *a, **k: None)  # the rule is tested apart
    monkeypatch.setattr(shipping, "report_beside", lambda *a: None)
    monkeypatch.setattr(handover, "decide", lambda old, new, tag: handover.ShipDecision(
        True, [], None, None, None, None, tag))
    classifier = lineage.read(cand.parent / "hanafuda-classifier.onnx")
    assert shipping.ship(run)
    shipped = lineage.read(run.models_dir / cand.name)
    assert shipped == json.loads(json.dumps(asdict(exported))) and shipped["step"] == 1234
    assert lineage.read(run.models_dir / "hanafuda-classifier.onnx") == classifier
    m = onnx.load(str(cand))  # a model without a lineage is refused before it is judged
    kept = [p for p in m.metadata_props if p.key != lineage.KEY]
    del m.metadata_props[:]
    m.metadata_props.extend(kept)
    onnx.save(m, str(cand))
    with pytest.raises(RecipeError, match="records no lineage.*export it again"):
        shipping.ship(run)


def test_a_model_only_tuned_keeps_its_classifiers_lineage(tmp_path):
    from training.pipeline import judge
    from training.ship import lineage
    run = _run(tmp_path)
    shipped = ROOT / "models" / "hanafuda-localiser.onnx"
    cand = judge.candidate_copy(run, shipped, run.model("tuned-model"), made_here=False)
    assert lineage.read(cand.parent / "hanafuda-classifier.onnx") == \
        lineage.read(shipped.parent / "hanafuda-classifier.onnx")
