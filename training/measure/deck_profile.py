"""Choose and measure the deck-profile blend (``scorer.vision.profile``).

    python -m training.measure.deck_profile --model M.onnx --split val --per-kind 8 --tune
    python -m training.measure.deck_profile --model M.onnx --split test --per-kind 8
    python -m training.measure.deck_profile --model LODO.onnx --sets hwatu-commons \
        --split lodo_test --per-kind 60 --full models/eval

Each art set is enrolled from one clean render per card (four layout photos of 12
cards, through ``scorer.vision.enrol``, as a player would), then realistic scenes of
every set are read with no profile, with their own set's profile and with each other
set's profile ("wrong profile"). The scenes' candidates (probabilities and embeddings)
are computed once, so each blend setting costs only the selection step.

``--tune`` (validation seeds only) sweeps weight, temperature, the unknown margin and
the confidence gate, and prints the setting with the best mean gain with each set's own
profile among the safe ones: wrong-profile F1 within 0.01 of no profile on every pair,
and no kind of scene worse by more than 0.005 with its own profile. Run it with a
leave-one-deck-out model, so that one set is a deck the classifier never saw, as a
player's own deck is. Without it, the module's constants are measured. ``--full DIR`` runs
the whole realistic test
(``training.measure.slices.evaluate_realistic``: every slice, and which months are read as which)
on each set with no profile and with its own, and writes both JSON files to DIR.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import time
from pathlib import Path

import numpy as np

from scorer.cards import CODES
from scorer.vision import Detections, Detector
from scorer.vision.enrol import enrol_folder, enrol_layouts
from scorer.vision.profile import (BLEND_WEIGHT, CONFIDENT, MIN_SIMILARITY, TEMPERATURE,
                                   DeckProfile)
from training import DEFAULT_ART_DIR
from training.data.realistic import KINDS, realistic_scene, realistic_seed
from training.data.scenes import ART_SETS, SEED_RANGES, get_library, render_scene
from training.measure.counting import Tally
from training.measure.slices import MIN_PX, REQUIRED_VIS

CACHE_VERSION = 2  # scene caches (``--cache``) hold each scene's classified boxes


def layout_photos(art_set: str, seed: int, per_photo: int = 12) -> list:
    """The 48 cards of ``art_set`` laid out in deck order, ``per_photo`` per photo."""
    return [render_scene(CODES[i:i + per_photo], art_set=art_set, seed=seed + i)[0]
            for i in range(0, 48, per_photo)]


def enrol_set(det: Detector, art_set: str, seed: int,
              how: str = "layout") -> tuple[DeckProfile, float]:
    """``art_set``'s profile, enrolled from layout photos of clean renders ("layout") or
    from its card images as scans (``MM-K.png``: faces without a physical deck's dark
    border, "scans"); and the seconds enrolment took."""
    if how == "scans":
        t0 = time.perf_counter()
        enrolled = enrol_folder(Path(DEFAULT_ART_DIR) / art_set, det.crop_w, det.crop_h)
    else:
        photos = layout_photos(art_set, seed)
        t0 = time.perf_counter()
        names = [f"{art_set}-{i}" for i in range(len(photos))]
        enrolled = enrol_layouts(det, list(zip(names, photos)))
    prof = DeckProfile.from_crops(art_set, [c.code for c in enrolled],
                                  np.stack([c.crop for c in enrolled]), det)
    return prof, time.perf_counter() - t0


def scene_cache(det: Detector, art_set: str, split: str, per_kind: int) -> list:
    """Per scene: (kind, the classified boxes (``Detections``), probs, emb, required ids,
    don't-care ids)."""
    lib = get_library()
    start = SEED_RANGES[split][0]
    out = []
    for kind in KINDS:
        for k in range(per_kind):
            img, cards, _ = realistic_scene(lib, realistic_seed(start, kind, k), kind,
                                            [art_set])
            rects, scores = det.boxes(img)
            if len(rects):
                quads, crops = det.cut(img, rects)
                probs, emb = det.classify_embed(crops)
            else:
                quads = np.zeros((0, 4, 2), np.float32)
                probs, emb = np.zeros((0, 49), np.float32), np.zeros((0, 1), np.float32)
            found = Detections.from_quads(quads, scores, probs, (img.shape[1], img.shape[0]))
            s = min(det.in_w / img.shape[1], det.in_h / img.shape[0])
            ok = [c.visible >= REQUIRED_VIS and c.height * s >= MIN_PX for c in cards]
            req = [c.class_id for c, r in zip(cards, ok) if r]
            opt = [c.class_id for c, r in zip(cards, ok) if not r and c.visible > 0]
            out.append((kind, found, probs, emb, req, opt))
    return out


def score(det: Detector, cache: list, profile: DeckProfile | None) -> dict:
    overall, kinds = Tally(), {k: Tally() for k in KINDS}
    for kind, found, probs, emb, req, opt in cache:
        cls: list = []
        if len(probs):  # picked as ``Detector.detect`` picks, with the profile's reading
            p = probs if profile is None else profile.adjust(probs, emb)
            cls = p.argmax(1)[det.pick(Detections.from_quads(found.quads, found.loc_score,
                                                             p, found.image_size))].tolist()
        for t in (overall, kinds[kind]):
            t.add([int(i) for i in cls], req, opt)
    return {"f1": overall.report()["equiv"]["f1"],
            "kinds": {k: v.report()["equiv"]["f1"] for k, v in kinds.items()}}


def evaluate(det, caches, profiles, **kw) -> dict:
    """F1 of every (profile set, scene set) pair, and with no profile."""
    res = {}
    for scene_set, cache in caches.items():
        res[scene_set] = {"none": score(det, cache, None)}
        for prof_set, prof in profiles.items():
            for k, v in kw.items():
                setattr(prof, k, v)
            res[scene_set][prof_set] = score(det, cache, prof)
    return res


def summary(res: dict) -> dict:
    own = [res[s][s]["f1"] - res[s]["none"]["f1"] for s in res]
    wrong = [res[s][p]["f1"] - res[s]["none"]["f1"] for s in res for p in res[s]
             if p not in ("none", s)]
    slices = [res[s][s]["kinds"][k] - res[s]["none"]["kinds"][k] for s in res
              for k in res[s]["none"]["kinds"]]
    return {"own_gain_mean": round(float(np.mean(own)), 4),
            "own_gain_min": round(float(np.min(own)), 4),
            "worst_own_slice": round(float(np.min(slices)), 4),
            "worst_wrong": round(float(np.min(wrong)), 4) if wrong else None}


def full_test(det: Detector, profiles: dict, split: str, per_kind: int, out: Path,
              how: str) -> int:
    """``evaluate_realistic`` on each set's scenes without a profile and with its own."""
    from training.measure.slices import evaluate_realistic, summary_rows

    for s, prof in profiles.items():
        runs = {f"deck-{split}-{s}-{label}": p for label, p in (("none", None),
                                                                (f"profile-{how}", prof))}
        for tag, p in runs.items():
            res = evaluate_realistic(det, None, split, per_kind, sets=[s], out_dir=out,
                                     tag=tag, profile=p)
            print(tag, flush=True)
            for name, fig in summary_rows(res):
                print(f"  {name}: {fig}")
            top = list(res["month_misreads"].items())[:5]
            print(f"  month misreads (true->read): {top}", flush=True)
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=None)
    p.add_argument("--split", default="val", choices=["val", "test", "lodo_test"])
    p.add_argument("--per-kind", type=int, default=8)
    p.add_argument("--sets", nargs="+", default=list(ART_SETS))
    p.add_argument("--tune", action="store_true", help="sweep the blend (val only)")
    p.add_argument("--cache", default=None, help="pickle of the scenes' candidates (reused "
                   "when it exists: same model, split and scenes only)")
    p.add_argument("--enrol", choices=["layout", "scans"], default="layout",
                   help="enrol each set from four layout photos of clean renders, or from "
                        "its MM-K.png card images as scans")
    p.add_argument("--full", default=None, metavar="DIR",
                   help="the whole realistic test, without and with each set's own profile")
    a = p.parse_args(argv)
    if a.tune and a.split != "val":
        p.error("--tune only on the validation seeds")
    det = Detector(a.model)
    # enrolment renders come from the validation range, away from the scenes' seeds
    enrol_seed = SEED_RANGES["val"][0] + 90_000
    profiles, secs = {}, {}
    for s in a.sets:
        profiles[s], secs[s] = enrol_set(det, s, enrol_seed, a.enrol)
    print(f"enrolment seconds ({a.enrol}, 48 cards):",
          {s: round(v, 2) for s, v in secs.items()}, flush=True)
    if a.full:
        return full_test(det, profiles, a.split, a.per_kind, Path(a.full), a.enrol)
    caches = None
    if a.cache and Path(a.cache).is_file():
        with open(a.cache, "rb") as f:
            kept = pickle.load(f)
        if isinstance(kept, dict) and kept.get("version") == CACHE_VERSION:
            caches = kept["caches"]
        else:
            print(f"{a.cache} was written by an older version: its scenes are read again",
                  flush=True)
    if caches is None:
        caches = {s: scene_cache(det, s, a.split, a.per_kind) for s in a.sets}
        if a.cache:
            with open(a.cache, "wb") as f:
                pickle.dump({"version": CACHE_VERSION, "caches": caches}, f)
    print(f"scenes: {a.per_kind} per kind x {len(KINDS)} kinds per set, split {a.split}",
          flush=True)
    if a.tune:
        for s in a.sets:
            own = np.concatenate([profiles[s].similarity(c[3]).max(1) for c in caches[s]
                                  if len(c[2])])
            print(f"{s}: best similarity of its crops to its own profile, percentiles "
                  f"1/5/50: {np.percentile(own, [1, 5, 50]).round(3).tolist()}")
        rows = []
        for w, t, m, c in itertools.product((0.25, 0.5, 0.75, 0.9, 1.0), (0.02, 0.05, 0.1),
                                            (0.0, 0.65, 0.75), (0.6, 0.8, 0.9, 1.01)):
            sm = summary(evaluate(det, caches, profiles, weight=w, temperature=t,
                                  min_similarity=m, confident=c))
            rows.append(((w, t, m, c), sm))
            print(json.dumps({"weight": w, "temperature": t, "min_similarity": m,
                              "confident": c, **sm}), flush=True)
        # safe: a wrong profile within 0.01 of none, and no set's slice worse with its own
        safe = [r for r in rows if (r[1]["worst_wrong"] is None or r[1]["worst_wrong"] >=
                                    -0.01) and r[1]["worst_own_slice"] >= -0.005]
        if not safe:
            print("no setting is safe on these scenes")
            return 1
        best = max(safe, key=lambda r: (r[1]["own_gain_mean"], r[1]["own_gain_min"]))
        print("best safe setting (weight, temperature, min_similarity, confident):",
              best[0], best[1])
        return 0
    res = evaluate(det, caches, profiles, weight=BLEND_WEIGHT, temperature=TEMPERATURE,
                   min_similarity=MIN_SIMILARITY, confident=CONFIDENT)
    for s, r in res.items():
        print(s, json.dumps(r))
    print("summary", json.dumps(summary(res)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
