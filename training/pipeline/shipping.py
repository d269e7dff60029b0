"""``python -m training ship``: the ship rule, and on a pass the hand-over into
``models/`` (the only command that writes there)."""

from __future__ import annotations

from pathlib import Path

from training.pipeline import judge
from training.pipeline.context import Run
from training.recipe import RecipeError


def report_beside(run: Run, candidate: Path, tag: str) -> None:
    """The figures beside the rule's, logged old -> new: false cards on Western playing
    cards' test scenes and on the real photos' test part in other framings, and how well
    the reported cards' confidence is calibrated on the shift slice (expected calibration
    error; the candidate's, and the shipped model's when this run measured it)."""
    import json
    old_w = judge.western(run, run.shipped, "shipped") if run.shipped.is_file() else None
    new_w = json.loads((run.eval_dir / f"western-test-{tag}.json").read_text())
    run.log(f"beside the rule: western false cards a scene "
            f"{old_w['false_cards_per_scene'] if old_w else '-'} -> "
            f"{new_w['false_cards_per_scene']}")
    old_f = judge.framings(run, run.shipped, "shipped") if run.shipped.is_file() else None
    new_f = judge.framings(run, candidate, tag)
    run.log(f"beside the rule: real photos' false cards a framing "
            f"{old_f['false_cards_per_photo'] if old_f else '-'} -> "
            f"{new_f['false_cards_per_photo']}")
    for name in ("shipped", tag):
        path = run.eval_dir / f"eval-shift-test-{name}.json"
        if path.is_file():
            cal = json.loads(path.read_text()).get("calibration")
            if cal:
                run.log(f"beside the rule: shift-test calibration {name}: ECE {cal['ece']} "
                        f"over {cal['cards']} cards")


def ship(run: Run, candidate: Path | None = None) -> bool:
    """The candidate (default: the lite localiser's export, with the classifier and
    refiner beside it) replaces the shipped files only if it passes the ship rule
    (``training.measure.compare``); the decision goes to the run's
    ``eval/ship-decision.json`` and the log, each failed figure with it. The files go
    as they are: their lineage was recorded when the candidate was exported (a
    localiser's by the campaign that made it; a classifier round's beside the shipped
    localiser on its classifier file, the localiser keeping its own)."""
    from training.ship import lineage
    from training.ship.handover import decide, hand_over
    candidate = Path(candidate) if candidate else run.candidate
    if not candidate.is_file():
        raise RecipeError(f"no candidate at {candidate}: run python -m training lite-loc "
                          f"first (or give --candidate)")
    if lineage.read(candidate) is None:
        raise RecipeError(f"{candidate} records no lineage (exported before exports recorded "
                          f"it, or not by python -m training): export it again, e.g. "
                          f"python -m training lite-loc (it resumes, then exports)")
    tag = candidate.parent.name
    # the speed limit is a ratio to the shipped model, timed beside it in this run
    reference = run.shipped if run.shipped.is_file() else None
    new = judge.figures(run, candidate, tag, reference=reference)
    old = judge.figures(run, run.shipped, "shipped") if run.shipped.is_file() else None
    decision = decide(old, new, tag)
    decision.write(run.eval_dir / "ship-decision.json")
    report_beside(run, candidate, tag)
    if not decision.shipped:
        run.log("not shipped: " + "; ".join(decision.failed))
        return False
    hand_over(judge.model_files(candidate), run.eval_dir, tag, run.models_dir)
    run.log(f"shipped {candidate} into {run.models_dir}")
    return True
