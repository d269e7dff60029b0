"""Benchmark `scorer.vision.Detector` on 640x480 frames of a 20-card table.

    .venv/bin/python -m bench.bench_detect [--frames 60] [--threads 2] [--cards 20]
                                           [--profile [ART_SET]] [--compare MODEL]

Prints per-frame latency (median and p90 over the frames, after 3 warm-up frames) for
JPEG decode, localiser, classifier and total; the process's memory (RSS) before and
after loading the models and at the end; and the model files' size. ``--profile``:
enrols ART_SET (default hwatu-commons) as a full deck, 48 cards of ``--crops`` crops
each (the most a deck keeps: one from four rendered layout photos, the others that crop
shifted, turned and lit a little differently), in a temporary games database, and times
each frame also as ``/api/detect?deck=`` reads it: the deck's profile from the app's
deck service (``scorer.enrolled``, cached until the deck changes), then detection with
it (the two runs of a frame back to back, in turn first, so both see the same load).
It also times reading and decoding the whole deck, what every such frame cost before
the cache was checked by the deck's ``updated_at``. ``--compare MODEL``: times another
localiser file (with the classifier and refiner it names) on the same frames, the two
alternating frame by frame (which goes first alternates too), so both see the same
machine load.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from training.timing import WARM_UP, table_frames
from support.servers import rss_mib


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
    p.add_argument("--crops", type=int, default=16,
                   help="with --profile: crops a card in the enrolled deck (at most 16)")
    p.add_argument("--compare", default=None, metavar="MODEL",
                   help="another localiser ONNX file, timed alternating frame by frame")
    a = p.parse_args(argv)
    from scorer.errors import InputError
    from scorer.vision import Detector, decode_image

    frames = table_frames(a.frames + WARM_UP, a.cards)
    rss0 = rss_mib()
    det = Detector(a.model, threads=a.threads, tta=False if a.no_tta else None)
    rss1 = rss_mib()
    try:
        decks = _enrol(det, a.profile, a.crops) if a.profile else None
    except InputError as exc:
        print(f"bench_detect: error: {exc}", file=sys.stderr)
        return 2
    rows = []
    found = []
    with_prof = []
    other = Detector(a.compare, threads=a.threads, tta=False if a.no_tta else None) \
        if a.compare else None
    other_ms: list[float] = []
    other_found: list[int] = []

    def with_profile(data: bytes) -> float:
        t0 = time.perf_counter()
        det.detect(decode_image(data), profile=decks.profile(a.profile, det))
        return (time.perf_counter() - t0) * 1e3

    for i, data in enumerate(frames):
        if other is not None and i % 2 == 0:
            _time_other(other, data, i, other_ms, other_found)
        if decks is not None and i % 2 == 0:       # the pair's order alternates
            with_prof.append(with_profile(data))
        t0 = time.perf_counter()
        img = decode_image(data)
        t1 = time.perf_counter()
        d = det.detect(img)
        t2 = time.perf_counter()
        if decks is not None and i % 2 == 1:
            with_prof.append(with_profile(data))
        if i >= WARM_UP:
            rows.append(((t1 - t0) * 1e3, d.timings["localise"], d.timings["classify"],
                         (t2 - t1) * 1e3, (t2 - t0) * 1e3))
            found.append(len(d))
        if other is not None and i % 2 == 1:
            _time_other(other, data, i, other_ms, other_found)
    with_prof = with_prof[3:]
    whole_deck = []
    for _ in range(5 if decks is not None else 0):   # after the frames: its garbage
        t0 = time.perf_counter()                     # would slow the next frame
        decks.store.get(a.profile)
        whole_deck.append((time.perf_counter() - t0) * 1e3)
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
        print(f"  {'reading the whole deck':<22} median {np.median(whole_deck):7.2f} ms   "
              "(what each frame with a deck paid before the cache was checked by "
              "updated_at)")
    if other_ms:
        print(f"  {'compare: total':<22} median {np.median(other_ms):7.2f} ms   p90 "
              f"{np.percentile(other_ms, 90):7.2f} ms   ({a.compare}, detected per "
              f"frame: median {np.median(other_found):.0f})")
    print(f"memory: RSS {rss0:.0f} MiB before models, {rss1:.0f} MiB after loading, "
          f"{rss_mib():.0f} MiB at end; "
          f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    total = sum(sizes.values())
    for n, s in sizes.items():
        print(f"model: {n} {s / 2**20:.2f} MiB")
    print(f"model total: {total / 2**20:.2f} MiB")
    return 0


def _time_other(det, data: bytes, i: int, ms: list, found: list) -> None:
    """Decode and detect ``data`` with the compared model; kept after the warm-up."""
    from scorer.vision import decode_image

    t0 = time.perf_counter()
    d = det.detect(decode_image(data))
    if i >= WARM_UP:
        ms.append((time.perf_counter() - t0) * 1e3)
        found.append(len(d))


def _enrol(det, art_set: str, per_card: int):
    """The deck service of a temporary database holding ``art_set`` as a full deck:
    each card's crop from four layout renders of 12 cards, and ``per_card - 1`` variants
    of it (shifted, turned, lit differently); prints the enrolment's time and size."""
    import tempfile

    from scorer.enrolled import EnrolledDecks
    from scorer.store.decks import MAX_CROPS_PER_CARD, DeckCard, DeckStore
    from scorer.vision.enrol import enrol_layouts
    from scorer.vision.profile import require_embedding
    from training.deck_profile import layout_photos

    require_embedding(det)
    per_card = max(1, min(per_card, MAX_CROPS_PER_CARD))
    photos = layout_photos(art_set, 9_500_000)
    t0 = time.perf_counter()
    found = enrol_layouts(det, [(f"layout-{i}", im) for i, im in enumerate(photos)])
    rng = np.random.default_rng(7)
    cards = [DeckCard(c.code, _variant(c.crop, rng) if k else c.crop, f"variant {k}")
             for c in found for k in range(per_card)]
    decks = EnrolledDecks(DeckStore(Path(tempfile.mkdtemp()) / "games.db"))
    rec = decks.enrol(art_set, cards, det)
    print(f"enrolment of {art_set}: {len(rec.codes)} cards, {len(rec.cards)} crops "
          f"({per_card} a card) from {len(photos)} photos: {time.perf_counter() - t0:.2f} s")
    return decks


def _variant(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop a little shifted, turned and lit differently (another photo's crop)."""
    h, w = crop.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(-4, 4)),
                                float(rng.uniform(0.95, 1.05)))
    m[:, 2] += rng.uniform(-3, 3, 2)
    out = cv2.warpAffine(crop, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    return np.clip(out * rng.uniform(0.85, 1.15), 0, 255).astype(np.uint8)


if __name__ == "__main__":
    sys.exit(main())
