"""False cards on Western playing cards: scenes of playing cards alone (piles, close-ups;
``training.data.western``), rendered from seeds of a split the classifier round never
reads (the test's, unless told). Every hanafuda card reported there is a false one. A
figure reported beside the ship rule's, not one of them: its scenes are drawn by the same
renderer the round's negatives come from, so it says what the round learnt, not how the
real world reads it (the real photos say that)."""

from __future__ import annotations

import json
from pathlib import Path

from tqdm import tqdm

from training.data.scenes import SEED_RANGES, get_library
from training.data.western import SEED_OFFSET, WESTERN_KINDS, western_scene

KINDS = ("western_pile", "western_closeup")  # playing cards alone: every card is false


def western_false_cards(detector, art_dir=None, per_kind: int = 60, split: str = "test",
                        out: Path | None = None) -> dict:
    """False cards a scene on ``per_kind`` scenes of each kind of ``split``; written to
    ``out`` (JSON) when given."""
    lib = get_library(art_dir)
    start = SEED_RANGES[split][0] + SEED_OFFSET
    res: dict = {"split": split, "per_kind_scenes": per_kind, "kinds": {}}
    total = scenes = 0
    for kind in KINDS:
        first = start + WESTERN_KINDS.index(kind) * 4_000
        found = [len(detector.detect(western_scene(lib, first + k, kind).image)
                     .class_id) for k in tqdm(range(per_kind), desc=f"western {split} {kind}",
                                              unit="scene", mininterval=5)]
        res["kinds"][kind] = {"false_cards_per_scene": round(sum(found) / max(per_kind, 1), 4),
                              "scenes_with_a_false_card": sum(n > 0 for n in found)}
        total, scenes = total + sum(found), scenes + per_kind
    res["false_cards_per_scene"] = round(total / max(scenes, 1), 4)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(res, indent=2) + "\n")
    return res
