"""``python -m training COMMAND``: from the card art to the models, driven by a recipe file
(``training/recipe.py`` describes its tables).

The shipped model was made by ``training/shipped.toml`` (its localiser: the state at
step 52000 kept in ``training/campaign/shipped-start.pt``, the recipe's last step, exported
as it is; rebuild it with
``python -m training lite-loc --recipe training/shipped.toml --run-dir runs/rebuild``)
and ``training/shipped-round.toml`` (its classifier and thresholds: ``cls-real --recipe
training/shipped-round.toml``); their lineages name them.
``training/recipe.toml`` (the default) is the recipe as the campaign goes on:
``lite-loc`` goes on from its committed state. ``python -m training all`` runs every
stage of a recipe in order from the card art, then the evaluation: a whole new pipeline
(to try a change end to end), not the shipped model's rebuild.

Where things are: scenes are made in ``training/data``, networks defined and saved in
``training/nets``, each stage runs in ``training/stages``, a model is judged in
``training/measure``, exported and shipped in ``training/ship``; ``training/pipeline``
strings them into the commands below.

Every stage is resumable: cached chunks are kept and training resumes from its
checkpoint in ``--run-dir`` (default runs/main, git-ignored), where every figure goes
too. Only ``ship`` writes ``models/``. Seeds are fixed (training.data.scenes.SEED_RANGES:
train, val, test, lodo_test and shift_test are disjoint).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from training import DEFAULT_ART_DIR, REPO_ROOT
from training.data.real_photos import DEFAULT_PHOTOS_DIR
from training.pipeline.commands import ALL, COMMANDS
from training.pipeline.context import Run
from training.recipe import DEFAULT_RECIPE, RecipeError, load_recipe


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--recipe", default=str(DEFAULT_RECIPE),
                        help="the recipe file (default training/recipe.toml, the "
                             "campaign's; the shipped model's: training/shipped.toml and "
                             "training/shipped-round.toml)")
    common.add_argument("--art-dir", default=str(DEFAULT_ART_DIR),
                        help="card art sets (default ../shared/card-art from the repo root)")
    common.add_argument("--photos-dir", default=str(DEFAULT_PHOTOS_DIR),
                        help="real photographs of playing cards, no hanafuda (default "
                             "../shared/real-photos/playing-cards from the repo root)")
    common.add_argument("--run-dir", default=str(REPO_ROOT / "runs" / "main"),
                        help="caches, checkpoints, figures, logs (git-ignored)")
    common.add_argument("--models-dir", default=str(REPO_ROOT / "models"),
                        help="the shipped ONNX files and their records (written by ship)")
    common.add_argument("--name", default="hanafuda", help="model file prefix")
    common.add_argument("--threads", type=int, default=2, help="torch / onnxruntime threads")
    common.add_argument("--workers", type=int, default=2, help="scene rendering processes")
    helps = {"all": "every stage of the recipe in order, from the card art (a new "
                    "pipeline, not the shipped model's rebuild): " + ", ".join(ALL)}
    helps.update({k: c.help for k, c in COMMANDS.items()})
    for name, text in helps.items():
        sp = sub.add_parser(name, parents=[common], help=text, description=text)
        if name in ("all", "realistic", "lite-loc"):
            sp.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                            help="where it trains (auto: a GPU if any)")
        if name == "lite-loc":
            sp.add_argument("--train-only", action="store_true",
                            help="train, keep the checkpoint, export nothing (a lent "
                                 "machine that brings the checkpoint back)")
            sp.add_argument("--stop-after", type=float, default=0.0, metavar="MINUTES",
                            help="stop at the first snapshot past this many minutes; running "
                                 "again goes on (default: train the recipe's steps)")
        if name == "bundle":
            sp.add_argument("--out", required=True,
                            help="a new folder to copy the art and the photos' train part into")
        if name in ("all", "evaluate"):
            sp.add_argument("--no-lodo", action="store_true",
                            help="skip the leave-one-deck-out evaluation")
        if name == "curve":
            sp.add_argument("--per-kind", type=int, default=25,
                            help="shift scenes of each kind for each point (default 25)")
        if name == "keep":
            sp.add_argument("--force", action="store_true",
                            help="keep it even within an hour of the last commit of the state")
        if name in ("all", "ship"):
            sp.add_argument("--candidate", default=None,
                            help="the candidate's localiser ONNX file (default: the lite "
                                 "localiser's export in the run directory)")
        if name == "cls-real":
            sp.add_argument("--start", default=None,
                            help="the classifier checkpoint the round starts from, or an "
                                 "exported classifier's ONNX file (its weights recovered; "
                                 "default training/campaign/classifier.pt: the shipped "
                                 "classifier's weights)")
            sp.add_argument("--boxes-also", action="append", default=[], metavar="MODELS_DIR",
                            help="also read the boxes that folder's networks (another "
                                 "refiner, say) propose on the same scenes and photos; "
                                 "repeatable")
        if name in ("shift", "evaluate", "tune", "photos", "framings", "western"):
            sp.add_argument("--model", default=None,
                            help="the localiser ONNX file to measure (default: the shipped one)")
            sp.add_argument("--tag", default=None,
                            help="a label for the figures' file names (default: the model's "
                                 "folder name)")
    return p


def main(argv=None) -> int:
    a = parser().parse_args(argv)
    try:
        recipe = load_recipe(a.recipe)
    except RecipeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import torch
    torch.set_num_threads(a.threads)
    from scorer.errors import InputError
    from training.data.real_photos import PhotosUnavailable
    from training.data.shift import ShiftUnavailable
    run = Run(recipe, Path(a.recipe), Path(a.run_dir), Path(a.models_dir), a.art_dir,
              a.photos_dir, a.name, a.threads, a.workers)
    run.log(f"command: python -m training {' '.join(argv if argv is not None else sys.argv[1:])}")
    try:
        for name in (ALL if a.command == "all" else (a.command,)):
            COMMANDS[name].run(run, a)
    except (InputError, RecipeError, FileNotFoundError, ShiftUnavailable,
            PhotosUnavailable) as e:  # a missing model, art, photographs or history
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
