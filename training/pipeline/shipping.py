"""``python -m training ship``: the ship rule, and on a pass the hand-over into
``models/`` (the only command that writes there)."""

from __future__ import annotations

from pathlib import Path

from training.pipeline import judge
from training.pipeline.context import Run
from training.recipe import RecipeError


def report_beside(run: Run, candidate: Path, tag: str) -> None:
    """The figures beside the rule's, logged old -> new: false cards on Western playing
    cards' test scenes, and how well the reported cards' confidence is calibrated on the
    shift slice (expected calibration error; the candidate's, and the shipped model's
    when this run measured it)."""
    import json
    old_w = judge.western(run, run.shipped, "shipped") if run.shipped.is_file() else None
    new_w = json.loads((run.eval_dir / f"western-test-{tag}.json").read_text())
    run.log(f"beside the rule: western false cards a scene "
            f"{old_w['false_cards_per_scene'] if old_w else '-'} -> "
            f"{new_w['false_cards_per_scene']}")
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
    ``eval/ship-decision.json`` and the log, each failed figure with it."""
    from training.nets.checkpoint import checkpoint_step
    from training.ship.handover import decide, hand_over
    from training.ship.lineage import lineage, stamp
    candidate = Path(candidate) if candidate else run.candidate
    if not candidate.is_file():
        raise RecipeError(f"no candidate at {candidate}: run python -m training lite-loc "
                          f"first (or give --candidate)")
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
    files = judge.model_files(candidate)
    ck = run.run_dir / "lite_loc" / "lite_loc.pt"
    if tag == run.candidate.parent.name and ck.is_file():  # the localiser campaign's
        stamp(files[:1], lineage(run.recipe_path, checkpoint_step(ck),
                                 run.recipe.lite_localiser.average_from))
    else:  # a round beside the shipped localiser, which keeps its own lineage
        stamp(files[1:2], lineage(run.recipe_path, None))
    hand_over(files, run.eval_dir, tag, run.models_dir)
    run.log(f"shipped {candidate} into {run.models_dir}")
    return True
