"""The table's frame costs with deck profiles, in process, with the shipped model:

    nice -n 19 .venv/bin/python -m bench.bench_table [--frames 30] [--rounds 5]
        [--cameras 4] [--fps 4] [--seconds 20] [--crops 8] [--part both|first|cameras]

1. **The first ``?deck=`` frame after a learning confirm** against a plain frame: a deck
   of 48 cards x ``--crops`` crops; each of ``--rounds`` rounds is confirmed on the
   table (its piles' crops teach the deck, then the deck's profile is built as a job),
   then one frame is read with the deck. Printed: the median ms of plain frames, of
   frames with the profile kept, of the first frame after each confirm, and what that
   first frame paid before (the profile built on the request thread from every stored
   PNG: ``profile_from_cards(store.get(deck).cards)``, timed the same way).
2. **Two tables on two decks against one**: ``--cameras`` cameras a table, each posting
   a 960x540 frame at ``--fps`` and waiting for its answer (as camera.js does), through
   the web's scheduler (``DetectionService.images(client)``, a worker a core) for
   ``--seconds``: two tables on one deck, then each table on its own deck, and that
   again with the old cache (one deck kept, built from the PNGs). Printed: the answered
   frames a second a camera, the p50/p99 ms of the answers, and the ratio of the rates.

Figures depend on the machine and on what else runs on it; the script prints them, it
asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from bench.load_server import club_frames
from support.servers import percentile, shipped_model

ART = Path(__file__).resolve().parents[2] / "shared" / "card-art" / "louie-mantia"


def deck_cards(det: Any, crops: int, seed: int) -> list[Any]:
    """48 cards x ``crops`` crops of the card art, each a little jittered."""
    from scorer.cards import CODES
    from scorer.store.decks import DeckCard
    rng = np.random.default_rng(seed)
    out = []
    for code in CODES:
        art = cv2.imread(str(ART / f"{code}.png"), cv2.IMREAD_COLOR)
        if art is None:
            art = np.full((det.crop_h, det.crop_w, 3), 128, np.uint8)
        for _ in range(crops):
            img = cv2.resize(art, (det.crop_w, det.crop_h), interpolation=cv2.INTER_AREA)
            img = np.clip(img.astype(np.int16) + rng.integers(-12, 13, img.shape), 0, 255)
            out.append(DeckCard(code, img.astype(np.uint8), "bench"))
    return out


def pile_crops(det: Any, codes: list[str]) -> dict[str, str]:
    import base64
    out = {}
    for code in codes:
        art = cv2.imread(str(ART / f"{code}.png"), cv2.IMREAD_COLOR)
        img = cv2.resize(art if art is not None else np.zeros((150, 96, 3), np.uint8), (96, 150))
        out[code] = "data:image/jpeg;base64," + base64.b64encode(
            cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])[1]).decode()
    return out


def timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def first_frames(det: Any, tmp: Path, a: argparse.Namespace) -> None:
    from scorer.enrolled import EnrolledDecks
    from scorer.images import Inline
    from scorer.store import Database, GameStore
    from scorer.store.decks import DeckStore
    from scorer.table import Table
    from scorer.vision.image import check
    from scorer.vision.profile import profile_from_cards

    db = Database(tmp / "first.db")
    games = GameStore(db)
    table = Table(games, EnrolledDecks(DeckStore(db), games), Inline(det))
    table.decks.enrol("home", deck_cards(det, a.crops, 1), det)
    frame = check(club_frames(1)[0])
    for _ in range(3):                                   # warm the sessions
        table.detect(frame)
        table.detect(frame, "home")
    plain, kept = [], []
    for _ in range(a.frames):                            # in pairs: the load drifts
        plain.append(timed(lambda: table.detect(frame)))
        kept.append(timed(lambda: table.detect(frame, "home")))
    gid = table.create(preset="sakura", options={}, players=["Ann", "Bob"], teams=None,
                       first_dealer="Ann", rounds_planned=a.rounds, deck="home").record.id
    first, after, before, confirm = [], [], [], []
    rng = np.random.default_rng(5)
    from scorer.cards import CODES
    store = table.decks.store
    for n in range(1, a.rounds + 1):
        codes = list(rng.choice(CODES, 16, replace=False))
        for owner, part in (("Ann", codes[:8]), ("Bob", codes[8:])):
            table.save_pile(gid, n, owner, part, version=0, source="camera", detected=part,
                            crops=pile_crops(det, part))
        confirm.append(timed(lambda n=n: table.confirm(gid, n)))
        first.append(timed(lambda: table.detect(frame, "home")))
        after.append(timed(lambda: table.detect(frame)))       # a plain frame beside it
        # what the first frame paid before: the profile from every stored PNG, then the frame
        before.append(timed(lambda: profile_from_cards("home", store.get("home").cards, det))
                      + after[-1])
    med = statistics.median
    print(f"1. deck of {len(store.embeddings('home'))} crops; {a.frames} pairs of frames, "
          f"{a.rounds} learning confirms")
    print(f"   plain frame                      median {med(plain):7.1f} ms")
    print(f"   frame, deck profile kept         median {med(kept):7.1f} ms "
          f"(pairwise ratio to plain {med(k / p for k, p in zip(kept, plain)):.2f})")
    print(f"   first deck frame after a confirm median {med(first):7.1f} ms (max "
          f"{max(first):.1f}); the plain frame after it {med(after):.1f} ms; pairwise ratio "
          f"{med(f / p for f, p in zip(first, after)):.2f}")
    print(f"   the same first frame before (profile from the PNGs on the request thread) "
          f"median {med(before):7.1f} ms")
    print(f"   the learning confirm (learn, then the profile built as a job) "
          f"median {med(confirm):7.1f} ms")


def cameras(det: Any, tmp: Path, a: argparse.Namespace, decks: list[str], old: bool,
            label: str) -> float:
    """Run the cameras (one a deck name in ``decks``) -> the answered fps a camera."""
    from scorer.enrolled import EnrolledDecks
    from scorer.errors import Busy
    from scorer.store import Database, GameStore
    from scorer.store.decks import DeckStore
    from scorer.table import Table
    from scorer.vision.profile import profile_from_cards
    from webui.images.detection import DetectionService
    from webui.images.scheduler import Superseded

    class OldDecks(EnrolledDecks):
        """The cache as it was: one deck kept, built from every stored PNG."""

        def build_profile(self, name: str, detector: Any) -> Any:
            stamp = self.store.updated_at(name)
            profile = profile_from_cards(name, self.store.get(name).cards, detector)
            with self._lock:
                self._profiles.clear()
                self._profiles[name] = ((stamp, id(detector)), profile)
            return profile

    db = Database(tmp / f"{label}.db")
    games = GameStore(db)
    service = DetectionService(detector=det)
    shared = (OldDecks if old else EnrolledDecks)(DeckStore(db), games, kept=1 if old else 8)
    for i, name in enumerate(sorted(set(decks))):
        shared.enrol(name, deck_cards(det, a.crops, 10 + i), det)
    frames = club_frames(4)
    stop = threading.Event()
    lat: list[list[float]] = []
    lock = threading.Lock()

    def camera(k: int, deck: str) -> None:
        from scorer.vision.image import check
        table = Table(games, shared, service.images(("camera", k)))
        mine: list[float] = []
        period = 1.0 / a.fps
        nxt = time.perf_counter() + period * (k % 4) / 4
        i = 0
        while not stop.is_set():
            time.sleep(max(0.0, nxt - time.perf_counter()))
            t0 = time.perf_counter()
            try:
                table.detect(check(frames[i % len(frames)]), deck)
                mine.append((time.perf_counter() - t0) * 1e3)
            except (Busy, Superseded):
                pass
            i += 1
            nxt = max(nxt + period, time.perf_counter())
        with lock:
            lat.append(mine)

    threads = [threading.Thread(target=camera, args=(k, d)) for k, d in enumerate(decks)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    time.sleep(a.seconds)
    stop.set()
    for t in threads:
        t.join()
    took = time.perf_counter() - t0
    every = [x for m in lat for x in m]
    fps = statistics.mean(len(m) / took for m in lat)
    print(f"   {label:<34} {fps:5.2f} fps a camera (asked {a.fps:g}); "
          f"p50 {percentile(every, 50):6.1f} ms, p99 {percentile(every, 99):6.1f} ms "
          f"({len(every)} frames, {service.scheduler.workers} workers)")
    return fps


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=30)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cameras", type=int, default=4)
    p.add_argument("--fps", type=float, default=4.0)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--crops", type=int, default=8, help="crops a card in each deck")
    p.add_argument("--threads", type=int, default=1, help="onnxruntime threads")
    p.add_argument("--part", choices=("both", "first", "cameras"), default="both")
    a = p.parse_args(argv)
    model = shipped_model()
    if model is None:
        print("no shipped model in models/: nothing to measure")
        return 1
    from scorer.vision import Detector
    det = Detector(model, threads=a.threads)
    with tempfile.TemporaryDirectory() as tmp:
        if a.part != "cameras":
            first_frames(det, Path(tmp), a)
        if a.part == "first":
            return 0
        n = a.cameras
        print(f"2. two tables of {n} cameras at {a.fps:g} fps, {a.seconds:g} s each")
        one = cameras(det, Path(tmp), a, ["home"] * 2 * n, False, "both on one deck")
        two = cameras(det, Path(tmp), a, ["home"] * n + ["club"] * n, False,
                      "each on its deck")
        old = cameras(det, Path(tmp), a, ["home"] * n + ["club"] * n, True,
                      "each on its deck, the old cache")
        print(f"   two decks / one deck: {two / one:.2f} of the frame rate "
              f"(the old cache: {old / one:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
