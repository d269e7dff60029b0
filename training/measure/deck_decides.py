"""The leave-one-art-set-out stand-in for a player's own deck (issue 67): how much an
enrolled deck lets the decision (``scorer.vision.decision.deck_decides``) gain on a deck
the networks never saw.

    python -m training.measure.deck_decides --model LODO.onnx --split val --per-kind 40 --tune
    python -m training.measure.deck_decides --model LODO.onnx --split test --per-kind 60

The held-out set (``hwatu-commons``: the localiser and refiner never saw it; a classifier
from ``python -m training lodo`` never saw it either) is enrolled from its 48 card images
(as ``hanafuda enrol`` reads a folder), then its realistic scenes (``lodo_test`` seeds for
the test, ``val`` for choosing) and the domain-shift slice's (``shift_test`` /
``shift_val``), plain and with a printed look (``printed``: paper grain, print colour,
gloss, wear), are read without the profile and with it. Drawn Western cards and the real
photos' test part (no hanafuda in them) count false cards a frame with the profile on.
Each scene's boxes are classified once; every rule setting costs only the decision.

``--tune`` (validation seeds only) tries the deck rule's grid and prints the setting with
the best pooled F1 among those that add no false card a frame on the Western scenes.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from scorer.vision import Detections, Detector
from scorer.vision.decision import decide
from scorer.vision.enrol import enrol_folder
from scorer.vision.profile import DeckProfile
from scorer.vision.settings import WEAK_LOC_THRESHOLD, DeckRule
from training import DEFAULT_ART_DIR
from training.data.realistic import KINDS, realistic_scene, realistic_seed
from training.data.scenes import SEED_RANGES, get_library
from training.data.shift import HELD_OUT_SET, SHIFT_KINDS, shift_scene
from training.measure.counting import EQUIV, Recall, Tally
from training.measure.slices import MIN_PX, REQUIRED_VIS

SPLITS = {"val": ("val", "shift_val"), "test": ("lodo_test", "shift_test")}
WESTERN_KINDS = ("western_pile", "western_closeup")


@dataclass
class Frame:
    """One scene's boxes, classified once: without the profile (``plain``), with it
    (``found``, and the weaker ``extra`` boxes only the deck reads), and its truth."""
    slice: str
    plain: Detections
    found: Detections
    extra: Detections
    cards: list


def printed(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A print's look over a frame: a colour shift of the inks, paper grain, a gloss
    highlight and worn (lighter) patches."""
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    out *= rng.uniform(0.85, 1.15, 3)[None, None, :]
    out += rng.normal(0, 6, (h, w, 1))
    yy, xx = np.mgrid[0:h, 0:w]
    cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.2, 0.5) * max(h, w)
    out += 60 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))[..., None]
    for _ in range(int(rng.integers(2, 6))):
        x, y, s = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(8, 30)
        out += 35 * np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * s * s))[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def read_frame(det: Detector, profile: DeckProfile, img: np.ndarray, name: str,
               cards: list, grid: bool = False) -> Frame:
    """``img``'s boxes as ``Detector.detect`` reads a still with and without ``profile``,
    classified once (``Detector.read_still``): the weaker boxes as its deck rule reads
    them; with ``grid``, every box down to the lowest localiser threshold the grid tries,
    for any rule to pick from."""
    read = det.read_still(np.ascontiguousarray(img), profile,
                          WEAK_LOC_THRESHOLD if grid else None)
    return Frame(name, read.plain, read.found, read.extra, cards)


def frames(det: Detector, profile: DeckProfile, split: str, per_kind: int,
           with_printed: bool = True, grid: bool = False) -> list[Frame]:
    lib = get_library()
    real, shift = SPLITS[split]
    out = []
    rng = np.random.default_rng(67)
    jobs = [("realistic " + k, realistic_scene, real, k) for k in KINDS] + \
        [("shift " + k, shift_scene, shift, k) for k in SHIFT_KINDS]
    for name, scene, seeds, kind in jobs:
        for k in tqdm(range(per_kind), desc=name, unit="scene", mininterval=10):
            img, cards, _ = scene(lib, realistic_seed(SEED_RANGES[seeds][0], kind, k), kind,
                                  [HELD_OUT_SET])
            out.append(read_frame(det, profile, img, name, cards, grid))
            if with_printed:
                out.append(read_frame(det, profile, printed(img, rng), "printed " + name,
                                      cards, grid))
    return out


def western_frames(det: Detector, profile: DeckProfile, split: str, per_kind: int,
                   grid: bool = False) -> list[Frame]:
    from training.data.western import SEED_OFFSET, WESTERN_KINDS as ALL_KINDS, western_scene
    lib = get_library()
    start = SEED_RANGES["val" if split == "val" else "test"][0] + SEED_OFFSET
    out = []
    for kind in WESTERN_KINDS:
        first = start + ALL_KINDS.index(kind) * 4_000   # as training.measure.western
        for k in range(per_kind):
            img = western_scene(lib, first + k, kind).image
            out.append(read_frame(det, profile, img, kind, [], grid))
    return out


def photo_frames(det: Detector, profile: DeckProfile, photos_dir: str, part: str,
                 grid: bool = False) -> list[Frame]:
    """The real photos of playing cards (no hanafuda): the test part, or for choosing the
    train part's validation share (each sitting's last quarter, which no round reads)."""
    from training.data.real_photos import split_by_sitting, split_photos
    photos = split_photos(photos_dir)
    paths = photos["test"] if part == "test" else split_by_sitting(photos["train"], 0.25)[1]
    out = []
    for path in tqdm(paths, desc=f"photos ({part})", unit="photo", mininterval=10):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is not None:
            out.append(read_frame(det, profile, img, "photo", [], grid))
    return out


def score(det: Detector, data: list[Frame], rule: DeckRule | None,
          profile: DeckProfile) -> dict:
    """F1 (realistic framing: cards at least half visible and ``MIN_PX`` tall required),
    the top card's and the 50-80%-visible cards' recall per slice, and false cards a
    frame, without the profile (``rule`` None) or with it and ``rule``."""
    s = det.settings if rule is None else det.settings.but(deck=rule)
    tallies: dict[str, Tally] = {}
    recalls: dict[str, Recall] = {}
    for f in data:
        got = decide(f.plain, s) if rule is None else decide(f.found, s, profile, f.extra)
        pred = [int(i) for i in got.class_id]
        w, h = f.plain.image_size
        scale = min(det.in_w / max(w, 1), det.in_h / max(h, 1))
        req = [c for c in f.cards if c.visible >= REQUIRED_VIS and c.height * scale >= MIN_PX]
        opt = [c for c in f.cards if c.visible > 0 and c not in req]
        group = f.slice.rsplit(" ", 1)[0] + " (every kind)" if f.cards else f.slice
        for key in {f.slice, group, "all" if f.cards else "no hanafuda"}:
            tallies.setdefault(key, Tally()).add(pred, [c.class_id for c in req],
                                                 [c.class_id for c in opt])
        seen = {EQUIV[i] for i in pred}
        top = f.cards[-1] if len(f.cards) > 1 else None
        for c in req:
            hit = EQUIV[c.class_id] in seen
            if c.visible < 0.8:
                recalls.setdefault("50-80% " + f.slice, Recall()).add(hit)
                recalls.setdefault("50-80% all", Recall()).add(hit)
            if c is top:
                recalls.setdefault("top " + f.slice, Recall()).add(hit)
                recalls.setdefault("top all", Recall()).add(hit)
    out = {k: {"f1": t.report()["equiv"]["f1"],
               "false_cards_per_frame": t.report()["false_cards_per_image"],
               "frames": t.images} for k, t in sorted(tallies.items())}
    out.update({k: {"recall": r.share(), "cards": r.n} for k, r in sorted(recalls.items())})
    return out


def grid() -> list[DeckRule]:
    return [DeckRule(loc_threshold=lt, accept=a, refuse=r, scale=s, alone=al)
            for lt, a, r, s, al in itertools.product((0.15, 0.25), (0.45, 0.5, 0.55, 0.6),
                                                     (0.0, 0.02, 0.03, 0.05), (0.85,),
                                                     (True, False))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.measure.deck_decides",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="the localiser file (a leave-one-out model)")
    ap.add_argument("--split", choices=("val", "test"), default="val")
    ap.add_argument("--per-kind", type=int, default=40, help="scenes of each kind")
    ap.add_argument("--western", type=int, default=60, help="Western scenes of each kind")
    ap.add_argument("--photos-dir", default=None,
                    help="real photos of playing cards (the test part with --split test, the "
                         "train part's validation share with --split val)")
    ap.add_argument("--no-printed", action="store_true", help="leave out the printed look")
    ap.add_argument("--tune", action="store_true", help="try the deck rule's grid (val only)")
    ap.add_argument("--rule", type=json.loads, default=None,
                    help="the deck rule to measure, a JSON object of DeckRule's fields "
                         "(default: the model's)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="write the figures (JSON) here")
    ap.add_argument("--cache", type=Path, default=None,
                    help="the classified frames: read from this file when it exists, else "
                         "written to it (the same model, split and counts)")
    a = ap.parse_args(argv)
    if a.tune and a.split != "val":
        ap.error("--tune chooses on validation seeds only (--split val)")
    det = Detector(a.model, threads=a.threads)
    if a.rule:
        det = det.with_settings(det.settings.but(deck=DeckRule(**a.rule)))
    t0 = time.perf_counter()
    enrolled = enrol_folder(Path(DEFAULT_ART_DIR) / HELD_OUT_SET, det.crop_w, det.crop_h)
    profile = DeckProfile.from_crops(HELD_OUT_SET, [c.code for c in enrolled],
                                     np.stack([c.crop for c in enrolled]), det)
    print(f"enrolled {len(enrolled)} cards of {HELD_OUT_SET} in "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    if a.cache is not None and a.cache.is_file():
        with a.cache.open("rb") as fh:
            data = [f if isinstance(f, Frame) else Frame(*f) for f in pickle.load(fh)]
    else:
        data = frames(det, profile, a.split, a.per_kind, not a.no_printed, a.tune)
        data += western_frames(det, profile, a.split, a.western, a.tune)
        if a.photos_dir:
            data += photo_frames(det, profile, a.photos_dir, a.split, a.tune)
        if a.cache is not None:
            a.cache.parent.mkdir(parents=True, exist_ok=True)
            with a.cache.open("wb") as fh:   # plain tuples: the module runs as __main__
                pickle.dump([(f.slice, f.plain, f.found, f.extra, f.cards) for f in data], fh)
    rules = grid() if a.tune else [det.settings.deck]
    res = {"model": str(a.model), "split": a.split, "per_kind": a.per_kind,
           "without": score(det, data, None, profile),
           "with": [{"rule": r.to_config(), "figures": score(det, data, r, profile)}
                    for r in rules]}
    base = res["without"]
    for row in res["with"]:
        fig = row["figures"]
        row["gain_all"] = round(fig["all"]["f1"] - base["all"]["f1"], 4)
        row["more_false_cards"] = round(fig["no hanafuda"]["false_cards_per_frame"] -
                                        base["no hanafuda"]["false_cards_per_frame"], 4)
    best = max((r for r in res["with"] if r["more_false_cards"] <= 0),
               key=lambda r: (r["gain_all"], -r["more_false_cards"]), default=None)
    res["best"] = best and best["rule"]
    for key in sorted(base):
        row = [base[key].get("f1", base[key].get("recall"))] + \
            [r["figures"][key].get("f1", r["figures"][key].get("recall"))
             for r in res["with"][:1] + ([best] if best and a.tune else [])]
        if key.startswith(("western", "photo", "no hanafuda")):
            row = [base[key]["false_cards_per_frame"]] + \
                [r["figures"][key]["false_cards_per_frame"]
                 for r in res["with"][:1] + ([best] if best and a.tune else [])]
            key += " (false cards a frame)"
        print(f"{key:40s}", "  ".join(f"{v:.4f}" if v is not None else "  -   " for v in row))
    print("false cards a frame without hanafuda:", base["no hanafuda"]["false_cards_per_frame"],
          "->", res["with"][0]["figures"]["no hanafuda"]["false_cards_per_frame"])
    if a.tune:
        print("best rule (no more false cards on the Western scenes):", res["best"])
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(res, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
