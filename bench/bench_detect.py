"""Benchmark `scorer.vision.Detector` on 640x480 frames of a 20-card table.

    .venv/bin/python -m bench.bench_detect [--frames 60] [--threads 2] [--cards 20]
                                           [--profile [ART_SET]] [--compare MODEL ...]

Prints per-frame latency (median and p90 over the frames, after 3 warm-up frames) for
JPEG decode, localiser, classifier and total; the process's memory (RSS) before and
after loading the models and at the end; and the model files' size. ``--profile``:
enrols ART_SET (default hwatu-commons) as a full deck, 48 cards of ``--crops`` crops
each (the most a deck keeps: one from four rendered layout photos, the others that crop
shifted, turned and lit a little differently), in a temporary games database, and times
each frame also as ``/api/detect?deck=`` reads it: the deck's profile from the app's
deck service (``scorer.enrolled``, cached until the deck changes), then detection with
it (the runs of a frame back to back, which goes first rotating, so all see the same
load: ``training.measure.timing.alternating_ms``, as the ship rule times models).
It also times reading and decoding the whole deck, what every such frame cost before
the cache was checked by the deck's ``updated_at``. ``--compare MODEL``: times another
localiser file (with the classifier and refiner it names) on the same frames, the two
alternating frame by frame (which goes first alternates too), so both see the same
machine load; ``--compare precise``: the same model with onnxruntime's precise int8
products, which a CPU without VNNI needs for 8-bit weights (``scorer.vision.cpu``);
``--compare MODEL:precise``: another model so. ``--compare`` may be given several times:
every detector takes its turn on each frame. ``--follow`` (issue 68): each frame is also
read as the live camera's followed frame (``Detector.follow``, weak readings asked for) at
the outlines the live read of that frame found (the page's tracks; found before the
timing), in turn with the others, and the live read (``--weak``) is what it is compared
with: a live frame costs ``(1 - s) * localised + s * followed`` for a share ``s`` followed
(``bench/capture_fixes.py --every N`` prints the share).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

from training.measure.timing import WARM_UP, alternating_ms, table_frames
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
    p.add_argument("--compare", action="append", default=[], metavar="MODEL",
                   help="another localiser ONNX file, timed alternating frame by frame; "
                        "'eighth': the eighth model (the ship rule's speed reference before "
                        "v6), read from the repository's history; 'precise': the same "
                        "model with onnxruntime's precise int8 products; 'MODEL:precise': "
                        "that model with them; repeatable")
    p.add_argument("--weak", action="store_true",
                   help="read every frame as the live camera does (with its weak readings), "
                        "with and without the profile")
    p.add_argument("--follow", action="store_true",
                   help="also time each frame as a followed live frame (Detector.follow at "
                        "the outlines its live read found), in turn with the others")
    p.add_argument("--precise-int8", action="store_true",
                   help="the precise int8 products even where this CPU's fast ones are exact")
    a = p.parse_args(argv)
    from scorer.errors import InputError
    from scorer.vision import Detector

    frames = table_frames(a.frames + WARM_UP, a.cards)
    rss0 = rss_mib()
    det = Detector(a.model, threads=a.threads, tta=False if a.no_tta else None,
                   precise_int8=True if a.precise_int8 else None)
    rss1 = rss_mib()
    try:
        decks = _enrol(det, a.profile, a.crops) if a.profile else None
    except InputError as exc:
        print(f"bench_detect: error: {exc}", file=sys.stderr)
        return 2
    others = []
    for name in a.compare:
        model, precise = (a.model, True) if name == "precise" else \
            (name.removesuffix(":precise"), True) if name.endswith(":precise") else (name, None)
        if model == "eighth":
            from training import REPO_ROOT
            from training.measure.reference import ReferenceUnavailable, reference_model
            try:
                model = str(reference_model(REPO_ROOT / "runs" / "reference-model"))
            except ReferenceUnavailable as exc:
                print(f"bench_detect: error: {exc}", file=sys.stderr)
                return 2
        others.append(Detector(model, threads=a.threads, tta=False if a.no_tta else None,
                               precise_int8=precise))
    profile = (lambda: decks.profile(a.profile, det)) if decks is not None else None
    timed = _timed(det, frames, others, profile, a.weak, a.follow)
    whole_deck = []
    for _ in range(5 if decks is not None else 0):   # after the frames: its garbage
        t0 = time.perf_counter()                     # would slow the next frame
        decks.store.get(a.profile)
        whole_deck.append((time.perf_counter() - t0) * 1e3)
    r = np.array(timed.rows)
    sizes = {det.model_path.name: det.model_path.stat().st_size,
             det.classifier_path.name: det.classifier_path.stat().st_size}
    if det.refiner_path is not None:
        sizes[det.refiner_path.name] = det.refiner_path.stat().st_size
    print(f"frames: {len(timed.rows)} at 640x480 JPEG, {a.cards} cards laid out per frame "
          f"(detected per frame: median {np.median(timed.found):.0f}), onnxruntime "
          f"{a.threads} threads, cpu count {os.cpu_count()}, 180-degree TTA {det.settings.tta}"
          + (f" (crops below p {det.settings.tta_below})" if det.settings.tta else "")
          + f", int8 products {int8_products(det.precise_int8, a.precise_int8)}")
    for k, name in enumerate(["decode", "localise", "classify", "detect (infer)",
                              "total (decode+infer)"]):
        print(f"  {name:<22} median {np.median(r[:, k]):7.2f} ms   p90 "
              f"{np.percentile(r[:, k], 90):7.2f} ms")
    if timed.with_profile:
        base, mine = np.median(r[:, 4]), np.median(timed.with_profile)
        print(f"  {'total with profile':<22} median {mine:7.2f} ms   p90 "
              f"{np.percentile(timed.with_profile, 90):7.2f} ms   ({100 * (mine / base - 1):+.1f}% "
              f"against without)")
        print(f"  {'reading the whole deck':<22} median {np.median(whole_deck):7.2f} ms   "
              "(what each frame with a deck paid before the cache was checked by "
              "updated_at)")
    if timed.followed:
        mine = np.median(timed.followed)
        print(f"  {'followed frame':<22} median {mine:7.2f} ms   p90 "
              f"{np.percentile(timed.followed, 90):7.2f} ms   ({mine / np.median(r[:, 4]):.3f}x "
              f"the {'live' if a.weak else 'still'} read; Detector.follow, weak readings)")
    for name, other, (ms, found) in zip(a.compare, others, timed.compared):
        print(f"  {'compare: total':<22} median {np.median(ms):7.2f} ms   p90 "
              f"{np.percentile(ms, 90):7.2f} ms   ({name}, int8 products "
              f"{'precise' if other.precise_int8 else 'fast'}, {np.median(ms) / np.median(r[:, 4]):.3f}x; "
              f"detected per frame: median {np.median(found):.0f})")
    print(f"memory: RSS {rss0:.0f} MiB before models, {rss1:.0f} MiB after loading, "
          f"{rss_mib():.0f} MiB at end; "
          f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    total = sum(sizes.values())
    for n, s in sizes.items():
        print(f"model: {n} {s / 2**20:.2f} MiB")
    print(f"model total: {total / 2**20:.2f} MiB")
    return 0


def int8_products(precise: bool, forced: bool) -> str:
    """Which int8 products the detector uses (``Detector.precise_int8``), and why."""
    if not precise:
        return "fast (exact on this CPU for this model's weights)"
    return "precise (--precise-int8)" if forced else "precise (this CPU's fast ones are not exact)"


@dataclass
class Timed:
    """What ``_timed`` measured on the frames after the warm-up: ``rows`` of (decode,
    localise, classify, detect, total) ms and the cards ``found`` per frame; the totals
    ``with_profile``; the totals of the frames ``followed``; each compared detector's totals
    and cards found (``compared``; the first one's also as ``other_ms``, ``other_found``).
    A list not measured is empty."""

    rows: list[tuple] = field(default_factory=list)
    found: list[int] = field(default_factory=list)
    with_profile: list[float] = field(default_factory=list)
    followed: list[float] = field(default_factory=list)
    other_ms: list[float] = field(default_factory=list)
    other_found: list[int] = field(default_factory=list)
    compared: list[tuple[list[float], list[int]]] = field(default_factory=list)


def _timed(det, frames: list[bytes], other=None,
           profile: Callable[[], Any] | None = None, weak: bool = False,
           follow: bool = False) -> Timed:
    """Time ``det`` on ``frames`` by ``training.measure.timing.alternating_ms``, taking turns
    frame by frame with detection under the deck profile that ``profile()`` reads (when
    given), with the frame followed at the outlines its live read found (``follow``) and
    with the ``other`` detector, or each of a list of them (when given); ``weak``: every
    run but the followed one reads the frames as the live camera does."""
    from scorer.vision import decode_image

    others = [] if other is None else list(other) if isinstance(other, (list, tuple)) \
        else [other]
    mine: list[tuple] = []
    theirs: list[list[tuple]] = [[] for _ in others]
    runs: list[Callable[[bytes], object]] = [_recording(det, mine, weak)]
    if profile is not None:
        live = {"weak": True} if weak else {}
        runs.append(lambda data: det.detect(decode_image(data), profile=profile(), **live))
    if follow:
        runs.append(_following(det, frames))
    runs += [_recording(o, rec, weak) for o, rec in zip(others, theirs)]
    ms = alternating_ms(runs, frames)
    out = Timed(rows=[rec[:4] + (total,) for rec, total in zip(mine[WARM_UP:], ms[0])],
                found=[rec[4] for rec in mine[WARM_UP:]])
    if profile is not None:
        out.with_profile = ms[1]
    if follow:
        out.followed = ms[1 + (profile is not None)]
    first = len(runs) - len(others)
    out.compared = [(ms[first + k], [r[4] for r in rec[WARM_UP:]])
                    for k, rec in enumerate(theirs)]
    if out.compared:
        out.other_ms, out.other_found = out.compared[0]
    return out


def _recording(det, records: list[tuple], weak: bool = False) -> Callable[[bytes], None]:
    """A run for ``alternating_ms``: decode a frame and detect with ``det``, appending
    (decode ms, localise ms, classify ms, detect ms, cards found) to ``records``."""
    from scorer.vision import decode_image
    live = {"weak": True} if weak else {}

    def run(data: bytes) -> None:
        t0 = time.perf_counter()
        img = decode_image(data)
        t1 = time.perf_counter()
        d = det.detect(img, **live)
        records.append(((t1 - t0) * 1e3, d.timings["localise"], d.timings["classify"],
                        (time.perf_counter() - t1) * 1e3, len(d)))
    return run


def _following(det, frames: list[bytes]) -> Callable[[bytes], None]:
    """A run for ``alternating_ms``: decode a frame and follow onto it, as the page's
    followed frames do, the outlines (and sure flags) of the cards its live read found."""
    from scorer.vision import decode_image
    outlines = {}
    for data in frames:
        d = det.detect(decode_image(data), weak=True)
        outlines[data] = (d.quads, np.ones(len(d), bool) if d.sure is None
                          else np.asarray(d.sure, bool))

    def run(data: bytes) -> None:
        quads, sure = outlines[data]
        det.follow(decode_image(data), quads, sure, weak=True)
    return run


def _enrol(det, art_set: str, per_card: int):
    """The deck service of a temporary database holding ``art_set`` as a full deck:
    each card's crop from four layout renders of 12 cards, and ``per_card - 1`` variants
    of it (shifted, turned, lit differently); prints the enrolment's time and size."""
    import tempfile

    from scorer.enrolled import EnrolledDecks
    from scorer.store.decks import MAX_CROPS_PER_CARD, DeckCard, DeckStore
    from scorer.vision.enrol import enrol_layouts
    from scorer.vision.profile import require_embedding
    from training.measure.deck_profile import layout_photos

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
