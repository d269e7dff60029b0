"""``python -m training ship``: the ship rule, and on a pass the hand-over into
``models/`` (the only command that writes there)."""

from __future__ import annotations

from pathlib import Path

from training.pipeline import judge
from training.pipeline.context import Run
from training.recipe import RecipeError


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
    if not decision.shipped:
        run.log("not shipped: " + "; ".join(decision.failed))
        return False
    files = judge.model_files(candidate)
    ck = run.run_dir / "lite_loc" / "lite_loc.pt"
    from_campaign = tag == run.candidate.parent.name and ck.is_file()
    stamp(files[:1], lineage(run.recipe_path, checkpoint_step(ck) if from_campaign else None,
                         run.recipe.lite_localiser.average_from if from_campaign else None))
    hand_over(files, run.eval_dir, tag, run.models_dir)
    run.log(f"shipped {candidate} into {run.models_dir}")
    return True
