"""Benchmark `scorer.vision.Detector` on 640x480 frames of a 20-card table.

    .venv/bin/python bench/bench_detect.py [--frames 60] [--threads 2] [--cards 20]
                                           [--profile [ART_SET]]

Prints per-frame latency (median and p90 over the frames, after 3 warm-up frames) for
JPEG decode, localiser, classifier and total; the process's memory (RSS) before and
after loading the models and at the end; and the model files' size. ``--profile``:
enrols a deck profile of ART_SET (default hwatu-commons) from four rendered layout
photos, prints the enrolment time, and times each frame also with the profile (the
two runs of a frame back to back, so both see the same load).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2
import numpy as np


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cards", type=int, default=20)
    p.add_argument("--model", default=None)
    p.add_argument("--no-tta", action="store_true",
                   help="classify each crop once (not also turned 180 degrees)")
    p.add_argument("--profile", nargs="?", const="hwatu-commons", default=None,
                   metavar="ART_SET", help="also time detection with a deck profile")
    a = p.parse_args(argv)
    from scorer.cards import CODES
    from scorer.errors import InputError
    from scorer.vision import Detector, decode_image
    from training.scenes import render_scene

    rng = np.random.default_rng(2024)
    frames = []
    for i in range(a.frames + 3):
        codes = list(rng.choice(CODES, a.cards, replace=False))
        img, _ = render_scene(codes, seed=9_000_000 + i, easy=False,
                              art_set=["louie-mantia", "hwatu-commons", "freegostop-color",
                                       "freegostop-pencil"][i % 4],
                              card_height=float(rng.uniform(70, 150)))
        frames.append(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes())
    rss0 = rss_mib()
    det = Detector(a.model, threads=a.threads, tta=False if a.no_tta else None)
    rss1 = rss_mib()
    try:
        prof = _enrol(det, a.profile) if a.profile else None
    except InputError as exc:
        print(f"bench_detect: error: {exc}", file=sys.stderr)
        return 2
    rows = []
    found = []
    with_prof = []
    for i, data in enumerate(frames):
        if prof is not None:
            t0 = time.perf_counter()
            det.detect(decode_image(data), profile=prof)
            if i >= 3:
                with_prof.append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        img = decode_image(data)
        t1 = time.perf_counter()
        d = det.detect(img, decode_ms=(t1 - t0) * 1e3)
        t2 = time.perf_counter()
        if i >= 3:
            rows.append(((t1 - t0) * 1e3, d.timings["localise"], d.timings["classify"],
                         (t2 - t1) * 1e3, (t2 - t0) * 1e3))
            found.append(len(d))
    r = np.array(rows)
    sizes = {det.model_path.name: det.model_path.stat().st_size,
             det.classifier_path.name: det.classifier_path.stat().st_size}
    if det.refiner_path is not None:
        sizes[det.refiner_path.name] = det.refiner_path.stat().st_size
    print(f"frames: {len(rows)} at 640x480 JPEG, {a.cards} cards laid out per frame "
          f"(detected per frame: median {np.median(found):.0f}), onnxruntime "
          f"{a.threads} threads, cpu count {os.cpu_count()}, 180-degree TTA {det.tta}"
          + (f" (crops below p {det.tta_below})" if det.tta else ""))
    for k, name in enumerate(["decode", "localise", "classify", "detect (infer)",
                              "total (decode+infer)"]):
        print(f"  {name:<22} median {np.median(r[:, k]):7.2f} ms   p90 "
              f"{np.percentile(r[:, k], 90):7.2f} ms")
    if with_prof:
        base, mine = np.median(r[:, 4]), np.median(with_prof)
        print(f"  {'total with profile':<22} median {mine:7.2f} ms   p90 "
              f"{np.percentile(with_prof, 90):7.2f} ms   ({100 * (mine / base - 1):+.1f}% "
              f"against without)")
    print(f"memory: RSS {rss0:.0f} MiB before models, {rss1:.0f} MiB after loading, "
          f"{rss_mib():.0f} MiB at end; "
          f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    total = sum(sizes.values())
    for n, s in sizes.items():
        print(f"model: {n} {s / 2**20:.2f} MiB")
    print(f"model total: {total / 2**20:.2f} MiB")
    return 0


def _enrol(det, art_set: str):
    """A profile of ``art_set`` from four layout renders of 12 cards; prints its time."""
    from scorer.vision.enrol import enrol_layouts
    from scorer.vision.profile import DeckProfile, require_embedding
    from training.deck_profile import layout_photos

    require_embedding(det)
    photos = layout_photos(art_set, 9_500_000)
    t0 = time.perf_counter()
    cards = enrol_layouts(det, [(f"layout-{i}", im) for i, im in enumerate(photos)])
    prof = DeckProfile.from_crops(art_set, [c.code for c in cards],
                                  np.stack([c.crop for c in cards]), det)
    print(f"enrolment of {len(cards)} cards of {art_set} from {len(photos)} photos: "
          f"{time.perf_counter() - t0:.2f} s")
    return prof


if __name__ == "__main__":
    sys.exit(main())
