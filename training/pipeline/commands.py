"""Each ``python -m training`` command: its help line and what it runs."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from training.pipeline import campaign, chain, gating, judge, rounds, shipping
from training.pipeline.context import Run


@dataclass(frozen=True)
class Command:
    help: str
    run: Callable[[Run, argparse.Namespace], object]


def model_arg(run: Run, a: argparse.Namespace) -> tuple[Path, str]:
    """The ``--model`` file (default: the shipped one) and its label."""
    path = Path(a.model) if getattr(a, "model", None) else run.shipped
    return path, getattr(a, "tag", None) or ("shipped" if path == run.shipped
                                             else path.parent.name)


def refiner_then_export(run: Run) -> Path:
    chain.train_ref(run)
    return chain.export_base(run, run.last_classifier())


def realistic_then_tune(run: Run, a: argparse.Namespace) -> Path:
    loc = campaign.realistic(run, a.device)
    if a.command == "all":
        judge.tune(run, loc)
    return loc


def tune_command(run: Run, a: argparse.Namespace) -> dict:
    """``tune``: its record is named by ``--tag``, else by the tuned file's folder (a
    copy's, ``tuned-model``, when the model is outside the run): the name ``ship``
    hands over with the candidate."""
    path, _ = model_arg(run, a)
    return judge.tune(run, path, tag=getattr(a, "tag", None))


def bundle_command(run: Run, a: argparse.Namespace) -> Path:
    from training.pipeline.bundle import bundle
    b = bundle(run.art_dir, run.photos_dir, a.out)
    run.log(f"bundled {b.bytes / 2**20:.1f} MiB into {a.out}: there, run with --art-dir "
            f"{b.art_dir} --photos-dir {b.photos_dir}")
    return Path(a.out)


COMMANDS: dict[str, Command] = {
    "cache": Command("render and cache the random scenes of the first stages",
                     lambda run, a: chain.data(run)),
    "train-loc": Command("train the localiser stages", lambda run, a: chain.train_loc(run)),
    "train-cls": Command("train the classifier on jittered true-box crops",
                         lambda run, a: chain.train_cls(run)),
    "base": Command("export the chain's networks into the run's base-model/",
                    lambda run, a: chain.export_base(run)),
    "train-ref": Command("train the box refiner on the exported localiser's boxes, then "
                         "export", lambda run, a: refiner_then_export(run)),
    "rounds": Command("the classifier rounds on crops the exported localiser cuts, then "
                      "export", lambda run, a: chain.export_base(run, chain.rounds(run))),
    "realistic": Command("all three networks together on streamed realistic scenes, then "
                         "export", realistic_then_tune),
    "lodo": Command("a leave-one-deck-out classifier beside the shipped localiser, then "
                    "export and tune",
                    lambda run, a: judge.tune(run, campaign.train_lodo(run),
                                              sets=run.trained_sets())),
    "lite-loc": Command("the localiser on ImageNet features (streamed scenes), exported as "
                        "a candidate beside the shipped classifier and refiner, then tuned",
                        lambda run, a: campaign.lite_loc(
                            run, a.device, getattr(a, "train_only", False),
                            getattr(a, "stop_after", 0.0))),
    "requantize": Command("the shipped model's int8 networks quantised again from their torch "
                          "states with 7-bit weights (exact fast int8 products on every x86 "
                          "CPU), nothing trained, as a candidate in the run's q7-model/ "
                          "(--recipe training/shipped.toml)",
                          lambda run, a: campaign.requantize(run)),
    "fit-pairs": Command("the shipped model's int8 weights rounded anew so that onnxruntime's "
                         "fast int8 products cannot saturate on any x86 CPU (8 bits kept: "
                         "only pairs past the 16-bit bound change, the rest keeps each "
                         "layer's output), nothing trained, as a candidate in the run's "
                         "pairs-model/ (--recipe training/shipped.toml)",
                         lambda run, a: campaign.fit_pairs(run)),
    "bundle": Command("copy the card art and the real photos' train part (the test part's "
                      "names only, as empty files) into --out, to carry to a machine that "
                      "trains without ../shared", bundle_command),
    "face-gate": Command("a face gate (is there a hanafuda face in the box at all?) fitted "
                         "on the networks' boxes on realistic scenes and real photos, as a "
                         "candidate in the run's gated-model/",
                         lambda run, a: gating.face_gate(run)),
    "cls-real": Command("a classifier round on the networks' own boxes with the real "
                        "photos' train part as 'not a card', from the shipped classifier's "
                        "weights (or --start), blended back towards them by the recipe's "
                        "keep_start, as a tuned candidate in the run's cls-real-model/",
                        lambda run, a: rounds.classifier_round(run, a.start, a.boxes_also)),
    "ref-real": Command("a box refiner round on the shipped localiser's own boxes, from the "
                        "shipped refiner's weights, blended back towards them by the recipe's "
                        "keep_start, as a tuned candidate in the run's ref-real-model/",
                        lambda run, a: rounds.refiner_round(run)),
    "keep": Command("copy the lite localiser's checkpoint, in half precision, into "
                    "training/campaign/ to commit (at most once an hour) so a later piece "
                    "resumes from it on any machine",
                    lambda run, a: campaign.keep(run, a.force)),
    "ship": Command("the ship rule: a candidate against the shipped model on the realistic "
                    "test, the shift slice, the real photos, speed beside the shipped "
                    "model and size; it replaces models/ only if it passes (the only command that "
                    "writes models/)", lambda run, a: shipping.ship(run, a.candidate)),
    "shift": Command("the domain-shift slice: held-out art, real photographs as tables, "
                     "another camera and light",
                     lambda run, a: judge.shift(run, *model_arg(run, a))),
    "photos": Command("false cards a photo on the real photographs' test part (no hanafuda "
                      "in them)", lambda run, a: judge.photos(run, *model_arg(run, a))),
    "framings": Command("false cards a framing on the real photographs' test part, each "
                        "photo read in 4 other framings a camera could give it (closer, "
                        "4:3, turned)", lambda run, a: judge.framings(run, *model_arg(run, a))),
    "western": Command("false cards a scene on Western playing cards' test scenes (no "
                       "hanafuda in them)",
                       lambda run, a: judge.western(run, *model_arg(run, a))),
    "curve": Command("the lite localiser's snapshots on part of the shift slice and the "
                     "real-photo test part (the campaign's curve)",
                     lambda run, a: judge.curve(run, a.per_kind)),
    "tune": Command("choose the detection thresholds on realistic validation scenes, then "
                    "fit what the reported confidence says on the stand-in (a model "
                    "outside the run directory, the shipped one too, is tuned as a copy in "
                    "the run's tuned-model/)",
                    tune_command),
    "evaluate": Command("the realistic test's slices, leave-one-deck-out and the old test",
                        lambda run, a: judge.evaluate(run, *model_arg(run, a),
                                                      lodo=not a.no_lodo)),
    "ceiling": Command("validation reads on true outlines vs the detector's boxes",
                       lambda run, a: judge.ceiling(run)),
}

# what ``all`` runs, in order
ALL = ("train-loc", "train-cls", "base", "train-ref", "rounds", "realistic", "lodo",
       "lite-loc", "ship", "evaluate")
